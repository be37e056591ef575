"""Line and bar builders written in Altair: long-form curves or bars in, a chart out, references and markers layered.

Data first (a tidy frame from `posviz.drawing.frames`: one row a point, the series in a column), explicit field types
(:Q for a measured axis, :O for a whole-number axis such as tokens, :N for a series), then keyword shape arguments;
a reference line (`hline`) or a marked point (`marker`) is a layer on the same axes. No maths here, no streamlit.
"""

from __future__ import annotations

import altair as alt

from posviz.drawing.colours import ACCENT, SERIES_COLORS
from posviz.drawing.engine import Data, Text, on_phone, title_params
from posviz.drawing.frames import LOG_FLOOR


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


HALO = dict(color="white", stroke="white", strokeWidth=5, strokeJoin="round", opacity=1)  # 0.9 let a crossing line show


def _haloed(base: alt.Chart, colour: str = ACCENT, **mark: object) -> list[alt.Chart]:
    """A text mark over a white copy of itself drawn with a thick outline: readable over lines and gridlines.

    Vega text has no halo property; the copy underneath is one.
    """
    return [base.mark_text(**mark, **HALO), base.mark_text(**mark, color=colour)]


def hline(reference: Data, colour: str = ACCENT, *, below: bool = False) -> alt.LayerChart:
    """A dashed horizontal reference line at each row's `y`, with its `label` on a white halo above the line (or
    `below` it from the plot's left edge, where a curve runs just above).

    `colour`: ACCENT, unless a series of the chart is near it in hue (then black, say)."""
    base = alt.Chart(reference).encode(y="y:Q")
    rule = base.mark_rule(strokeDash=[6, 4], color=colour, size=2)
    text = base.encode(text="label:N")
    if below:  # from the plot's left edge: from its middle, a phone's narrow plot cut the label; a phone writes
        # `short`, clear of a marker's line across the plot's middle
        said = f"{on_phone()} && datum.short ? datum.short : datum.label"
        text = base.encode(x=alt.XValue(0)).transform_calculate(shown=said).encode(text="shown:N")
    labels = _haloed(text, colour, align="left", dx=4, dy=14 if below else -10)
    return alt.layer(rule, *labels)


def vline(reference: Data, colour: str = ACCENT) -> alt.LayerChart:
    """A dashed vertical reference line at each row's `x` (a window's end), its `label` at the plot's bottom edge (a
    loss curve's empty floor: at the top edge the highest lines crossed it)."""
    base = alt.Chart(reference).encode(x="x:Q")
    rule = base.mark_rule(strokeDash=[6, 4], color=colour, size=2)
    floor = base.encode(y=alt.YValue(alt.ExprRef("height")), text="label:N")
    labels = _haloed(floor, colour, align="left", baseline="bottom", dx=4, dy=-4)
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


def lines_marked_level(curve: Data, point: Data, level: Data, **shape: object) -> alt.LayerChart:
    """`lines_marked` with a black dashed `hline` labelled under it (a threshold the curve is read against)."""
    return lines_marked(curve, point, **shape) + hline(level, "black", below=True)


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
    front: tuple[str, ...] = (),
    **shape: object,
) -> alt.Chart | alt.LayerChart:
    """`lines` with each series in its own colour, whatever else is drawn (`colours`: (series, colour) pairs, the
    legend's entries in that order), plus an `hline` reference ("reference"), a `vline` ("window") or a `marker`
    ("marker") of `more[0]`.

    `y_ticks`: the y axis's tick values (a level the reader must find, such as a factor, gets a label).
    `reference_colour`: the "reference" lines' colour (`hline`). `front`: series drawn again on top, thick and
    dashed (a short line the others would hide).
    """
    if overlay not in ("none", "reference", "window", "marker"):
        raise ValueError(f"overlay must be 'none', 'reference', 'window' or 'marker', got {overlay!r}")
    chart = lines(curve, **shape)
    scale = alt.Scale(domain=[name for name, _ in colours], range=[colour for _, colour in colours])
    for layer in chart.layer if isinstance(chart, alt.LayerChart) else [chart]:
        layer.encoding.color.scale = scale
        if y_ticks is not None:
            layer.encoding.y.axis = alt.Axis(values=list(y_ticks), format="~g")
    if front:
        chart = chart + _front(chart if isinstance(chart, alt.Chart) else chart.layer[0], str(shape["color"]), front)
    if overlay == "reference":
        return chart + hline(more[0], reference_colour)
    if overlay == "window":
        return chart + vline(more[0], reference_colour)
    return chart + marker(more[0]) if overlay == "marker" else chart


def _front(line: alt.Chart, field: str, series: tuple[str, ...]) -> alt.Chart:
    """A copy of a line layer holding only `series`, thick and dashed, without the zoom or the title."""
    top = line.copy(deep=True)
    top.params, top.title = alt.Undefined, alt.Undefined
    top.mark = alt.MarkDef(type="line", strokeWidth=3.5, strokeDash=[7, 3])
    return top.transform_filter(alt.FieldOneOfPredicate(field=field, oneOf=list(series)))


PHONE_CHARACTERS = 36  # a phone's column holds this many characters of bar values written across (bold 13 px)


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
    y_format: str = ".0e",
) -> alt.Chart | alt.LayerChart:
    """One bar of y per x (for example one squared norm per position); bars keep the data's order.

    `text`: a column of display strings written above each bar (a log axis alone makes 1.2 and 1.4 look alike);
    a log axis is ticked in one style, `y_format` (default 1e-8, 1e+0; "~s": 1, 10, 1k). A true `outside` column
    keeps a short bar's value out of it on a phone, written upright up from its top (inside, it was cut).
    """
    y_axis = alt.Axis(format=y_format) if log_y else alt.Undefined
    y_scale = alt.Scale(type="log") if log_y else alt.Undefined
    if text is not None:  # room above the tallest bar for its value
        y_scale = alt.Scale(type="log" if log_y else "linear", padding=24)
        if not log_y and not isinstance(data, alt.NamedData) and (data[y] >= 0).all():
            y_scale.domainMin = 0  # the padding only above: bars of counts start at 0, never at -1
    base = alt.Chart(data).encode(
        x=alt.X(f"{x}:N", title=x_title, sort=None, axis=alt.Axis(labelAngle=0, labelOverlap=True, labelLimit=260)),
        y=alt.Y(f"{y}:Q", title=y_title, stack=None, scale=y_scale, axis=y_axis),
    )
    # a value at a log axis's floor (an exact 0, or rounding a caller set to 0) is its text alone, never a bar
    shown = log_y and text is not None
    floor = alt.condition(f"datum['{y}'] > {LOG_FLOOR}", alt.value(1), alt.value(0)) if shown else alt.Undefined
    bar = base.mark_bar(color=SERIES_COLORS[0]).encode(
        opacity=floor, tooltip=[alt.Tooltip(f"{x}:N"), alt.Tooltip(f"{y}:Q", format=".6g")]
    )
    if text is None:
        return bar.properties(title=title_params(title), height=height)
    words = base.encode(text=f"{text}:N")
    values = words.mark_text(baseline="bottom", dy=-4, fontWeight="bold")
    if not shown:
        return alt.layer(bar, values, title=title_params(title), height=height)
    # on a phone, bars narrower than their words (all the values together past PHONE_CHARACTERS): written upright,
    # inside a bar or up from the floor
    crowded = f"{on_phone()} && datum.bars * datum.longest > {PHONE_CHARACTERS}"
    above = f"datum['{y}'] > {LOG_FLOOR}"
    upright = dict(angle=270, baseline="middle", fontWeight="bold")
    counted = words.transform_calculate(characters=f"length(datum['{text}'])").transform_joinaggregate(
        bars="count()", longest="max(characters)"
    )
    wide = counted.mark_text(baseline="bottom", dy=-4, fontWeight="bold").transform_filter(f"!({crowded})")
    inside = counted.mark_text(align="right", dx=-6, color="white", **upright).transform_filter(
        f"{crowded} && {above} && !datum.outside"
    )
    up = counted.mark_text(align="left", dx=6, **upright).transform_filter(
        f"{crowded} && (!({above}) || datum.outside)"
    )
    return alt.layer(bar, wide, inside, up, title=title_params(title), height=height)


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
            color=alt.Color(
                f"{group}:N",
                title=None,
                scale=alt.Scale(range=list(SERIES_COLORS[:2])),
                legend=alt.Legend(orient="bottom", direction="horizontal"),
            ),
            tooltip=[f"{group}:N", f"{x}:O", alt.Tooltip(f"{y}:Q", format=".6g")],
        )
    )


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
        title="largest |difference| (log)",
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
            color=alt.Color(
                "phase:N",
                title=None,
                scale=alt.Scale(range=list(SERIES_COLORS[:2])),
                legend=alt.Legend(orient="bottom"),
            ),
            tooltip=["token:O", "phase:N", alt.Tooltip("error:Q", format=".3g")],
        )
    )
    zero = (
        alt.Chart(steps)
        .transform_filter("datum.error == 0")
        .mark_text(baseline="bottom", dy=-2, fontWeight="bold")
        .encode(x="token:O", y="shown:Q", text=alt.value("0"), color=alt.Color("phase:N", legend=None))
    )  # an exact 0 has no bar on a log axis: it is written on the floor instead
    return alt.layer(shade, bar, zero, label, title=title_params(title), height=320)
