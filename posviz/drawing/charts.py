"""Chart builders written in Altair: tidy frames in, Altair charts out. No maths here, no streamlit.

A builder takes its data first (a DataFrame, or `alt.NamedData` when compiled) and keyword "shape"
arguments, and returns an Altair chart, so a notebook shows the same figure the app draws:

    >>> frame = matrix_frame(np.eye(2), ["a", "b"], ["a", "b"])
    >>> type(token_heatmap(frame, title="weights")).__name__
    'LayerChart'

The app never pays Altair's construction on a rerun: `compile` builds each (builder, shape) once per
process into a Vega-Lite dict whose data are bound by name ("posviz_0", "posviz_1", ...), and `bind`
puts the rerun's frames under those names. Numbers that vary with the data (colour domains, titles)
are read from a one-row dataset ("posviz_live") by Vega expressions, so a slider move that only
changes numbers leaves the spec text identical and the browser swaps the data into the live chart.

Colour schemes are colour-blind-safe: signed values diverge around 0 ("blueorange"), attention
weights run over [0, 1] ("viridis"), both through the same 11 RGB stops as `posviz.drawing.images`, so a PNG
view and a chart of the same matrix share colours.
"""

from __future__ import annotations

import base64
import functools
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

import altair as alt
import numpy as np
import pandas as pd

from posviz.drawing import images
from posviz.drawing.images import SIGNED_SCHEME, WEIGHT_SCHEME
from posviz.maths.grids import Reduced

SERIES_COLORS = ("#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#F0E442", "#000000")
ACCENT = "#D55E00"
TEXT_COLOUR = "#31333f"  # Streamlit's light theme text, which its Vega theme gives chart titles
LIVE = "posviz_live"  # the one-row dataset holding a compiled chart's live values
Data = pd.DataFrame | alt.NamedData


@dataclass(frozen=True)
class Live:
    """Stands for a value read at draw time from the LIVE dataset's column `field`."""

    field: str

    @property
    def expr(self) -> str:
        return f"data('{LIVE}')[0]['{self.field}']"


Text = str | Live
Bounds = tuple[float, float] | tuple[Live, Live]


def _expr(value: float | Live) -> str:
    return value.expr if isinstance(value, Live) else repr(float(value))


def _text(value: Text) -> str | alt.ExprRef:
    return alt.ExprRef(value.expr) if isinstance(value, Live) else value


def title_params(title: Text, subtitle: str | None = None) -> alt.TitleParams:
    """A title whose text may be live; a subtitle (Vega-Lite takes no expression there) is part of the shape."""
    if subtitle is None:
        return alt.TitleParams(text=_text(title))
    return alt.TitleParams(text=_text(title), subtitle=subtitle)


def _live_or_list(values: Sequence[float | Live]) -> list[float] | alt.ExprRef:
    if any(isinstance(v, Live) for v in values):
        return alt.ExprRef("[" + ", ".join(_expr(v) for v in values) + "]")
    return [float(v) for v in values]


def _stop_positions(domain: Bounds, count: int) -> list[float | Live] | alt.ExprRef:
    lo, hi = domain
    if isinstance(lo, Live) or isinstance(hi, Live):
        parts = [f"{_expr(lo)} + ({_expr(hi)} - {_expr(lo)}) * {i / (count - 1)!r}" for i in range(count)]
        return alt.ExprRef("[" + ", ".join(parts) + "]")
    return [float(lo) + (float(hi) - float(lo)) * i / (count - 1) for i in range(count)]


def color_scale(scheme: str, domain: Bounds) -> alt.Scale:
    """Piecewise-linear RGB scale through the scheme's 11 stops, as `posviz.drawing.images.colorize` draws it."""
    stops = images.stops(scheme)
    return alt.Scale(domain=_stop_positions(domain, len(stops)), range=list(stops), interpolate="rgb", clamp=True)


def value_color(scheme: str, domain: Bounds, title: str, field: str = "value", legend: str = "bottom") -> alt.Color:
    """Colour by `field` with its legend under the chart (horizontal) or at its right: ends and middle ticked."""
    lo, hi = domain
    middle = 0.0 if scheme == SIGNED_SCHEME else Live("mid") if isinstance(lo, Live) else (lo + hi) / 2
    ticks = _live_or_list([lo, middle, hi])
    if legend == "none":  # a neighbouring panel on the same scale carries the legend
        return alt.Color(f"{field}:Q", title=title, scale=color_scale(scheme, domain), legend=None)
    if legend == "right":
        legend = alt.Legend(orient="right", direction="vertical", gradientLength=160, values=ticks)
    else:
        legend = alt.Legend(
            orient="bottom", direction="horizontal", gradientLength=110, titleOrient="top", offset=6, values=ticks
        )  # fmt: skip (title above: a narrow panel keeps the whole bar)
    return alt.Color(f"{field}:Q", title=title, scale=color_scale(scheme, domain), legend=legend)


NOTE_STYLE = dict(lineBreak="\n", fontSize=18, fontWeight="bold", color="#333333")  # a note across a heatmap
PANEL_SPACING = 16  # pixels between the columns of heatmap_panels


def _centre_note(cells: Data, note: Text) -> alt.Chart:
    """Text in the middle of the plot ("all zeros" over a blank panel; a newline breaks it); "" shows nothing."""
    one = alt.Chart(cells).transform_aggregate(cells="count()")
    return one.mark_text(text=_text(note), **NOTE_STYLE).encode(
        x=alt.XValue(alt.ExprRef("width / 2")), y=alt.YValue(alt.ExprRef("height / 2"))
    )


def _cell_axes(row_title: str, col_title: str) -> dict[str, alt.X | alt.Y]:
    """A heatmap's x and y: fields x and y on loose quantitative scales, rows running down, integer ticks."""
    loose = alt.Scale(nice=False, zero=False)
    whole = alt.Axis(tickMinStep=1, format="d")
    return {
        "x": alt.X("x:Q", title=col_title, scale=loose, axis=whole),
        "y": alt.Y("y:Q", title=row_title, scale=alt.Scale(nice=False, zero=False, reverse=True), axis=whole),
    }


def grid_heatmap(
    cells: Data,
    picture: Data | None = None,
    *,
    title: Text,
    subtitle: str | None = None,
    row_title: str,
    col_title: str,
    scheme: str = SIGNED_SCHEME,
    domain: Bounds = (-1.0, 1.0),
    value_title: str = "value",
    height: int = 320,
    legend: str = "bottom",
    note: Text | None = None,
    square: bool = False,
) -> alt.Chart | alt.LayerChart:
    """Heatmap of a (possibly block-averaged) matrix on quantitative axes; rows run down from the top.

    `cells` is `reduced_frame`'s long form: each rect spans its block [row, row_end) x [col, col_end).
    Cell i spans [i - 0.5, i + 0.5), so an integer tick sits at the middle of its row or column (a 0..23 axis
    ends at 23, not at a "24" on the last cell's edge); a block of several rows is ticked at its first row.
    With `picture` (`picture_frame`: the matrix as a PNG in this scheme and domain) the matrix is one image mark
    on the same axes and legend, and `cells` is `extent_frame` (the cells' outer edges): one mark, not one a cell
    (rects are encoded on every resize), at the cost of hover; the exact values go with the CSV.
    `note`: a line written across the middle (for a panel that is blank because every value is 0).
    `square`: the plot is `height` wide too (a similarity matrix: its diagonal runs at 45°).
    """
    color = value_color(scheme, domain, value_title, legend=legend)
    if picture is None:
        marks = [
            alt.Chart(cells)
            .transform_calculate(
                x="datum.col - 0.5", x_end="datum.col_end - 0.5", y="datum.row - 0.5", y_end="datum.row_end - 0.5"
            )
            .mark_rect()
            .encode(
                **_cell_axes(row_title, col_title),
                x2="x_end:Q",
                y2="y_end:Q",
                color=color,
                tooltip=[
                    alt.Tooltip("row:Q", title=f"{row_title} (from)"),
                    alt.Tooltip("col:Q", title=f"{col_title} (from)"),
                    alt.Tooltip("value:Q", title=value_title, format=".6g"),
                ],
            )
        ]
    else:
        image = (
            alt.Chart(picture)
            .mark_image(width=alt.ExprRef("width"), height=alt.ExprRef("height"), aspect=False, align="left",
                        baseline="top", smooth=False)
            .encode(x=alt.value(0), y=alt.value(0), url="url:N")
        )  # fmt: skip
        axes = alt.Chart(cells).mark_point(opacity=0).encode(**_cell_axes(row_title, col_title), color=color)
        marks = [image, axes]
    if note is not None:
        marks.append(_centre_note(cells, note))
    return alt.layer(*marks, title=title_params(title, subtitle), height=height, **_square(square, height))


def _square(square: bool, height: int) -> dict[str, int]:
    """A plot's width when it is drawn square (`width` = `height`), else nothing (it fills its column)."""
    return {"width": height} if square else {}


def picture_heatmap(picture: Data, extent: Data, **shape: object) -> alt.LayerChart:
    """`grid_heatmap` (same shape) of a matrix drawn as one image mark: `picture_frame`, then `extent_frame`."""
    return grid_heatmap(extent, picture, **shape)


# A matrix is drawn as labelled cells (a mark a cell, with row and column names) while it is this small; each
# cell prints its value ("0.00") while the matrix is smaller still. One rule for the app and the lecture.
LABELLED_CELLS, LABELLED_COLUMNS = 400, 24
VALUE_CELLS, VALUE_COLUMNS = 100, 6


def labels_cells(shape: tuple[int, int]) -> bool:
    """Whether a matrix of `shape` is small enough for a labelled heatmap (`token_heatmap`): a mark a cell.

    >>> labels_cells((20, 20)), labels_cells((4, 30))
    (True, False)
    """
    return shape[0] * shape[1] <= LABELLED_CELLS and shape[1] <= LABELLED_COLUMNS


def prints_values(shape: tuple[int, int], max_cols: int = VALUE_COLUMNS) -> bool:
    """Whether a labelled heatmap of `shape` writes each value in its cell (`annotate`): at most 100 cells and
    `max_cols` columns (the columns a value's text fits across, for the width the heatmap gets).

    >>> prints_values((6, 6)), prints_values((2, 8)), prints_values((2, 8), max_cols=8)
    (True, False, True)
    """
    return shape[0] * shape[1] <= VALUE_CELLS and shape[1] <= max_cols


def token_heatmap(
    cells: Data,
    *,
    title: Text,
    row_title: str = "query",
    col_title: str = "key",
    scheme: str = WEIGHT_SCHEME,
    domain: Bounds = (0.0, 1.0),
    value_title: str = "weight",
    annotate: bool = True,
    angled: bool = False,
    height: int = 260,
    legend: str = "bottom",
    note: Text | None = None,
    square: bool = False,
    row_label_limit: int = 120,
    masked: bool = False,
) -> alt.LayerChart:
    """Labelled heatmap of a small matrix (tokens or positions), values written in the cells if `annotate`.

    `cells` is `matrix_frame`'s long form; rows and columns keep the matrix's order (row_index, col_index).
    `note`: a line written across the middle (for a panel that is blank because every value is 0).
    `square`: the plot is `height` wide too (a similarity matrix: its diagonal runs at 45°).
    `row_label_limit`: pixels a row label may take before Vega cuts it with "…".
    `masked`: `cells` has a boolean `masked` column (`masked_frame`); those cells (keys a causal mask hides) are drawn
    in MASKED_GREY with no value, so a hidden key does not look like a small weight.
    """
    layers = _cell_layers(alt.Chart(cells), row_title=row_title, col_title=col_title, scheme=scheme, domain=domain,
                          value_title=value_title, annotate=annotate, angled=angled, legend=legend,
                          row_label_limit=row_label_limit, masked=masked)  # fmt: skip
    extra = [] if note is None else [_centre_note(cells, note)]
    return alt.layer(*layers, *extra, title=title_params(title), height=height, **_square(square, height))


def _cell_layers(
    base: alt.Chart,
    *,
    row_title: str,
    col_title: str,
    scheme: str,
    domain: Bounds,
    value_title: str,
    annotate: bool,
    angled: bool,
    legend: str,
    panels: bool = False,
    row_label_limit: int = 120,
    masked: bool = False,
) -> list[alt.Chart]:
    """A labelled heatmap's rects on `base` (rows and columns in the matrix's order) and, if `annotate`, its
    values written in the cells, white on dark cells. `panels`: cells of `heatmap_panels` (the panel in the
    tooltip, every column label drawn)."""
    x_axis = alt.Axis(labelAngle=-40 if angled else 0, labelLimit=120, **({"labelOverlap": False} if panels else {}))
    base = base.encode(
        x=alt.X("col:O", title=col_title, sort=alt.EncodingSortField("col_index", op="min"), axis=x_axis),
        y=alt.Y("row:O", title=row_title, sort=alt.EncodingSortField("row_index", op="min"),
                axis=alt.Axis(labelLimit=row_label_limit)),
        tooltip=[alt.Tooltip("panel:N", title="panel")] * panels + [
            alt.Tooltip("row:N", title=row_title),
            alt.Tooltip("col:N", title=col_title),
            alt.Tooltip("value:Q", title=value_title, format=".6g"),
        ] + [alt.Tooltip("masked:N", title="masked")] * masked,
    )  # fmt: skip
    colour = value_color(scheme, domain, value_title, legend=legend)
    layers = [base.mark_rect().encode(color=alt.condition("datum.masked", alt.value(MASKED_GREY), colour) if masked
                                      else colour)]  # fmt: skip
    if masked:
        base = base.transform_filter("!datum.masked")  # a hidden key prints no value
    if annotate:
        lo, hi = (_expr(b) for b in domain)
        light = f"datum.value < ({lo} + {hi}) / 2" if scheme == WEIGHT_SCHEME else f"abs(datum.value) > {hi} / 2"
        layers.append(
            base.mark_text().encode(  # size from style: 13 px, 17 px in presenter mode
                text=alt.Text("value:Q", format=".2f"),
                color=alt.condition(light, alt.value("white"), alt.value("black")),
            )
        )
    return layers


def heatmap_panels(
    cells: Data,
    *,
    row_title: str,
    col_title: str,
    width: int,
    height: int = 260,
    columns: int = 4,
    shared: bool = True,
    scheme: str = SIGNED_SCHEME,
    domain: Bounds = (-1.0, 1.0),
    value_title: str = "value",
    annotate: bool = False,
    angled: bool = False,
    legend: str = "bottom",
    notes: bool = False,
    title_width: int | None = None,
) -> alt.FacetChart:
    """Small labelled heatmaps on one colour scale as one faceted chart, `columns` panels a row, each `width` x
    `height` pixels: one colour legend, and with `shared` one set of row and column labels (else each panel has
    its own, as for two sentences' tokens). A browser draws it faster than a chart a panel.

    `cells` is `matrix_frame`'s long form for every panel, with its title in `panel`, its place in `panel_index`
    and, with `notes`, a line to write across its middle in `note` ("" writes nothing; a newline breaks it).
    `title_width`: pixels a panel's title may take (default `width`; more where the next panel's labels leave
    room above them). Every column label is drawn (`angled` tilts them when a cell is narrower than its label).
    """
    layers = _cell_layers(alt.Chart(), row_title=row_title, col_title=col_title, scheme=scheme, domain=domain,
                          value_title=value_title, annotate=annotate, angled=angled, legend=legend,
                          panels=True)  # fmt: skip
    if notes:  # one datum a panel (its first cell) carries the panel's note to the middle of its plot
        layers.append(
            alt.Chart()
            .transform_filter("datum.row_index == 0 && datum.col_index == 0")
            .mark_text(**NOTE_STYLE)
            .encode(
                text="note:N",
                x=alt.XValue(alt.ExprRef("child_width / 2")),  # a panel's own width and height inside a facet
                y=alt.YValue(alt.ExprRef("child_height / 2")),
            )
        )
    # a panel's title looks like a chart's
    header = alt.Header(title=None, labelAnchor="start", labelFontWeight="bold", labelLimit=title_width or width,
                        labelPadding=6, labelColor=TEXT_COLOUR)  # fmt: skip
    facet = alt.Facet("panel:N", sort=alt.EncodingSortField("panel_index", op="min"), header=header)
    panels = alt.layer(*layers).properties(width=width, height=height)
    spacing = alt.RowColnumber(column=PANEL_SPACING, row=12)
    chart = panels.facet(facet=facet, columns=columns, data=cells, spacing=spacing)
    if not shared:
        chart = chart.resolve_scale(x="independent", y="independent")
    return chart


def picture_panels(
    pictures: Data,
    *,
    row_title: str,
    col_title: str,
    width: int,
    height: int,
    columns: int,
    scheme: str = WEIGHT_SCHEME,
    domain: Bounds = (0.0, 1.0),
    value_title: str = "weight",
    legend: str = "bottom",
    title: Text = "",
    title_width: int | None = None,
) -> alt.FacetChart:
    """Matrices of one shape on one colour scale as one faceted chart of pictures, `columns` panels a row, each
    `width` x `height` pixels: one image mark a panel (a PNG at a pixel a value, drawn unsmoothed), one legend.

    `pictures` has, for each panel (`panel` its title, `panel_index` its place), one row with kind "picture" and its
    PNG data URL in `url`, and two rows of kind "corner" holding the cells' outer edges (x, y) and the colour
    domain's ends (value), for the axes and the legend (`extent_frame` of each panel): a panel of T x T costs one
    mark, not T² of them.
    """
    image = (
        alt.Chart()
        .transform_filter("datum.kind == 'picture'")
        .mark_image(width=alt.ExprRef("child_width"), height=alt.ExprRef("child_height"), aspect=False, align="left",
                    baseline="top", smooth=False)
        .encode(x=alt.value(0), y=alt.value(0), url="url:N")
    )  # fmt: skip
    axes = (
        alt.Chart()
        .transform_filter("datum.kind == 'corner'")
        .mark_point(opacity=0)
        .encode(**_cell_axes(row_title, col_title), color=value_color(scheme, domain, value_title, legend=legend))
    )
    header = alt.Header(title=None, labelAnchor="start", labelFontWeight="bold", labelLimit=title_width or width,
                        labelPadding=6, labelColor=TEXT_COLOUR)  # fmt: skip
    facet = alt.Facet("panel:N", sort=alt.EncodingSortField("panel_index", op="min"), header=header)
    panels = alt.layer(image, axes).properties(width=width, height=height)
    spacing = alt.RowColnumber(column=PANEL_SPACING, row=12)
    return panels.facet(facet=facet, columns=columns, data=pictures, spacing=spacing, title=title_params(title))


def picture_panels_frame(
    matrices: Sequence[np.ndarray], titles: Sequence[str], pngs: Sequence[bytes], domain: Bounds
) -> pd.DataFrame:
    """`picture_panels`' rows: a picture row and two corner rows a panel (see there)."""
    rows = []
    for i, (m, title, picture) in enumerate(zip(matrices, titles, pngs, strict=True)):
        r, k = np.shape(m)
        url = "data:image/png;base64," + base64.b64encode(picture).decode("ascii")
        rows.append({"panel": title, "panel_index": i, "kind": "picture", "url": url, "x": 0.0, "y": 0.0, "value": 0.0})
        for x, y, value in ((-0.5, -0.5, domain[0]), (k - 0.5, r - 0.5, domain[1])):
            rows.append({"panel": title, "panel_index": i, "kind": "corner", "url": "", "x": x, "y": y,
                         "value": float(value)})  # fmt: skip
    return pd.DataFrame(rows)


def lines(
    curve: Data,
    *,
    x: str,
    y: str,
    color: str | None = None,
    title: Text,
    x_title: str,
    y_title: str,
    log_x: bool = False,
    log_y: bool = False,
    points: bool = False,
    steps: bool = False,
    height: int = 280,
    legend: str = "right",
    detail: str | None = None,
    whole_x: bool = False,
) -> alt.Chart | alt.LayerChart:
    """Line chart of long-form data, one line per value of `color` (and of `detail`, when several lines share a
    colour); drag or scroll to zoom the x axis. `whole_x` ticks the x axis at whole numbers only (layers, steps).

    `steps` draws each value flat until the next x (for tables that are piecewise constant); `legend` "bottom"
    puts the series names under the plot, so long names do not squeeze a narrow chart. Only drawn `points`
    carry a tooltip: Vega picks a line by its first datum, so a line's tooltip would show that one value
    wherever it is hovered, and it was built for every datum of the curve.
    """
    tooltip = [alt.Tooltip(f"{x}:Q", format=".6g"), alt.Tooltip(f"{y}:Q", format=".6g")]
    encoding = {
        "x": alt.X(
            f"{x}:Q",
            title=x_title,
            scale=alt.Scale(type="log") if log_x else alt.Scale(nice=False),
            axis=alt.Axis(tickMinStep=1, format="d") if whole_x else alt.Axis(),
        ),
        "y": alt.Y(f"{y}:Q", title=y_title, scale=alt.Scale(type="log" if log_y else "linear")),
    }
    if color is not None:
        encoding["color"] = alt.Color(
            f"{color}:N",
            title=color if legend == "right" else None,
            scale=alt.Scale(range=list(SERIES_COLORS)),
            legend=alt.Legend(
                orient=legend,
                direction="vertical" if legend == "right" else "horizontal",
                **({} if legend == "right" else {"labelLimit": 360}),
            ),  # Vega cuts at 160 px
        )
        tooltip.insert(0, alt.Tooltip(f"{color}:N"))
    if detail is not None:
        encoding["detail"] = alt.Detail(f"{detail}:N")
    zoom = alt.selection_interval(name="zoom", bind="scales", encodings=["x"])
    line = (
        alt.Chart(curve, title=title_params(title), height=height)
        .mark_line(interpolate="step-after" if steps else alt.Undefined)
        .encode(**encoding)
        .add_params(zoom)
    )
    if not points:
        return line
    # The points are a layer of their own, so that only they carry the tooltip (an overlay shares the line's).
    dots = alt.Chart(curve).mark_point(filled=True, opacity=1).encode(**encoding, tooltip=tooltip)
    return alt.layer(line, dots, title=title_params(title), height=height)


HALO = dict(color="white", stroke="white", strokeWidth=5, strokeJoin="round", opacity=0.9)


def _haloed(base: alt.Chart, colour: str = ACCENT, **mark: object) -> list[alt.Chart]:
    """A text mark over a white copy of itself drawn with a thick outline: readable over lines and gridlines.

    Vega text has no halo property; the copy underneath is one.
    """
    return [base.mark_text(**mark, **HALO), base.mark_text(**mark, color=colour)]


def hline(reference: Data, colour: str = ACCENT) -> alt.LayerChart:
    """A dashed horizontal reference line at each row's `y`, with its `label` on a white halo above the line.

    `colour`: ACCENT, unless a series of the chart is near it in hue (then black, say)."""
    base = alt.Chart(reference).encode(y="y:Q")
    rule = base.mark_rule(strokeDash=[6, 4], color=colour, size=2)
    labels = _haloed(base.encode(text="label:N"), colour, align="left", dx=4, dy=-10)
    return alt.layer(rule, *labels)


def marker(point: Data) -> alt.LayerChart:
    """A highlighted point with a vertical rule at its `x`, labelled at the plot's top edge (clear of the curve)."""
    base = alt.Chart(point).encode(x="x:Q")
    rule = base.mark_rule(color=ACCENT, size=2)
    dot = base.mark_point(color=ACCENT, size=160, filled=True).encode(y="y:Q")
    top = base.encode(y=alt.YValue(0), text="label:N")
    right = "scale('x', datum.x) > width * 0.6"  # past 60 % of the plot the label goes left of the rule, inside
    side = dict(align=alt.ExprRef(f"{right} ? 'right' : 'left'"), dx=alt.ExprRef(f"{right} ? -6 : 6"))
    labels = _haloed(top, baseline="top", dy=4, fontWeight="bold", **side)
    return alt.layer(rule, dot, *labels)


def lines_marked(curve: Data, point: Data, **shape: object) -> alt.LayerChart:
    """`lines` with a `marker` on it (the current setting on a curve)."""
    return lines(curve, **shape) + marker(point)


def lines_with_reference(curve: Data, reference: Data, **shape: object) -> alt.LayerChart:
    """`lines` with a dashed `hline` reference (an expected value)."""
    return lines(curve, **shape) + hline(reference)


def lines_keyed(
    curve: Data,
    *more: Data,
    colours: tuple[tuple[str, str], ...],
    overlay: str = "none",
    y_ticks: tuple[float, ...] | None = None,
    reference_colour: str = ACCENT,
    **shape: object,
) -> alt.Chart | alt.LayerChart:
    """`lines` with each series in its own colour, whatever else is drawn (`colours`: (series, colour) pairs, the
    legend's entries in that order), plus an `hline` reference ("reference") or a `marker` ("marker") of `more[0]`.

    `y_ticks`: the y axis's tick values (a level the reader must find, such as a factor, gets a label).
    `reference_colour`: the "reference" lines' colour (`hline`).
    """
    if overlay not in ("none", "reference", "marker"):
        raise ValueError(f"overlay must be 'none', 'reference' or 'marker', got {overlay!r}")
    chart = lines(curve, **shape)
    scale = alt.Scale(domain=[name for name, _ in colours], range=[colour for _, colour in colours])
    for layer in chart.layer if isinstance(chart, alt.LayerChart) else [chart]:
        layer.encoding.color.scale = scale
        if y_ticks is not None:
            layer.encoding.y.axis = alt.Axis(values=list(y_ticks), format="~g")
    if overlay == "reference":
        return chart + hline(more[0], reference_colour)
    return chart + marker(more[0]) if overlay == "marker" else chart


def bars(
    data: Data,
    *,
    x: str,
    y: str,
    title: Text,
    x_title: str,
    y_title: str,
    log_y: bool = False,
    text: str | None = None,
    height: int = 280,
) -> alt.Chart | alt.LayerChart:
    """One bar of y per x (for example one squared norm per position); bars keep the data's order.

    `text`: a column of display strings written above each bar (a log axis alone makes 1.2 and 1.4 look alike);
    a log axis is ticked in one style (1e-8, 1e+0).
    """
    y_axis = alt.Axis(format=".0e") if log_y else alt.Undefined
    y_scale = alt.Scale(type="log") if log_y else alt.Undefined
    if text is not None:  # room above the tallest bar for its value
        y_scale = alt.Scale(type="log" if log_y else "linear", padding=24)
    base = alt.Chart(data).encode(
        x=alt.X(f"{x}:N", title=x_title, sort=None, axis=alt.Axis(labelAngle=0, labelOverlap=True, labelLimit=260)),
        y=alt.Y(f"{y}:Q", title=y_title, stack=None, scale=y_scale, axis=y_axis),
    )
    bar = base.mark_bar(color=SERIES_COLORS[0]).encode(
        tooltip=[alt.Tooltip(f"{x}:N"), alt.Tooltip(f"{y}:Q", format=".6g")]
    )
    if text is None:
        return bar.properties(title=title_params(title), height=height)
    values = base.mark_text(baseline="bottom", dy=-4, fontWeight="bold").encode(text=f"{text}:N")
    return alt.layer(bar, values, title=title_params(title), height=height)


def bars_with_reference(data: Data, reference: Data, **shape: object) -> alt.LayerChart:
    """`bars` with a dashed `hline` reference (an expected value)."""
    return bars(data, **shape) + hline(reference)


def grouped_bars(bars: Data, *, x: str, y: str, group: str, title: Text, y_title: str, height: int = 260) -> alt.Chart:
    """Bars of y per x, side by side for each group (for example one output vector per sentence)."""
    return (
        alt.Chart(bars, title=title_params(title), height=height)
        .mark_bar()
        .encode(
            x=alt.X(f"{x}:O", title=x, axis=alt.Axis(labelAngle=0)),
            xOffset=f"{group}:N",
            y=alt.Y(f"{y}:Q", title=y_title),
            color=alt.Color(f"{group}:N", title=None, scale=alt.Scale(range=list(SERIES_COLORS[:2])),
                            legend=alt.Legend(orient="bottom", direction="horizontal")),
            tooltip=[f"{group}:N", f"{x}:O", alt.Tooltip(f"{y}:Q", format=".6g")],
        )
    )  # fmt: skip


def grouped_bars_keyed(bars: Data, *, colours: tuple[tuple[str, str], ...], **shape: object) -> alt.Chart:
    """`grouped_bars` with each group in its own colour (`colours`: (group, colour) pairs, the legend in that order),
    so a group keeps its colour whichever others it is drawn with."""
    chart = grouped_bars(bars, **shape)
    chart.encoding.color.scale = alt.Scale(domain=[g for g, _ in colours], range=[c for _, c in colours])
    chart.encoding.color.legend = alt.Legend(orient="bottom", direction="horizontal", labelLimit=400)
    chart.encoding.xOffset = alt.XOffset(f"{shape['group']}:N", sort=[g for g, _ in colours])
    return chart


def trajectory(path: Data, *, title: Text, size: int = 300) -> alt.LayerChart:
    """Points (x, y) joined in order of `position`, coloured by it: a pair turning around the circle.

    Square, with the same domain on both axes (two invisible corners at (-r, -r) and (r, r) from the frame's
    `r` column), so a circle is drawn as a circle.
    """
    same = alt.Scale(zero=False, nice=True)
    base = alt.Chart(path).encode(
        x=alt.X("x:Q", title="dimension 2i", scale=same),
        y=alt.Y("y:Q", title="dimension 2i+1", scale=same),
        order="position:Q",
    )
    line = base.mark_line(color="#999999")  # no tooltip: a line is picked by its first datum
    dots = base.mark_circle(size=70).encode(
        color=alt.Color("position:Q", scale=alt.Scale(scheme="viridis"), legend=alt.Legend(orient="right")),
        tooltip=["position:Q", alt.Tooltip("x:Q", format=".4f"), alt.Tooltip("y:Q", format=".4f")],
    )
    corners = alt.Chart(path).mark_point(opacity=0)
    low = corners.encode(x="neg_r:Q", y="neg_r:Q")
    high = corners.encode(x="r:Q", y="r:Q")
    return alt.layer(line, dots, low, high, title=title_params(title), width=size, height=size)


def step_errors(steps: Data, band: Data, *, title: Text) -> alt.LayerChart:
    """Bars of error per token on a log axis, coloured by phase, over a shaded band where errors are rounding.

    `steps` is `frames.step_errors` (bars run from `floor` to `shown`); `band` is `frames.rounding_band`.
    A log axis keeps rounding (1e-16) and a bug (1e-1) fifteen decades apart instead of both near 0; an exact 0
    has no bar there, so it is written as "0" on the floor.
    """
    y = alt.Y(
        "shown:Q",
        title="max abs difference (log)",
        scale=alt.Scale(type="log"),
        axis=alt.Axis(format=".0e", tickCount=6),
    )
    shade = alt.Chart(band).mark_rect(color="#999999", opacity=0.18).encode(y=alt.Y("lo:Q"), y2="hi:Q")
    label = (
        alt.Chart(band)
        .mark_text(align="left", baseline="bottom", dx=4, dy=-3, color="#555555")
        .encode(x=alt.value(0), y="hi:Q", text="label:N")
    )
    bar = (
        alt.Chart(steps)
        .mark_bar(size=14)
        .encode(
            x=alt.X("token:O", title="token t", axis=alt.Axis(labelAngle=0, labelOverlap=True)),
            y=y,
            y2="floor:Q",
            color=alt.Color("phase:N", title=None, scale=alt.Scale(range=list(SERIES_COLORS[:2])),
                            legend=alt.Legend(orient="bottom")),
            tooltip=["token:O", "phase:N", alt.Tooltip("error:Q", format=".3g")],
        )
    )  # fmt: skip
    zero = (
        alt.Chart(steps)
        .transform_filter("datum.error == 0")
        .mark_text(baseline="bottom", dy=-2, fontWeight="bold")
        .encode(x="token:O", y="shown:Q", text=alt.value("0"), color=alt.Color("phase:N", legend=None))
    )  # an exact 0 has no bar on a log axis: it is written on the floor instead
    return alt.layer(shade, bar, zero, label, title=title_params(title), height=320)


# ----- style, compile once, bind per rerun ------------------------------------------------------------------------


def style(chart: alt.TopLevelMixin, *, presenter: bool = False) -> alt.TopLevelMixin:
    """Font sizes for a laptop (12-15 px) or a lecture screen (16-22 px, text marks too); width fits the column.

    The same settings as chained `configure_axis(...)...configure_view(...)`, set as one `alt.Config`:
    each chained call deep-copies the chart, which made a template's first build several times slower.
    """
    label, title, heading = (16, 18, 22) if presenter else (12, 13, 15)
    if isinstance(chart, alt.FacetChart):  # its panels have their widths (a facet cannot fill a container)
        styled = chart.properties(autosize=alt.AutoSizeParams(type="pad"))
    elif chart.width is alt.Undefined:  # a builder that fixes its width (a square plot) keeps it
        styled = chart.properties(width="container", autosize=alt.AutoSizeParams(type="fit-x", contains="padding"))
    else:
        styled = chart.properties(autosize=alt.AutoSizeParams(type="pad"))
    styled.config = alt.Config(
        axis=alt.AxisConfig(labelFontSize=label, titleFontSize=title),
        # Streamlit's theme flushes end labels inward: a y axis's top label then sat below its gridline
        axisY=alt.AxisConfig(labelFlush=False),
        # (on a token axis too: "0 dog" pushed into "1 bites", which the theme's overlap rule then dropped)
        axisDiscrete=alt.AxisConfig(labelFlush=False),
        legend=alt.LegendConfig(labelFontSize=label, titleFontSize=title),
        title=alt.TitleConfig(fontSize=heading, anchor="start", subtitleFontSize=label),
        text=alt.MarkConfig(fontSize=label + 1),  # values written in cells, marker and reference labels
        header=alt.HeaderConfig(labelFontSize=heading, titleFontSize=title),  # a panel's title (heatmap_panels)
        view=alt.ViewConfig(strokeWidth=0),
    )
    return styled


def live_values(shape: dict[str, object]) -> tuple[dict[str, object], dict[str, object]]:
    """Split a builder's keyword arguments into the spec's shape and the values read live from data.

    Titles, notes and colour domains are live: the shape gets `Live` placeholders for them and
    the second dict holds their values for the LIVE dataset (a domain becomes lo, mid and hi).
    """
    static, values = dict(shape), {}
    for key in ("title", "note"):
        if static.get(key) is not None and not isinstance(static[key], Live):
            values[key] = str(static[key])
            static[key] = Live(key)
    if "domain" in static and not isinstance(static["domain"][0], Live):
        lo, hi = (float(b) for b in static["domain"])
        values.update(lo=lo, mid=(lo + hi) / 2, hi=hi)
        static["domain"] = (Live("lo"), Live("hi"))
    return static, values


@functools.lru_cache(maxsize=512)
def _compiled(builder: Callable[..., alt.TopLevelMixin], count: int, presenter: bool, shape: tuple) -> dict:
    names = [alt.NamedData(f"posviz_{i}") for i in range(count)]
    chart = builder(*names, **dict(shape))
    if any(isinstance(v, Live) for _, value in shape for v in (value if isinstance(value, tuple) else (value,))):
        chart = _carrying_live(chart)
    return style(chart, presenter=presenter).to_dict(validate=False)


def _carrying_live(chart: alt.TopLevelMixin) -> alt.TopLevelMixin:
    """The chart layered with an invisible mark on the LIVE dataset: Vega-Lite drops datasets no mark uses."""
    ghost = alt.Chart(alt.NamedData(LIVE)).mark_text(text=" ", opacity=0)
    if isinstance(chart, alt.FacetChart):  # a facet cannot be layered: the mark goes into each panel's layers
        chart.spec.layer = [*chart.spec.layer, ghost]
        return chart
    title, height, width = chart.title, chart.height, chart.width
    chart.title = chart.height = chart.width = alt.Undefined
    # the tests validate every builder against the schema
    return alt.layer(chart, ghost, title=title, height=height, width=width)


def compile(builder: Callable[..., alt.TopLevelMixin], count: int, *, presenter: bool = False, **shape) -> dict:
    """The builder's Vega-Lite spec with its `count` datasets named posviz_0.., built once per shape.

    Returns the cached dict itself: treat it as read-only (`bind` copies its top level).
    """
    return _compiled(builder, count, presenter, tuple(sorted(shape.items())))


def bind(spec: dict, frames: Sequence[pd.DataFrame], live: dict[str, object] | None = None) -> dict:
    """A compiled spec with this rerun's frames (and live values) under its dataset names."""
    datasets = {f"posviz_{i}": frame for i, frame in enumerate(frames)}
    if live:  # a spec compiled without live values has no mark on this dataset
        datasets[LIVE] = pd.DataFrame([live])
    return {**spec, "datasets": datasets}


def chart_spec(
    builder: Callable[..., alt.TopLevelMixin], *frames: pd.DataFrame, presenter: bool = False, **shape: object
) -> dict:
    """Compile (once) and bind: the Vega-Lite dict a rerun sends, live values split out of `shape`."""
    static, values = live_values(shape)
    return bind(compile(builder, len(frames), presenter=presenter, **static), frames, values)


def records(frame: pd.DataFrame) -> list[dict]:
    """JSON-ready rows of a DataFrame at full float precision; NaN and infinities become null."""

    def plain(value: object) -> object:
        return None if isinstance(value, float) and not math.isfinite(value) else value

    return [{key: plain(value) for key, value in row.items()} for row in frame.to_dict("records")]


def inline(spec: dict) -> dict:
    """A bound spec as pure JSON: every dataset written out as records."""
    return {**spec, "datasets": {name: records(frame) for name, frame in spec.get("datasets", {}).items()}}


def to_svg(spec: dict) -> str:
    """A bound spec as SVG text (needs vl-convert-python)."""
    import vl_convert as vlc

    return vlc.vegalite_to_svg(inline(spec))


# ----- tidy frames ------------------------------------------------------------------------------------------------


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
    rows = np.repeat(reduced.row_starts, k).astype(np.int32)  # 4 bytes a bound, not 8: a quarter less to send
    cols = np.tile(reduced.col_starts, r).astype(np.int32)
    return pd.DataFrame(
        {
            "row": rows,
            "row_end": rows + reduced.row_factor,
            "col": cols,
            "col_end": cols + reduced.col_factor,
            "value": reduced.values.ravel(),
        }
    )


def picture_frame(png: bytes) -> pd.DataFrame:
    """One row: a PNG as a data URL, for `picture_heatmap`."""
    return pd.DataFrame({"url": ["data:image/png;base64," + base64.b64encode(png).decode("ascii")]})


def extent_frame(reduced: Reduced, domain: Bounds) -> pd.DataFrame:
    """The outer edges of a reduced matrix's cells (two corners, half a cell outside the first and last index)
    and the colour domain's ends, for `picture_heatmap`'s axes and legend."""
    rows = (reduced.row_starts[0] - 0.5, reduced.row_starts[-1] + reduced.row_factor - 0.5)
    cols = (reduced.col_starts[0] - 0.5, reduced.col_starts[-1] + reduced.col_factor - 0.5)
    return pd.DataFrame({"x": cols, "y": rows, "value": [float(domain[0]), float(domain[1])]})


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


def series_frame(
    x: np.ndarray, series: Mapping[str, np.ndarray], *, x_name: str = "x", y_name: str = "y", group: str = "curve"
) -> pd.DataFrame:
    """Long-form rows (x_name, y_name, group) of named series sharing the x values, one group per name."""
    x = np.asarray(x)
    ys = [np.asarray(y, dtype=float) for y in series.values()]
    if any(y.shape != x.shape for y in ys):
        raise ValueError(f"every series must have x's shape {x.shape}, got {[y.shape for y in ys]}")
    return pd.DataFrame(
        {
            x_name: np.tile(x, len(ys)),
            y_name: np.concatenate(ys) if ys else np.array([], dtype=float),
            group: np.repeat(list(series), x.size),
        }
    )


def point_frame(x: float, y: float, label: str) -> pd.DataFrame:
    """One labelled point (x, y, label), for `marker`."""
    return pd.DataFrame({"x": [float(x)], "y": [float(y)], "label": [label]})


def level_frame(y: float, label: str) -> pd.DataFrame:
    """One labelled level (y, label), for `hline`."""
    return pd.DataFrame({"y": [float(y)], "label": [label]})


def labelled(labels: Sequence[str]) -> list[str]:
    """Unique axis labels "0 dog", "1 bites", ... so repeated words keep their own row."""
    return [f"{i} {w}" for i, w in enumerate(labels)]


MASKED_GREY = "#d4d4d4"  # a key the causal mask hides: neither a weight colour nor the page's background


def masked_frame(frame: pd.DataFrame) -> pd.DataFrame:
    """`matrix_frame`'s cells with a `masked` column: the keys a causal mask hides (key after query)."""
    return frame.assign(masked=frame["col_index"] > frame["row_index"])


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
