"""The lecture's path: every step computes live from the core, fits its limits, and matches the claims it retells."""

import numpy as np
import pytest
from altair.vegalite.v6.schema.core import Root

from posviz import lecture
from posviz.drawing import engine
from posviz.drawing.display import number
from posviz.experiments.claims import claims

STEPS = lecture.STEPS


ORDER = ["shuffle", "twins", "ramp", "pairs", "forgot", "offset", "plain", "position", "magnitude", "table", "norms",
         "shift", "rotary", "causal", "real", "sentences", "lastrow", "buys", "decoder", "llm", "llmsink",
         "recap"]  # fmt: skip


def test_the_path_has_the_lessons_argument_in_order():
    assert [s.key for s in STEPS] == ORDER
    assert len(STEPS) <= 22


@pytest.mark.parametrize("index", range(len(STEPS)))
def test_every_step_at_its_defaults_shows_what_it_is_there_to_show(index):
    slide = lecture.slide(index)
    assert slide.ok, (STEPS[index].key, slide.shown, slide.verdict)
    assert 1 <= len(slide.figures) <= 2 and len(STEPS[index].controls) <= 2
    assert slide.claim.endswith((".", "?")) and slide.shown not in ("nan", "inf")  # step 6 asks; its number answers


@pytest.mark.parametrize(
    ("index", "option"),
    [(i, (c.name, o)) for i, s in enumerate(STEPS) for c in s.controls for o in c.options],
)
def test_every_control_value_gives_a_slide_with_valid_charts(index, option):
    name, value = option
    slide = lecture.slide(index, **{name: value})
    for figure in slide.figures:
        if figure.builder is not None:
            Root.validate(
                engine.inline(engine.chart_spec(figure.builder, *figure.frames, presenter=True, **figure.shape))
            )
        else:
            assert figure.image is not None and figure.image.values.size > 0


def test_steps_retell_the_claims_registrys_numbers():
    registry = {c.number: c for c in claims()}
    by_key = {s.key: lecture.slide(i) for i, s in enumerate(STEPS)}
    assert by_key["ramp"].value == pytest.approx(registry[3].checks[0].expected, abs=1e-9)
    assert by_key["forgot"].value == pytest.approx(registry[4].checks[0].expected, abs=1e-9)
    assert by_key["position"].value == pytest.approx(registry[8].checks[0].expected, abs=1e-9)
    assert by_key["magnitude"].value == pytest.approx(registry[9].checks[0].expected, abs=1e-9)
    assert by_key["causal"].value == pytest.approx(registry[11].checks[0].expected, abs=1e-9)
    from posviz.models.minilm import encoder

    if encoder.float32_fetched():  # step 18 runs the fetched float32 model; the registry always the shipped int8 copy
        assert by_key["sentences"].value == pytest.approx(registry[16].checks[0].expected, abs=1e-5)  # 5 digits
    else:
        reproduced = registry[16].checks[0].reproduced  # the int8 copy's: within ±0.002, shown to two digits
        assert by_key["sentences"].value == float(f"{reproduced:.2g}")
    assert by_key["shuffle"].value <= 1e-15 and by_key["offset"].value <= 1e-15


def test_the_real_models_step_names_its_tested_bound_instead_of_a_second_number():
    from posviz.models.minilm import encoder

    source = lecture.slide([s.key for s in STEPS].index("sentences")).source
    if encoder.float32_fetched():  # the float32 model, fetched: its own tested bound
        assert source == lecture.steps.FETCHED_WORDS and "1e-6 (tested)" in encoder.FETCHED_NOTE
    else:
        assert f"within ±{encoder.COSINE_TOLERANCE:g} of the published 32-bit model's (tested)" in source
    assert "0.9072" not in source


def test_a_control_change_changes_the_number():
    ramp = [s.key for s in STEPS].index("ramp")
    assert lecture.slide(ramp, scale=0.0).value <= 1e-15 and not lecture.slide(ramp, scale=0.0).ok
    assert lecture.slide(ramp, scale=1.2).value != lecture.slide(ramp).value


def test_url_keys_are_unique_across_steps():
    keys = [s.url_key(c) for s in STEPS for c in s.controls]
    assert len(keys) == len(set(keys)) and "step" not in keys


def test_bad_step_or_control_says_what_it_expected():
    with pytest.raises(ValueError, match=f"from 1 to {len(STEPS)}, got {len(STEPS) + 1}"):
        lecture.slide(len(STEPS))
    with pytest.raises(ValueError, match="takes .*scale.*got .*wobble"):
        lecture.slide([s.key for s in STEPS].index("ramp"), wobble=1)


def test_expected_values_are_worded_for_an_audience_not_by_internal_lesson_numbers():
    for index, step in enumerate(STEPS):
        source = lecture.slide(index).source
        assert "lesson 00" not in source and "code" not in source, (step.key, source)


def test_scale_options_run_from_small_to_large_in_every_step():
    scales = [c.options for s in STEPS for c in s.controls if c.name == "scale"]
    assert len(scales) >= 4 and all(list(o) == sorted(o) for o in scales)


def test_a_large_headline_number_groups_its_thousands():
    table = lecture.slide([s.key for s in STEPS].index("table"))
    assert table.numbers[1] == ("wavelength, pair 3", "6,283.2")  # the slowest: the last of d/2, after pair 0's
    assert lecture.slide(ORDER.index("table"), d=64).numbers[1][1] == "47,117"


@pytest.mark.parametrize(
    ("key", "figure"), [("shift", "shift-similarity"), ("rotary", "rotary-moved"), ("rotary", "sinusoids-moved")]
)
def test_the_lectures_similarity_grids_are_drawn_square(key, figure):
    """pe · peᵀ and the score changes: a diagonal runs at 45° only when the plot is as wide as it is tall."""
    step = next(s for s in lecture.STEPS if s.key == key)
    fig = next(f for f in step.slide().figures if f.name == figure)
    spec = engine.chart_spec(fig.builder, *fig.frames, presenter=True, **fig.shape)
    # at least 160 px: step 13's maps gave 26 px to a third caption line (ALiBi, T5 and the mask defined)
    assert spec["width"] == spec["height"] == fig.shape["height"] >= lecture.FIGURE_HEIGHT - 66


@pytest.mark.parametrize("shift", [1, 100, 10_000])
def test_step_13s_maps_are_each_schemes_score_change_and_their_largest_cells_are_the_headlines(shift):
    """RoPE beside added sinusoids: every score at shift..shift + 23 minus the same score at 0..23, recomputed from the
    formulas (rope(q)·rope(k) and (q + pe)·(k + pe)), on one colour scale; each map's largest |cell| is its number."""
    q, k = np.random.default_rng(0).standard_normal((2, 16))
    shown = lecture.slide(ORDER.index("rotary"), shift=shift)
    rope, sines = (f.frames[0].pivot(index="row", columns="col", values="value").to_numpy() for f in shown.figures)

    def rotated(v, start):
        t = np.arange(start, start + 24)[:, None]
        angle = t / 10_000 ** (np.arange(0, 16, 2) / 16)  # pair i turns by t / base^(2i/d)
        x, y = v[0::2], v[1::2]
        return np.stack([x * np.cos(angle) - y * np.sin(angle), x * np.sin(angle) + y * np.cos(angle)], -1).reshape(
            24, 16
        )

    def added(start):
        angle = np.arange(start, start + 24)[:, None] / 10_000 ** (np.arange(0, 16, 2) / 16)
        pe = np.stack([np.sin(angle), np.cos(angle)], -1).reshape(24, 16)  # sin, cos interleaved (Vaswani et al.)
        return (q + pe) @ (k + pe).T

    np.testing.assert_allclose(
        rope, rotated(q, shift) @ rotated(k, shift).T - rotated(q, 0) @ rotated(k, 0).T, atol=1e-9
    )
    np.testing.assert_allclose(sines, added(shift) - added(0), atol=1e-9)
    assert dict(shown.numbers)["added sinusoids"] == number(float(np.abs(sines).max()), grouped=True)
    assert shown.value == pytest.approx(np.abs(rope).max(), abs=1e-15)
    assert shown.figures[0].shape["domain"] == shown.figures[1].shape["domain"]


def test_the_lectures_pair_move_uses_the_order_pages_labels_and_names_its_signal():
    from posviz.drawing import figures

    step = next(s for s in lecture.STEPS if s.key == "pairs")
    (fig,) = step.slide().figures
    assert fig.frames[0]["what moves"].tolist() == list(figures.PAIR_MOVES)
    assert step.defaults()["position"] == "ramp"  # step 3's signal, at step 3's scale
    # the ramp in steps 2-3's words, E = 0.6(t + 1): "ramp × 0.6" made "ramp" mean t + 1
    assert fig.shape["title"] == figures.pair_moves_title(f"{lecture.steps.RAMP_SCALE:g}(t + 1), the ramp")
    assert "the ramp E = 0.6(t + 1)" in lecture.slide(ORDER.index("twins")).claim
    (fig,) = step.slide(position="learned").figures
    assert fig.shape["title"] == figures.pair_moves_title("learned")


def test_the_steps_that_wait_for_the_matched_models_say_so_and_share_the_pages_curves():
    from posviz.experiments import decoder, matched

    slow = {s.key: s for s in STEPS if s.slow is not None}
    assert list(slow) == ["buys", "decoder", "recap"]  # the matched curves; step 19's rerounded SmolLM2 runs
    assert all("computed once per server" in s.slow_note for s in slow.values())
    assert slow["buys"].slow() is matched.family_curves()  # one cache: the matched page's and the server's warm-up
    assert slow["recap"].slow() is matched.family_curves()
    assert slow["decoder"].slow() is decoder.rerounding()  # one cache: the server's warm-up computes it at start
    assert f"rounded again {decoder.ROUNDING_DRAWS} times" in slow["decoder"].slow_note


def test_a_second_caller_of_the_family_curves_waits_for_the_first_instead_of_computing_again(monkeypatch):
    import functools
    import threading
    import time

    from posviz.experiments import matched

    calls = []

    @functools.cache
    def slow_curves(count: int) -> dict:
        calls.append(count)
        time.sleep(0.3)
        return {"count": count}

    monkeypatch.setattr(matched, "_family_curves", slow_curves)
    results = []
    threads = [threading.Thread(target=lambda: results.append(matched.family_curves(3))) for _ in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert calls == [3] and results == [{"count": 3}] * 3


def test_every_compared_step_has_two_titled_figures():
    """lecture.COMPARED names steps that exist (a renamed step would drop out silently) and each draws two figures
    with titles: a phone's toggle labels them (ui.compared)."""
    keys = [s.key for s in lecture.STEPS]
    assert lecture.COMPARED <= set(keys), lecture.COMPARED - set(keys)
    for key in sorted(lecture.COMPARED):
        figures = lecture.slide(keys.index(key)).figures
        assert len(figures) == 2, key
        assert all(f.shape.get("title") for f in figures), key
