"""The lecture's figures on steps 3-16: what each draws is what its claim and number are about."""

import numpy as np
import pytest

from posviz import lecture
from posviz.drawing.display import number
from posviz.experiments import lessons
from posviz.maths.encodings import ramp
from tests.harness import spec_leaves

KEYS = [s.key for s in lecture.STEPS]


def at(key: str, **values: object) -> lecture.Slide:
    return lecture.slide(KEYS.index(key), **values)


@pytest.mark.parametrize("scale", [0.1, 0.6, 1.2])
def test_the_ramp_step_labels_each_output_row_with_the_e_it_was_computed_with(scale):
    shown = at("ramp", scale=scale)
    e = ramp(6, 8, scale)[:, 0]  # every feature of row t: scale (t + 1)
    r = lessons.order_experiment(position="ramp", scale=scale)
    # left, attend then shuffle: an output row is the unshuffled output of the position its token came from, which
    # had that position's E (found by matching rows, not read from the permutation)
    origin = [int(np.argmin(np.abs(r.out - row).sum(axis=1))) for row in r.reference]
    assert sorted(origin) == list(range(6)) and origin != list(range(6))
    left, right = (list(dict.fromkeys(fig.frames[0]["row"])) for fig in shown.figures)
    # one decimal each (every option is a multiple of 0.1), so that "E = 3.0" lines up under "E = 2.4"
    assert left == [f"position {t}, E = {e[o]:.1f} (from {o})" for t, o in enumerate(origin)], left
    assert right == [f"position {t}, E = {v:.1f}" for t, v in enumerate(e)], right  # E added after the shuffle
    titles = [f.shape["title"] for f in shown.figures]
    assert titles == [f"add E = {number(scale)}(t + 1), attend, shuffle", "shuffle, add E, attend"]


@pytest.mark.parametrize("d", [4, 8, 16, 64])
def test_the_sinusoid_table_step_draws_each_pairs_wavelength_and_writes_the_slowest(d):
    shown = at("table", d=d)
    waves = next(f for f in shown.figures if f.name == "table-wavelengths")
    frame = waves.frames[0]
    pairs = np.arange(d // 2)
    assert list(frame["pair"]) == [str(i) for i in pairs]
    np.testing.assert_allclose(frame["wavelength"], 2 * np.pi * 10_000 ** (2 * pairs / d))  # the formula, by pair i
    # pair 0's wavelength is the first headline, the slowest pair's the second: left to right as i grows
    assert frame["shown"].iloc[-1] == shown.numbers[1][1]
    assert frame["shown"].iloc[0] == ("" if d > 8 else shown.shown)  # pair 0's, 6.2832, too
    assert list(frame["outside"]) == [i == 0 for i in pairs]  # above its short bar on a phone (inside, it was cut)
    assert shown.value == pytest.approx(2 * np.pi)
    assert shown.also[0][1] == pytest.approx(2 * np.pi * 10_000 ** ((d - 2) / d))
    assert waves.shape["x_title"].startswith("pair i") and "(log)" in waves.shape["y_title"]
    assert f"2π·10000^(2i/{d})" in waves.shape["title"]  # the formula on screen


def test_the_slowest_wavelength_at_the_lessons_width_is_6283():
    assert at("table").numbers[1] == ("wavelength, pair 3", "6,283.2")


def test_the_two_sinusoid_table_steps_offer_the_same_widths_and_old_links_still_open():
    table, norms = (lecture.STEPS[KEYS.index(k)].controls[0] for k in ("table", "norms"))
    assert table.options == norms.options
    assert {8, 16, 32, 64} | {4, 8, 16, 64} <= set(table.options)  # every width either step offered before
    assert table.aliases == norms.aliases == ("width",)
    for key in ("table", "norms"):
        for d in table.options:
            assert at(key, d=d).figures


@pytest.mark.parametrize("k", [1, 3, 20])
def test_the_shift_steps_matrix_has_axis_titles_naming_what_it_maps(k):
    matrix = at("shift", k=k).figures[0]
    style = matrix.shape["style"]
    # Mₖ peₜ = pe₍ₜ₊ₖ₎
    assert style.row_title == f"dimension of row (t + {k})" and style.col_title == "dimension of row t"


def test_the_causal_step_draws_the_shuffle_tests_difference_beside_its_masked_weights():
    from posviz.experiments import lessons

    shown = at("causal")
    weights, difference = shown.figures
    assert weights.name == "causal-weights" and difference.name == "causal-difference"
    r = lessons.order_experiment(causal=True)
    cells = difference.frames[0]
    assert np.abs(cells["value"]).max() == pytest.approx(shown.value)  # its largest cell is the headline
    np.testing.assert_allclose(cells["value"].to_numpy().reshape(r.difference.shape), r.difference)
    assert difference.shape["title"].endswith(f"up to {shown.shown}")


def test_the_learned_tables_cosine_map_is_a_square_chart_with_axis_titles_and_every_value():
    from posviz.models import minilm

    cosine = at("real").figures[1]
    assert cosine.image is None and cosine.shape["square"]
    assert cosine.shape["height"] > lecture.steps.FIGURE_HEIGHT  # larger than the step's other pictures
    assert cosine.shape["row_title"] == "position t" and cosine.shape["col_title"] == "position s"
    assert not cosine.cells.aggregated
    np.testing.assert_allclose(cosine.cells.values, minilm.position_table().cosine)


def test_the_previous_token_heads_map_is_a_hall_size_square_chart_naming_each_rows_token():
    """Step 20's map was a 200 px picture with no token labels (11 px a cell): now a square chart of about 11 px a
    cell (it was 15 px until the caption that writes the sentence out took 54 px, 12 px until the caption defined the
    even split), rows labelled with their position and token, both axes titled in words, every weight in the frame."""
    from posviz.drawing import engine, heatmaps
    from posviz.experiments import decoder

    reading = decoder.read(decoder.DEFAULT_TEXT)
    weights = at("llm").figures[1]
    assert weights.image is None and weights.builder is heatmaps.token_heatmap
    assert weights.shape["square"] and weights.shape["height"] >= 10.5 * reading.T
    cells = weights.frames[0]
    rows = cells.drop_duplicates("row_index")["row"].tolist()
    said = [token.strip() for token in reading.tokens.tokens]
    quoted = [w if any(c.isalnum() for c in w) else f"'{w}'" for w in said]  # "10 ','": a bare "10 ," read as a typo
    assert rows == [f"{t} {w}" for t, w in enumerate(quoted)] and "10 ','" in rows
    np.testing.assert_allclose(cells["value"].to_numpy().reshape(reading.T, reading.T), reading.trace.weights[1, 2])
    style = weights.shape["style"]
    assert "query" in style.row_title and "reading" in style.row_title and "key" in style.col_title
    assert not style.angled and style.masked  # numbered keys read level; hidden keys grey
    spec = engine.chart_spec(weights.builder, *weights.frames, presenter="hall", **weights.shape)
    assert spec["width"] == spec["height"] == weights.shape["height"]


def test_the_trained_models_loss_lines_have_room_and_weight_for_a_hall():
    """Step 17's left chart was 128 px tall with Vega's 2 px lines and a tick every 1 nat: now taller, every loss line
    at least 3 px wide (the window's rule and the names untouched), its y axis ticked a round step of 2 apart."""
    from posviz.drawing import engine

    curve = at("buys").figures[0]
    assert curve.shape["height"] >= 140 and curve.shape["height"] == at("buys").figures[1].shape["height"]
    spec = engine.chart_spec(curve.builder, *curve.frames, presenter="hall", **curve.shape)
    leaves = spec_leaves(spec)
    marks = [leaf["mark"] if isinstance(leaf["mark"], dict) else {"type": leaf["mark"]} for leaf in leaves]
    lines = [m for m in marks if m["type"] == "line"]
    assert lines and all(m.get("strokeWidth", 2) >= 3 for m in lines)
    assert all(m.get("strokeWidth", 2) <= 2 for m in marks if m["type"] == "rule")  # the window stays a thin rule
    y_ticks = {
        tuple(y["axis"]["values"])
        for leaf in leaves
        if "values" in (y := leaf.get("encoding", {}).get("y", {})).get("axis", {})
    }
    assert y_ticks == {(0.0, 2.0, 4.0)}


def test_one_name_for_one_thing_in_the_lectures_chart_labels():
    """A key position is s wherever the offset t − s is meant (step 12's pe · peᵀ and step 15's cosines said u);
    step 14's map numbers its positions as its neighbour does (it said t0…t5); step 4's bars say what its headlines
    say ("positions only", as "tokens only")."""
    assert at("shift").figures[1].shape["col_title"] == "position s"
    assert at("real").figures[1].shape["col_title"] == "position s"
    assert {f.shape["col_title"] for f in at("rotary").figures} == {"key position s"}
    weights, difference = at("causal").figures
    style = weights.shape["style"]
    assert (style.row_title, style.col_title) == ("query position t", "key position s")
    numbered = weights.frames[0].drop_duplicates("row_index")["row"].tolist()
    assert [f"position {i}" for i in numbered] == difference.frames[0].drop_duplicates("row_index")["row"].tolist()
    for position in ("ramp", "sinusoidal"):
        shown = at("pairs", position=position)
        bars = shown.figures[0].frames[0]["what moves"].tolist()
        headlines = [shown.label] + [label for label, _ in shown.also]
        assert [h.split(" (")[0] for h in headlines] == bars


def test_the_decoder_steps_axis_is_ticked_apart_over_the_bars_only():
    """Step 19's axis ran "0.000 0.001 … 0.006" past the bars, labels touching on a phone: at most 3 ticks over the
    bars, a round step apart, and one step past the longest where the axis reaches (0, 0.002 left 0.00388 and 0.00303
    with one tick between them)."""
    bars = at("decoder").figures[0]
    ticks, gaps = bars.shape["ticks"], bars.frames[0]["1 − cosine"]
    over = [t for t in ticks if t <= gaps.max()]
    assert 2 <= len(over) <= 3 and ticks[0] == 0.0 and len(ticks) - len(over) <= 1
    assert max(ticks) >= gaps.max() or max(ticks) + ticks[1] > bars.shape["span"][1]  # the next would leave the axis
    step = np.diff(ticks)
    np.testing.assert_allclose(step, step[0])
    assert f"{step[0]:.0e}"[0] in "125"


def test_the_trained_models_line_names_are_written_in_their_hues_darkened_to_4_5_to_1():
    """Step 18 names each line in its colour past its end; light blue read at 2.3:1 in a hall: each name's fill is
    its line's colour darkened (same hue) until it keeps 4.5:1 on white, the lines keep their own colours."""
    from posviz.drawing import engine, images

    fig = at("buys").figures[0]
    spec = engine.chart_spec(fig.builder, *fig.frames, presenter="hall", **fig.shape)
    fills = [leaf for leaf in spec_leaves(spec) if isinstance(leaf, dict) and "fill" in leaf.get("encoding", {})]
    (names,) = [f for f in fills if f.get("mark", {}).get("type") == "text"]
    lines = dict(fig.shape["colours"])
    scale = names["encoding"]["fill"]["scale"]
    assert scale["domain"] == list(lines)
    for name, shown in zip(scale["domain"], scale["range"], strict=True):
        rgb = np.array([int(shown[i : i + 2], 16) for i in (1, 3, 5)])
        assert 1.05 / (float(images.luminance(rgb)) + 0.05) >= 4.5, (name, shown)
        r, g, b = (int(lines[name][i : i + 2], 16) for i in (1, 3, 5))
        r2, g2, b2 = (int(shown[i : i + 2], 16) for i in (1, 3, 5))
        assert max(abs(r2 * g - g2 * r), abs(g2 * b - b2 * g)) <= 255 * 2  # one hue: each channel scaled alike
