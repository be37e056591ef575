"""Altair chart builders: finished arrays in, alt.Chart out. No maths here, no streamlit.

Colour schemes are colour-blind-safe with fixed domains: signed values diverge around 0
("blueorange"), attention weights run over [0, 1] ("viridis"). Both are drawn through the same
11 RGB stops as `posviz.images`, so a PNG view and a chart of the same matrix share colours.
"""

from __future__ import annotations

from collections.abc import Sequence

import altair as alt
import numpy as np
import pandas as pd

from posviz import images
from posviz.grids import Reduced

SIGNED_SCHEME = "blueorange"
WEIGHT_SCHEME = "viridis"
SERIES_COLORS = ("#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#F0E442", "#000000")


def style(chart: alt.TopLevelMixin, *, presenter: bool = False) -> alt.TopLevelMixin:
    """Font sizes for a laptop (12-14 px) or a lecture screen (16-22 px)."""
    label, title, heading = (16, 18, 22) if presenter else (12, 13, 15)
    fit_width = alt.AutoSizeParams(type="fit-x", contains="padding")  # height stays the plot's own
    return (
        chart.properties(autosize=fit_width)
        .configure_axis(labelFontSize=label, titleFontSize=title)
        .configure_legend(labelFontSize=label, titleFontSize=title)
        .configure_title(fontSize=heading, anchor="start")
        .configure_header(labelFontSize=title, titleFontSize=title)
        .configure_view(strokeWidth=0)
    )


def color_scale(scheme: str, domain: tuple[float, float]) -> alt.Scale:
    """Piecewise-linear RGB scale through the scheme's 11 stops, as `posviz.images.colorize` draws it."""
    stops = images.SIGNED_STOPS if scheme == SIGNED_SCHEME else images.WEIGHT_STOPS
    lo, hi = float(domain[0]), float(domain[1])
    positions = [lo + (hi - lo) * i / (len(stops) - 1) for i in range(len(stops))]
    return alt.Scale(domain=positions, range=list(stops), interpolate="rgb", clamp=True)


def _color(scheme: str, domain: tuple[float, float], title: str) -> alt.Color:
    lo, hi = float(domain[0]), float(domain[1])
    ticks = [lo, 0.0, hi] if scheme == SIGNED_SCHEME else [lo, (lo + hi) / 2, hi]
    return alt.Color(
        "value:Q",
        title=title,
        scale=color_scale(scheme, domain),
        legend=alt.Legend(
            orient="bottom", direction="horizontal", gradientLength=180, titleOrient="left", offset=6, values=ticks
        ),
    )


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
) -> alt.Chart:
    """Heatmap of a (possibly block-averaged) numeric matrix on quantitative axes.

    Rows run down the y axis from the top; each rect spans its block.
    """
    frame = reduced_frame(reduced)
    subtitle = reduced.note
    return (
        alt.Chart(frame, title=alt.Title(title, subtitle=subtitle))
        .mark_rect()
        .encode(
            x=alt.X("col:Q", title=col_title, scale=alt.Scale(nice=False, zero=False)),
            x2="col_end:Q",
            y=alt.Y("row:Q", title=row_title, scale=alt.Scale(reverse=True, nice=False, zero=False)),
            y2="row_end:Q",
            color=_color(scheme, domain, value_title),
            tooltip=[
                alt.Tooltip("row:Q", title=f"{row_title} (from)"),
                alt.Tooltip("col:Q", title=f"{col_title} (from)"),
                alt.Tooltip("value:Q", title=value_title, format=".6g"),
            ],
        )
        .properties(height=height)
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
) -> alt.LayerChart | alt.Chart:
    """Labelled heatmap of a small matrix (tokens or positions), values written in the cells if `annotate`."""
    rows = list(dict.fromkeys(frame.sort_values("row_index")["row"]))
    cols = list(dict.fromkeys(frame.sort_values("col_index")["col"]))
    base = alt.Chart(frame, title=title).encode(
        x=alt.X(
            "col:O", title=col_title, sort=cols, axis=alt.Axis(labelAngle=0 if len(cols) <= 8 else -40, labelLimit=120)
        ),
        y=alt.Y("row:O", title=row_title, sort=rows, axis=alt.Axis(labelLimit=120)),
        tooltip=[
            alt.Tooltip("row:N", title=row_title),
            alt.Tooltip("col:N", title=col_title),
            alt.Tooltip("value:Q", title=value_title, format=".6g"),
        ],
    )
    rect = base.mark_rect().encode(color=_color(scheme, domain, value_title))
    chart = rect.properties(width="container", height=height)
    if annotate:
        middle = (domain[0] + domain[1]) / 2
        light = alt.datum.value < middle if scheme == WEIGHT_SCHEME else abs(alt.datum.value) > domain[1] / 2
        text = base.mark_text(fontSize=13).encode(
            text=alt.Text("value:Q", format=".2f"),
            color=alt.condition(light, alt.value("white"), alt.value("black")),
        )
        chart = alt.layer(rect, text).properties(width="container", height=height)
    return chart


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
) -> alt.Chart:
    """Line chart of long-form data; one line per value of `color`, log axes on request."""
    encoding = {
        "x": alt.X(f"{x}:Q", title=x_title, scale=alt.Scale(type="log" if log_x else "linear")),
        "y": alt.Y(f"{y}:Q", title=y_title, scale=alt.Scale(type="log" if log_y else "linear")),
        "tooltip": [alt.Tooltip(f"{x}:Q", format=".6g"), alt.Tooltip(f"{y}:Q", format=".6g")],
    }
    if color is not None:
        encoding["color"] = alt.Color(f"{color}:N", title=color, scale=alt.Scale(range=list(SERIES_COLORS)))
        encoding["tooltip"].insert(0, alt.Tooltip(f"{color}:N"))
    chart = alt.Chart(frame, title=title).mark_line(point=len(frame) <= 64).encode(**encoding)
    return chart.properties(width="container", height=height)


def hline(value: float, label: str) -> alt.LayerChart:
    """A dashed horizontal reference line at `value`, with its label."""
    data = pd.DataFrame({"y": [value], "label": [label]})
    rule = alt.Chart(data).mark_rule(strokeDash=[6, 4], color="#D55E00", size=2).encode(y="y:Q")
    text = alt.Chart(data).mark_text(align="left", dx=4, dy=-8, color="#D55E00").encode(y="y:Q", text="label:N")
    return rule + text


def marker(x: float, y: float, label: str) -> alt.LayerChart:
    """A highlighted point with a vertical rule at x, for "you are here" on a curve."""
    data = pd.DataFrame({"x": [x], "y": [y], "label": [label]})
    rule = alt.Chart(data).mark_rule(color="#D55E00", size=2).encode(x="x:Q")
    point = alt.Chart(data).mark_point(color="#D55E00", size=160, filled=True).encode(x="x:Q", y="y:Q")
    text = (
        alt.Chart(data)
        .mark_text(align="left", dx=8, dy=-10, color="#D55E00", fontWeight="bold")
        .encode(x="x:Q", y="y:Q", text="label:N")
    )
    return rule + point + text


def grouped_bars(frame: pd.DataFrame, *, x: str, y: str, group: str, title: str, y_title: str) -> alt.Chart:
    """Bars of y per x, side by side for each group (for example one output vector per sentence)."""
    return (
        alt.Chart(frame, title=title)
        .mark_bar()
        .encode(
            x=alt.X(f"{x}:O", title=x, axis=alt.Axis(labelAngle=0)),
            xOffset=alt.XOffset(f"{group}:N"),
            y=alt.Y(f"{y}:Q", title=y_title),
            color=alt.Color(
                f"{group}:N",
                title=None,
                scale=alt.Scale(range=list(SERIES_COLORS[:2])),
                legend=alt.Legend(orient="bottom", direction="vertical"),
            ),
            tooltip=[f"{group}:N", f"{x}:O", alt.Tooltip(f"{y}:Q", format=".6g")],
        )
        .properties(width="container", height=260)
    )


def trajectory(frame: pd.DataFrame, *, title: str) -> alt.LayerChart:
    """Points (x, y) joined in order of `position`, coloured by it: a pair turning around the circle."""
    base = alt.Chart(frame, title=title).encode(
        x=alt.X("x:Q", title="dimension 2i", scale=alt.Scale(zero=False)),
        y=alt.Y("y:Q", title="dimension 2i+1", scale=alt.Scale(zero=False)),
        order="position:Q",
        tooltip=["position:Q", alt.Tooltip("x:Q", format=".4f"), alt.Tooltip("y:Q", format=".4f")],
    )
    line = base.mark_line(color="#999999")
    points = base.mark_circle(size=70).encode(
        color=alt.Color("position:Q", scale=alt.Scale(scheme="viridis"), legend=alt.Legend(orient="bottom"))
    )
    return (line + points).properties(width="container", height=300)


def step_errors(frame: pd.DataFrame, *, title: str) -> alt.Chart:
    """Bars of error per token, coloured by phase (prefill, or one token at a time)."""
    return (
        alt.Chart(frame, title=title)
        .mark_bar()
        .encode(
            x=alt.X("token:O", title="token t", axis=alt.Axis(labelAngle=0)),
            y=alt.Y("error:Q", title="max abs difference"),
            color=alt.Color(
                "phase:N",
                title=None,
                scale=alt.Scale(range=list(SERIES_COLORS[:2])),
                legend=alt.Legend(orient="bottom"),
            ),
            tooltip=["token:O", "phase:N", alt.Tooltip("error:Q", format=".3g")],
        )
        .properties(width="container", height=320)
    )


def to_svg(chart: alt.TopLevelMixin) -> str:
    """The chart as SVG text (needs vl-convert-python)."""
    import vl_convert as vlc

    with alt.data_transformers.disable_max_rows():
        return vlc.vegalite_to_svg(chart.to_dict())
