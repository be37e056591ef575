"""Heatmap builders written in Altair: a matrix's tidy frame in, a chart out (cells, pictures, panels of them).

Long-form cells (`posviz.drawing.frames`: matrix_frame, reduced_frame, extent_frame, picture_panels_frame) with
explicit field types; a heatmap's base chart carries its axes and tooltip, and its rects and written values are
layers on it. Colour schemes are colour-blind-safe: signed values diverge around 0 ("blueorange"), attention
weights run over [0, 1] ("viridis"), both through the same 11 RGB stops as `posviz.drawing.images`, so a PNG
view and a chart of the same matrix share colours. No maths here, no streamlit.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import KW_ONLY, dataclass

import altair as alt
import numpy as np

from posviz.drawing import images
from posviz.drawing.colours import ACCENT, MASKED_GREY, TEXT_COLOUR
from posviz.drawing.engine import Bounds, Data, Live, Text, live_expr, live_text, title_params
from posviz.drawing.images import SIGNED_SCHEME, WEIGHT_SCHEME
from posviz.drawing.layout import PANEL_SPACING


def _live_or_list(values: Sequence[float | Live]) -> list[float] | alt.ExprRef:
    if any(isinstance(v, Live) for v in values):
        return alt.ExprRef("[" + ", ".join(live_expr(v) for v in values) + "]")
    return [float(v) for v in values]


def _stop_positions(domain: Bounds, count: int) -> list[float | Live] | alt.ExprRef:
    lo, hi = domain
    if isinstance(lo, Live) or isinstance(hi, Live):
        parts = [f"{live_expr(lo)} + ({live_expr(hi)} - {live_expr(lo)}) * {i / (count - 1)!r}" for i in range(count)]
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
        )  # title above: a narrow panel keeps the whole bar
    return alt.Color(f"{field}:Q", title=title, scale=color_scale(scheme, domain), legend=legend)


NOTE_STYLE = dict(lineBreak="\n", fontSize=20, fontWeight="bold", color="#333333")  # across a heatmap: 20 px, a hall


def _centre_note(cells: Data, note: Text) -> alt.Chart:
    """Text in the middle of the plot ("all zeros" over a blank panel; a newline breaks it); "" shows nothing."""
    one = alt.Chart(cells).transform_aggregate(cells="count()")
    return one.mark_text(text=live_text(note), **NOTE_STYLE).encode(
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


def _picture_mark(chart: alt.Chart, size: str = "") -> alt.Chart:
    """A picture's `url` as one image mark filling the plot from its top-left corner, unsmoothed (a pixel a value);
    `size` prefixes the plot's width and height signals ("child_" for a panel inside a facet)."""
    fill = dict(width=alt.ExprRef(f"{size}width"), height=alt.ExprRef(f"{size}height"), aspect=False)
    return chart.mark_image(**fill, align="left", baseline="top", smooth=False).encode(
        x=alt.value(0), y=alt.value(0), url="url:N"
    )


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
        image = _picture_mark(alt.Chart(picture))
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


@dataclass(frozen=True)
class CellStyle:
    """How a labelled heatmap (`token_heatmap`, `heatmap_panels`) draws its cells: axis titles, colour scale, legend,
    written values, label room and masked keys. Frozen and compared by value: a chart compiles once per style.

    `annotate`: each cell writes its value. `angled`: column labels tilt (a cell narrower than its label).
    `legend`: "bottom", "right" or "none" (a neighbouring chart on the same scale carries it).
    `row_label_limit`: pixels a row label may take before Vega cuts it with "…".
    `masked`: the cells have a boolean `masked` column (`masked_frame`); those cells (keys a causal mask hides) are
    drawn in MASKED_GREY with no value, so a hidden key does not look like a small weight.
    `compact`: values are still written in cells narrower than VALUE_CELL_PX (a phone's column of 9 heads or 8
    dimensions): weights (0 to 1) without their leading 0 (".38", as tables of correlations do) down to
    COMPACT_CELL_PX, signed values to one decimal ("−5.1") down to COMPACT_SIGNED_PX.
    `boxed`: the cells have a boolean `boxed` column; those cells are outlined in the accent colour (the cells a
    headline is taken from, found on the map).

    >>> CellStyle.weights().domain, CellStyle.signed(np.array([[-2.0, 1.0]]), row_title="t", col_title="u").domain
    ((0.0, 1.0), (-2.0, 2.0))
    """

    row_title: str
    col_title: str
    scheme: str
    domain: Bounds
    value_title: str
    _: KW_ONLY
    annotate: bool = True
    angled: bool = False
    legend: str = "bottom"
    row_label_limit: int = 120
    masked: bool = False
    compact: bool = False
    boxed: bool = False

    @classmethod
    def weights(cls, **choices: object) -> CellStyle:
        """Attention weights: WEIGHT_SCHEME on the fixed [0, 1] domain, titled "weight", a query a row and a key a
        column; `choices` set the rest (or another title or domain)."""
        fixed = dict(row_title="query", col_title="key", scheme=WEIGHT_SCHEME, domain=(0.0, 1.0), value_title="weight")
        return cls(**{**fixed, **choices})

    @classmethod
    def signed(cls, *matrices: np.ndarray, domain: Bounds | None = None, **choices: object) -> CellStyle:
        """Signed values: SIGNED_SCHEME around 0 on `domain`, by default `signed_domain(*matrices)`, titled "value";
        `choices` set the rest (the axis titles at least)."""
        domain = signed_domain(*matrices) if domain is None else domain
        return cls(**{"scheme": SIGNED_SCHEME, "value_title": "value", **choices, "domain": domain})


WEIGHTS = CellStyle.weights()  # attention weights by query and key, each value written


def token_heatmap(
    cells: Data,
    *,
    title: Text,
    style: CellStyle = WEIGHTS,
    height: int = 260,
    note: Text | None = None,
    square: bool = False,
) -> alt.LayerChart:
    """Labelled heatmap of a small matrix (tokens or positions) drawn as `style` says.

    `cells` is `matrix_frame`'s long form; rows and columns keep the matrix's order (row_index, col_index).
    `note`: a line written across the middle (for a panel that is blank because every value is 0).
    `square`: the plot is `height` wide too (a similarity matrix: its diagonal runs at 45°).
    """
    layers = _cell_layers(alt.Chart(cells), style)
    extra = [] if note is None else [_centre_note(cells, note)]
    return alt.layer(*layers, *extra, title=title_params(title), height=height, **_square(square, height))


VALUE_CELL_PX = 36  # px: the narrowest cell a written value ("−3.52", 13 px type) fits in with room either side
COMPACT_CELL_PX = 24  # px: the narrowest cell ".38" (13 px type, about 17 px) fits in with room either side
COMPACT_SIGNED_PX = 28  # px: the same for "−5.1" (about 23 px)


def _cell_layers(base: alt.Chart, style: CellStyle, panels: bool = False) -> list[alt.Chart]:
    """A labelled heatmap's rects on `base` (rows and columns in the matrix's order) and, if `style.annotate`, its
    values written in the cells, dark on light cells and white on dark ones (`dark_text`). `panels`: cells of
    `heatmap_panels` (the panel in the tooltip, every column label drawn)."""
    x_axis = alt.Axis(
        labelAngle=-40 if style.angled else 0, labelLimit=120, **({"labelOverlap": False} if panels else {})
    )
    base = base.encode(
        x=alt.X("col:O", title=style.col_title, sort=alt.EncodingSortField("col_index", op="min"), axis=x_axis),
        y=alt.Y(
            "row:O",
            title=style.row_title,
            sort=alt.EncodingSortField("row_index", op="min"),
            axis=alt.Axis(labelLimit=style.row_label_limit),
        ),
        tooltip=[alt.Tooltip("panel:N", title="panel")] * panels
        + [
            alt.Tooltip("row:N", title=style.row_title),
            alt.Tooltip("col:N", title=style.col_title),
            alt.Tooltip("value:Q", title=style.value_title, format=".6g"),
        ]
        + [alt.Tooltip("masked:N", title="masked")] * style.masked,
    )
    colour = value_color(style.scheme, style.domain, style.value_title, legend=style.legend)
    layers = [
        base.mark_rect().encode(
            color=alt.condition("datum.masked", alt.value(MASKED_GREY), colour) if style.masked else colour
        )
    ]
    if style.boxed:  # drawn over every cell's colour, under the values
        layers.append(base.transform_filter("datum.boxed").mark_rect(fill=None, stroke=ACCENT, strokeWidth=3))
    if style.masked:
        base = base.transform_filter("!datum.masked")  # a hidden key prints no value
    if style.annotate:
        colour = alt.condition(dark_text(style.scheme, style.domain), alt.value("black"), alt.value("white"))
        # size from engine.style (13 px, 21 px in a hall); a value narrower cells cannot hold (a phone's column)
        # is left to the tooltip rather than packed edge to edge with its neighbours, or, `compact`, written shorter
        wide, two = f"bandwidth('x') >= {VALUE_CELL_PX}", "format(datum.value, '.2f')"
        written, least = two, VALUE_CELL_PX
        if style.compact and style.scheme == SIGNED_SCHEME:
            written, least = f"{wide} ? {two} : format(datum.value, '.1f')", COMPACT_SIGNED_PX
        elif style.compact:  # weights: "1.00" has no "0." to drop
            written, least = f"{wide} ? {two} : replace({two}, '0.', '.')", COMPACT_CELL_PX
        written = f"isValid(datum.value) ? ({written}) : ''"  # a missing value (null in the data) writes nothing
        shown = alt.ExprRef(f"bandwidth('x') >= {least} ? 1 : 0")
        layers.append(base.mark_text(text=alt.ExprRef(written), opacity=shown).encode(color=colour))
    return layers


def dark_text(scheme: str, domain: Bounds) -> str:
    """A Vega expression, true where a cell's colour (`scheme` over `domain`) is light enough for dark text and false
    where white text reads better (WCAG luminance, `images.light_span`), as plotting tools pick a label's colour.

    >>> dark_text(WEIGHT_SCHEME, (0.0, 1.0))
    '(datum.value - (0.0)) / ((1.0) - (0.0)) >= 0.435'
    """
    lo, hi = (live_expr(b) for b in domain)
    start, end = images.light_span(scheme)
    fraction = f"(datum.value - ({lo})) / (({hi}) - ({lo}))"
    ends = [f"{fraction} >= {start:.3g}"] * (start > 0) + [f"{fraction} <= {end:.3g}"] * (end < 1)
    return " && ".join(ends) or "true"


def _panel_facet(title_width: int) -> alt.Facet:
    """Panels in `panel_index` order, each titled like a chart (bold, from the left, cut at `title_width` px)."""
    header = alt.Header(
        title=None,
        labelAnchor="start",
        labelFontWeight="bold",
        labelLimit=title_width,
        labelPadding=6,
        labelColor=TEXT_COLOUR,
    )
    return alt.Facet("panel:N", sort=alt.EncodingSortField("panel_index", op="min"), header=header)


def heatmap_panels(
    cells: Data,
    *,
    style: CellStyle,
    width: int,
    height: int = 260,
    columns: int = 4,
    shared: bool = True,
    notes: bool = False,
    title_width: int | None = None,
) -> alt.FacetChart:
    """Small labelled heatmaps on one colour scale as one faceted chart, `columns` panels a row, each `width` x
    `height` pixels, drawn as `style` says: one colour legend, and with `shared` one set of row and column labels
    (else each panel has its own, as for two sentences' tokens). A browser draws it faster than a chart a panel.

    `cells` is `matrix_frame`'s long form for every panel, with its title in `panel`, its place in `panel_index`
    and, with `notes`, a line to write across its middle in `note` ("" writes nothing; a newline breaks it).
    `title_width`: pixels a panel's title may take (default `width`; more where the next panel's labels leave
    room above them). Every column label is drawn (`style.angled` tilts them when a cell is narrower than its label).
    """
    layers = _cell_layers(alt.Chart(), style, panels=True)
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
    facet = _panel_facet(title_width or width)
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
    image = _picture_mark(alt.Chart().transform_filter("datum.kind == 'picture'"), "child_")
    axes = (
        alt.Chart()
        .transform_filter("datum.kind == 'corner'")
        .mark_point(opacity=0)
        .encode(**_cell_axes(row_title, col_title), color=value_color(scheme, domain, value_title, legend=legend))
    )
    facet = _panel_facet(title_width or width)
    panels = alt.layer(image, axes).properties(width=width, height=height)
    spacing = alt.RowColnumber(column=PANEL_SPACING, row=12)
    return panels.facet(facet=facet, columns=columns, data=pictures, spacing=spacing, title=title_params(title))


def signed_domain(*matrices: np.ndarray) -> tuple[float, float]:
    """A symmetric domain (-a, a) covering every value, a >= 1e-12 so a zero matrix still draws."""
    a = max([float(np.abs(m).max(initial=0.0)) for m in matrices] + [1e-12])
    return (-a, a)


def robust_domain(m: np.ndarray, quantile: float = 0.99) -> tuple[float, float]:
    """A symmetric domain at the `quantile` of |m|, so a few large values do not wash out the rest."""
    a = max(float(np.quantile(np.abs(m), quantile)), 1e-12)
    return (-a, a)
