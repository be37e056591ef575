import numpy as np
import pytest

import posviz
from posviz.drawing import colours, engine, figures, frames, lines_bars
from posviz.experiments import longer
from posviz.maths import scaling, sinks
from posviz.models import minilm


def test_frequency_figure_compares_the_paper_with_tensor2tensor_on_a_log_axis():
    fig = figures.frequencies(8, 10_000.0)
    assert fig.builder is lines_bars.lines and fig.name == "frequencies"
    assert fig.shape["log_y"] and fig.shape["y_title"] == "radians per position (log)"
    assert fig.frames[0]["formula"].nunique() == 2 and fig.shape["color"] == "formula"


def test_wavelength_figure_has_one_point_per_pair_on_a_log_axis():
    fig = figures.wavelengths(16, 10_000.0)
    assert len(fig.frames[0]) == 8 and fig.shape["log_y"]
    assert fig.shape["title"] == "wavelength of each sin/cos pair"


def test_row_norms_are_drawn_against_the_level_d_over_2():
    fig = figures.row_norms(np.full(6, 4.0), 8, start=10, stride=2)
    curve, level = fig.frames
    assert fig.builder is lines_bars.lines_with_reference
    assert curve["position"].tolist() == [10, 12, 14] and fig.shape["y"] == "squared norm"
    assert level.to_dict("records") == [{"y": 4.0, "label": "d/2 = 4"}]


def test_dimension_curves_name_how_many_positions_they_show():
    fig = figures.dimension_curves(posviz.sinusoidal(20, 8), [0, 1], start=5, shown=12)
    assert fig.shape["title"] == "chosen dimensions over the first 12 positions"
    assert fig.frames[0]["position"].min() == 5 and len(fig.frames[0]) == 24


def test_generation_errors_keep_their_name_title_and_rounding_band():
    fig = figures.generation_errors("bug-errors", np.array([0.0, 1e-3]), 1, "error per token")
    assert (fig.name, fig.builder, fig.shape) == ("bug-errors", lines_bars.step_errors, {"title": "error per token"})
    assert len(fig.frames) == 2


def test_sink_errors_group_the_bars_by_way_of_positioning():
    ways = {w: sinks.demo_streaming(T=6, positions=w) for w in ("cache", "original")}
    fig = figures.sink_errors(ways)
    assert fig.shape["group"] == "way" and fig.shape["title"] == "error of each step against the recompute"
    assert fig.frames[0]["way"].nunique() == 2


def test_word_outputs_label_each_sentence_with_the_word():
    fig = figures.word_outputs(np.zeros(3), np.ones(3), "dog")
    assert set(fig.frames[0]["vector"]) == {"dog in sentence 1", "dog in sentence 2"}
    assert fig.shape["title"] == "'dog' in each sentence"
    # not orange: the page marks its scale in vermillion (ACCENT), and the two must not read as one colour
    assert [c for _, c in fig.shape["colours"]] == [colours.SERIES_COLORS[0], colours.SERIES_COLORS[3]]
    assert colours.ACCENT not in dict(fig.shape["colours"]).values()


def test_distance_curve_marks_the_scale_but_not_scale_0_on_a_log_axis():
    scales, distances = np.array([0.0, 0.5, 1.0]), np.array([0.0, 1.0, 2.0])
    marked = figures.distance_curve(scales, distances, 0.5, 1.0, log=True)
    assert marked.builder is lines_bars.lines_marked and marked.frames[1]["label"].item() == "0.5 → 1"
    assert marked.shape["x_title"] == "position scale (log)" and len(marked.frames[0]) == 2
    at_zero = figures.distance_curve(scales, distances, 0.0, 0.0, log=True)
    assert at_zero.builder is lines_bars.lines and len(at_zero.frames) == 1
    linear = figures.distance_curve(scales, distances, 0.0, 0.0, log=False)
    assert linear.builder is lines_bars.lines_marked and linear.shape["y_title"] == "largest |difference|"


def test_table_axes_put_positions_down_and_dimensions_across_in_minus_1_to_1():
    assert figures.table_axes() == {
        "row_title": "position",
        "col_title": "dimension",
        "value_title": "pe",
        "domain": (-1.0, 1.0),
    }
    assert figures.table_axes("position t")["row_title"] == "position t"
    assert figures.SCORE_AXES == {"row_title": "query position i", "col_title": "key position j"}


def test_rope_figures_name_the_windows_and_the_two_decay_quantities_apart():
    preset = scaling.PRESETS["llama3.1-8b"]
    view = longer.scaled(preset)
    divisors = figures.rope_divisors(preset)
    assert f"{preset.original:,} -> {preset.extended:,}" in divisors.shape["title"]
    assert divisors.shape["log_y"] and set(divisors.frames[0]["method"]) >= {"linear", "yarn"}
    scores = figures.rope_scores(view, 0)
    assert scores.builder is lines_bars.lines_keyed and scores.shape["overlay"] == "marker"
    assert len(scores.frames[1]) == 1  # the training window, marked
    bound, measured = figures.decay_curves(longer.decay(512, 16, 0, points=20))
    assert "bound" in bound.shape["title"] and "measured" in measured.shape["title"]
    assert bound.shape["y_title"] != measured.shape["y_title"]


def test_the_minilm_cosine_profile_draws_every_stretchs_lows_and_highs_and_its_csv_keeps_every_distance():
    _, profile = figures.learned_table_curves(minilm.position_table())
    drawn, full = profile.frames[0], profile.table
    assert full.groupby("table").size().tolist() == [511, 511]
    k = np.sort(drawn["distance"].unique())
    assert k[0] == 1 and k[-1] == 511 and len(k) < 200  # fewer points than pixels across the chart
    edges = np.geomspace(1, 511, 65)
    for name, curve in full.groupby("table"):
        shown = drawn[drawn["table"] == name]
        for lo, hi in zip(edges[:-1], edges[1:], strict=True):  # each stretch reaches the full curve's low and high
            inside, seen = curve[curve["distance"].between(lo, hi)], shown[shown["distance"].between(lo, hi)]
            if len(inside):
                assert seen["cosine"].min() == inside["cosine"].min() and seen["cosine"].max() == inside["cosine"].max()
    same = drawn.merge(full, on=["distance", "table"], suffixes=("", "_full"))
    assert len(same) == len(drawn) and (same["cosine"] == same["cosine_full"]).all()  # exact values, not smoothed
    assert f"{len(k)} of 511 k" in profile.shape["x_title"]


def test_log_envelope_keeps_each_curves_extremes_and_says_what_it_expected():
    x = np.arange(1, 1001)
    y = np.sin(x / 7.0)
    kept = frames.log_envelope(x, [y, -y], bins=10)
    assert kept[0] == 1 and kept[-1] == 1000 and len(kept) <= 51
    with pytest.raises(ValueError, match="positive and rising"):
        frames.log_envelope(np.array([0, 1, 2]), [np.zeros(3)], bins=2)
    with pytest.raises(ValueError, match="one value per x"):
        frames.log_envelope(x, [np.zeros(3)], bins=2)


def _colour_scales(spec: object) -> list[tuple[list[str], list[str]]]:
    """Every (domain, range) pair of a categorical colour scale in a compiled spec."""
    found = []
    if isinstance(spec, dict):
        colour = spec.get("encoding", {}).get("color", {}) if isinstance(spec.get("encoding"), dict) else {}
        scale = colour.get("scale", {}) if isinstance(colour, dict) else {}
        if isinstance(scale.get("domain"), list) and isinstance(scale.get("range"), list):
            found.append((scale["domain"], scale["range"]))
        for key, value in spec.items():
            if key != "datasets":
                found += _colour_scales(value)
    elif isinstance(spec, list):
        for value in spec:
            found += _colour_scales(value)
    return found


def longer_page_figures(preset: scaling.Preset) -> list[figures.Figure]:
    """The charts the Longer contexts page draws for a preset (the slowdown only when the preset scales)."""
    view = longer.scaled(preset)
    made = [figures.rope_wavelengths(view), figures.rope_scores(view, 0)]
    return [figures.rope_divisors(preset), *made] if view.scales else made


def test_each_method_keeps_one_colour_in_every_longer_chart_across_presets():
    seen: dict[str, set[str]] = {}
    for preset in scaling.PRESETS.values():
        for fig in longer_page_figures(preset):
            spec = engine.chart_spec(fig.builder, *fig.frames, **fig.shape)
            scales = _colour_scales(spec)
            assert scales, fig.name
            drawn = set(fig.frames[0][fig.shape["color"]])
            for domain, hues in scales:
                assert set(domain) == drawn, (fig.name, preset.label)  # no legend entry without a line, and back
                for name, colour in zip(domain, hues, strict=True):
                    seen.setdefault(name.split(" ")[0], set()).add(colour)
    assert {m: len(c) for m, c in seen.items()} == {m: 1 for m in seen}  # one colour a method, everywhere
    assert seen["unscaled"] == {"#8c8c8c"} and set(scaling.METHODS) <= set(seen)
    colours = [next(iter(c)) for c in seen.values()]
    assert len(set(colours)) == len(colours)  # and no colour for two methods


def test_an_unscaled_preset_draws_one_score_curve_and_the_slowdown_ticks_the_factor():
    neox = longer.scaled(scaling.PRESETS["neox-partial"])
    assert not neox.scales and set(figures.rope_scores(neox, 0).frames[0]["curve"]) == {"unscaled"}
    llama = scaling.PRESETS["llama3.1-8b"]
    assert longer.scaled(llama).scales
    divisors = figures.rope_divisors(llama)
    assert 8.0 in divisors.shape["y_ticks"]  # the plateau's level has a tick
    slowest = divisors.frames[0].groupby("method")["divisor"].last()
    assert slowest["llama3"] == pytest.approx(8.0) and slowest["yarn"] == pytest.approx(8.0)  # the factor, not 16
    assert llama.extended / llama.original == 16


def test_sink_errors_keep_a_colour_per_way_and_say_when_the_bars_are_at_zero():
    for bug in ("original", "rotated_at_insert"):
        ways = {w: sinks.demo_streaming(T=12, positions=w) for w in ("cache", bug)}
        fig = figures.sink_errors(ways)
        ((domain, colours),) = _colour_scales(engine.chart_spec(fig.builder, *fig.frames, **fig.shape))
        assert domain[0] == "error, re-indexed cache (rounding only: at 0)" and colours[0] == "#0072B2"
        assert set(domain) == set(fig.frames[0]["way"])
