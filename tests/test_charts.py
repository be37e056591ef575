import json

import numpy as np
import pandas as pd
import pytest

from posviz import charts, grids, images


def spec(chart):
    return charts.inline(chart)


def test_token_heatmap_has_fixed_weight_domain_labels_and_tooltips():
    frame = charts.matrix_frame(np.eye(3), charts.labelled(["a", "b", "a"]), charts.labelled(["a", "b", "a"]))
    d = spec(charts.token_heatmap(frame, title="w"))
    rect, text = d["layer"]
    color = rect["encoding"]["color"]
    assert color["scale"]["domain"][0] == 0.0 and color["scale"]["domain"][-1] == 1.0
    assert color["scale"]["range"] == list(images.WEIGHT_STOPS) and color["scale"]["interpolate"] == "rgb"
    assert rect["encoding"]["x"]["sort"] == ["0 a", "1 b", "2 a"]
    assert {t["field"] for t in rect["encoding"]["tooltip"]} == {"row", "col", "value"}
    assert text["mark"]["type"] == "text"


def test_signed_heatmaps_diverge_around_zero():
    reduced = grids.block_mean(np.linspace(-1, 1, 100).reshape(10, 10))
    d = spec(charts.grid_heatmap(reduced, title="pe", row_title="t", col_title="dim"))
    scale = d["encoding"]["color"]["scale"]
    assert scale["domain"][0] == -scale["domain"][-1] and scale["domain"][5] == 0.0
    assert scale["range"] == list(images.SIGNED_STOPS)
    assert d["encoding"]["x2"]["field"] == "col_end"


def test_reduced_frame_says_what_each_cell_holds():
    reduced = grids.block_mean(np.arange(64.0).reshape(8, 8), max_cells=16)
    frame = charts.reduced_frame(reduced)
    assert len(frame) == 16
    assert reduced.note == "each cell = mean of 2 x 2 values"
    assert frame["value"].iloc[0] == pytest.approx(np.mean([0, 1, 8, 9]))


def test_signed_domain_is_symmetric_and_never_empty():
    assert charts.signed_domain(np.array([[-3.0, 1.0]])) == (-3.0, 3.0)
    lo, hi = charts.signed_domain(np.zeros((2, 2)))
    assert lo < 0 < hi


def test_lines_use_log_scales_on_request():
    frame = pd.DataFrame({"x": [1.0, 10.0], "y": [1.0, 100.0]})
    d = spec(charts.lines(frame, x="x", y="y", title="t", x_title="x", y_title="y", log_x=True, log_y=True))
    assert d["encoding"]["x"]["scale"]["type"] == "log" and d["encoding"]["y"]["scale"]["type"] == "log"


def test_presenter_style_uses_16px_labels_or_more():
    frame = charts.matrix_frame(np.eye(2), ["a", "b"], ["a", "b"])
    d = spec(charts.style(charts.token_heatmap(frame, title="t"), presenter=True))
    assert d["config"]["axis"]["labelFontSize"] >= 16 and d["config"]["title"]["fontSize"] >= 16


def test_columns_and_vectors_frames_are_long_form():
    m = np.arange(12.0).reshape(4, 3)
    f = charts.columns_frame(m, [0, 2], first=10, rows=3)
    assert list(f["position"]) == [10, 11, 12, 10, 11, 12]
    assert list(f["value"]) == [0.0, 3.0, 6.0, 2.0, 5.0, 8.0]
    v = charts.vectors_frame([np.ones(3), np.zeros(3)], ["a", "b"])
    assert list(v["vector"]) == ["a"] * 3 + ["b"] * 3


def every_chart():
    """One of each builder, layered the way the pages layer them."""
    frame = charts.matrix_frame(np.eye(3), charts.labelled(["a", "b", "a"]), charts.labelled(["a", "b", "a"]))
    curve = pd.DataFrame({"x": [1.0, 2.0, 3.0], "y": [1.0, np.nan, 0.5], "line": ["a", "a", "b"]})
    reduced = grids.block_mean(np.linspace(-1, 1, 100).reshape(10, 10), max_cells=25)
    path = pd.DataFrame({"position": [0, 1, 2], "x": [0.0, 0.5, 1.0], "y": [1.0, 0.8, 0.0]})
    steps = pd.DataFrame({"token": [0, 1], "phase": ["prefill", "one at a time"], "error": [0.0, 1e-3]})
    return {
        "token_heatmap": charts.token_heatmap(frame, title="w"),
        "token_heatmap signed": charts.token_heatmap(frame, title="w", scheme=charts.SIGNED_SCHEME, domain=(-1, 1)),
        "grid_heatmap": charts.grid_heatmap(reduced, title="pe", row_title="t", col_title="dim"),
        "lines + marker": charts.layer(
            charts.lines(curve, x="x", y="y", color="line", title="t", x_title="x", y_title="y", log_y=True),
            charts.marker(2.0, 0.7, "here"),
        ),
        "lines + hline": charts.layer(
            charts.lines(curve, x="x", y="y", title="t", x_title="x", y_title="y"), charts.hline(1.0, "d/2")
        ),
        "grouped_bars": charts.grouped_bars(
            charts.vectors_frame([np.ones(3), np.zeros(3)], ["a", "b"]),
            x="component", y="value", group="vector", title="t", y_title="out",
        ),
        "trajectory": charts.trajectory(path, title="pair"),
        "step_errors": charts.step_errors(steps, title="steps"),
    }  # fmt: skip


@pytest.mark.parametrize("name", list(every_chart()))
@pytest.mark.parametrize("presenter", [False, True])
def test_every_chart_is_valid_vega_lite(name, presenter):
    """Checked against the Vega-Lite JSON schema that Altair ships (the charts are built as plain dicts)."""
    from altair.vegalite.v6.schema.core import Root

    Root.validate(spec(charts.style(every_chart()[name], presenter=presenter)))


def test_finish_names_datasets_by_order_so_new_numbers_keep_the_spec():
    def chart(x):
        curve = pd.DataFrame({"x": [0.0, 1.0], "y": [0.0, x]})
        return charts.layer(charts.lines(curve, x="x", y="y", title="t", x_title="x", y_title="y"),
                            charts.marker(x, x, f"{x}"))  # fmt: skip

    a, b = charts.finish(chart(0.5)), charts.finish(chart(0.7))
    assert list(a["datasets"]) == ["posviz_0", "posviz_1"]
    assert json.dumps({k: v for k, v in a.items() if k != "datasets"}) == json.dumps(
        {k: v for k, v in b.items() if k != "datasets"}
    )
    assert a["datasets"]["posviz_1"]["x"].iloc[0] == 0.5 and b["datasets"]["posviz_1"]["x"].iloc[0] == 0.7
    shared = charts.finish(charts.token_heatmap(charts.matrix_frame(np.eye(2), ["a", "b"], ["a", "b"]), title="t"))
    assert list(shared["datasets"]) == ["posviz_0"]  # rect and text layers share one dataset


def test_inline_writes_nan_as_null_at_full_precision():
    frame = pd.DataFrame({"v": [1 / 3, np.nan]})
    assert charts.records(frame) == [{"v": 1 / 3}, {"v": None}]


def test_svg_export_renders():
    frame = charts.matrix_frame(np.eye(2), ["a", "b"], ["a", "b"])
    svg = charts.to_svg(charts.style(charts.token_heatmap(frame, title="t")))
    assert svg.lstrip().startswith("<svg") and "</svg>" in svg


def test_png_colours_match_the_chart_palette_at_every_stop():
    domain = (-2.0, 2.0)
    scale = charts.color_scale(charts.SIGNED_SCHEME, domain)
    stops = np.array([scale["domain"]])
    image = images.colorize(stops, images.SIGNED_STOPS, domain)[0]
    assert ["#" + "".join(f"{c:02x}" for c in px) for px in image] == list(scale["range"])


def test_colorize_clamps_interpolates_and_greys_nan():
    image = images.colorize(np.array([[-5.0, 0.5, np.nan, 5.0]]), images.WEIGHT_STOPS, (0.0, 1.0))[0]
    assert tuple(image[0]) == (0x44, 0x01, 0x54) and tuple(image[3]) == (0xFD, 0xE7, 0x25)
    assert tuple(image[1]) == (0x21, 0x91, 0x8D) and tuple(image[2]) == images.MISSING
    with pytest.raises(ValueError, match="rise"):
        images.colorize(np.zeros((1, 1)), images.WEIGHT_STOPS, (1.0, 1.0))


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
    for scheme, stops in (("blueorange", images.SIGNED_STOPS), ("viridis", images.WEIGHT_STOPS)):
        rendered = np.array([[int(h[i : i + 2], 16) for i in (1, 3, 5)] for h in extract.sample(scheme)])
        stored = np.array([[int(h[i : i + 2], 16) for i in (1, 3, 5)] for h in stops])
        assert np.abs(rendered - stored).max() <= 2


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
