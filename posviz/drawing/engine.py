"""Compile once, bind per rerun: the Vega-Lite specs the app sends, built once per builder and shape.

A builder (`posviz.drawing.heatmaps`, `posviz.drawing.lines_bars`, ...) takes its data first (a DataFrame, or
`alt.NamedData` when compiled) and keyword "shape" arguments, and returns an Altair chart, so a notebook shows the
same figure the app draws:

    >>> import numpy as np
    >>> from posviz.drawing import frames, heatmaps
    >>> frame = frames.matrix_frame(np.eye(2), ["a", "b"], ["a", "b"])
    >>> type(heatmaps.token_heatmap(frame, title="weights")).__name__
    'LayerChart'

The app never pays Altair's construction on a rerun: `compile` builds each (builder, shape) once per
process into a Vega-Lite dict whose data are bound by name ("posviz_0", "posviz_1", ...), and `bind`
puts the rerun's frames under those names. Numbers that vary with the data (colour domains, titles)
are read from a one-row dataset ("posviz_live") by Vega expressions, so a slider move that only
changes numbers leaves the spec text identical and the browser swaps the data into the live chart.
No maths here, no streamlit.
"""

from __future__ import annotations

import dataclasses
import functools
import json
import math
from collections.abc import Callable, Sequence

import altair as alt
import pandas as pd

LIVE = "posviz_live"  # the one-row dataset holding a compiled chart's live values
Data = pd.DataFrame | alt.NamedData


@dataclasses.dataclass(frozen=True)
class Live:
    """Stands for a value read at draw time from the LIVE dataset's column `field`."""

    field: str

    @property
    def expr(self) -> str:
        return f"data('{LIVE}')[0]['{self.field}']"


Text = str | Live
Bounds = tuple[float, float] | tuple[Live, Live]


def live_expr(value: float | Live) -> str:
    """A number as Vega expression text, or the expression that reads a `Live` value."""
    return value.expr if isinstance(value, Live) else repr(float(value))


def live_text(value: Text) -> str | alt.ExprRef:
    """A text, or the expression that reads a `Live` one (a title's or a note's text)."""
    return alt.ExprRef(value.expr) if isinstance(value, Live) else value


PHONE = 640  # px: a window this wide or narrower is a phone's (the app's CSS media queries say the same)
TITLE_LINE = 36  # characters a title line holds on a phone: 15 px type in a 358 px column


def on_phone(phone: bool = True) -> str:
    """A Vega expression, true on a phone's window (PHONE px wide or less; or, `phone` False, on any other): a chart
    drawn with no window (vl-convert's SVG downloads and exports) is drawn as on a wider screen.

    Vega re-evaluates an expression when a signal it reads changes, and windowSize() is no signal: the expression
    also reads `width` (the view's width signal, which a chart as wide as its container updates on the window's
    resize event), so a phone turned sideways, or a window narrowed, redraws titles and labels for its new width.
    """
    narrow = f"(width >= 0 && windowSize()[0] > 0 && windowSize()[0] <= {PHONE})"
    return narrow if phone else f"!{narrow}"


def wrapped_title(text: Text) -> alt.ExprRef:
    """A title's text as a Vega expression: on a phone's window (`on_phone`) split at spaces into lines of at most
    TITLE_LINE characters (a list of lines), so Vega wraps it instead of cutting it with "…"; elsewhere as it is.
    One compiled spec serves both (windowSize() is read in the browser).

        >>> wrapped_title("a b").expr.startswith(on_phone())
        True
    """
    t = text.expr if isinstance(text, Live) else json.dumps(text, ensure_ascii=False)
    lines = f"replace({t}, regexp('(.{{1,{TITLE_LINE}}})(\\\\s+|$)', 'g'), '$1\\n')"
    return alt.ExprRef(f"{on_phone()} ? split(trim({lines}), '\\n') : {t}")


def title_params(title: Text, subtitle: str | None = None) -> alt.TitleParams:
    """A title whose text may be live, wrapped on a phone (`wrapped_title`); a subtitle (Vega-Lite takes no expression
    there) is part of the shape."""
    if subtitle is None:
        return alt.TitleParams(text=wrapped_title(title))
    return alt.TitleParams(text=wrapped_title(title), subtitle=subtitle)


AXIS_TEXT = "#5c5f6e"  # axis labels and titles: 6.3:1 on white, a step lighter than titles and values (TEXT_COLOUR)
# px: tick and legend labels, axis titles, chart titles; values in cells and bar labels are a label + 1.
SIZES = {False: (12, 13, 15), True: (16, 18, 22), "hall": (20, 20, 24)}  # a desk, a shared screen, the lecture


def style(chart: alt.TopLevelMixin, *, presenter: bool | str = False) -> alt.TopLevelMixin:
    """Font sizes for a laptop (`presenter` False: 12-15 px), a page on a shared screen (True: 16-22 px) or the
    lecture in a hall ("hall": 20-24 px, so that no chart text is under 20 px); width fits the column.

    The same settings as chained `configure_axis(...)...configure_view(...)`, set as one `alt.Config`:
    each chained call deep-copies the chart, which made a template's first build several times slower.
    """
    label, title, heading = SIZES[presenter]
    if isinstance(chart, alt.FacetChart):  # its panels have their widths (a facet cannot fill a container)
        styled = chart.properties(autosize=alt.AutoSizeParams(type="pad"))
    elif chart.width is alt.Undefined:  # a builder that fixes its width (a square plot) keeps it
        styled = chart.properties(width="container", autosize=alt.AutoSizeParams(type="fit-x", contains="padding"))
    else:
        styled = chart.properties(autosize=alt.AutoSizeParams(type="pad"))
    styled.config = alt.Config(
        # darker than the theme's grey (3.7:1 on white): a log axis's ticks carry a step's reading (6.3:1 here)
        axis=alt.AxisConfig(labelFontSize=label, titleFontSize=title, labelColor=AXIS_TEXT, titleColor=AXIS_TEXT),
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
    A domain is a `domain` argument or the `domain` field of a frozen dataclass argument (a style).
    """
    static, values = dict(shape), {}
    for key in ("title", "note"):
        if static.get(key) is not None and not isinstance(static[key], Live):
            values[key] = str(static[key])
            static[key] = Live(key)
    if "domain" in static:
        static["domain"] = _live_domain(static["domain"], values)
    for key, value in static.items():
        if dataclasses.is_dataclass(value) and hasattr(value, "domain"):
            static[key] = dataclasses.replace(value, domain=_live_domain(value.domain, values))
    return static, values


def _live_domain(domain: Bounds, values: dict[str, object]) -> Bounds:
    """A domain's placeholders (Live lo and hi), its ends and middle put in `values`; one already live as it is."""
    if isinstance(domain[0], Live):
        return domain
    lo, hi = (float(b) for b in domain)
    values.update(lo=lo, mid=(lo + hi) / 2, hi=hi)
    return (Live("lo"), Live("hi"))


def _holds_live(value: object) -> bool:
    """Whether a shape value is, or holds (in a tuple or a dataclass's fields), a `Live` placeholder."""
    if isinstance(value, Live):
        return True
    if dataclasses.is_dataclass(value):
        value = tuple(getattr(value, f.name) for f in dataclasses.fields(value))
    return isinstance(value, tuple) and any(_holds_live(v) for v in value)


@functools.lru_cache(maxsize=512)
def _compiled(builder: Callable[..., alt.TopLevelMixin], count: int, presenter: bool | str, shape: tuple) -> dict:
    names = [alt.NamedData(f"posviz_{i}") for i in range(count)]
    chart = builder(*names, **dict(shape))
    if any(_holds_live(value) for _, value in shape):
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


def compile(builder: Callable[..., alt.TopLevelMixin], count: int, *, presenter: bool | str = False, **shape) -> dict:
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
    builder: Callable[..., alt.TopLevelMixin], *frames: pd.DataFrame, presenter: bool | str = False, **shape: object
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
