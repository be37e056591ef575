import base64
import html
import io
import json

import altair as alt
import numpy as np
import pandas as pd
import pytest
from altair.vegalite.v6.schema.core import Root
from PIL import Image

import posviz
from posviz.drawing import colours, engine, figures, frames, heatmaps, images, lines_bars
from posviz.experiments import longer
from posviz.maths import grids, scaling, sinks
from posviz.models import minilm


def bound(builder, *data, **shape):
    """The spec the app sends (compiled once, data bound by name), as pure JSON."""
    return engine.inline(engine.chart_spec(builder, *data, **shape))


def units(spec, data=None):
    """(unit spec, its dataset name) for every single-mark spec inside a possibly layered spec."""
    data = spec.get("data", {}).get("name", data)
    if "layer" in spec:
        return [u for part in spec["layer"] for u in units(part, data)]
    return [(spec, data)]


def style(**choices):
    """A labelled heatmap's style: attention weights (query by key, each value written) with `choices` changed."""
    return heatmaps.CellStyle.weights(**choices)


PANELS = heatmaps.CellStyle.signed(domain=(-1.0, 1.0), row_title="t", col_title="dim", annotate=False)


def eye_cells():
    return frames.matrix_frame(np.eye(3), frames.labelled(["a", "b", "a"]), frames.labelled(["a", "b", "a"]))


def every_chart():
    """One of each builder the pages use, with the data and shape they pass."""
    curve = pd.DataFrame({"x": [1.0, 2.0, 3.0], "y": [1.0, np.nan, 0.5], "line": ["a", "a", "b"]})
    reduced = grids.block_mean(np.linspace(-1, 1, 100).reshape(10, 10), max_cells=25)
    path = frames.trajectory(np.array([[0.0, 1.0], [0.6, 0.8], [1.0, 0.0]]))
    steps = frames.step_errors(np.array([0.0, 4e-16, 1e-3]), 1)
    bars = frames.vectors_frame([np.ones(3), np.zeros(3)], ["a", "b"])
    line = dict(x="x", y="y", title="t", x_title="x", y_title="y")
    return {
        "token_heatmap": (heatmaps.token_heatmap, [eye_cells()], dict(title="w", style=heatmaps.WEIGHTS)),
        "token_heatmap signed": (
            heatmaps.token_heatmap,
            [eye_cells()],
            dict(title="w", style=heatmaps.CellStyle.signed(np.eye(3), row_title="t", col_title="u", angled=True)),
        ),
        "token_heatmap plain": (heatmaps.token_heatmap, [eye_cells()], dict(title="w", style=style(annotate=False))),
        "token_heatmap no legend": (heatmaps.token_heatmap, [eye_cells()], dict(title="w", style=style(legend="none"))),
        "grid_heatmap": (
            heatmaps.grid_heatmap,
            [frames.reduced_frame(reduced)],
            dict(title="pe", subtitle=reduced.note, row_title="t", col_title="dim"),
        ),
        "lines": (lines_bars.lines, [curve], dict(line, color="line", log_y=True)),
        "lines legend below": (lines_bars.lines, [curve], dict(line, color="line", legend="bottom")),
        "lines_marked": (
            lines_bars.lines_marked,
            [curve, frames.point_frame(2.0, 0.7, "here")],
            dict(line, points=True),
        ),
        "lines_with_reference": (lines_bars.lines_with_reference, [curve, frames.level_frame(1.0, "d/2")], line),
        "bars_with_reference": (lines_bars.bars_with_reference, [curve, frames.level_frame(1.0, "d/2")], line),
        "bars with values": (
            lines_bars.bars,
            [curve.assign(shown=["1", "nan", "0.5"])],
            dict(line, log_y=True, text="shown"),
        ),
        "grouped_bars": (
            lines_bars.grouped_bars,
            [bars],
            dict(x="component", y="value", group="vector", title="t", y_title="out"),
        ),
        "trajectory": (lines_bars.trajectory, [path], dict(title="pair")),
        "step_errors": (lines_bars.step_errors, [steps, frames.rounding_band()], dict(title="steps")),
        "token_heatmap note": (
            heatmaps.token_heatmap,
            [eye_cells()],
            dict(title="w", style=style(annotate=False), note="all zeros"),
        ),
        "grid_heatmap square": (
            heatmaps.grid_heatmap,
            [frames.reduced_frame(reduced)],
            dict(title="pe", row_title="t", col_title="u", square=True, legend="right"),
        ),
        "token_heatmap square": (heatmaps.token_heatmap, [eye_cells()], dict(title="w", square=True, height=200)),
        "grid_heatmap note": (
            heatmaps.grid_heatmap,
            [frames.reduced_frame(reduced)],
            dict(title="pe", row_title="t", col_title="dim", note=""),
        ),
        "picture_heatmap": (
            heatmaps.picture_heatmap,
            [frames.picture_frame(b"png"), frames.extent_frame(reduced, (-1.0, 1.0))],
            dict(title="pe", subtitle="every value shown", row_title="t", col_title="dim"),
        ),
        "heatmap_panels": (heatmaps.heatmap_panels, [panel_cells()], dict(style=PANELS, width=120)),
        "heatmap_panels own labels, notes": (
            heatmaps.heatmap_panels,
            [panel_cells()],
            dict(
                style=style(row_title="t", col_title="dim", legend="none"),
                width=120,
                columns=1,
                shared=False,
                notes=True,
            ),
        ),
        **longer_charts(),
        **figure_charts(),
    }


def panel_cells():
    """Two small panels' cells, as ui.matrix_panels writes them (a title, a place and a note each)."""
    return pd.concat(
        [
            eye_cells().assign(panel="first", panel_index=0, note="all zeros"),
            eye_cells().assign(panel="second", panel_index=1, note=""),
        ],
        ignore_index=True,
    )


def figure_charts():
    """The charts posviz.drawing.figures describes for the pages, as the pages draw them."""
    ways = {w: sinks.demo_streaming(T=6, positions=w) for w in ("cache", "original")}
    scales, distances = np.array([0.0, 0.5, 1.0]), np.array([0.0, 1.0, 2.0])
    preset = scaling.PRESETS["llama3.1-8b"]
    view = longer.scaled(preset)
    made = [
        figures.frequencies(8, 10_000.0),
        figures.pair_moves(0.0, 1.5, 2.0, "ramp × 0.6"),
        figures.wavelengths(8, 10_000.0),
        figures.row_norms(np.full(5, 4.0), 8, start=2, stride=1),
        figures.dimension_curves(posviz.sinusoidal(10, 8), [0, 3], start=0, shown=6),
        figures.generation_errors("generation", np.array([0.0, 4e-16, 1e-3]), 1, "errors"),
        figures.sink_errors(ways),
        figures.word_outputs(np.zeros(3), np.ones(3), "man"),
        figures.distance_curve(scales, distances, 0.5, 1.0, log=True),
        figures.distance_curve(scales, distances, 0.0, 0.0, log=True),
        figures.rope_divisors(preset),
        figures.rope_wavelengths(view),
        figures.rope_scores(view, 0),
        *figures.decay_curves(longer.decay(512, 16, 0, points=20)),
        *figures.learned_table_curves(minilm.position_table()),
    ]
    return {f"figure {i} {f.name}": (f.builder, list(f.frames), f.shape) for i, f in enumerate(made)}


def longer_charts():
    """The Relative biases and attention-sinks charts, with the frames and shapes their pages pass."""
    ways = {w: sinks.demo_streaming(T=6, positions=w) for w in ("cache", "original")}
    return {
        "biases": (
            lines_bars.lines,
            [frames.bias_frame(20)],
            dict(x="offset", y="bias", color="kind", title="b", x_title="j - i", y_title="bias", steps=True),
        ),
        "sink errors": (
            lines_bars.grouped_bars,
            [frames.sink_errors_frame(ways)],
            dict(x="token", y="error", group="way", title="e", y_title="max abs difference"),
        ),
    }


@pytest.mark.parametrize("name", list(every_chart()))
@pytest.mark.parametrize("presenter", [False, True])
def test_every_compiled_chart_is_valid_vega_lite(name, presenter):
    """Compiling skips Altair's validation for speed, so the tests validate against the schema Altair ships."""
    builder, data, shape = every_chart()[name]
    Root.validate(bound(builder, *data, presenter=presenter, **shape))


@pytest.mark.parametrize("name", list(every_chart()))
def test_every_builder_is_an_altair_chart_a_notebook_can_show(name):
    builder, data, shape = every_chart()[name]
    chart = builder(*data, **shape)
    assert isinstance(chart, alt.TopLevelMixin)
    Root.validate(engine.style(chart).to_dict())  # validates, inline data and literal domains


@pytest.mark.parametrize("name", list(every_chart()))
def test_every_field_a_chart_encodes_exists_in_its_data(name):
    builder, data, shape = every_chart()[name]
    spec = bound(builder, *data, **shape)
    columns = {name: set(rows[0]) if rows else set() for name, rows in spec["datasets"].items()}
    for unit, source in units(spec):
        made = {t["as"] for t in unit.get("transform", []) if isinstance(t.get("as"), str)}  # calculated fields
        for channel in unit.get("encoding", {}).values():
            for item in channel if isinstance(channel, list) else [channel]:
                sort = item.get("sort")
                fields = [item.get("field"), sort.get("field") if isinstance(sort, dict) else None]
                for field in filter(None, fields):
                    assert field in columns[source] | made, f"{name}: {field!r} not in {source} {columns[source]}"


def test_new_numbers_keep_the_spec_text_and_swap_only_data():
    """Domains, titles and marker labels are data: the browser swaps them into the live chart."""

    def spec(x):
        curve = pd.DataFrame({"x": [0.0, 1.0], "y": [0.0, x]})
        point = frames.point_frame(x, x, f"{x} → {2 * x}")
        line = engine.chart_spec(
            lines_bars.lines_marked, curve, point, x="x", y="y", title=f"at {x}", x_title="x", y_title="y"
        )
        m = np.eye(2) * x
        cells = frames.matrix_frame(m, ["a", "b"], ["a", "b"])
        signed = heatmaps.CellStyle.signed(m, row_title="t", col_title="u")  # on (-x, x)
        heat = engine.chart_spec(heatmaps.token_heatmap, cells, title=f"scaled {x}", style=signed)
        return line, heat

    for a, b in zip(spec(0.5), spec(0.7), strict=True):
        assert json.dumps({k: v for k, v in a.items() if k != "datasets"}) == json.dumps(
            {k: v for k, v in b.items() if k != "datasets"}
        )
        assert not a["datasets"][engine.LIVE].equals(b["datasets"][engine.LIVE]) or not a["datasets"][
            "posviz_0"
        ].equals(b["datasets"]["posviz_0"])
    assert spec(0.5)[1]["datasets"][engine.LIVE].iloc[0]["hi"] == 0.5
    assert spec(0.5)[0]["datasets"][engine.LIVE].iloc[0]["title"] == "at 0.5"


def test_a_template_is_built_once_per_shape():
    engine._compiled.cache_clear()
    for x in (0.1, 0.2, 0.3):
        engine.chart_spec(heatmaps.token_heatmap, eye_cells(), title=f"t{x}", style=style(domain=(0.0, x)))
    assert engine._compiled.cache_info().misses == 1 and engine._compiled.cache_info().hits == 2
    engine.chart_spec(heatmaps.token_heatmap, eye_cells(), title="t", style=style(annotate=False))
    assert engine._compiled.cache_info().misses == 2


def test_token_heatmap_keeps_matrix_order_and_fixed_weight_colours():
    spec = bound(heatmaps.token_heatmap, eye_cells(), title="w", style=heatmaps.WEIGHTS)
    rect, text = spec["layer"][0]["layer"]
    assert rect["encoding"]["x"]["sort"] == {"field": "col_index", "op": "min"}
    assert rect["encoding"]["color"]["scale"]["range"] == list(images.WEIGHT_STOPS)
    assert {t["field"] for t in rect["encoding"]["tooltip"]} == {"row", "col", "value"}
    assert text["mark"]["type"] == "text"


def test_masked_cells_are_grey_and_print_no_value_so_a_hidden_key_does_not_look_like_a_small_weight():
    """Rendered by Vega: a causal 2x2 with the hidden key at 0 draws it MASKED_GREY with no "0.00" in it, while the
    visible 0 weight below the diagonal keeps its viridis colour and prints its value."""
    w = np.array([[1.0, 0.0], [0.0, 1.0]])  # row 1's weight on key 0 is a real 0; row 0's on key 1 is masked
    cells = frames.masked_frame(frames.matrix_frame(w, ["a", "b"], ["a", "b"]))
    assert cells["masked"].tolist() == [False, True, False, False]
    svg = engine.to_svg(
        engine.chart_spec(heatmaps.token_heatmap, cells, title="w", style=style(masked=True, legend="none"))
    )
    plain = engine.to_svg(engine.chart_spec(heatmaps.token_heatmap, cells, title="w", style=style(legend="none")))
    grey = f'fill="{colours.MASKED_GREY}"'
    assert svg.count(grey) == 1 and grey not in plain
    assert svg.count(">0.00<") == 1 and plain.count(">0.00<") == 2  # the masked cell writes no value


def test_live_domain_and_title_render_from_data():
    """Rendered by Vega through vl-convert: the domain expression reads the live dataset (viridis middle at 1/2)."""
    cells = frames.matrix_frame(np.array([[1.0]]), ["a"], ["b"])
    svg = engine.to_svg(
        engine.chart_spec(heatmaps.token_heatmap, cells, title="live title", style=style(domain=(0.0, 2.0)))
    )
    assert "live title" in svg
    assert "rgb(33, 145, 141)" in svg  # images.WEIGHT_STOPS[5], the middle stop, for 1 on [0, 2]


def test_step_errors_use_a_log_axis_with_a_rounding_band_so_rounding_and_bugs_stay_apart():
    """Errors of 4e-16 (rounding) and 0.1 (a bug) sit 14 decades apart; a linear axis showed both as ~0 ticks."""
    steps = frames.step_errors(np.array([0.0, 4e-16, 0.1]), 2)
    spec = bound(lines_bars.step_errors, steps, frames.rounding_band(), title="e")
    (shade, _), (bar, _), (zero, _) = units(spec)[:3]
    assert zero["mark"]["type"] == "text" and zero["transform"] == [{"filter": "datum.error == 0"}]
    assert bar["encoding"]["y"]["scale"]["type"] == "log"
    assert bar["encoding"]["y2"]["field"] == "floor"
    assert shade["mark"]["type"] == "rect" and shade["encoding"]["y2"]["field"] == "hi"
    rows = spec["datasets"]["posviz_0"]
    assert [r["shown"] for r in rows] == [frames.LOG_FLOOR, 4e-16, 0.1]  # an exact 0 sits on the floor
    assert [r["error"] for r in rows] == [0.0, 4e-16, 0.1]  # the tooltip and CSV keep the true value
    assert all(r["floor"] < r["shown"] or r["error"] == 0 for r in rows)  # every non-zero error has a visible bar
    svg = engine.to_svg(engine.chart_spec(lines_bars.step_errors, steps, frames.rounding_band(), title="e"))
    assert "1e-16" in svg and "1e-1" in svg and "0.0000" not in svg


def test_a_note_is_written_across_the_middle_of_a_heatmap_and_is_live():
    spec = engine.chart_spec(
        heatmaps.token_heatmap, eye_cells(), title="d", style=style(annotate=False), note="all zeros"
    )
    assert spec["datasets"][engine.LIVE].iloc[0]["note"] == "all zeros"
    texts = [u for u, _ in units(engine.inline(spec)) if u.get("mark", {}).get("type") == "text"]
    assert any("note" in json.dumps(t["mark"].get("text", "")) for t in texts)
    assert "all zeros" in engine.to_svg(spec)
    empty = engine.chart_spec(heatmaps.token_heatmap, eye_cells(), title="d", style=style(annotate=False), note="")
    assert {k: v for k, v in empty.items() if k != "datasets"} == {k: v for k, v in spec.items() if k != "datasets"}


def test_the_rotation_plot_is_square_with_the_same_domain_on_both_axes():
    """A circle must look like a circle: equal width and height, and both axes reach -r..r from the data."""
    path = frames.trajectory(np.array([[0.0, 2.0], [1.2, 1.6], [2.0, 0.0]]))  # a quarter arc: x and y span 0..2
    spec = bound(lines_bars.trajectory, path, title="pair")
    assert spec["width"] == spec["height"] == 300
    corners = [u for u, _ in units(spec) if u["mark"].get("opacity") == 0 and u["mark"]["type"] == "point"]
    assert {(c["encoding"]["x"]["field"], c["encoding"]["y"]["field"]) for c in corners} == {
        ("r", "r"),
        ("neg_r", "neg_r"),
    }
    assert spec["datasets"]["posviz_0"][0]["r"] == 2.0 and spec["datasets"]["posviz_0"][0]["neg_r"] == -2.0


@pytest.mark.parametrize("presenter", [False, True])
@pytest.mark.parametrize("builder", [heatmaps.grid_heatmap, heatmaps.token_heatmap, heatmaps.picture_heatmap])
def test_a_square_heatmap_is_as_wide_as_it_is_tall_and_a_plain_one_fills_its_column(builder, presenter):
    """A similarity matrix's diagonal runs at 45° only on a square plot: width = height in the spec."""
    reduced = grids.reduced(np.eye(24), 1, 1)
    data = {
        heatmaps.grid_heatmap: [frames.reduced_frame(reduced)],
        heatmaps.token_heatmap: [eye_cells()],
        heatmaps.picture_heatmap: [frames.picture_frame(b"png"), frames.extent_frame(reduced, (-1.0, 1.0))],
    }[builder]
    shape = dict(title="pe · peᵀ", height=230, note="")
    axes = dict(row_title="t", col_title="u", legend="right")
    shape.update({"style": style(**axes)} if builder is heatmaps.token_heatmap else axes)
    square = engine.chart_spec(builder, *data, presenter=presenter, square=True, **shape)
    assert square["width"] == square["height"] == 230
    plain = engine.chart_spec(builder, *data, presenter=presenter, **shape)
    assert plain["width"] == "container" and plain["height"] == 230


def test_the_pair_move_chart_names_its_signal_and_keeps_lesson_003s_order():
    fig = figures.pair_moves(0.0, 3.5, 5.4, "sinusoidal × 1")
    assert fig.frames[0]["what moves"].tolist() == list(figures.PAIR_MOVES)
    assert fig.frames[0]["max difference"].iloc[0] > 0  # an exact 0 sits on the log axis's floor
    assert fig.frames[0]["shown"].tolist() == ["0", "3.5", "5.4"]
    assert "sinusoidal × 1" in fig.shape["title"]


def test_grid_heatmap_centres_integer_ticks_on_cells():
    """Positions 0..23 drawn one per cell: cell i spans [i - 0.5, i + 0.5), so no tick "24" sits on the last edge."""
    reduced = grids.block_mean(np.zeros((24, 24)), max_cells=24 * 24)
    spec = bound(heatmaps.grid_heatmap, frames.reduced_frame(reduced), title="t", row_title="i", col_title="j")
    rect = units(spec)[0][0]
    calc = {t["as"]: t["calculate"] for t in rect["transform"] if "calculate" in t}
    assert calc["x"] == "datum.col - 0.5" and calc["x_end"] == "datum.col_end - 0.5"
    svg = engine.to_svg(
        engine.chart_spec(heatmaps.grid_heatmap, frames.reduced_frame(reduced), title="t", row_title="i", col_title="j")
    )
    import re

    labels = re.findall(r"<text[^>]*>([^<]*)</text>", svg)
    ticks = {int(t) for t in labels if t.isdigit()}
    assert ticks and ticks <= set(range(24)) and 0 in ticks


def test_reduced_frame_says_what_each_cell_holds():
    reduced = grids.block_mean(np.arange(64.0).reshape(8, 8), max_cells=16)
    frame = frames.reduced_frame(reduced)
    assert len(frame) == 16
    assert reduced.note == "each cell = mean of 2 x 2 values"
    assert frame["value"].iloc[0] == pytest.approx(np.mean([0, 1, 8, 9]))


def test_signed_domain_is_symmetric_and_never_empty():
    assert heatmaps.signed_domain(np.array([[-3.0, 1.0]])) == (-3.0, 3.0)
    lo, hi = heatmaps.signed_domain(np.zeros((2, 2)))
    assert lo < 0 < hi


def test_lines_use_log_scales_on_request_and_zoom_by_dragging():
    frame = pd.DataFrame({"x": [1.0, 10.0], "y": [1.0, 100.0]})
    spec = bound(lines_bars.lines, frame, x="x", y="y", title="t", x_title="x", y_title="y", log_x=True, log_y=True)
    unit = units(spec)[0][0]
    assert unit["encoding"]["x"]["scale"]["type"] == "log" and unit["encoding"]["y"]["scale"]["type"] == "log"
    assert [p["bind"] for p in spec["params"]] == ["scales"]


def test_presenter_style_uses_16px_labels_or_more():
    spec = bound(heatmaps.token_heatmap, eye_cells(), title="t", presenter=True)
    config = spec["config"]
    assert config["axis"]["labelFontSize"] >= 16 and config["title"]["fontSize"] >= 16
    assert config["legend"]["labelFontSize"] >= 16 and config["text"]["fontSize"] >= 16
    assert all("fontSize" not in unit.get("mark", {}) for unit, _ in units(spec))  # nothing overrides the style


@pytest.mark.parametrize("name", list(every_chart()))
def test_no_text_mark_sets_a_size_below_16px_so_presenter_mode_reaches_16px(name):
    """Cell values, marker and band labels take their size from style (17 px presenting); a fixed 13 px would not."""
    builder, data, shape = every_chart()[name]
    for unit, _ in units(bound(builder, *data, presenter=True, **shape)):
        mark = unit.get("mark", {})
        if isinstance(mark, dict) and mark.get("type") == "text":
            assert mark.get("fontSize", 16) >= 16, (name, mark)


def test_columns_and_vectors_frames_are_long_form():
    m = np.arange(12.0).reshape(4, 3)
    f = frames.columns_frame(m, [0, 2], first=10, rows=3)
    assert list(f["position"]) == [10, 11, 12, 10, 11, 12]
    assert list(f["value"]) == [0.0, 3.0, 6.0, 2.0, 5.0, 8.0]
    v = frames.vectors_frame([np.ones(3), np.zeros(3)], ["a", "b"])
    assert list(v["vector"]) == ["a"] * 3 + ["b"] * 3


def test_inline_writes_nan_as_null_at_full_precision():
    frame = pd.DataFrame({"v": [1 / 3, np.nan]})
    assert engine.records(frame) == [{"v": 1 / 3}, {"v": None}]


def test_unknown_scheme_says_what_it_expected():
    with pytest.raises(ValueError, match="blueorange.*viridis.*got 'jet'"):
        heatmaps.color_scale("jet", (0.0, 1.0))


def test_png_colours_match_the_chart_palette_at_every_stop():
    domain = (-2.0, 2.0)
    scale = heatmaps.color_scale(images.SIGNED_SCHEME, domain).to_dict()
    stops = np.array([scale["domain"]])
    image = images.colorize(stops, images.SIGNED_STOPS, domain)[0]
    assert ["#" + "".join(f"{c:02x}" for c in px) for px in image] == list(scale["range"])


def test_colorize_clamps_interpolates_and_greys_nan():
    image = images.colorize(np.array([[-5.0, 0.5, np.nan, 5.0]]), images.WEIGHT_STOPS, (0.0, 1.0))[0]
    assert tuple(image[0]) == (0x44, 0x01, 0x54) and tuple(image[3]) == (0xFD, 0xE7, 0x25)
    assert tuple(image[1]) == (0x21, 0x91, 0x8D) and tuple(image[2]) == images.MISSING
    with pytest.raises(ValueError, match="rise"):
        images.colorize(np.zeros((1, 1)), images.WEIGHT_STOPS, (1.0, 1.0))


def test_charts_and_pictures_take_their_colours_from_one_stop_function():
    for scheme in (images.SIGNED_SCHEME, images.WEIGHT_SCHEME):
        assert heatmaps.color_scale(scheme, (0.0, 1.0)).to_dict()["range"] == list(images.stops(scheme))
    with pytest.raises(ValueError, match="scheme must be 'blueorange' or 'viridis', got 'rainbow'"):
        images.stops("rainbow")


def test_palette_stops_are_vegas_schemes():
    """Rendered by Vega itself through vl-convert: the stored stops are its schemes (within 2/255)."""
    import importlib.util
    import sys
    from pathlib import Path

    spec = importlib.util.spec_from_file_location(
        "extract", Path(__file__).resolve().parents[1] / "tools" / "extract_palettes.py"
    )
    extract = importlib.util.module_from_spec(spec)
    sys.modules["extract"] = extract
    spec.loader.exec_module(extract)
    for scheme in (images.SIGNED_SCHEME, images.WEIGHT_SCHEME):
        rendered = np.array([[int(h[i : i + 2], 16) for i in (1, 3, 5)] for h in extract.sample(scheme)])
        stored = np.array([[int(h[i : i + 2], 16) for i in (1, 3, 5)] for h in images.stops(scheme)])
        assert np.abs(rendered - stored).max() <= 2


def test_steps_draw_lines_flat_until_the_next_x():
    frame = pd.DataFrame({"x": [0.0, 1.0], "y": [1.0, 2.0]})
    shape = dict(x="x", y="y", title="t", x_title="x", y_title="y")
    assert units(bound(lines_bars.lines, frame, steps=True, **shape))[0][0]["mark"]["interpolate"] == "step-after"
    assert "interpolate" not in units(bound(lines_bars.lines, frame, **shape))[0][0]["mark"]


def test_series_frame_puts_each_named_series_under_its_x_values():
    frame = frames.series_frame(
        np.array([5, 6]), {"a": np.array([1.0, 2.0]), "b": np.array([3.0, 4.0])}, x_name="pair", y_name="v", group="g"
    )
    assert frame.to_dict("list") == {"pair": [5, 6, 5, 6], "v": [1.0, 2.0, 3.0, 4.0], "g": ["a", "a", "b", "b"]}
    with pytest.raises(ValueError, match="shape"):
        frames.series_frame(np.arange(3), {"a": np.zeros(2)})


def test_indexed_colours_stay_within_a_level_of_colorize_and_grey_nan():
    rng = np.random.default_rng(3)
    m = rng.uniform(-1.5, 1.5, (40, 30))
    m[3, 4] = np.nan
    for stops in (images.SIGNED_STOPS, images.WEIGHT_STOPS):
        index, palette = images.indexed(m, stops, (-1.0, 1.0))
        assert index.dtype == np.uint8 and palette.shape == (256, 3)
        direct = images.colorize(m, stops, (-1.0, 1.0)).astype(int)
        assert np.abs(palette[index].astype(int) - direct).max() <= 3
        assert tuple(palette[index[3, 4]]) == images.MISSING
    with pytest.raises(ValueError, match="at most 255"):
        images.indexed(m, images.SIGNED_STOPS, (-1.0, 1.0), levels=256)


def test_upscaling_stops_at_the_long_side_limit():
    assert images.upscale(np.zeros((16, 16, 3), np.uint8)).shape == (256, 256, 3)
    assert images.upscale(np.zeros((4, 256), np.uint8)).shape == (32, 2048)
    assert images.upscale(np.zeros((300, 5000), np.uint8)).shape == (300, 5000)


def test_a_matrix_png_decodes_to_its_palette_colours_at_the_size_asked_for():
    m = np.array([[-1.0, -0.5, 0.0, 0.5], [1.0, np.nan, 0.25, -0.25], [0.1, 0.2, 0.3, 0.4]])
    picture = Image.open(io.BytesIO(images.matrix_png(m, images.SIGNED_SCHEME, (-1.0, 1.0), box=(30, 40))))
    assert picture.mode == "P"  # one byte a pixel
    index, palette = images.indexed(m, images.SIGNED_STOPS, (-1.0, 1.0), levels=images.PNG_LEVELS)
    rgb = np.asarray(picture.convert("RGB"))
    assert rgb.shape == (30, 40, 3)  # each value a 10 x 10 block
    np.testing.assert_array_equal(rgb[::10, ::10], palette[index])
    bar = np.asarray(Image.open(io.BytesIO(images.colour_bar_png((0.0, 1.0), images.WEIGHT_SCHEME))).convert("RGB"))
    assert bar.shape == (images.BAR_ROWS, 512, 3)
    np.testing.assert_array_equal(
        bar[0, [0, -1]], images.colorize(np.array([[0.0, 1.0]]), images.WEIGHT_STOPS, (0.0, 1.0))[0]
    )


def test_only_drawn_points_carry_a_tooltip_since_vega_picks_a_line_by_its_first_datum():
    curve = pd.DataFrame({"x": [1.0, 2.0, 3.0], "y": [1.0, 4.0, 9.0]})
    shape = dict(x="x", y="y", title="t", x_title="x", y_title="y")
    import vl_convert as vlc

    def tooltips(spec: dict) -> list[tuple[str, bool]]:
        """(Vega mark type, has a tooltip) for every mark of the compiled Vega spec."""
        found = []

        def walk(node):
            if isinstance(node, dict):
                if node.get("type") in ("line", "symbol") and "encode" in node:
                    found.append((node["type"], "tooltip" in node["encode"].get("update", {})))
                for value in node.values():
                    walk(value)
            elif isinstance(node, list):
                for value in node:
                    walk(value)

        walk(vlc.vegalite_to_vega(spec))  # `bound` has put the data inline already
        return found

    assert tooltips(bound(lines_bars.lines, curve, **shape)) == [("line", False)]
    assert sorted(tooltips(bound(lines_bars.lines, curve, points=True, **shape))) == [("line", False), ("symbol", True)]
    path = pd.DataFrame({"position": [0, 1], "x": [1.0, 0.0], "y": [0.0, 1.0], "r": 1.0, "neg_r": -1.0})
    line, dots = bound(lines_bars.trajectory, path, title="t")["layer"][0]["layer"][:2]
    assert "tooltip" not in line["encoding"] and "tooltip" in dots["encoding"]


def test_a_picture_heatmap_keeps_the_cell_centred_axes_and_legend_around_one_image_mark():
    reduced = grids.reduced(np.arange(12.0).reshape(3, 4), 1, 1).shifted(10, 0)
    extent = frames.extent_frame(reduced, (-2.0, 2.0))
    assert extent["x"].tolist() == [-0.5, 3.5] and extent["y"].tolist() == [9.5, 12.5]
    assert extent["value"].tolist() == [-2.0, 2.0]
    url = frames.picture_frame(b"\x89PNG")["url"][0]
    assert url.startswith("data:image/png;base64,") and base64.b64decode(url.split(",")[1]) == b"\x89PNG"
    spec = bound(
        heatmaps.picture_heatmap, frames.picture_frame(b"png"), extent, title="t", row_title="r", col_title="c"
    )
    image, axes = spec["layer"][0]["layer"]
    assert image["mark"]["type"] == "image" and image["encoding"]["url"]["field"] == "url"
    assert axes["encoding"]["y"]["scale"]["reverse"] and axes["encoding"]["color"]["field"] == "value"


def test_marker_and_reference_labels_sit_on_a_white_halo_drawn_first():
    """Vega text has no halo: a white, thickly outlined copy under each label keeps it readable over the lines."""
    curve = pd.DataFrame({"x": [1.0, 2.0], "y": [1.0, 2.0]})
    for builder, extra in (
        (lines_bars.lines_marked, frames.point_frame(1.5, 1.5, "here")),
        (lines_bars.lines_with_reference, frames.level_frame(1.5, "d/2")),
    ):
        spec = bound(builder, curve, extra, x="x", y="y", title="t", x_title="x", y_title="y")
        texts = [u["mark"] for u, data in units(spec) if data == "posviz_1" and u["mark"]["type"] == "text"]
        assert [t["color"] for t in texts] == ["white", colours.ACCENT]
        assert texts[0]["stroke"] == "white" and texts[0]["strokeWidth"] >= 4 and "stroke" not in texts[1]


@pytest.mark.parametrize(("x", "anchor"), [(1.0, "start"), (9.9, "end")])
def test_a_marker_label_stays_inside_the_plot_at_either_end(x, anchor):
    """Rendered by Vega: at the right end the label turns to the left of its rule instead of running off the chart."""
    curve = pd.DataFrame({"x": [1.0, 10.0], "y": [1.0, 2.0]})
    spec = engine.chart_spec(
        lines_bars.lines_marked,
        curve,
        frames.point_frame(x, 1.5, "marked here"),
        x="x",
        y="y",
        title="t",
        x_title="x",
        y_title="y",
    )
    label = [t for t in engine.to_svg(spec).split("<text")[1:] if ">marked here</text>" in t]
    assert len(label) == 2 and all(f'text-anchor="{anchor}"' in t for t in label)


def test_y_axis_end_labels_sit_on_their_gridlines_and_token_labels_stay_centred():
    """Streamlit's theme flushes end labels inward (labelFlush): a top "1.00" then sat below the top gridline."""
    config = bound(heatmaps.token_heatmap, eye_cells(), title="w")["config"]
    assert config["axisY"]["labelFlush"] is False and config["axisDiscrete"]["labelFlush"] is False


def test_bars_can_write_their_values_on_a_log_axis_ticked_in_one_style():
    frame = pd.DataFrame({"what": ["a", "b"], "v": [1e-16, 1.22], "shown": ["1e-16", "1.22"]})
    spec = bound(lines_bars.bars, frame, x="what", y="v", title="t", x_title="", y_title="v", log_y=True, text="shown")
    bar, text = (u for u, _ in units(spec)[:2])
    assert bar["encoding"]["y"]["axis"]["format"] == ".0e" and bar["encoding"]["y"]["scale"]["type"] == "log"
    assert text["mark"]["type"] == "text" and text["encoding"]["text"]["field"] == "shown"
    plain = units(bound(lines_bars.bars, frame, x="what", y="v", title="t", x_title="", y_title="v"))
    assert [u["mark"]["type"] for u, data in plain if data != engine.LIVE] == ["bar"]  # no values asked, none written


def test_a_linear_x_axis_of_lines_ends_at_the_data_not_at_a_rounder_number():
    frame = pd.DataFrame({"x": [-160.0, 160.0], "y": [0.0, 1.0]})
    unit = units(bound(lines_bars.lines, frame, x="x", y="y", title="t", x_title="x", y_title="y"))[0][0]
    assert unit["encoding"]["x"]["scale"]["nice"] is False


def test_heatmap_panels_draw_every_panel_in_its_place_with_one_legend_a_live_domain_and_each_note():
    """Rendered by Vega: titles in panel_index order (not alphabetical), the note only in its panel, the colour
    domain read from the live dataset, one colour legend for all panels."""
    cells = pd.concat(
        [
            eye_cells().assign(panel="zeta", panel_index=0, note="all zeros"),
            (eye_cells().assign(value=lambda f: f["value"] * 2.0).assign(panel="alpha", panel_index=1, note="")),
        ],
        ignore_index=True,
    )
    shape = dict(width=120, notes=True)
    spec = engine.chart_spec(heatmaps.heatmap_panels, cells, style=style(domain=(0.0, 2.0), annotate=False), **shape)
    assert spec["facet"]["sort"] == {"field": "panel_index", "op": "min"}
    other = engine.chart_spec(heatmaps.heatmap_panels, cells, style=style(domain=(0.0, 4.0), annotate=False), **shape)
    # a new domain binds data; the spec is compiled once
    assert {k: v for k, v in spec.items() if k != "datasets"} == {k: v for k, v in other.items() if k != "datasets"}
    svg = engine.to_svg(spec)
    assert svg.index(">zeta<") < svg.index(">alpha<")
    assert svg.count(">all zeros<") == 1
    assert "rgb(33, 145, 141)" in svg  # the middle stop, for 1 on [0, 2]: the domain came from the live data
    assert svg.count('class="mark-rect role-legend-gradient"') == 1  # one colour bar for every panel


LONG_TITLE = "row t, pair i: sin and cos of t / 10000^(2i/8): one turn every 2π·10000^(2i/8) positions"


def _in_window(spec: dict, width: int | None) -> str:
    """A spec drawn by vl-convert (SVG text) as in a window `width` px wide (None: no window, as a download)."""
    import json

    vlc = pytest.importorskip("vl_convert")
    text = json.dumps(spec)
    return vlc.vegalite_to_svg(json.loads(text if width is None else text.replace("windowSize()[0]", str(width))))


def _title_lines(expr: str, width: int | None) -> list[str]:
    """The title's lines as Vega draws them (an SVG text's tspans) for a title text expression."""
    import re

    chart = alt.Chart(pd.DataFrame({"x": [1, 2]})).mark_point().encode(x="x:Q")
    svg = _in_window(chart.properties(title=alt.TitleParams(text=alt.ExprRef(expr)), width=300).to_dict(), width)
    title = re.search(r'role-title-text".*?<text[^>]*>(.*?)</text>', svg).group(1)
    return [html.unescape(t) for t in re.findall(r"<tspan[^>]*>(.*?)</tspan>", title)] or [html.unescape(title)]


def test_a_chart_title_wraps_at_spaces_on_a_phone_and_stays_one_line_wider():
    """wrapped_title: in a window of 640 px or less the title is lines of at most TITLE_LINE characters that give back
    the title; wider, or with no window (an SVG download, the offline deck), the title as it is."""
    from posviz.drawing.engine import PHONE, TITLE_LINE, wrapped_title

    expr = wrapped_title(LONG_TITLE).expr
    lines = _title_lines(expr, 390)
    assert len(lines) == 3 and all(len(line) <= TITLE_LINE for line in lines), lines
    assert " ".join(lines) == LONG_TITLE
    assert _title_lines(expr, PHONE + 1) == _title_lines(expr, None) == [LONG_TITLE]
    assert _title_lines(wrapped_title("short").expr, 390) == ["short"]


def test_every_chart_title_is_wrapped_on_a_phone():
    """A builder's title, live or written, goes through wrapped_title (title_params), so no chart is cut with "…"."""
    frame = pd.DataFrame({"category": ["a"], "value": [1.0]})
    shape = dict(x="category", y="value", x_title="c", y_title="v", title=LONG_TITLE)
    spec = engine.chart_spec(lines_bars.bars, frame, **shape)
    assert spec["title"]["text"]["expr"].startswith(engine.on_phone())


@pytest.mark.parametrize(("count", "long"), [(3, True), (5, True), (4, False)])
def test_crowded_bars_values_are_written_upright_on_a_phone_only(count, long):
    """On a phone the values of log bars whose words together pass PHONE_CHARACTERS would run into each other: they
    are written upright (inside a bar, or up from the axis floor); fewer words, a wider window or no window keep them
    across (step 10's four wavelengths, "6,283.2" the longest, stay across at 390 px)."""
    import re

    gaps = [0.1, 0.0, 0.01, 0.02, 0.0][:count]
    frame = pd.DataFrame({"run": list("abcde")[:count], "gap": [frames.on_log_axis(g) for g in gaps]})
    frame["shown"] = [f"cos {1 - g:.5f}" if long else f"{g:g}" for g in gaps]
    shape = dict(x="run", y="gap", x_title="", y_title="gap", log_y=True, text="shown", title="t")
    spec = engine.inline(engine.chart_spec(lines_bars.bars, frame, **shape))

    def upright(width: int | None) -> list[str]:
        found = re.findall(r"<text[^>]*rotate\((?:-90|270)\)[^>]*>([^<]*)</text>", _in_window(spec, width))
        return sorted(f for f in found if f in set(frame["shown"]))

    crowded = count * max(map(len, frame["shown"])) > lines_bars.PHONE_CHARACTERS
    assert crowded == (count == 5)  # four short values (step 10's wavelengths) stay across
    assert upright(390) == (sorted(frame["shown"]) if crowded else [])
    assert upright(1280) == upright(None) == []


def _written_colour(spec, value, domain):
    """The colour the spec's written cell values take at `value`: its condition's test evaluated in Python, the
    live domain's ends (bound at draw time) put in."""
    (text,) = [u for u, _ in units(spec) if "condition" in u.get("encoding", {}).get("color", {})]
    colour = text["encoding"]["color"]
    test = colour["condition"]["test"].replace("datum.value", repr(float(value))).replace("&&", " and ")
    for end, bound_value in zip(("lo", "hi"), domain, strict=True):
        test = test.replace(f"data('posviz_live')[0]['{end}']", repr(float(bound_value)))
    return colour["condition"]["value"] if eval(test.replace("true", "True")) else colour["value"]  # noqa: S307


@pytest.mark.parametrize("scheme, domain", [(images.WEIGHT_SCHEME, (0.0, 1.0)), (images.SIGNED_SCHEME, (-4.0, 4.0))])
def test_written_cell_values_take_the_text_colour_with_more_contrast_on_their_cell(scheme, domain):
    """Dark numbers on light cells, white on dark ones, by the cell colour's WCAG luminance (as plotting tools pick
    a label's colour): step 2's "3.77" on light orange and "-3.61" on mid-blue were white."""
    spec = bound(heatmaps.token_heatmap, eye_cells(), title="w", style=style(scheme=scheme, domain=domain))
    lo, hi = domain
    for value in np.linspace(lo, hi, 81):
        cell = images.colorize(np.array([[value]]), images.stops(scheme), domain)[0, 0]
        lum = float(images.luminance(cell))
        on_black, on_white = (lum + 0.05) / 0.05, 1.05 / (lum + 0.05)
        if abs(np.log(on_black / on_white)) < 0.15:
            continue  # within a few percent of the even point: either colour reads alike
        best = "black" if on_black > on_white else "white"
        assert _written_colour(spec, value, domain) == best, (scheme, value, lum)


@pytest.mark.parametrize("width", [81, 200])  # cells of 27 px (a phone's column of 9 heads at 3 here) and 67 px
def test_a_compact_weight_map_writes_its_values_without_the_leading_zero_only_in_narrow_cells(width):
    """Step 21's claim rests on each head's weight, which a phone's 26 px cells left to the tooltip: a compact style
    writes ".38" where "0.38" does not fit (drawn by vl-convert, so Vega's own bandwidth decides)."""
    import re

    import vl_convert as vlc

    cells = frames.matrix_frame(np.array([[0.38, 0.0413, 1.0], [0.2, 0.57, 0.03]]), ["a", "b"], ["0", "1", "2"])
    compact = heatmaps.CellStyle.weights(compact=True, legend="none")
    svg = vlc.vegalite_to_svg(heatmaps.token_heatmap(cells, title="w", style=compact).properties(width=width).to_dict())
    written = [t for a, t in re.findall(r"<text([^>]*)>([^<]*)</text>", svg) if 'opacity="0"' not in a]
    full = ["0.38", "0.04", "1.00", "0.20", "0.57", "0.03"]
    assert written[:6] == (full if width / 3 >= heatmaps.VALUE_CELL_PX else [v.replace("0.", ".", 1) for v in full])
    plain = heatmaps.CellStyle.weights(legend="none")
    svg = vlc.vegalite_to_svg(heatmaps.token_heatmap(cells, title="w", style=plain).properties(width=width).to_dict())
    shown = [t for a, t in re.findall(r"<text([^>]*)>([^<]*)</text>", svg) if 'opacity="0"' not in a]
    assert (shown[:6] == full) == (width / 3 >= heatmaps.VALUE_CELL_PX)  # the plain style: all or none


@pytest.mark.parametrize("width", [90, 200])  # cells of 30 px (step 2's 8 dimensions on a phone) and 67 px
def test_a_compact_signed_map_writes_one_decimal_only_in_narrow_cells(width):
    """Step 2's copies on a phone: "−5.05" needs VALUE_CELL_PX, "−5.1" fits COMPACT_SIGNED_PX (vl-convert draws)."""
    import re

    import vl_convert as vlc

    m = np.array([[-5.0512, 0.03, 7.17], [-2.7349, 0.43, 5.32]])
    cells = frames.matrix_frame(m, ["a", "b"], ["0", "1", "2"])
    compact = heatmaps.CellStyle.signed(m, row_title="", col_title="dimension", compact=True, legend="none")
    svg = vlc.vegalite_to_svg(heatmaps.token_heatmap(cells, title="w", style=compact).properties(width=width).to_dict())
    written = [t for a, t in re.findall(r"<text([^>]*)>([^<]*)</text>", svg) if 'opacity="0"' not in a]
    wide = width / 3 >= heatmaps.VALUE_CELL_PX
    expected = [f"{v:.2f}" if wide else f"{v:.1f}" for v in m.ravel()]
    assert written[:6] == [v.replace("-", "\u2212") for v in expected]  # Vega writes "−"


def test_a_boxed_heatmap_outlines_exactly_its_boxed_cells():
    """Step 21's headlines come from two layers' cells: those cells, and no others, get an accent outline (drawn by
    vl-convert)."""
    import vl_convert as vlc

    cells = frames.matrix_frame(np.array([[0.1, 0.2, 0.3], [0.4, 0.5, 0.6]]), ["a", "b"], ["0", "1", "2"])
    cells["boxed"] = cells["row_index"] == 1
    for boxed in (True, False):
        style_ = heatmaps.CellStyle.weights(boxed=boxed, legend="none")
        spec = engine.inline(engine.chart_spec(heatmaps.token_heatmap, cells, title="w", style=style_))
        svg = vlc.vegalite_to_svg({**spec, "width": 300})
        assert svg.count(f'stroke="{colours.ACCENT}"') == (3 if boxed else 0)


def test_a_missing_cell_value_writes_nothing_in_either_style():
    """A NaN cell (null in the data) must not write "null", "NaN" or "0.00" in its cell (vl-convert draws)."""
    import re

    import vl_convert as vlc

    cells = frames.matrix_frame(np.array([[0.38, np.nan], [0.2, 0.57]]), ["a", "b"], ["0", "1"])
    for compact in (False, True):
        style_ = heatmaps.CellStyle.weights(compact=compact, legend="none")
        spec = engine.inline(engine.chart_spec(heatmaps.token_heatmap, cells, title="w", style=style_))
        svg = vlc.vegalite_to_svg({**spec, "width": 300})
        written = [t for a, t in re.findall(r"<text([^>]*)>([^<]*)</text>", svg) if 'opacity="0"' not in a]
        assert written[:4] == ["0.38", "", "0.20", "0.57"] or written[:3] == ["0.38", "0.20", "0.57"], written
        assert not {"null", "NaN", "0.00"} & set(written), written


def test_a_cell_too_narrow_for_its_written_value_leaves_it_to_the_tooltip():
    """Step 2's values were packed edge to edge in a phone's 29 px cells: a value is drawn only where its cell is
    at least VALUE_CELL_PX wide (the x scale's band, so a phone's column and a hall's wide chart each get theirs)."""
    spec = bound(heatmaps.token_heatmap, eye_cells(), title="w", style=style())
    (text,) = [u for u, _ in units(spec) if "condition" in u.get("encoding", {}).get("color", {})]
    assert text["mark"]["opacity"] == {"expr": f"bandwidth('x') >= {heatmaps.VALUE_CELL_PX} ? 1 : 0"}
    assert heatmaps.VALUE_CELL_PX >= 36  # "−3.52": five characters of 13 px type
    assert "value" in {t["field"] for t in text["encoding"]["tooltip"]}
