"""The lecture's story: the families named where they first appear, one width per stretch, the real models' bridge
and recap computed live, and speaker notes for every step that never reach the projected screen."""

import numpy as np
import pytest

from posviz import lecture
from posviz.drawing.display import number
from posviz.experiments import decoder
from posviz.lecture import families, notes
from posviz.maths import biases, relative, verdicts
from posviz.maths.encodings import sinusoidal
from tests.harness import routed

KEYS = [s.key for s in lecture.STEPS]


def at(key: str, **values: object) -> lecture.Slide:
    return lecture.slide(KEYS.index(key), **values)


@pytest.mark.parametrize(
    ("key", "words"),
    [("ramp", "absolute rows added to the input"), ("table", "added absolute rows"), ("causal", "implicit"),
     ("rotary", "relative"), ("rotary", "bias to the scores"), ("real", "family 1"), ("llm", "family 2")],
)  # fmt: skip
def test_each_family_is_named_where_it_first_appears(key, words):
    assert words in at(key).claim


def test_the_sinusoid_steps_share_the_lessons_width():
    defaults = [lecture.STEPS[KEYS.index(k)].defaults() for k in ("table", "norms")]
    assert [d["d"] for d in defaults] == [8, 8] and lecture.steps.WIDTH == 8
    assert "d = 8" in at("shift").figures[0].shape["title"]
    assert at("norms").verdict == "every row has ‖pe‖² = 4"  # the lesson's number at D = 8


def test_the_magnitude_step_says_what_its_slope_one_line_shows():
    slide = at("magnitude")
    assert "invisible" not in slide.claim and "in proportion" in slide.claim and "only at scale 0" in slide.claim
    assert slide.ok and slide.verdict == "close, but np.allclose says different"  # exercise 3 at 0.001


def test_the_learned_tables_last_row_is_shown_failing():
    rows = families.table_rows()
    assert rows == 512
    slide = at("lastrow", T=640)
    assert slide.value == 640 - rows and slide.ok
    assert f"refuses a 640-token input: its table has {rows} rows" in slide.verdict
    curve, gap = slide.figures[0].frames
    assert curve.position.max() == rows - 1 and gap.start[0] == rows and gap.end[0] == 640
    fits = at("lastrow", T=512)
    assert fits.value == 0 and not fits.ok
    assert families.refusal(rows) is None and families.refusal(rows + 1) is not None


def test_the_sentence_cosine_has_reference_points_and_the_pages_legend():
    slide = at("sentences")
    refs = slide.figures[0].frames[0]
    cos = dict(zip([c.split("\n")[0] for c in refs["compared with"]], refs.cosine, strict=True))
    assert cos["the same sentence"] == pytest.approx(1.0, abs=1e-12)
    assert cos["reordered"] == pytest.approx(slide.value, abs=1e-12)
    assert cos["unrelated"] < cos["a paraphrase"] < cos["reordered"] < 1  # the claim: less than a paraphrase differs
    assert set(slide.figures[1].frames[0].run) == {"the model", "position rows removed"}  # app_pages/sentences.py's
    assert "Layer 0, the embedding layer, has mixed no tokens yet" in slide.caption


def test_a_real_decoder_answers_exercise_2_beside_the_encoder():
    slide = at("decoder")
    bars = slide.figures[0].frames[0].set_index("run")
    model, sink = decoder.sentence_cosine()
    assert slide.value == model and not verdicts.same_direction(model) and sink > 1
    assert not verdicts.same_direction(decoder.sentence_cosine("none")[0])  # the mask alone still sees order
    assert verdicts.same_direction(decoder.sentence_cosine("none", causal=False)[0])  # neither: a set
    assert bars.loc["MiniLM: the model", "shown"] == f"cos {number(at('sentences').value)}"
    assert "<|im_start|> left out" in slide.caption and "5 shipped layers" in slide.caption


def test_the_recap_table_has_the_families_and_every_live_cell_agrees_with_the_core():
    slide = at("recap")
    table = slide.figures[0].frames[0]
    assert list(dict.fromkeys(table.row)) == [
        "sinusoidal rows",
        "learned table",
        "rotary (RoPE)",
        "bias on the scores",
        "causal mask",
    ]
    assert list(dict.fromkeys(table.column)) == [
        "family",
        "enters",
        "past the trained length",
        "scores, every position +100",
    ]
    cell = table.set_index(["row", "column"]).text
    families_ = [cell[(r, "family")].split("\n")[0] for r in dict.fromkeys(table.row)]
    assert families_ == ["1: absolute", "1: absolute", "2: relative", "2: relative", "3: implicit"]
    q, k = np.random.default_rng(0).standard_normal((2, 16))
    expected = {
        "sinusoidal rows": relative.shift_change(q, k, 24, 100, scheme="sinusoidal"),
        "rotary (RoPE)": relative.shift_change(q, k, 24, 100, scheme="rotary"),
    }
    for row, change in expected.items():
        assert cell[(row, "scores, every position +100")] == f"max change {number(change)}"
    changes = {r.scheme: r.change for r in families.rows()}
    assert not verdicts.negligible(changes["sinusoidal rows"]) and not verdicts.negligible(changes["learned table"])
    assert all(verdicts.negligible(changes[s]) for s in ("rotary (RoPE)", "bias on the scores", "causal mask"))
    assert "no row past 511" in cell[("learned table", "past the trained length")]
    assert "512 rows: lookup refused" in cell[("learned table", "past the trained length")]
    norm = float((sinusoidal(1, 8, start=families.PAST) ** 2).sum())
    assert f"‖pe‖² = {number(norm)}" in cell[("sinusoidal rows", "past the trained length")]
    last_bucket = biases.t5_bucket(np.array([90, 91, 1000]))
    assert (
        last_bucket.tolist() == [30, 31, 31]
        and "offsets ≥ 91" in cell[("bias on the scores", "past the trained length")]
    )
    assert slide.ok and slide.value == max(changes[s] for s in ("rotary (RoPE)", "bias on the scores", "causal mask"))


def test_the_recap_links_the_page_of_each_scheme_by_its_router_title_and_path():
    titles = {title: path for path, title, _ in routed()}
    assert {path for _, path in families.PAGES} >= {
        "sinusoids",
        "rotary",
        "biases",
        "causal",
        "longer",
        "minilm",
        "llm",
    }
    for title, path in families.PAGES:
        assert titles.get(title) == path, (title, path)
        assert f"[{title}](./{path})" in at("recap").caption


SLIDE_TEXT = ("claim", "label", "verdict", "otherwise", "source", "caption")


@pytest.mark.parametrize("key", KEYS)
def test_every_step_has_speaker_notes_that_never_reach_the_screen(key):
    note = notes.note(key)
    assert note is not None, key
    fields = (note.say, note.ask, note.answer, note.misconception)
    assert all(f.strip() for f in fields)
    assert 2 <= note.say.count(". ") + 1 <= 3  # two or three sentences
    assert note.ask.endswith("?")
    slide = at(key)
    shown = " ".join(
        [*(getattr(slide, name) for name in SLIDE_TEXT), *(str(f.shape.get("title", "")) for f in slide.figures)]
    )
    for text in fields:
        assert text not in shown, (key, text)


def test_no_note_is_kept_for_a_step_that_is_gone():
    assert set(notes.NOTES) == set(KEYS)
