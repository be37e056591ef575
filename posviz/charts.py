"""Vega-Lite chart builders: finished arrays in, chart specs out. No maths here, no streamlit.

A chart is a plain Vega-Lite dict whose data sit as DataFrames under "data": {"values": ...};
`finish` moves them to named datasets for Streamlit, `inline` turns them into JSON records.
Plain dicts because building the same chart through Altair objects cost 20-100 ms of deep copies
and schema look-ups per chart, on every rerun (benchmarks/chart_build.py measures both); the tests
validate every builder's output against the Vega-Lite schema that Altair ships.

Colour schemes are colour-blind-safe with fixed domains: signed values diverge around 0
("blueorange"), attention weights run over [0, 1] ("viridis"). Both are drawn through the same
11 RGB stops as `posviz.images`, so a PNG view and a chart of the same matrix share colours.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import pandas as pd

from posviz import images
from posviz.grids import Reduced

SIGNED_SCHEME = "blueorange"
WEIGHT_SCHEME = "viridis"
SERIES_COLORS = ("#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#F0E442", "#000000")
SCHEMA = "https://vega.github.io/schema/vega-lite/v6.json"


def style(chart: dict, *, presenter: bool = False) -> dict:
    """Font sizes for a laptop (12-14 px) or a lecture screen (16-22 px); width fits the column."""
    label, title, heading = (16, 18, 22) if presenter else (12, 13, 15)
    return {
        **chart,
        "autosize": {"type": "fit-x", "contains": "padding"},  # height stays the plot's own
        "config": {
            "axis": {"labelFontSize": label, "titleFontSize": title},
            "legend": {"labelFontSize": label, "titleFontSize": title},
            "title": {"fontSize": heading, "anchor": "start"},
            "header": {"labelFontSize": title, "titleFontSize": title},
            "view": {"strokeWidth": 0},
        },
    }


def layer(*parts: dict) -> dict:
    """Draw `parts` on shared axes; the first part's title, width and height become the whole chart's."""
    lifted = ("title", "width", "height")
    top = {key: parts[0][key] for key in lifted if key in parts[0]}
    return {
        "$schema": SCHEMA,
        **top,
        "layer": [{k: v for k, v in p.items() if k not in (*lifted, "$schema")} for p in parts],
    }


def _walk_data(node: object, visit) -> object:
    """A copy of a spec with every {"values": DataFrame} replaced by visit(frame)."""
    if isinstance(node, dict):
        if isinstance(node.get("values"), pd.DataFrame):
            return visit(node["values"])
        return {key: _walk_data(value, visit) for key, value in node.items()}
    if isinstance(node, list):
        return [_walk_data(item, visit) for item in node]
    return node


def finish(chart: dict) -> dict:
    """The spec with its DataFrames moved to top-level "datasets", named by order of appearance.

    Stable names ("posviz_0", "posviz_1", ...; Vega-Lite uses "data_N" itself) keep the spec text
    identical when only the numbers change, so Streamlit's browser side swaps the new data into
    the live view instead of rebuilding the chart. The same DataFrame object used twice gets one name.
    """
    datasets: dict[str, pd.DataFrame] = {}
    names: dict[int, str] = {}

    def name(frame: pd.DataFrame) -> dict:
        key = names.setdefault(id(frame), f"posviz_{len(names)}")
        datasets[key] = frame
        return {"name": key}

    out = _walk_data(chart, name)
    out["datasets"] = {**chart.get("datasets", {}), **datasets}  # keep data a spec already carries by name
    return out


def records(frame: pd.DataFrame) -> list[dict]:
    """JSON-ready rows of a DataFrame at full float precision; NaN and infinities become null."""

    def plain(value: object) -> object:
        return None if isinstance(value, float) and not math.isfinite(value) else value

    return [{key: plain(value) for key, value in row.items()} for row in frame.to_dict("records")]


def inline(chart: dict) -> dict:
    """The spec as pure JSON: every DataFrame written out as records."""
    return _walk_data(chart, lambda frame: {"values": records(frame)})


def color_scale(scheme: str, domain: tuple[float, float]) -> dict:
    """Piecewise-linear RGB scale through the scheme's 11 stops, as `posviz.images.colorize` draws it."""
    stops = images.SIGNED_STOPS if scheme == SIGNED_SCHEME else images.WEIGHT_STOPS
    lo, hi = float(domain[0]), float(domain[1])
    positions = [lo + (hi - lo) * i / (len(stops) - 1) for i in range(len(stops))]
    return {"domain": positions, "range": list(stops), "interpolate": "rgb", "clamp": True}


def _color(scheme: str, domain: tuple[float, float], title: str) -> dict:
    lo, hi = float(domain[0]), float(domain[1])
    ticks = [lo, 0.0, hi] if scheme == SIGNED_SCHEME else [lo, (lo + hi) / 2, hi]
    legend = {"orient": "bottom", "direction": "horizontal", "gradientLength": 180, "titleOrient": "left",
              "offset": 6, "values": ticks}  # fmt: skip
    return {"field": "value", "type": "quantitative", "title": title, "scale": color_scale(scheme, domain),
            "legend": legend}  # fmt: skip


def _field(name: str, kind: str, **extra: object) -> dict:
    """An encoding channel: kind is "Q" (quantitative), "O" (ordinal) or "N" (nominal)."""
    types = {"Q": "quantitative", "O": "ordinal", "N": "nominal"}
    return {"field": name, "type": types[kind], **extra}


def _chart(frame: pd.DataFrame, mark: dict, encoding: dict, **top: object) -> dict:
    return {"$schema": SCHEMA, **top, "data": {"values": frame}, "mark": mark, "encoding": encoding}


def signed_domain(*matrices: np.ndarray) -> tuple[float, float]:
    """A symmetric domain (-a, a) covering every value, a >= 1e-12 so a zero matrix still draws."""
    a = max([float(np.abs(m).max(initial=0.0)) for m in matrices] + [1e-12])
    return (-a, a)


def robust_domain(m: np.ndarray, quantile: float = 0.99) -> tuple[float, float]:
    """A symmetric domain at the `quantile` of |m|, so a few large values do not wash out the rest."""
    a = max(float(np.quantile(np.abs(m), quantile)), 1e-12)
    return (-a, a)


def reduced_frame(reduced: Reduced) -> pd.DataFrame:
    """Long-form rows (row, row_end, col, col_end, value) of a block-reduced matrix."""
    r, k = reduced.values.shape
    rows = np.repeat(reduced.row_starts, k)
    cols = np.tile(reduced.col_starts, r)
    return pd.DataFrame(
        {
            "row": rows,
            "row_end": rows + reduced.row_factor,
            "col": cols,
            "col_end": cols + reduced.col_factor,
            "value": reduced.values.ravel(),
        }
    )


def columns_frame(m: np.ndarray, columns: Sequence[int], *, first: int = 0, rows: int | None = None) -> pd.DataFrame:
    """Long-form rows (position, dimension, value) of chosen columns of m, rows numbered from `first`."""
    block = m[:rows, list(columns)]
    return pd.DataFrame(
        {
            "position": np.tile(first + np.arange(block.shape[0]), len(columns)),
            "dimension": np.repeat([f"dim {c}" for c in columns], block.shape[0]),
            "value": block.T.ravel(),
        }
    )


def vectors_frame(vectors: Sequence[np.ndarray], names: Sequence[str]) -> pd.DataFrame:
    """Long-form rows (component, vector, value) of equally long vectors, one group per name."""
    width = len(vectors[0])
    return pd.DataFrame(
        {
            "component": np.tile(np.arange(width), len(vectors)),
            "vector": np.repeat(list(names), width),
            "value": np.concatenate([np.asarray(v, dtype=float) for v in vectors]),
        }
    )


def labelled(labels: Sequence[str]) -> list[str]:
    """Unique axis labels "0 dog", "1 bites", ... so repeated words keep their own row."""
    return [f"{i} {w}" for i, w in enumerate(labels)]


def matrix_frame(m: np.ndarray, rows: Sequence[str], cols: Sequence[str], **columns: str) -> pd.DataFrame:
    """Long-form rows (row, col, value, row_index, col_index) of a small labelled matrix, plus constant columns."""
    r, k = m.shape
    frame = pd.DataFrame(
        {
            "row": np.repeat(list(rows), k),
            "col": np.tile(list(cols), r),
            "value": np.asarray(m, dtype=float).ravel(),
            "row_index": np.repeat(np.arange(r), k),
            "col_index": np.tile(np.arange(k), r),
        }
    )
    for name, value in columns.items():
        frame[name] = value
    return frame


def grid_heatmap(
    reduced: Reduced,
    *,
    title: str,
    row_title: str,
    col_title: str,
    scheme: str = SIGNED_SCHEME,
    domain: tuple[float, float] = (-1.0, 1.0),
    value_title: str = "value",
    height: int = 320,
) -> dict:
    """Heatmap of a (possibly block-averaged) numeric matrix on quantitative axes.

    Rows run down the y axis from the top; each rect spans its block.
    """
    loose = {"nice": False, "zero": False}
    encoding = {
        "x": _field("col", "Q", title=col_title, scale=loose),
        "x2": {"field": "col_end"},
        "y": _field("row", "Q", title=row_title, scale={"reverse": True, **loose}),
        "y2": {"field": "row_end"},
        "color": _color(scheme, domain, value_title),
        "tooltip": [
            _field("row", "Q", title=f"{row_title} (from)"),
            _field("col", "Q", title=f"{col_title} (from)"),
            _field("value", "Q", title=value_title, format=".6g"),
        ],
    }
    return _chart(reduced_frame(reduced), {"type": "rect"}, encoding,
                  title={"text": title, "subtitle": reduced.note}, height=height)  # fmt: skip


def token_heatmap(
    frame: pd.DataFrame,
    *,
    title: str,
    row_title: str = "query",
    col_title: str = "key",
    scheme: str = WEIGHT_SCHEME,
    domain: tuple[float, float] = (0.0, 1.0),
    value_title: str = "weight",
    annotate: bool = True,
    height: int = 260,
) -> dict:
    """Labelled heatmap of a small matrix (tokens or positions), values written in the cells if `annotate`."""
    rows = list(dict.fromkeys(frame.sort_values("row_index")["row"]))
    cols = list(dict.fromkeys(frame.sort_values("col_index")["col"]))
    axes = {
        "x": _field("col", "O", title=col_title, sort=cols,
                    axis={"labelAngle": 0 if len(cols) <= 8 else -40, "labelLimit": 120}),
        "y": _field("row", "O", title=row_title, sort=rows, axis={"labelLimit": 120}),
        "tooltip": [
            _field("row", "N", title=row_title),
            _field("col", "N", title=col_title),
            _field("value", "Q", title=value_title, format=".6g"),
        ],
    }  # fmt: skip
    rect = {"mark": {"type": "rect"}, "encoding": {**axes, "color": _color(scheme, domain, value_title)}}
    layers = [rect]
    if annotate:
        middle = (domain[0] + domain[1]) / 2
        light = f"datum.value < {middle!r}" if scheme == WEIGHT_SCHEME else f"abs(datum.value) > {domain[1] / 2!r}"
        text = {"condition": {"test": light, "value": "white"}, "value": "black"}
        layers.append({"mark": {"type": "text", "fontSize": 13},
                       "encoding": {**axes, "text": _field("value", "Q", format=".2f"), "color": text}})  # fmt: skip
    return {"$schema": SCHEMA, "title": title, "width": "container", "height": height,
            "data": {"values": frame}, "layer": layers}  # fmt: skip


def lines(
    frame: pd.DataFrame,
    *,
    x: str,
    y: str,
    color: str | None = None,
    title: str,
    x_title: str,
    y_title: str,
    log_x: bool = False,
    log_y: bool = False,
    height: int = 280,
) -> dict:
    """Line chart of long-form data; one line per value of `color`, log axes on request."""
    encoding = {
        "x": _field(x, "Q", title=x_title, scale={"type": "log" if log_x else "linear"}),
        "y": _field(y, "Q", title=y_title, scale={"type": "log" if log_y else "linear"}),
        "tooltip": [_field(x, "Q", format=".6g"), _field(y, "Q", format=".6g")],
    }
    if color is not None:
        encoding["color"] = _field(color, "N", title=color, scale={"range": list(SERIES_COLORS)})
        encoding["tooltip"].insert(0, _field(color, "N"))
    mark = {"type": "line", "point": len(frame) <= 64}
    return _chart(frame, mark, encoding, title=title, width="container", height=height)


def hline(value: float, label: str) -> dict:
    """A dashed horizontal reference line at `value`, with its label."""
    data = pd.DataFrame({"y": [value], "label": [label]})
    rule = {"mark": {"type": "rule", "strokeDash": [6, 4], "color": "#D55E00", "size": 2},
            "encoding": {"y": _field("y", "Q")}}  # fmt: skip
    text = {"mark": {"type": "text", "align": "left", "dx": 4, "dy": -8, "color": "#D55E00"},
            "encoding": {"y": _field("y", "Q"), "text": _field("label", "N")}}  # fmt: skip
    return {"data": {"values": data}, "layer": [rule, text]}


def marker(x: float, y: float, label: str) -> dict:
    """A highlighted point with a vertical rule at x, for "you are here" on a curve."""
    data = pd.DataFrame({"x": [x], "y": [y], "label": [label]})
    at = {"x": _field("x", "Q"), "y": _field("y", "Q")}
    rule = {"mark": {"type": "rule", "color": "#D55E00", "size": 2}, "encoding": {"x": _field("x", "Q")}}
    point = {"mark": {"type": "point", "color": "#D55E00", "size": 160, "filled": True}, "encoding": at}
    text = {"mark": {"type": "text", "align": "left", "dx": 8, "dy": -10, "color": "#D55E00", "fontWeight": "bold"},
            "encoding": {**at, "text": _field("label", "N")}}  # fmt: skip
    return {"data": {"values": data}, "layer": [rule, point, text]}


def grouped_bars(frame: pd.DataFrame, *, x: str, y: str, group: str, title: str, y_title: str) -> dict:
    """Bars of y per x, side by side for each group (for example one output vector per sentence)."""
    encoding = {
        "x": _field(x, "O", title=x, axis={"labelAngle": 0}),
        "xOffset": _field(group, "N"),
        "y": _field(y, "Q", title=y_title),
        "color": _field(group, "N", title=None, scale={"range": list(SERIES_COLORS[:2])},
                        legend={"orient": "bottom", "direction": "vertical"}),
        "tooltip": [_field(group, "N"), _field(x, "O"), _field(y, "Q", format=".6g")],
    }  # fmt: skip
    return _chart(frame, {"type": "bar"}, encoding, title=title, width="container", height=260)


def trajectory(frame: pd.DataFrame, *, title: str) -> dict:
    """Points (x, y) joined in order of `position`, coloured by it: a pair turning around the circle."""
    axes = {
        "x": _field("x", "Q", title="dimension 2i", scale={"zero": False}),
        "y": _field("y", "Q", title="dimension 2i+1", scale={"zero": False}),
        "order": _field("position", "Q"),
        "tooltip": [_field("position", "Q"), _field("x", "Q", format=".4f"), _field("y", "Q", format=".4f")],
    }
    line = {"mark": {"type": "line", "color": "#999999"}, "encoding": axes}
    color = _field("position", "Q", scale={"scheme": "viridis"}, legend={"orient": "bottom"})
    points = {"mark": {"type": "circle", "size": 70}, "encoding": {**axes, "color": color}}
    return {"$schema": SCHEMA, "title": title, "width": "container", "height": 300,
            "data": {"values": frame}, "layer": [line, points]}  # fmt: skip


def step_errors(frame: pd.DataFrame, *, title: str) -> dict:
    """Bars of error per token, coloured by phase (prefill, or one token at a time)."""
    encoding = {
        "x": _field("token", "O", title="token t", axis={"labelAngle": 0}),
        "y": _field("error", "Q", title="max abs difference"),
        "color": _field("phase", "N", title=None, scale={"range": list(SERIES_COLORS[:2])},
                        legend={"orient": "bottom"}),
        "tooltip": [_field("token", "O"), _field("phase", "N"), _field("error", "Q", format=".3g")],
    }  # fmt: skip
    return _chart(frame, {"type": "bar"}, encoding, title=title, width="container", height=320)


def to_svg(chart: dict) -> str:
    """The chart as SVG text (needs vl-convert-python)."""
    import vl_convert as vlc

    return vlc.vegalite_to_svg(inline(chart))
