"""The lecture's story: the families named where they first appear, one width per stretch, the real models' bridge
and recap computed live, and speaker notes for every step that never reach the projected screen."""

import re

import numpy as np
import pandas as pd
import pytest

from posviz import lecture
from posviz.drawing.display import number
from posviz.experiments import decoder, whole
from posviz.lecture import families, notes
from posviz.maths import biases, relative, verdicts
from posviz.models.minilm import encoder
from tests.harness import routed, spec_leaves

KEYS = [s.key for s in lecture.STEPS]


def at(key: str, **values: object) -> lecture.Slide:
    return lecture.slide(KEYS.index(key), **values)


@pytest.mark.parametrize(
    ("key", "words"),
    [("ramp", "family 1"), ("ramp", "1 absolute, rows added to the input"), ("table", "added absolute rows"),
     ("ramp", "2 relative, attention reads how far apart two tokens are"), ("causal", "implicit"),
     ("rotary", "relative"), ("rotary", "bias to the scores"), ("real", "family 1"),
     ("llm", "family 2")],
)  # fmt: skip
def test_each_family_is_named_where_it_first_appears(key, words):
    assert words in at(key).claim + " " + at(key).caption


def test_the_sinusoid_steps_share_the_lessons_width():
    defaults = [lecture.STEPS[KEYS.index(k)].defaults() for k in ("table", "norms")]
    assert [d["d"] for d in defaults] == [8, 8] and lecture.steps.WIDTH == 8
    assert "d = 8" in at("shift").figures[0].shape["title"]
    assert at("norms").numbers[1] == ("‖peₜ‖², the longest row", "4")  # the lesson's number at D = 8, a headline


def test_the_magnitude_step_says_what_its_slope_one_line_shows():
    slide = at("magnitude")
    assert "invisible" not in slide.claim and "in proportion" in slide.claim and "only at scale 0" in slide.claim
    assert slide.ok and slide.verdict == "small, but over the tolerance: not equal"  # exercise 3 at 0.001
    from posviz.experiments import lessons

    outs = lessons.sentence_experiment().word_outputs("man", 0.001)
    tolerance = max(1e-8 + 1e-5 * abs(v) for v in np.ravel(outs[1]))  # np.allclose's rule, written out
    assert slide.numbers[1] == ("the tolerance, at most", number(tolerance)) and slide.value > tolerance
    # the chart draws the tolerance where the curve is read against it, at every scale the control offers
    for scale in (0.0001, 0.001, 0.1):
        shown = at("magnitude", scale=scale)
        outs = lessons.sentence_experiment().word_outputs("man", scale)
        level = shown.figures[0].frames[-1]
        assert level["y"].tolist() == [max(1e-8 + 1e-5 * abs(v) for v in np.ravel(outs[1]))]
        assert level["label"].tolist() == [f"tolerance at {number(scale)}: {number(level['y'][0])}"]
        assert level["short"].tolist() == [f"tolerance: {number(level['y'][0])}"]  # a phone's: clear of the marker


def test_the_learned_tables_last_row_is_shown_failing():
    rows = families.table_rows()
    assert rows == 512
    slide = at("lastrow", T=640)
    assert slide.value == 640 - rows and slide.ok
    assert f"refuses a 640-token input: its table has {rows} rows" in slide.verdict
    curve, gap = slide.figures[0].frames[:2]
    assert curve.position.max() == rows - 1 and gap.start[0] == rows and gap.end[0] == 640
    fits = at("lastrow", T=512)
    assert fits.value == 0 and not fits.ok
    assert families.refusal(rows) is None and families.refusal(rows + 1) is not None


def test_the_sentence_cosine_has_reference_points_and_the_pages_legend():
    slide = at("sentences")
    refs = slide.figures[0].frames[0]
    cos = dict(zip([c.split("\n")[0] for c in refs["compared with"]], refs.cosine, strict=True))
    assert cos["the same sentence"] == pytest.approx(1.0, abs=1e-12)
    written = refs.set_index(refs["compared with"].str.split("\n").str[0]).shown  # each bar's value as written
    assert slide.shown == written["reordered"] and float(written["reordered"]) == pytest.approx(
        cos["reordered"], abs=0.005
    )
    assert cos["unrelated"] < cos["a paraphrase"] < cos["reordered"] < 1  # the claim: less than a paraphrase differs
    assert set(slide.figures[1].frames[0].run) == {"the model", "position rows removed"}  # app_pages/sentences.py's
    said = notes.note("sentences").say  # the 0-layer gap's reason: the speaker's, not the caption's
    assert "At 0 layers run no token has mixed, yet the orders already differ a little" in said
    layers = slide.figures[1].frames[0].query("run == 'the model'").sort_values("layer")
    assert not verdicts.machine_zero(layers.distance.iloc[0])  # the word-position pairing, normalised: not rounding
    assert slide.numbers[2] == (
        "a paraphrase",
        refs.set_index(refs["compared with"].str.split("\n").str[0]).shown["a paraphrase"],
    )  # the claim's comparison, in large type, as its bar writes it
    # the caption's reason: the word + position rows' plain sum is the same for both orders; normalised, it is not
    from posviz.models import minilm
    from posviz.models.minilm import encoder, layer0

    rows = encoder.active_encoder().embeddings
    raw = [
        rows.word_rows(ids) + rows.position[: ids.size] + rows.token_type[0]
        for ids in (minilm.tokenize(text).ids for text in ("dog bites man", "man bites dog"))
    ]
    assert np.abs(raw[0].sum(axis=0) - raw[1].sum(axis=0)).max() < 1e-12
    normalised = [layer0.embed(rows, minilm.tokenize(text).ids) for text in ("dog bites man", "man bites dog")]
    assert np.abs(normalised[0].sum(axis=0) - normalised[1].sum(axis=0)).max() > 1e-3
    assert "rescaled alone (to mean 0, spread 1); unscaled, the rows' sum is the same for both" in said


def test_the_sentence_steps_two_line_bar_labels_are_centred_on_their_bars():
    from posviz.drawing import engine

    fig = at("sentences").figures[0]
    assert all("\n" in label for label in fig.frames[0]["compared with"])  # every label two lines
    spec = engine.chart_spec(fig.builder, *fig.frames, presenter="hall", **fig.shape)
    axes, stack = [], [spec]
    while stack:
        node = stack.pop()
        stack += node.get("layer", [])
        axes += [y["axis"] for y in [node.get("encoding", {}).get("y", {})] if "axis" in y]
    # Vega sets a label's first line on the tick: "line-bottom" lifts it half a line, so two lines straddle the bar
    assert axes and all(axis["labelBaseline"] == "line-bottom" for axis in axes)


def test_a_real_decoder_answers_exercise_2_beside_the_encoder(monkeypatch, tmp_path):
    monkeypatch.setenv("POSVIZ_CACHE", str(tmp_path))  # an empty cache: the shipped 5 layers
    slide = at("decoder")
    model, sink = decoder.sentence_cosine()
    assert slide.value == float(f"{1 - model:.3g}") and not verdicts.same_direction(model) and sink > 1
    assert not verdicts.same_direction(decoder.sentence_cosine("none")[0])  # the mask alone still sees order
    assert verdicts.same_direction(decoder.sentence_cosine("none", causal=False)[0])  # neither: a set
    assert "without <|im_start|>, the marker token each chat message starts with" in slide.caption
    assert (
        "first 5 of its 30 layers (only part of the model" in slide.caption
        and "states (a layer's output vectors)" in slide.caption
    )
    assert len(slide.numbers) == 3 and slide.numbers[2] == ("both off", "0")  # the baseline
    assert not any(
        "MiniLM" in label for label, _ in slide.numbers
    )  # step 18's MiniLM (a whole encoder) is not set beside a part of SmolLM2


def test_the_decoder_step_headlines_rope_off_and_draws_the_gap_it_makes_on_a_linear_axis(monkeypatch, tmp_path):
    from posviz.lecture import steps

    monkeypatch.setenv("POSVIZ_CACHE", str(tmp_path))  # an empty cache: the shipped 5 layers
    slide = at("decoder")
    model, mask_only = decoder.sentence_cosine()[0], decoder.sentence_cosine("none")[0]
    expected = (
        ("SmolLM2: 1 − cosine", f"{1 - model:.3g}"),  # the bars' measure: their gap seen here too
        ("RoPE off, mask only", f"{1 - mask_only:.3g}"),  # three digits: "a little further" needs two
        ("both off", "0"),  # the claim's "alone" rests on it: a bar label before
    )
    assert slide.numbers == expected
    assert "5 of 30 layers" in slide.figures[0].shape["title"]
    bars = slide.figures[0].frames[0].set_index("run")
    assert list(bars.index) == list(steps.SMOLLM2_BARS.values())
    on, off = bars["1 − cosine"].iloc[:2]
    assert on == pytest.approx(1 - model) and off == pytest.approx(1 - mask_only) and on != pytest.approx(off)
    assert bars["shown"].iloc[:2].tolist() == [f"{1 - model:.3g}", f"{1 - mask_only:.3g}"]  # as the headlines
    assert bars["1 − cosine"].iloc[2] == 0 and bars["shown"].iloc[2] == "0"  # neither: as its headline writes it
    assert slide.figures[0].shape["x_title"] == "1 − cosine (0: the same vector, up to rounding)"  # what that 0 is
    low, high = slide.figures[0].shape["span"]
    assert low == 0 and high > max(on, off)  # linear, from 0: the two bars' lengths compare as their values
    assert slide.figures[0].builder.__name__ == "across_bars"


def test_the_decoder_step_draws_each_re_rounding_its_claim_counts(monkeypatch, tmp_path):
    """Its claim says "in 16 of 20 re-roundings": the 20 are drawn, one dot each (RoPE + mask minus mask only,
    recomputed from `decoder.rounding_gaps`), the count written, and its 4 the other way seen below 0."""
    monkeypatch.setenv("POSVIZ_CACHE", str(tmp_path))  # an empty cache: the shipped 5 layers, re-rounded
    slide = at("decoder")
    assert len(slide.figures) == 2 and slide.figures[1].builder.__name__ == "ranked_dots"
    dots = slide.figures[1].frames[0]
    redrawn = decoder.rounding_gaps(decoder.ROUNDING_DRAWS, 0)
    gaps = np.sort(redrawn["RoPE + mask"] - redrawn["RoPE off"])[::-1]
    drawn = dots[~dots["stored"]]
    np.testing.assert_allclose(drawn["value"], gaps)
    above = int((gaps > 0).sum())
    assert drawn["above"].tolist() == (gaps > 0).tolist() and set(dots["label"]) == {f"{above} of {gaps.size} above 0"}
    assert set(dots["below"]) == {f"{gaps.size - above} below"}  # the vermillion dots counted in their colour
    # the model as stored, a ring among them: its headlines' two gaps subtracted (the reader could not find it)
    model, mask_only = decoder.sentence_cosine()[0], decoder.sentence_cosine("none")[0]
    (ring,) = dots.loc[dots["stored"], "value"]
    assert ring == pytest.approx((1 - model) - (1 - mask_only)) and dots["value"].is_monotonic_decreasing
    assert dots["rank"].tolist() == list(range(gaps.size + 1))
    assert f"(in {above} of {gaps.size} re-roundings)" in slide.claim and 0 < above < gaps.size


def test_the_decoder_step_runs_all_30_layers_and_its_claim_follows_the_measured_cosines_when_fetched():
    from posviz.experiments import whole

    if whole.whole_path() is None:
        pytest.skip("the whole SmolLM2 is not in the cache: `posviz models fetch smollm2` (POSVIZ_CACHE)")
    slide = at("decoder")
    assert len(slide.figures) == 1  # no re-roundings of the whole file: no dots
    bars = slide.figures[0].frames[0].set_index("run")
    (model, sink), mask_only = whole.sentence_cosine(), whole.sentence_cosine("none")[0]
    assert slide.value == float(f"{1 - model:.3g}") and not verdicts.same_direction(model) and sink > 1
    assert slide.also == (("RoPE off, mask only", float(f"{1 - mask_only:.3g}")), ("both off", 0.0))
    assert bars.loc[lecture.steps.SMOLLM2_BARS["SmolLM2, RoPE off"], "shown"] == f"{1 - mask_only:.3g}"
    assert verdicts.same_direction(whole.sentence_cosine("none", causal=False)[0])  # neither: a set
    assert "after all 30 layers" in slide.caption and "fetched whole SmolLM2" in slide.source
    assert model != pytest.approx(decoder.sentence_cosine()[0], abs=1e-4)  # the shipped part's caption: they differ
    further = "RoPE (family 2) a little further" in slide.claim  # the claim says which measured cosine is lower
    assert further == (model < mask_only) and ("further than with RoPE (family 2) on" in slide.claim) != further


def test_the_previous_token_head_step_counts_the_shipped_heads_without_the_whole_file(monkeypatch, tmp_path):
    monkeypatch.setenv("POSVIZ_CACHE", str(tmp_path))
    slide, reading = at("llm"), decoder.read(decoder.DEFAULT_TEXT)
    found = decoder.positional_heads(reading, "previous-token")
    off = decoder.previous_rope_off(reading)[1, 2]  # the same head with every angle 0 (the mask kept)
    even = verdicts.uniform_sink(reading.T, reading.first)  # the even split the caption defines
    two = [float(f"{v:.2g}") for v in (off, even)]  # two digits: the comparison needs no more
    assert slide.also == (("RoPE off, on t−1", two[0]), ("an even split, on t−1", two[1]))  # not 1/T: 1/(t + 1)
    assert off < 2 * even  # RoPE off, the head reads t−1 about as an even split does
    assert off < decoder.ROLE_THRESHOLD < reading.previous[1, 2]  # the claim's cause, measured: RoPE off, no head
    assert slide.claim.endswith("read the previous token, and with RoPE off it does not.")
    assert ";" not in slide.claim and slide.claim.count(":") == 0  # one sentence, read aloud without a pause mark
    named = ", ".join(f"layer {i} head {j}" for i, j in np.argwhere(reading.roles == "previous-token"))
    assert found and f"previous-token heads in the first 5 layers (of 30): {named}" in slide.source
    words = "<|im_start|> " + decoder.DEFAULT_TEXT  # as typed: "dog ," read as a glitch
    assert slide.caption.startswith(
        f"On t−1 and each bar: the mean weight that far back over the queries t ≥ {reading.first} that reach it"
    )
    assert slide.caption.endswith(
        f"The lecture sentence, tokens t = 0 to {reading.T - 1} (the map names some): {words}"
    )


def test_the_previous_token_head_step_counts_all_270_heads_when_the_whole_file_was_fetched():
    from posviz.experiments import whole
    from posviz.lecture import steps

    if whole.whole_path() is None:
        pytest.skip("the whole SmolLM2 is not in the cache: `posviz models fetch smollm2` (POSVIZ_CACHE)")
    slide, fetched = at("llm"), steps.whole_reading()
    roles = decoder.head_roles(fetched.sink, fetched.previous)
    count = int((roles == "previous-token").sum())
    assert count > 0 and "how many heads" not in " ".join(label for label, _ in slide.also)  # the count: source
    shipped = decoder.read(decoder.DEFAULT_TEXT).roles  # the shipped five layers: the whole file's first five
    assert (roles[: shipped.shape[0]] == shipped).all()
    heads = ", ".join(f"layer {i} head {j}" for i, j in np.argwhere(roles == "previous-token"))
    assert f"previous-token heads in all 30 layers: {heads}" in slide.source


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
        "family: where it enters",
        "past the trained length (step 18)",
        "scores, positions +100",
    ]
    cell = table.set_index(["row", "column"]).text
    families_ = [cell[(r, "family: where it enters")].split("\n")[0].split(" (")[0] for r in dict.fromkeys(table.row)]
    assert families_ == ["1: absolute", "1: absolute", "2: relative", "2: relative", "3: implicit"]
    q, k = np.random.default_rng(0).standard_normal((2, 16))
    expected = {
        "sinusoidal rows": relative.shift_change(q, k, 24, 100, scheme="sinusoidal"),
        "rotary (RoPE)": relative.shift_change(q, k, 24, 100, scheme="rotary"),
    }
    for row, change in expected.items():
        assert cell[(row, "scores, positions +100")].startswith(f"max change {number(change)} (step 13)\n"), row
    changes = {r.scheme: r.change for r in families.rows()}
    assert not verdicts.negligible(changes["sinusoidal rows"]) and not verdicts.negligible(changes["learned table"])
    assert all(verdicts.negligible(changes[s]) for s in ("rotary (RoPE)", "bias on the scores", "causal mask"))
    past = {r: cell[(r, "past the trained length (step 18)")] for r in dict.fromkeys(table.row)}
    assert (
        past["learned table"].startswith("trained here: no row past 127\n")  # which table first: two are met
        and past["learned table"].endswith("MiniLM: 513+ tokens refused (step 17)")
    )
    rise = families.measured()
    for row, scheme in (("sinusoidal rows", "sinusoid"), ("rotary (RoPE)", "rope"), ("causal mask", "none")):
        assert past[row].startswith(f"loss {rise[scheme].written}\n"), row  # as step 18's bar: the seeds' range
    assert past["bias on the scores"].startswith(f"ALiBi: loss {rise['alibi'].written}\n")
    last_bucket = biases.t5_bucket(np.array([90, 91, 1000]))
    assert last_bucket.tolist() == [30, 31, 31]
    assert "T5, not trained here: far offsets share a bucket" in past["bias on the scores"]  # 91 on: bucket 31
    assert "offsets past 127 unseen (the cause? untested)" in past["rotary (RoPE)"]  # as step 18: the why untested
    assert "learned" not in rise  # no row past its table: words, not a number
    assert "not the ALiBi or RoPE papers' results" in slide.source and "at 512-1023 minus 0-127" in slide.source
    assert all(verdicts.negligible(changes[s]) for s in ("rotary (RoPE)", "bias on the scores", "causal mask"))


def test_every_recap_number_was_shown_on_the_step_its_cell_names():
    table = at("recap").figures[0].frames[0]
    for text in table.query("column == 'scores, positions +100'").text:
        shown, step = re.match(r"max change (\S+) \(step (\d+)\)\n", text).groups()
        screen = screen_words(lecture.slide(int(step) - 1))
        assert re.search(rf"(?<![\d.]){re.escape(shown)}(?![\d])", screen), (text, step)
    (heading,) = [c for c in dict.fromkeys(table.column) if c.startswith("past the trained length")]
    step = int(re.search(r"\(step (\d+)\)", heading).group(1))
    bars = set(lecture.slide(step - 1).figures[1].frames[0].shown)  # the step's bars, at its defaults
    for text in table.query("column == @heading").text:
        first = text.split("\n")[0].removeprefix("ALiBi: ").removeprefix("loss ")
        first = first.removeprefix("trained here: ")  # the learned table's cell: the trained model's, then MiniLM's
        assert first in bars, (first, bars)


def test_the_recap_returns_to_step_1s_test_with_each_familys_signal():
    slide = at("recap")
    assert slide.claim.startswith("Back to step 1") and slide.ok
    from posviz.experiments import lessons

    rotary = lessons.order_experiment(position="rotary").max_diff  # family 2 in step 1's test: RoPE on query and key
    numbers = [slide.value, *(v for _, v in slide.also)]
    assert numbers == [at("ramp").value, rotary, at("causal").value, at("shuffle").value]  # 3.4998, 0.458, 1.65, 4e-16
    labels = [slide.label, *(label for label, _ in slide.also)]
    assert labels == ["ramp (step 3)", "rotary, shuffled", "mask (step 14)", "step 1 alone"]
    assert not any(verdicts.machine_zero(v) for v in numbers[:3]) and verdicts.machine_zero(numbers[3])
    # the badge, under the first number, is the families' verdict (under step 1's number it read as the recap's)
    assert slide.tone == "shown" and slide.verdict == "3 break it"
    # what the four numbers are, in both modes' line under them (a phone shows the source, a projector the hall)
    assert slide.source.startswith("headlines: step 1's shuffle test with each family's signal added")
    assert slide.hall == "step 1's test per family; rotary: a shift keeps t − s, a shuffle not"  # vs step 13
    assert slide.caption.startswith("Rotary in step 1's test: a shuffle changes the offsets t − s")  # vs step 13


def test_every_recap_score_cell_names_its_source_and_the_learned_one_is_minilms_shipped_table():
    from posviz.models import minilm

    cell = at("recap").figures[0].frames[0].set_index(["row", "column"]).text
    scores = {r.scheme: cell[(r.scheme, "scores, positions +100")].split("\n")[1] for r in families.rows()}
    assert scores == {
        "sinusoidal rows": "sin/cos formula, d = 16",
        "learned table": "MiniLM's own rows, d = 384",
        "rotary (RoPE)": "rotation formula, d = 16",
        "bias on the scores": "ALiBi slope 1/32, T5 stand-in",  # head 5 of 8's slope, 2^−5 (the biases page's)
        "causal mask": "keys s ≤ t kept, d = 16",
    }
    table = minilm.default_model().position  # an independent reference: the shipped rows 0-23 and 100-123
    q, k = np.random.default_rng(0).standard_normal((2, table.shape[1]))
    a, b = table[:24], table[100:124]
    shipped = np.abs((q + b) @ (k + b).T - (q + a) @ (k + a).T).max()
    change = {r.scheme: r.change for r in families.rows()}["learned table"]
    assert change == pytest.approx(shipped, rel=1e-12)
    assert change != pytest.approx(families.learned_change(shipped=False), rel=1e-3)  # not the seeded stand-in
    assert "MiniLM table" not in at("recap").source and "each cell's source under its number" in at("recap").source


def test_the_recap_measures_the_alibi_head_the_biases_page_shows():
    from pathlib import Path

    from streamlit.testing.v1 import AppTest

    from posviz.experiments import longer

    page = AppTest.from_file(str(Path(__file__).resolve().parents[1] / "app_pages" / "biases.py"), default_timeout=60)
    page.run()
    shown = longer.alibi_slope(longer.ALIBI_HEADS, longer.ALIBI_HEAD)
    words = f"ALiBi is head {longer.ALIBI_HEAD} of {longer.ALIBI_HEADS} (slope {number(shown)})"
    assert any(words in m.value for m in page.markdown), "the biases page's default head"
    assert families.ALIBI == {"heads": longer.ALIBI_HEADS, "head": longer.ALIBI_HEAD}
    bias = {r.scheme: r for r in families.rows()}["bias on the scores"]
    assert f"ALiBi slope 1/{1 / shown:g}, " in bias.computed  # the same head's penalty, written out


def test_the_past_column_measures_each_trained_schemes_rise_from_the_curves():
    from posviz.experiments import matched

    curves = matched.family_curves()
    a, b = families.past_window()
    T = b // 8
    rise = families.measured()
    for scheme in ("none", "sinusoid", "rope", "alibi"):
        per_seed = [c[a:b].mean() - c[:T].mean() for k, c in curves.items() if k.startswith(f"{scheme}-seed")]
        assert rise[scheme].mean == pytest.approx(np.mean(per_seed), abs=1e-12)
        assert rise[scheme].low == min(per_seed) and rise[scheme].high == max(per_seed) and rise[scheme].seeds == 2
    with pytest.raises(ValueError, match="expected 0 < T_train <= start < stop, got T_train 128, start 64"):
        matched.rises(curves, 128, 64, 256)


def test_the_trained_models_step_headlines_the_chosen_schemes_rise_beside_ropes():
    from posviz.experiments import matched

    slide = at("buys")
    rise = families.measured()
    named = [k for group in families.ex.extremes(rise) for k in group if k not in ("alibi", "rope")]
    # one number of decimals for all: 3 if any of their seeds' pairs prints alike at 2 (8 windows: mask only)
    places = max(rise[k].places for k in ("alibi", "rope", *named))
    assert slide.value == round(rise["alibi"].mean, places)
    assert slide.ok == (rise["alibi"].high < rise["rope"].low or rise["rope"].high < rise["alibi"].low)
    expected = (
        ("ALiBi: loss rise", number(round(rise["alibi"].mean, places), grouped=True)),
        ("RoPE: loss rise", number(round(rise["rope"].mean, places), grouped=True)),
        # every other scheme the claim names (8 windows: mask only, beside ALiBi)
        *((f"{lecture.steps.SCHEME_LABELS[k]}: loss rise", number(round(rise[k].mean, places))) for k in named),
    )
    assert slide.numbers == expected
    assert not re.search(r"\d", slide.verdict + slide.otherwise)  # the badge in words, the numbers in headlines
    assert "not the ALiBi or RoPE papers' results" in slide.caption and "T_train = 128" in slide.caption
    # the claim's word in a hall's type, or that a scheme which rose least started highest (its own test)
    assert slide.hall.startswith("loss: how badly the next byte is guessed") or "a rise is not a level" in slide.hall
    curve, bars = slide.figures
    labels = {**lecture.steps.SCHEME_LABELS, "learned": "learned (to 127)"}  # "RoPE", never the identifier "rope"
    drawn = set(labels.values()) - {"learned (to 127)"}  # its lines stop at 127: the bars say so
    assert curve.name == "heldout-by-position" and set(curve.frames[0].scheme) == drawn
    colours = dict(bars.shape["colours"])  # a scheme's colour is one colour on the step
    assert dict(curve.shape["colours"]) == {k: c for k, c in colours.items() if k in drawn}
    table = bars.frames[0].set_index("category")
    assert list(table.index) == [labels[k] for k in families.matched.SCHEMES]  # the bars name the curves' colours
    assert table.loc["learned (to 127)", "shown"] == "no row past 127" and "learned" not in rise
    assert table.loc["ALiBi", "chosen"] and not table.loc["RoPE", "chosen"]
    expected = {labels[k]: r.mean for k, r in rise.items()}
    assert table.value.drop("learned (to 127)").to_dict() == pytest.approx(expected)
    rope = at("buys", scheme="rope", reach=2)
    early = matched.rises(matched.family_curves(), 128, 128, 256)
    least, most = matched.extremes(early)
    places = max(early[k].places for k in ("rope", "alibi", *least, *most))  # the headlines' one number of decimals
    assert rope.value == round(early["rope"].mean, places) and rope.label == "RoPE: loss rise"
    names = lecture.steps.SCHEME_NAMES
    said = (" or ".join(names[k] for k in group) for group in (least, most))
    assert rope.claim.endswith("rose least with {} and most with {}.".format(*said))  # one comparison, no third
    lowest = min(early.values(), key=lambda r: r.mean)
    for k in least:  # a scheme named beside the lowest overlaps its seeds' range; one left out does not
        assert early[k].low <= lowest.high
    assert all(r.low > lowest.high for k, r in early.items() if k not in least)
    with pytest.raises(ValueError, match="reach must be one of 2, 4, 8"):
        at("buys", reach=3)


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
        "matched",
    }
    for title, path in families.PAGES:
        assert titles.get(title) == path, (title, path)
        assert f"[{title}](./{path})" in at("recap").caption


SLIDE_TEXT = ("claim", "label", "verdict", "otherwise", "source", "hall", "caption")


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


BADGE_FREE = ("pairs", "plain", "table", "rotary", "buys", "sentences", "decoder", "recap")  # numbers: headlines


@pytest.mark.parametrize("key", BADGE_FREE)
def test_the_numbers_a_claim_rests_on_are_headlines_not_badge_words(key):
    shown = at(key)
    decimal = re.compile(r"\d[.,]\d|\de-\d")  # a measured value, not a step's count or "0 up to rounding"
    assert not decimal.search(shown.verdict), shown.verdict
    assert all(text and text != "nan" for _, text in shown.numbers)


def test_the_second_headlines_hold_the_numbers_the_badges_held():
    from posviz.experiments import lessons

    r = lessons.pair_move_experiment(position="ramp", scale=0.6)
    assert [v for _, v in at("pairs").also] == [r.tokens_only, r.positions_only]
    assert at("pairs").also[0][1] == at("ramp").value  # step 4's "tokens only" is step 3's shuffle test, 3.4998
    s = lessons.pair_move_experiment(position="sinusoidal")
    assert [v for _, v in at("pairs", position="sinusoidal").also] == [s.tokens_only, s.positions_only]
    q, k = np.random.default_rng(0).standard_normal((2, 16))
    added = relative.shift_change(q, k, 24, 100, scheme="sinusoidal")
    moved = at("rotary", shift=100)
    # the recap's score column, every cell in headline type on step 13 (the biases and the mask share one: both 0)
    assert moved.numbers == (
        ("RoPE, +100", at("rotary").shown),
        (
            "ALiBi, T5, mask",
            number(max(families.bias_change("alibi"), families.bias_change("t5"), families.mask_change())),
        ),
        ("added sinusoids", number(added)),
        ("MiniLM (step 15)", number(families.learned_change(), grouped=True)),
    )
    assert moved.numbers[2][1] != moved.shown  # the two differ: 5.35 vs 0
    assert not re.search(r"\d\.\d", moved.caption)  # no number left in caption type
    assert len(at("rotary", shift=10_000).numbers) == 3  # MiniLM's table has no rows 10,000 on: no number
    assert "MiniLM's table has no rows that far" in at("rotary", shift=10_000).caption
    assert at("table").value == pytest.approx(2 * np.pi)  # pair 0 first, then the slowest pair: left to right, i grows
    assert at("table").also[0] == ("wavelength, pair 3", pytest.approx(2 * np.pi * 10_000 ** (6 / 8)))


def test_the_three_families_are_framed_at_the_first_and_met_in_order():
    assert "family 1" in at("ramp").claim
    assert at("ramp").caption.startswith("Three families, the ways position gets in: ")
    first = {}
    for i, key in enumerate(KEYS):
        for n in re.findall(r"[Ff]amily (\d)", at(key).claim):
            first.setdefault(int(n), i)
    assert sorted(first) == [1, 2, 3] and first[1] < first[2] < first[3], first
    framing = at("ramp").caption  # all three named where the first appears, each with the step that shows it
    named = re.findall(r"(\d) (absolute|relative|implicit), [^;(]+\((here|step (\d+))\)", framing)
    assert [(int(n), kind) for n, kind, _, _ in named] == [(1, "absolute"), (2, "relative"), (3, "implicit")], framing
    assert [KEYS.index("ramp") if where == "here" else int(step) - 1 for _, _, where, step in named] == [
        first[1],
        first[2],
        first[3],
    ]


def screen_words(shown: lecture.Slide, presenter: bool = False) -> str:
    """Every text a step shows: claim, headline labels and numbers, verdict, caption, the expected value's line (its
    full source on a desk, its hall words in `presenter` mode), and each figure's titles, axes and text cells."""
    said = shown.projected_source if presenter else shown.source
    parts = [shown.claim, shown.verdict, shown.caption, said, *(" ".join(n) for n in shown.numbers)]
    for fig in shown.figures:
        shape = fig.shape
        words = ("title", "subtitle", "x_title", "y_title", "row_title", "col_title", "what", "value_title")
        parts += [str(shape.get(k) or "") for k in words]
        style = shape.get("style")
        if style is not None:
            parts += [style.row_title, style.col_title, style.value_title]
        for frame in fig.frames:
            words = [c for c in frame.columns if frame[c].dtype == object or pd.api.types.is_string_dtype(frame[c])]
            parts += [str(v) for c in words for v in frame[c].unique()[:40]]  # pandas 3 reads text as "str", not object
    return " ".join(parts)


# A term a student may not know, the step that defines it (on its screen) and the words that define it there.
FIRST_LAYERS = r"\bfirst \d+ (of its \d+ )?layers\b"  # step 19's part of SmolLM2
RE_ROUNDING = r"\bre-roundings?\b"  # step 19's shipped layers rounded again: not drawn for the whole file
EIGHT_BITS = r"\b8[ -]bits?\b"  # step 16's 8-bit MiniLM: with the published float32 one fetched, step 19 says it first
TERMS = [
    (r"\btoken\b", "shuffle", "A token: a word or word piece, here a row of X"),
    (r"attn\(X\)", "shuffle", "attn(X): attention, as in transformers"),
    (r"\bdimensions?\b", "shuffle", "(its numbers: dimensions)"),
    (r"\bLLM\b", "decoder", "LLM (large language model"),
    (r"\bSmolLM2\b", "decoder", "SmolLM2, a small LLM (large language model)"),
    (r"\bramp\b", "twins", "the ramp E = 0.6(t + 1)"),
    (r"\bposition rows?\b", "twins", "a position row (a row per position t"),
    (r"\bseed\b", "shuffle", "A seed: a fixed start for random numbers"),
    (r"\btransformers?\b", "shuffle", "attention, as in transformers (today's language models)"),
    (r"\bW₁", "plain", "W₁, W₂: attention matrices"),
    (r"\bwavelength", "table", "wavelength (positions before it repeats)"),
    (r"‖peₜ‖² = d/2", "norms", "d: the width"),
    (r"\bMₖ", "shift", "one fixed matrix Mₖ"),
    (r"\de-\d", "shuffle", "4.4e-16 = 4.4 × 10⁻¹⁶: zero up to float rounding"),
    (r"\bgap\b", "twins", "The gap: the largest difference between the copies' output rows"),
    (r"\bout₁", "plain", "out₁, out₂: the output of 'man' in each sentence"),
    (r"\bquery\b", "plain", "Each token has a query vector (what it looks for)"),
    (r"\bkey\b", "plain", "a key vector (what it offers)"),
    (r"\bRoPE\b", "rotary", "rotary (RoPE) turns each query and key vector by its position"),
    (r"\bALiBi\b", "rotary", "ALiBi a penalty −slope × |t − s|"),
    (r"\bslope\b", "rotary", "slope 1/32 here"),
    (r"\bbias\b", "rotary", "a bias to the scores (a number added to each)"),
    (r"\bembedding\b", "rotary", "an embedding: the vector a token or a position gets"),
    (r"\bRoPE off\b", "decoder", "RoPE off: no query or key turned"),
    (r"\bmask off\b", "decoder", "mask off: every token reads all"),
    (r"\bparameters\b", "real", "parameters (its learned numbers"),
    (r"\bmedian\b", "real", "median (middle)"),
    (RE_ROUNDING, "decoder", "A re-rounding: its parameters rounded again as coarsely as stored"),
    (EIGHT_BITS, "sentences", "8 bits (binary digits"),
    (r"\b4 (or|and) 8 bits\b", "decoder", "in 4 or 8 bits: rounded to 16 or 256 levels"),
    (r"\bmatri(x|ces)\b", "shuffle", "a random matrix (a grid of numbers"),
    (r"\bT5\b", "rotary", "T5 a learned bias for each bucket (a range of t − s)"),
    (r"\bbucket\b", "rotary", "bucket (a range of t − s)"),
    (r"\blearned\b", "pairs", "learned, a table fitted to data"),
    (r"\blog axis\b|\(log", "pairs", "Log axis: equal steps up multiply by equal factors"),
    (r"\bstand-in\b", "pairs", "learned, a table fitted to data (a real model's: step 15), here a random stand-in"),
    (r"\boffset t − s\b", "rotary", "a score sees only the offset t − s"),
    (r"\bdecoder\b", "causal", "A decoder, a model writing left to right"),
    (r"\bencoder\b", "real", "encoder (a model reading whole texts"),
    (r"\bcosine\b", "real", "(1: same direction, 0: right angles)"),
    (r"\bheld-out\b", "buys", "text never trained on"),
    (r"\bnats per byte\b", "buys", "Loss: how badly the next byte is guessed, in nats (natural-log units) per byte"),
    (r"\bloss\b", "buys", "Loss: how badly the next byte is guessed"),
    (r"\bT_train\b", "buys", "T_train = 128 bytes, the longest sequence trained on"),
    (r"\bbytes?\b", "buys", "each token a byte (about a character)"),
    (r"\bfloats?\b", "shuffle", "a float: a number kept to about 16 digits here"),
    (r"\btolerance\b", "magnitude", "tolerance: the largest difference still counted as equal"),
    (r"\btrained\b", "rotary", "Learned, trained: fitted to data"),
    (r"\bstates\b", "decoder", "states (a layer's output vectors)"),
    (r"<\|im_start\|>|\bstart marker\b", "decoder", "<|im_start|>, the marker token each chat message starts with"),
    (r"\bhead \d", "llm", "one of a layer's 9 attention matrices"),
    (r"\bsink\b", "llmsink", "attention sink: a key that takes weight whatever the query"),
    (r"\bpair i\b", "table", "pair i (dimensions 2i, 2i + 1)"),
    (r"peₜ", "norms", "peₜ (position t's row)"),
    (r"N\(0, 1\)", "recap", "N(0, 1) (step 4's bell curve: mean 0, typical size 1)"),
    (r"\bbell curve\b", "pairs", "a bell curve (mean 0, typical size 1"),
    (r"\bparaphrase\b", "sentences", "A paraphrase: the same meaning in other words"),
    # the real models' steps (17-21): what was computed when, and on which part of the model
    (r"\brun now\b", "decoder", "run now on this server"),
    (FIRST_LAYERS, "decoder", "first 5 of its 30 layers (only part of the model: the whole model's numbers differ)"),
    (r"\beven split\b", "llm", "an even split gives each key a query sees 1/(t + 1)"),
]

REAL_STEPS = ("buys", "sentences", "decoder", "llm", "llmsink")
JARGON = r"\blive\b|\bextract(ion|ed)\b|\bint8\b|\bfloat(32|64)\b|\btop mean\b|\bQ[48]_[01]\b"


@pytest.mark.parametrize("key", REAL_STEPS)
def test_the_real_model_steps_project_plain_words_for_formats_and_when_a_number_was_computed(key):
    shown = screen_words(at(key))
    assert not re.search(JARGON, shown), re.search(JARGON, shown)


WITHOUT_WHOLE_FILE = {FIRST_LAYERS, RE_ROUNDING}  # with the whole file fetched, step 19 runs all 30 layers and says so


@pytest.mark.parametrize(("pattern", "key", "definition"), TERMS, ids=[t[1] + ":" + t[0] for t in TERMS])
@pytest.mark.parametrize("presenter", [False, True], ids=["desk", "presenter"])
def test_every_term_is_defined_on_the_step_where_it_is_first_projected(pattern, key, definition, presenter):
    screens = [screen_words(lecture.slide(i), presenter) for i in range(len(KEYS))]
    first = next((i for i, text in enumerate(screens) if re.search(pattern, text)), None)
    if first is None and pattern in WITHOUT_WHOLE_FILE and whole.whole_path() is not None:
        pytest.skip(f"{pattern!r} is projected only without the whole SmolLM2 file, which is in the cache")
    if pattern == EIGHT_BITS and encoder.float32_fetched():
        key, definition = "decoder", "in 4 or 8 bits: rounded to 16 or 256 levels"  # its other definition
    if first is None and presenter:
        pytest.skip(f"{pattern!r} is said only in a full source, which presenter mode leaves to the speaker view")
    assert KEYS[first] == key, f"{pattern!r} first projected at step {first + 1} ({KEYS[first]}), defined at {key}"
    assert definition in screens[first], screens[first]


def test_no_step_reuses_a_letter_for_another_meaning():
    rotary = screen_words(at("rotary"))
    assert "position i" not in rotary and "q·k" not in rotary  # i is step 10's pair, k step 12's offset
    assert "query position t" in rotary and "key position s" in rotary  # as step 20's "key s →, query t ↓"


@pytest.mark.parametrize("key", KEYS)
def test_square_matrices_are_drawn_square(key):
    from posviz.drawing import engine

    for fig in at(key).figures:
        if fig.image is not None:
            rows, cols = fig.image.values.shape
            assert fig.shape.get("square", False) == (rows == cols), (fig.name, rows, cols)
        elif fig.builder is not None and fig.builder.__name__ in ("token_heatmap", "grid_heatmap"):
            frame = fig.frames[0]
            rows, cols = (frame["row"].nunique(), frame["col"].nunique()) if "row" in frame else fig.cells.values.shape
            if rows != cols:
                continue
            spec = engine.chart_spec(fig.builder, *fig.frames, presenter=True, **fig.shape)
            assert spec.get("width") == spec.get("height") == fig.shape["height"], (fig.name, spec.get("width"))


def test_the_sink_steps_two_maps_are_the_masked_run_and_the_mask_off_rerun_recomputed():
    """The claim's comparison drawn: left the heads' weight on token 0 under the causal mask, right the same tokens
    through the same layers with the mask off, each recomputed from the model's own run."""
    from posviz.models import smollm2

    reading = decoder.read(decoder.DEFAULT_TEXT)
    masked, maskless = at("llmsink").figures
    assert "mask on" in masked.shape["title"] and "mask off" in maskless.shape["title"]
    for fig, causal in ((masked, True), (maskless, False)):
        w = smollm2.run(reading.tokens.ids, layers=5, causal=causal).weights  # (L, H, T, T)
        cells = fig.frames[0].pivot(index="row_index", columns="col_index", values="value").to_numpy()
        np.testing.assert_allclose(cells, w[:, :, reading.first :, 0].mean(axis=2), atol=1e-6)
        assert fig.shape["style"].domain == (0.0, 1.0)  # one colour scale: the maps compare cell by cell
    highest = at("llmsink").numbers[2]  # the claim's layers (3-4 on this sentence) with the mask off
    assert highest == ("highest, 3-4, mask off", f"{float(cells[3:5].max()):.2f}")  # as the map writes it


def test_the_sink_steps_claim_names_the_layers_whose_every_head_is_a_sink():
    """Its claim said "many heads", while layers 0-1 sit near 0: it names the layers where each head's weight on
    token 0 is over twice an even split's (recomputed: mean of 1/(t + 1) over the queries t >= first)."""
    reading = decoder.read(decoder.DEFAULT_TEXT)
    even = float(np.mean([1 / (t + 1) for t in range(reading.first, reading.T)]))
    whole = [str(i) for i in range(reading.sink.shape[0]) if (reading.sink[i] > 2 * even).all()]
    assert whole, "no layer is a sink in every head: the claim's other wording"
    named = f"{whole[0]}-{whole[-1]}" if len(whole) > 1 else whole[0]
    layers = f"layer{'s' * (len(whole) > 1)} {named}"
    assert at("llmsink").claim.startswith(f"Every head of {layers} puts over twice an even split's weight on token 0")
    assert int(whole[0]) > 1  # layers 0-1 are not named: the weight is not in every layer
    # the weakest head of those layers is the headline (a layer's mean said nothing of "every head"; a phone's cells
    # are too narrow to write it), its ratio the badge
    low = float(min(reading.sink[int(i)].min() for i in whole))
    assert at("llmsink").numbers[0] == (f"lowest, {layers}", f"{low:.2g}")
    assert at("llmsink").verdict == "over 2× even" and low > 2 * even  # the rule's words: 0.28 / 0.098 read as 2.9
    for fig in at("llmsink").figures:  # the headlines' cells outlined on both maps: the claim's layers, every head
        cells = fig.frames[0]
        assert sorted(set(cells.loc[cells["boxed"], "row_index"])) == [int(i) for i in whole]
        assert cells["boxed"].sum() == len(whole) * reading.sink.shape[1] and fig.shape["style"].boxed


def test_the_sink_steps_claim_follows_the_mask_off_rerun(monkeypatch):
    """Were the heads to keep their weight on token 0 with the mask off, the claim must not credit position."""
    measured = decoder.sink_mask_off(decoder.read(decoder.DEFAULT_TEXT))
    assert at("llmsink").claim.endswith(
        "but not with the mask off: this attention sink depends on the mask (family 3), position's implicit carrier."
    )
    monkeypatch.setattr(decoder, "sink_mask_off", lambda reading: np.full_like(measured, 0.5))  # over 1/19
    said = at("llmsink").claim
    assert said.endswith("and still with the mask off: the mask does not make this attention sink."), said
    one = measured.copy()
    one[4, 0] = 0.06  # one head of the claim's layers over 1/19 with the mask off: "every head" no longer holds
    monkeypatch.setattr(decoder, "sink_mask_off", lambda reading: one)
    assert at("llmsink").claim.endswith("and still with the mask off: the mask does not make this attention sink.")


def test_the_trained_models_badge_names_the_two_headlines_whose_seeds_ranges_their_bars_write():
    """Drawn only, ALiBi's range was a line about 5 px long: each bar writes its seeds' range, each seed's rise
    recomputed from the curves here (the bars' window: 4-8 x T_train)."""
    from posviz.models import matched

    T = matched.config().T_train
    curves = lecture.steps._matched_curves()
    names = {v: k for k, v in lecture.steps.SCHEME_LABELS.items()}
    for scheme in lecture.steps.BUYS_SCHEMES:
        shown = at("buys", scheme=scheme)
        written = []
        for label, _ in shown.numbers[:2]:
            name = label.split(":")[0]
            rises = [
                float(np.mean(c[4 * T : 8 * T]) - np.mean(c[:T]))
                for run, c in curves.items()
                if run.rsplit("-seed", 1)[0] == names[name]
            ]
            alike = f"{min(rises):+.2f}" == f"{max(rises):+.2f}" and min(rises) != max(rises)
            places = 3 if alike else 2  # a third decimal only where two would print two seeds as one
            written.append(f"{name} {min(rises):+.{places}f}..{max(rises):+.{places}f}")
        (a_lo, a_hi), (b_lo, b_hi) = [tuple(map(float, w.split(" ")[-1].split(".."))) for w in written]
        word = "apart" if a_hi < b_lo or b_hi < a_lo else "overlap"
        first, second = (w.rsplit(" ", 1)[0] for w in written)
        assert (shown.verdict if shown.ok else shown.otherwise) == f"{first}, {second}: seeds' ranges {word}", scheme
        bars = shown.figures[1].frames[0].set_index("category").shown
        for w in written:  # each headline's range written at its bar, in the bars' type
            name, spread = w.rsplit(" ", 1)
            low, high = spread.split("..")
            alike = f"{float(low):+.{len(low) - 3}f} (both seeds)"  # one number, said to be both seeds'
            assert bars[name] == (spread if low != high else alike), (scheme, name)
        # and in the line under the headlines, which a phone shows in its text type
        assert f"seeds' ranges: {written[0]}, {written[1]}; " in shown.source, (scheme, shown.source)


def test_step_17_gives_ropes_usual_explanation_only_when_rope_rose_most():
    from posviz.experiments import matched as ex
    from posviz.models import matched

    T = matched.config().T_train
    shown = at("buys")
    rise = ex.rises(lecture.steps._matched_curves(), T, 4 * T, 8 * T)
    most = ex.extremes(rise)[1]
    said = "RoPE's usual explanation, untested here: scores see only offsets (step 13); none past T_train occurred"
    assert (said in shown.caption) == ("rope" in most), (most, shown.caption)


def test_no_step_calls_a_column_of_a_row_both_feature_and_dimension():
    assert not any(re.search(r"\bfeatures?\b", screen_words(at(key))) for key in KEYS)


def test_the_sink_steps_badge_says_what_it_compares_in_words():
    shown = at("llmsink")
    reading = decoder.read(decoder.DEFAULT_TEXT)
    ratio = reading.sink[3:5].min() / np.mean([1 / (t + 1) for t in range(reading.first, reading.T)])
    assert ratio > 2 and shown.ok and shown.verdict == "over 2× even" and len(shown.verdict) <= 12
    assert [label for label, _ in shown.numbers] == [
        "lowest, layers 3-4",
        "an even split",
        "highest, 3-4, mask off",
        "even, mask off",
    ]
    assert "even split: a query's weight spread equally over the keys it sees" in shown.caption
    assert "the one key every query sees under the causal mask" in shown.claim  # a fact, not "whatever it is"
    assert "whatever" not in shown.claim  # token 0 is always the same marker here: untested
    assert shown.claim.count(". ") == 0 and shown.claim.endswith(".")  # one sentence


def test_step_7s_panels_are_the_w1_and_w2_its_claim_and_number_name():
    from posviz.experiments import lessons

    r = lessons.sentence_experiment()
    for key in ("plain", "position"):
        titles = [f.shape["title"] for f in at(key).figures]
        assert titles[0].startswith("W₁: dog bites man") and titles[1].startswith("W₂: man bites dog"), titles
    assert "W₂ is W₁ reordered" in at("plain").claim and "W₂ − P W₁ Pᵀ" in at("plain").label
    w1, w2 = (f.frames[0].pivot(index="row_index", columns="col_index", values="value") for f in at("plain").figures)
    np.testing.assert_allclose(w1.to_numpy(), r.weights1_plain)
    np.testing.assert_allclose(w2.to_numpy(), r.weights2_plain)


@pytest.mark.parametrize("key", KEYS)
def test_no_green_check_sits_beside_a_failure(key):
    shown = at(key)
    if shown.ok and shown.tone == "shown":  # drawn green with a check mark
        assert not re.search(r"\bfail", shown.claim + " " + shown.verdict, re.I), (key, shown.claim, shown.verdict)


def test_the_ramp_step_says_position_broke_the_order_blindness():
    shown = at("ramp")
    assert shown.ok and "position broke the order-blindness" in shown.verdict and "two sides differ" in shown.claim
    assert not at("ramp", scale=0.0).ok  # a ramp of size 0: the otherwise words, not the check


@pytest.mark.parametrize("key", ["table", "norms", "shift"])
def test_the_sinusoid_steps_say_what_they_do_for_step_1s_shuffle_test(key):
    assert "step 1's shuffle test" in at(key).caption.lower(), at(key).caption


def test_the_sinusoid_tables_shuffle_number_is_step_1s_test_with_its_rows():
    from posviz.experiments import lessons

    for d in (8, 16):
        diff = lessons.order_experiment(position="sinusoidal", d=d).max_diff
        assert not verdicts.machine_zero(diff)
        assert ("shuffle test, rows added", number(diff)) in at("table", d=d).numbers  # a headline, not a caption
        assert number(diff) not in at("table", d=d).caption


def test_the_copies_gap_with_the_ramp_is_a_headline_not_a_chart_title():
    from posviz.experiments import lessons

    for second in (4, 1):
        ramped = lessons.twin_experiment(second=second, position="ramp", scale=0.6).row_diff
        shown = at("twins", second=second)
        assert shown.numbers[1] == ("with the ramp added", number(ramped)) and not verdicts.machine_zero(ramped)
        assert all(number(ramped) not in str(f.shape.get("title", "")) for f in shown.figures)
        # where that gap is, in words: a phone's cells are too narrow to write the values
        out = lessons.twin_experiment(second=second, position="ramp", scale=0.6)
        a, b = out.out[out.first], out.out[out.second]
        where = int(np.argmax(np.abs(a - b)))
        assert abs(abs(a[where] - b[where]) - ramped) < 1e-12
        values = f"{a[where]:.2f} against {b[where]:.2f}".replace("-", "\u2212")  # as the cells write them
        assert f"dimension {where}: {values}" in shown.source  # under the headline on a desk or a phone
        projected = values.replace(" against ", "\u00a0vs\u00a0")  # one unbroken pair in hall type
        assert f"{projected} (dimension {where})" in shown.hall
        assert f"the gap is dimension {where}'s" in shown.caption and "cells round to one decimal" in shown.caption


def test_step_1s_shuffle_order_is_in_the_speaker_notes_not_on_screen():
    from posviz.experiments import lessons

    order = " ".join(str(int(i)) for i in lessons.order_experiment(seed=42).perm)
    assert f"the order {order}." in notes.note("shuffle").say
    assert order not in screen_words(at("shuffle")) and "P X: X's rows in a new order." in at("shuffle").caption


EARLY = KEYS[:12] + ["recap"]  # steps 1-12 and the recap: each claim one sentence


@pytest.mark.parametrize("key", EARLY)
def test_each_early_claim_is_one_sentence(key):
    claim = at(key).claim
    assert claim[-1] in ".?" and not re.search(r"[.?!] [A-Z]", claim[:-1]), claim


def test_every_recap_family_cell_names_the_step_where_its_scheme_is_met():
    cell = at("recap").figures[0].frames[0].set_index(["row", "column"]).text
    met = {"sinusoidal rows": "table", "learned table": "real", "rotary (RoPE)": "rotary"}
    met |= {"bias on the scores": "rotary", "causal mask": "causal"}
    for scheme, key in met.items():
        first = cell[(scheme, "family: where it enters")].split("\n")[0]
        assert first.endswith(f" (step {KEYS.index(key) + 1})"), (scheme, first)


@pytest.mark.parametrize("reach", [2, 4, 8])
def test_the_trained_models_claim_names_the_mask_only_model_only_among_the_extremes(reach):
    from posviz.experiments import matched

    a, b = {2: (128, 256), 4: (256, 512), 8: (512, 1024)}[reach]
    least, most = matched.extremes(matched.rises(matched.family_curves(), 128, a, b))
    claim = at("buys", reach=reach).claim
    # one comparison: the least and the most; the mask-only model's place otherwise is its bar (the third comparison,
    # in words only, relied on two bar labels a hall cannot read)
    assert claim.count("the causal mask alone") == ("none" in least + most)
    assert claim.startswith(
        f"Small models trained here on 128-byte texts, alike but for position: at {a}-{b - 1} bytes"
    )
    assert "than with" not in claim and claim.count(" with ") == 2  # the least and the most, nothing after


def test_the_trained_models_lines_are_named_at_their_ends():
    from posviz.drawing import engine

    curve = at("buys").figures[0]
    lines, _, ends = curve.frames
    assert set(ends.scheme) == set(lines.scheme)  # every line named: the chart reads without the bars
    end = lines.position.max()
    assert (ends.position == end).all()  # one column past the lines: no name over a line that goes on
    for row in ends.itertuples():
        own = lines[lines.scheme == row.scheme]
        assert row.stops == own.position.max()
        assert row.loss == pytest.approx(own[own.position == row.stops].loss.mean())
    # the learned table's lines stopped by row 127, their name in the column far from them: the bars say it instead
    assert "learned (to 127)" not in set(lines.scheme) and "learned (to 127)" not in curve.shape["front"]
    bars = at("buys").figures[1].frames[0].set_index("category")
    assert bars.shown["learned (to 127)"] == "no row past 127"
    assert set(lines.scheme) == set(bars.index) - {"learned (to 127)"}  # every other scheme drawn in both
    gap = float(lines.loss.max()) * 22 / curve.shape["height"]
    assert np.all(np.diff(np.sort(ends.label_y.to_numpy())) >= gap - 1e-9)  # at least a 20 px name apart
    spec = engine.chart_spec(curve.builder, *curve.frames, presenter="hall", **curve.shape)
    leaves = spec_leaves(spec)
    names = [leaf for leaf in leaves if leaf.get("encoding", {}).get("text", {}).get("field") == "scheme"]
    assert len(names) == 1 and names[0]["encoding"]["fill"]["legend"] is None
    ticks = {tuple(x["axis"]["values"]) for leaf in leaves if "axis" in (x := leaf.get("encoding", {}).get("x", {}))}
    T = 128  # the trained length, the window's dashed line: ticked with the bars' window edges
    assert ticks == {(T, 4.0 * T, 8.0 * T)} and 8 * T < ends.room.min()  # no tick in the names' room
    assert curve.frames[1].label.eq("").all() and f"dashed: the trained length, {T}" in curve.shape["x_title"]


def test_the_exercise_steps_say_what_they_show_and_name_the_exercise_as_their_source():
    titles = {s.key: s.title for s in lecture.STEPS}
    for key, n in (("forgot", 1), ("offset", 2)):  # an exercise's answer is on screen at once: not titled as a task
        assert not re.search(r"\bexercise\b", titles[key] + " " + at(key).claim, re.I), key
        assert f"exercise {n} of the lesson 'Why attention needs position'" in at(key).source, key
    assert titles["forgot"].startswith("A buggy test") and at("forgot").tone == "problem"
    claim = at("offset").claim  # the answer in the claim itself: a question left it to the badge's small type
    assert "?" not in claim and claim.endswith("a constant is not position.")
    assert at("offset").verdict == "0 up to rounding: still order-blind"


def _minilm_neighbours() -> list[float]:
    from posviz.models import minilm

    rows = minilm.default_model().position.astype(np.float64)
    unit = rows / np.linalg.norm(rows, axis=1, keepdims=True)
    return [float(np.median(np.sum(unit[:-1] * unit[1:], axis=1)))]  # rows t and t + 1, their median cosine


def _rotary_changes(shift: int) -> list[float]:
    """RoPE's change, the biases' and the mask's (one number: the largest), added sinusoids', MiniLM's table's where
    its 512 rows reach 24 positions past `shift`: the recap's score column."""
    q, k = np.random.default_rng(0).standard_normal((2, 16))
    rotary, added = (relative.shift_change(q, k, 24, shift, scheme=s) for s in ("rotary", "sinusoidal"))
    zero = max(families.bias_change("alibi", shift), families.bias_change("t5", shift), families.mask_change(shift))
    return [rotary, zero, added] + ([families.learned_change(shift)] if shift + 24 <= 512 else [])


def _rises(scheme: str, reach: int) -> list[float]:
    from posviz.experiments import matched

    rise = matched.rises(matched.family_curves(), 128, 64 * reach, 128 * reach)  # reach x T_train: [k/2, k) T
    first = (scheme, "alibi" if scheme == "rope" else "rope")  # the chosen scheme beside RoPE's (ALiBi's for RoPE)
    named = [k for group in matched.extremes(rise) for k in group if k not in first]  # the claim's other schemes
    places = max(rise[k].places for k in (*first, *named))  # one number of decimals for the headlines
    return [round(rise[k].mean, places) for k in (*first, *named)]


def _sentence_cosines(scale: float) -> list[float]:
    from posviz.models import minilm
    from posviz.models.minilm import encoder

    pair = encoder.compare_texts("dog bites man", "man bites dog", scale)
    model = encoder.active_encoder()
    first, paraphrase = (
        encoder.embed_sentence(model, minilm.tokenize(text).ids, scale)
        for text in ("dog bites man", "a man was bitten by a dog")
    )
    kept = 5 if encoder.float32_fetched() else 2  # the 8-bit copy: within ±0.002 of the model's, two digits
    cosines = (pair.cosine, pair.cosine_plain, float(first @ paraphrase))  # pooled vectors have length 1
    return [float(f"{c:.{kept}g}") for c in cosines]


def _llm_head() -> list[float]:
    from posviz.models import smollm2

    reading = decoder.read(decoder.DEFAULT_TEXT)
    off = smollm2.run(reading.tokens.ids, rotation="none").weights[1, 2]  # every angle 0, the mask kept
    first = reading.first  # the queries t >= first, as the head statistics read them
    even = np.mean([1 / (t + 1) for t in range(first, reading.T)])  # query t sees t + 1 keys, t − 1 among them
    previous = np.mean([off[t, t - 1] for t in range(first, reading.T)])
    return [float(f"{v:.2g}") for v in (reading.previous[1, 2], previous, even)]  # two digits, as shown


def _sink() -> list[float]:
    reading = decoder.read(decoder.DEFAULT_TEXT)
    even = np.mean([1 / (t + 1) for t in range(reading.first, reading.T)])  # query t sees t + 1 keys
    from posviz.models import smollm2

    # the claim's layers 3-4: their lowest head masked, their highest with the mask off (RoPE kept), each a head's
    # weight on token 0 averaged over the queries t >= first
    on = smollm2.run(reading.tokens.ids).weights[3:5, :, reading.first :, 0].mean(axis=2)
    off = smollm2.run(reading.tokens.ids, causal=False).weights[3:5, :, reading.first :, 0].mean(axis=2)
    unmasked = float(f"{off.max():.2f}")  # to two decimals, as the mask-off map writes its cells
    assert unmasked < 1 / reading.T  # below an even split over all T keys: the claim's "they do not"
    return [float(f"{on.min():.2g}"), float(f"{even:.2g}"), unmasked, float(f"{1 / reading.T:.2g}")]


def _recap() -> list[float]:
    from posviz.experiments import lessons

    # step 1's test with step 3's ramp, with rotary query and key (family 2), with step 14's mask, then alone
    kwargs = (dict(position="ramp", scale=0.6), dict(position="rotary"), dict(causal=True), {})
    return [lessons.order_experiment(**kw).max_diff for kw in kwargs]


def _lesson(name: str, *args, **kwargs):
    """A callable that runs posviz.experiments.lessons.`name`(...) when the test runs."""
    from posviz.experiments import lessons

    return lambda: getattr(lessons, name)(*args, **kwargs)


def _headline_sources():
    """Step key -> (recompute: the step's control values -> every number it draws large, headline first; the words its
    source or labels name that source by). Each recomputation calls the core, never the step."""
    from posviz.experiments import lessons
    from posviz.maths import properties
    from posviz.maths.encodings import sinusoidal

    lesson, sentences = "the lesson 'Why attention needs position'", "the lesson 'dog bites man'"

    def pairs(position):
        r = lessons.pair_move_experiment(position=position, scale=0.6 if position == "ramp" else 1.0)
        return [r.together, r.tokens_only, r.positions_only]

    def plain():
        r = lessons.sentence_experiment()
        return [r.permuted_gap(with_position=False), r.word_diff("man", with_position=False)]

    def shift(k):
        return [properties.offset_residual(sinusoidal(64, 8), k)]

    def twins(second):  # the copies' gap alone, then with step 3's ramp added
        ramped = lessons.twin_experiment(second=second, position="ramp", scale=0.6)
        return [lessons.twin_experiment(second=second).row_diff, ramped.row_diff]

    def table(d):  # pair 0's turn, the slowest pair's, then step 1's shuffle test with these rows added
        shuffled = lessons.order_experiment(position="sinusoidal", d=d).max_diff
        return [2 * np.pi, 2 * np.pi * 10_000 ** ((d - 2) / d), shuffled]

    def norms(d):
        pe = sinusoidal(64, d)
        return [float(np.abs((pe**2).sum(axis=1) - d / 2).max()), float((pe**2).sum(axis=1).max())]

    def smollm2():
        from posviz.experiments import whole

        cosine = decoder.sentence_cosine if whole.whole_path() is None else whole.sentence_cosine

        gaps = (1 - cosine()[0], 1 - cosine("none")[0])  # the model, RoPE off (its causal mask alone)
        neither = 1 - cosine("none", causal=False)[0]  # both off: 0 up to rounding, the claim's baseline
        return [float(f"{g:.3g}") for g in gaps] + [
            0.0 if verdicts.same_direction(1 - neither) else float(f"{neither:.3g}")
        ]

    return {
        "shuffle": (lambda seed: [lessons.order_experiment(seed=seed).max_diff], lesson),
        "twins": (twins, lesson),
        "ramp": (lambda scale: [lessons.order_experiment(position="ramp", scale=scale).max_diff], lesson),
        "pairs": (pairs, "the 'Why attention needs position' setup"),
        "forgot": (lambda: [lessons.order_experiment(forget_reorder=True).max_diff], f"exercise 1 of {lesson}"),
        "offset": (
            lambda scale: [lessons.order_experiment(position="constant", scale=scale).max_diff],
            f"exercise 2 of {lesson}",
        ),
        "plain": (plain, sentences),
        "position": (
            lambda scale: [lessons.sentence_experiment(scale=scale).word_diff("man", with_position=True)],
            sentences,
        ),
        "magnitude": (
            lambda scale: [
                lessons.sentence_experiment().word_distance("man", scale),
                1e-8 + 1e-5 * np.abs(lessons.sentence_experiment().word_outputs("man", scale)[1]).max(),
            ],
            sentences,
        ),
        "table": (table, "the sinusoid formula"),
        "norms": (norms, "'A sense of order'"),
        "shift": (shift, "the offset property of the sinusoid formula"),
        "rotary": (_rotary_changes, "RoFormer"),
        "causal": (lambda: [lessons.order_experiment(causal=True).max_diff], "'A sense of order'"),
        "real": (_minilm_neighbours, "the model's own parameters"),
        "sentences": (_sentence_cosines, "model"),
        "lastrow": (lambda T: [max(0.0, T - families.table_rows())], "the model's own table"),
        "buys": (_rises, "the small models trained here"),
        "decoder": (smollm2, "SmolLM2"),
        "llm": (_llm_head, "on the lecture sentence"),
        "llmsink": (_sink, "on the lecture sentence"),
        "recap": (_recap, "step 1"),
    }


def _settings(key: str) -> list[dict]:
    """The step's defaults, and each control at its last option (a number hard-coded for the defaults fails there)."""
    step = lecture.STEPS[KEYS.index(key)]
    others = [{**step.defaults(), c.name: c.options[-1]} for c in step.controls if c.options[-1] != c.default]
    return [step.defaults(), *others]


INTERNAL = (  # names a hall never saw: the course's lessons and exercises, files, what posviz ships
    r"\blessons?\b|\bexercises?\b|\bfiles?\b|\.npz\b|\.py\b|\bshipped\b|\bships\b|posviz's|\bGPT-2\b|'A sense of order'"
)


@pytest.mark.parametrize("key", KEYS)
def test_presenter_modes_source_line_names_nothing_internal_and_fits_one_line(key):
    for values in _settings(key):
        shown = at(key, **values)
        line = shown.projected_source
        assert shown.hall, (key, values)  # hall words of its own: never the full source's fallback
        assert not re.search(INTERNAL, line, re.IGNORECASE), (key, values, line)
        assert len(line) <= lecture.steps.HALL_SOURCE, (key, values, len(line), line)


def test_the_headline_source_table_covers_every_step():
    assert list(_headline_sources()) == KEYS


@pytest.mark.parametrize("key", KEYS)
def test_every_headline_number_is_its_source_recomputed(key):
    recompute, named = _headline_sources()[key]
    for values in _settings(key):
        if key == "lastrow" and values["T"] <= families.table_rows():
            continue  # every position has a row: 0, the step's 'otherwise'
        shown = at(key, **values)
        expected = recompute(**values)
        drawn = [shown.value, *(v for _, v in shown.also)]
        assert drawn == pytest.approx(expected, rel=1e-9, abs=1e-300), (key, values)  # in order: none swapped
        assert [text for _, text in shown.numbers] == [number(v, grouped=True) for v in expected], (key, values)
        assert named in shown.source + " " + " ".join(label for label, _ in shown.numbers), (key, shown.source)


@pytest.mark.parametrize("reach", [2, 4, 8])
def test_the_trained_models_rise_axis_is_ticked_over_the_data_only(reach):
    rise = at("buys", reach=reach).figures[1]
    (bars,), ticks = rise.frames, rise.shape["ticks"]
    assert 2 <= len(ticks) <= 4 and 0.0 in ticks  # the half steps to 5.5 crowded the labels
    assert min(ticks) >= min(bars.low.min(), 0.0) and max(ticks) <= bars.high.max()  # past it: room for the words


LATE = ("rotary", "causal", "real", "sentences", "lastrow", "buys", "decoder", "llm", "llmsink")  # steps 13-21


@pytest.mark.parametrize("key", LATE)
def test_each_late_claim_is_one_sentence(key):
    for values in _settings(key):
        claim = at(key, **values).claim
        assert claim.endswith(".") and not re.search(r"[.?!] [A-Z]", claim), (key, values, claim)


def test_the_last_row_step_says_what_its_norm_spike_is_from_the_table_and_the_tokenizer():
    import json

    from posviz.models import minilm
    from posviz.models.minilm import text

    norms = minilm.position_table().norms
    window = json.loads((text.DATA / "tokenizer.json").read_text())["truncation"]["max_length"]
    assert window == 128 and int(np.argmax(norms[1:256])) + 1 == 127  # measured: the spike is the window's last row
    caption = at("lastrow").caption
    assert int(np.argmax(norms)) == 0 and minilm.tokenize("dog bites man").tokens[0] == "[CLS]"  # row 0: [CLS]'s
    assert caption.startswith(
        "Row 0, where every input's first token sits (the marker [CLS], put before the text), is the longest "
        f"({float(norms[0]):.3g}). The spike at t = "  # its length: the line runs off the chart's top
    )
    assert (
        "t = 127: MiniLM's final training cut its texts after that position (its published description), so the "
        "rows past it were last trained earlier" in caption
    )
    assert (
        "asked directly, as here, the model reads up to 512 tokens and refuses more (software using it cuts a "
        "longer text first)." in caption
    )
    assert families.refusal(512) is None and families.refusal(513) is not None  # the caption's last sentence
    assert "128" not in caption  # one 128 on the step: the headline's
    # the chart marks the two rows the caption names, each with its length (row 0's line runs off the top)
    marks = at("lastrow").figures[0].frames[2]
    assert marks["position"].tolist() == [0, 127, 511]  # and the last of the long last rows the caption names
    assert marks["label"].tolist() == [f"t = {t}: {float(f'{norms[t]:.3g}'):g}" for t in (0, 127, 511)]
    np.testing.assert_allclose(marks["norm"], norms[[0, 127, 511]])
    assert marks["end"].tolist() == [False, False, True]  # the last row's label stands left of it, off the band
    assert at("lastrow", T=256).figures[0].frames[2]["position"].tolist() == [0, 127]  # past T: not drawn
    flat = norms.copy()
    flat[127] = np.median(norms[1:256])  # no spike there: nothing said, nothing marked
    assert (
        lecture.steps._spike(flat) == ""
        and lecture.steps._spike_marks(flat, 640, named=bool(lecture.steps._spike(flat))).empty
    )
    flat = norms.copy()
    flat[0] = 0.0  # row 0 no longer the longest: the spike alone
    assert lecture.steps._spike(flat).startswith("The spike at t = 127")


def test_the_decoder_steps_note_compares_with_step_18_as_measured():
    from posviz.lecture import notes

    said = notes.note("decoder").say
    assert "MiniLM, a whole encoder, moved the two further apart" in said and not re.search(r"\d×", said)
    assert 1 - at("sentences").value > at("decoder").value  # MiniLM's 1 − cosine above SmolLM2's, as the note says


def test_step_17_names_the_long_last_rows_it_cannot_explain():
    """The chart's second feature, the table's last rows rising to about twice the others' length, is said, with no
    cause claimed: each named row over 1.3x the median length of rows 128 on (recomputed from the table here)."""
    from posviz.models import minilm

    norms = np.linalg.norm(minilm.position_table().table, axis=1)
    long = [t for t in range(len(norms) - 8, len(norms)) if norms[t] > 1.3 * np.median(norms[128:])]
    assert long == [510, 511]  # measured: 0.857 and 0.970 against a median of about 0.48
    assert at("lastrow").caption.endswith(" Rows 510-511 are long too, for a reason its description does not give.")


def test_the_trained_models_step_says_when_a_scheme_that_rose_least_starts_highest():
    """'Rose least' flattered mask only, already the worst inside the window: the line under the headlines says so
    whenever a scheme of the claim's least group has the highest mean loss at 0-127 (recomputed per seed here)."""
    from posviz.experiments import matched as ex
    from posviz.models import matched

    T = matched.config().T_train
    curves = lecture.steps._matched_curves()
    for reach in (2, 4, 8):
        shown = at("buys", reach=reach)
        a, b = {2: (T, 2 * T), 4: (2 * T, 4 * T), 8: (4 * T, 8 * T)}[reach]
        rise = ex.rises(curves, T, a, b)
        level = {k: np.mean([c[:T].mean() for run, c in curves.items() if run.startswith(f"{k}-seed")]) for k in rise}
        highest = max(level, key=level.get)
        if highest in ex.extremes(rise)[0]:
            name = lecture.steps.SCHEME_LABELS[highest]
            assert shown.hall == f"{name} starts highest at 0-{T - 1}: a rise is not a level", reach
            assert shown.source.startswith(shown.hall + "; seeds' ranges: "), reach  # a phone's line too
        else:
            assert shown.hall.startswith("loss: how badly the next byte is guessed"), reach
            assert shown.source.startswith("seeds' ranges: "), reach
