"""Altair builders for the lecture's later steps: a table of text cells, a learned table that runs out, bars.

As the other builders: data first (long-form frames from `posviz.drawing.frames`), shape after; no maths, no
streamlit. A table cell's text may hold "\\n" for a second line (Vega's text mark breaks lines there).

    >>> from posviz.drawing.frames import cells_frame
    >>> frame = cells_frame(["a", "b"], {"x": ["1", "2"], "y": ["3", "4"]})
    >>> frame.shape, type(text_table(frame, title="t")).__name__
    ((4, 7), 'LayerChart')
"""

from __future__ import annotations

import math

import altair as alt

from posviz.drawing import lines_bars
from posviz.drawing.colours import ACCENT, SERIES_COLORS, TEXT_COLOUR, readable
from posviz.drawing.engine import Data, Text, on_phone, title_params


def text_table(cells: Data, *, title: Text, height: int = 260, row_title: str = "") -> alt.LayerChart:
    """The cells of `cells_frame` written in a grid: headings on top, row names on the left, light rules between
    rows; rows and columns keep the frame's order."""
    x = alt.X(
        "column:N",
        sort=None,
        title=None,
        axis=alt.Axis(orient="top", labelAngle=0, labelLimit=400, labelFontWeight="bold", ticks=False, domain=False),
    )
    y = alt.Y(
        "row:N",
        sort=None,
        title=row_title or None,
        axis=alt.Axis(labelLimit=260, labelFontWeight="bold", ticks=False, domain=False, grid=False),
    )
    base = alt.Chart(cells).encode(x=x, y=y)
    band = base.mark_rect(fill="#f0f2f6", stroke="white", strokeWidth=3)
    one, two = base.transform_filter("datum.second == ''"), base.transform_filter("datum.second != ''")
    centred = one.mark_text(color=TEXT_COLOUR).encode(text="first:N")
    upper = two.mark_text(color=TEXT_COLOUR, dy=-10).encode(text="first:N")
    lower = two.mark_text(color=TEXT_COLOUR, dy=10).encode(text="second:N")
    return alt.layer(band, centred, upper, lower, title=title_params(title), height=height)


def table_end(
    curve: Data, gap: Data, marks: Data | None = None, *, title: Text, y_title: str, height: int = 240
) -> alt.LayerChart:
    """A learned table's row norms (`curve`: position, norm) and, past its last row, the positions with no row
    (`gap`: a shaded band from start to end, labelled): the line stops where the table does. `marks` (position,
    norm, label, end) writes a label beside each named point, left of it where `end` (the table's last row): the rows a
    caption speaks of, found on the line."""
    x = alt.X("position:Q", title="position t", scale=alt.Scale(nice=False))
    line = (
        alt.Chart(curve).mark_line(color=SERIES_COLORS[0], strokeWidth=2).encode(x=x, y=alt.Y("norm:Q", title=y_title))
    )
    band = alt.Chart(gap).mark_rect(color=ACCENT, opacity=0.15).encode(x="start:Q", x2="end:Q")
    edge = alt.Chart(gap).mark_rule(color=ACCENT, size=2).encode(x="start:Q")
    words = alt.Chart(gap).mark_text(color=ACCENT, fontWeight="bold", baseline="top", dy=6)
    centred = words.transform_filter(on_phone(False)).encode(x="mid:Q", y=alt.YValue(0), text="label:N")
    # a phone's band is too narrow for the words on one line: two, broken at the colon ("no row" / "512-639"), in
    # the band (to its left they stood over rows that exist)
    before = words.mark_text(color=ACCENT, fontWeight="bold", baseline="top", dy=6, lineBreak=": ")
    before = before.transform_filter(on_phone()).encode(x="mid:Q", y=alt.YValue(0), text="label:N")
    layers = [band, line, edge, centred, before]
    if marks is not None:
        named = alt.Chart(marks).encode(x="position:Q", y="norm:Q")
        words = named.encode(text="label:N").transform_joinaggregate(top="max(norm)")
        written = dict(color=TEXT_COLOUR, fontWeight="bold")
        left, right = dict(align="left", dx=8, **written), dict(align="right", dx=-8, **written)
        layers += [  # the highest label hangs below its point (above, it would grow the chart past the plot); the
            # table's last row's label stands left of it (right, it would run into the band or off a phone's chart)
            named.mark_point(color=TEXT_COLOUR, filled=True, size=40),
            words.mark_text(baseline="top", **left).transform_filter("datum.norm == datum.top"),
            words.mark_text(baseline="bottom", **left).transform_filter("datum.norm < datum.top && !datum.end"),
            words.mark_text(baseline="bottom", **right).transform_filter("datum.norm < datum.top && datum.end"),
        ]
    return alt.layer(*layers, title=title_params(title), height=height)


def across_bars(
    data: Data,
    *,
    category: str,
    value: str,
    text: str,
    title: Text,
    x_title: str,
    height: int = 160,
    span: tuple[float, float] = (0.0, 1.2),
    ticks: tuple[float, ...] | None = None,
    two_lines: bool = True,
) -> alt.LayerChart:
    """One horizontal bar of `value` per `category` (which may hold "\\n" for a second line), its `text` at the
    bar's end; bars keep the data's order, the linear value axis spans `span` (default 0 to 1.2: a cosine's scale,
    room for the text), ticked at `ticks` when given (Vega's own ticks may hide one past the plot's end). A two-line
    label is centred on its bar (its first line half a line up); with `two_lines` False every label is one line,
    centred on its bar (the two-line rule set one line half a line above its bar's middle)."""
    lines = "split(datum.label, '\\n')"  # a label's "\\n" starts its second line
    baseline = "line-bottom" if two_lines else "middle"
    y = alt.Y(
        f"{category}:N",
        sort=None,
        title=None,
        axis=alt.Axis(labelExpr=lines, labelLimit=300, ticks=False, labelOverlap=False, labelBaseline=baseline),
    )
    axis = alt.Axis(values=list(ticks), format="~g") if ticks is not None else alt.Axis()  # 0.25, not 0.3
    x = alt.X(f"{value}:Q", title=x_title, scale=alt.Scale(domain=list(span), nice=False), axis=axis)
    base = alt.Chart(data).encode(x=x, y=y)
    bar = base.mark_bar(color=SERIES_COLORS[0]).encode(tooltip=[alt.Tooltip(f"{value}:Q", format=".6g")])
    values = base.mark_text(align="left", dx=6, fontWeight="bold", color=TEXT_COLOUR).encode(text=f"{text}:N")
    return alt.layer(bar, values, title=title_params(title), height=height)


def ranked_dots(dots: Data, *, title: Text, x_title: str, height: int = 120) -> alt.LayerChart:
    """One dot per row of `dots` (value, rank, above, stored, label, below), each on its own line in rank order
    (`rank` 0 at the top), coloured by whether it is above 0 (`above`: blue, else vermillion), the `stored` row a dark
    ring (one run set among the others), a rule at 0; `label` and `below` (the same in every row: counts, said once)
    written in their dots' colours, at the plot's bottom right and top left, away from the dots: paired differences
    whose sign is the point."""
    x = alt.X("value:Q", title=x_title, axis=alt.Axis(format="~g", tickCount=4))
    y = alt.Y("rank:O", title="sorted", axis=alt.Axis(labels=False, ticks=False, domain=False))  # height: rank
    base = alt.Chart(dots).encode(x=x, y=y, tooltip=[alt.Tooltip("value:Q")])
    colour = alt.condition("datum.above", alt.value(SERIES_COLORS[0]), alt.value(ACCENT))
    points = base.transform_filter("!datum.stored").mark_circle(size=60, opacity=1).encode(color=colour)
    ring = base.transform_filter("datum.stored").mark_point(size=140, strokeWidth=2.5, color=TEXT_COLOUR, opacity=1)
    zero = (  # one rule, from a field: a mark with no field encoded has no description for a screen reader (axe)
        alt.Chart(dots)
        .transform_filter("datum.rank == 0")
        .transform_calculate(zero="0")
        .mark_rule(color=TEXT_COLOUR, strokeDash=[4, 3])
        .encode(x=alt.X("zero:Q", title=x_title))
    )
    said = alt.Chart(dots).transform_filter("datum.rank == 0")
    above = said.mark_text(align="right", baseline="bottom", fontWeight="bold", color=readable(SERIES_COLORS[0]))
    words = above.encode(x=alt.XValue("width"), y=alt.YValue("height"), text="label:N")  # below the highest dots
    # top left, over the lowest dots' side: the ring's key, then the count below 0 in its dots' colour
    key = said.mark_text(align="left", baseline="top", fontWeight="bold", color=TEXT_COLOUR)
    key = key.encode(x=alt.XValue(0), y=alt.YValue(0), text=alt.value("○ as stored"))
    below = said.mark_text(align="left", baseline="top", fontWeight="bold", color=readable(ACCENT), dy=24)
    below = below.encode(x=alt.XValue(0), y=alt.YValue(0), text="below:N")
    return alt.layer(zero, points, ring, words, key, below, title=title_params(title), height=height)


def spread_bars(
    data: Data,
    *,
    colours: tuple[tuple[str, str], ...],
    title: Text,
    x_title: str,
    span: tuple[float, float],
    ticks: tuple[float, ...] = (),
    height: int = 160,
) -> alt.LayerChart:
    """One horizontal bar per row of `data` (category, value, low, high, text_at, shown, chosen): the bar to `value`
    in its category's colour (`colours`: (category, colour) pairs), a dark rule from `low` to `high` (the seeds'
    range), `shown` written from `text_at`; the `chosen` row drawn full, the others faded. Bars keep the data's
    order; the value axis spans `span`, ticked at `ticks` when given (the room past the data holds words)."""
    y = alt.Y("category:N", sort=None, title=None, axis=alt.Axis(labelLimit=300, ticks=False, labelOverlap=False))
    x = alt.X(
        "value:Q",
        title=x_title,
        scale=alt.Scale(domain=list(span), nice=False),
        axis=alt.Axis(values=list(ticks), labelFlush=False) if ticks else alt.Axis(labelFlush=False),  # 0 under 0
    )
    base = alt.Chart(data).encode(y=y)
    scale = alt.Scale(domain=[k for k, _ in colours], range=[c for _, c in colours])
    bar = base.mark_bar().encode(
        x=x,
        color=alt.Color("category:N", scale=scale, legend=None),
        opacity=alt.condition("datum.chosen", alt.value(1.0), alt.value(0.4)),
        tooltip=[alt.Tooltip("value:Q", format=".4f"), alt.Tooltip("low:Q", format=".4f"), "high:Q"],
    )
    spread = base.mark_rule(color=TEXT_COLOUR, size=2).encode(x="low:Q", x2="high:Q")
    # 14 px past the bar or its range line: at 6 the line's end read as a minus sign before the value
    words = base.mark_text(align="left", dx=14, fontWeight="bold", color=TEXT_COLOUR).encode(
        x=alt.X("text_at:Q", scale=alt.Scale(domain=list(span), nice=False)), text="shown:N"
    )
    return alt.layer(bar, spread, words, title=title_params(title), height=height)


def lines_unlabelled(curve: Data, *more: Data, **shape: object) -> alt.LayerChart:
    """`lines_bars.lines_keyed` without its colour legend, for a chart whose neighbour names the colours (the
    lecture's bars in the same colours), so that both fit one screen."""
    chart = lines_bars.lines_keyed(curve, *more, **shape)
    _drop_legends(chart)
    return chart


def lines_labelled(
    curve: Data,
    window: Data,
    ends: Data,
    *,
    x_ticks: tuple[float, ...] | None = None,
    stroke: float | None = None,
    **shape: object,
) -> alt.LayerChart:
    """`lines_unlabelled` with a direct legend: each series' name written in its colour in a column past the lines'
    end (`ends`: `frames.line_ends`, the name at (x, label_y)), so the chart reads on its own. The x axis runs on to
    `ends`' `room` (an unseen point), so that the names sit inside the plot, not past its edge; `x_ticks` (the axis's
    ticks, `round_ticks` to the lines' end) keep the room beyond free of ticks: it holds names, not data. `stroke`:
    the lines' width in px (a hall's back row; the thick front lines stay at least as thick)."""
    chart = lines_unlabelled(curve, window, **shape)
    if stroke is not None:
        _thicken(chart, stroke)
    key, x = str(shape["color"]), str(shape["x"])
    colours = shape["colours"]
    # each name in its line's hue, darkened until it reads at 4.5:1 on white (light blue read at 2.3:1 in a hall)
    scale = alt.Scale(domain=[k for k, _ in colours], range=[readable(c) for _, c in colours])
    names = (
        alt.Chart(ends)
        .mark_text(align="left", baseline="middle", dx=6, fontWeight="bold")
        .encode(
            x=alt.X(f"{x}:Q"),
            y=alt.Y("label_y:Q"),
            text=f"{key}:N",
            fill=alt.Fill(f"{key}:N", scale=scale, legend=None),  # its own scale: `color` is the lines' (shared)
        )
    )
    room = alt.Chart(ends).mark_point(opacity=0).encode(x=alt.X("room:Q"), y=alt.Y("label_y:Q"))  # the names' room
    layered = alt.layer(chart, names, room)
    if x_ticks is not None:
        _tick_x(layered, list(x_ticks))
    return layered


def _thicken(chart: alt.TopLevelMixin, stroke: float) -> None:
    """Every line mark in `chart` (not its rules or words) at least `stroke` px wide."""
    for layer in getattr(chart, "layer", [chart]):
        if isinstance(layer, alt.LayerChart):
            _thicken(layer, stroke)
            continue
        mark = layer.mark
        kind = mark if isinstance(mark, str) else getattr(mark, "type", None)
        if kind == "line":
            if isinstance(mark, str):
                layer.mark = alt.MarkDef(type="line", strokeWidth=stroke)
            else:
                width = mark.strokeWidth
                mark.strokeWidth = stroke if width is alt.Undefined else max(float(width), stroke)


def round_ticks(end: float, most: int = 6) -> list[float]:
    """At most `most` ticks from 0 to `end`, a round step apart (1, 2 or 5 times a power of ten).

    >>> round_ticks(1008.0), round_ticks(240.0)
    ([0.0, 200.0, 400.0, 600.0, 800.0, 1000.0], [0.0, 50.0, 100.0, 150.0, 200.0])
    """
    step = next(m * 10.0**k for k in range(-6, 16) for m in (1, 2, 5) if end / (m * 10.0**k) < most)
    return [i * step for i in range(int(end // step) + 1)]


def spread_ticks(low: float, high: float) -> tuple[float, ...]:
    """Ticks one round step apart over [min(low, 0), max(high, 0)] only, at most four (`spread_bars`' `ticks`): the
    axis past the data is room for the bars' words, and half steps to 5.5 crowded its labels.

    >>> spread_ticks(-0.2, 3.16), spread_ticks(-0.4, 0.3)
    ((0.0, 1.0, 2.0, 3.0), (-0.4, -0.2, 0.0, 0.2))
    """
    low, high = min(low, 0.0), max(high, 0.0)
    step = (round_ticks(high - low, most=4) + [1.0])[1]  # one round step on both sides of 0
    return tuple(round(k * step, 12) for k in range(math.ceil(low / step - 1e-9), math.floor(high / step + 1e-9) + 1))


def _tick_x(chart: alt.TopLevelMixin, values: list[float]) -> None:
    """Every layer's x axis ticked at `values` only, written as integers (positions)."""
    for layer in getattr(chart, "layer", [chart]):
        if isinstance(layer, alt.LayerChart):
            _tick_x(layer, values)
        elif isinstance(getattr(layer.encoding, "x", None), alt.X):
            layer.encoding.x.axis = alt.Axis(values=values, format="d")  # 1024, as the windows "512-1023"


def _drop_legends(chart: alt.TopLevelMixin) -> None:
    for layer in getattr(chart, "layer", [chart]):
        if isinstance(layer, alt.LayerChart):
            _drop_legends(layer)
        elif isinstance(getattr(layer.encoding, "color", None), alt.Color):
            layer.encoding.color.legend = None
