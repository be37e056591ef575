"""Streamlit helpers shared by the pages: URL state, presenter mode, badges, chart display.

The core (posviz/) never imports this module; pages import it and posviz.
"""

from __future__ import annotations

import base64
import contextlib
import gc
import hashlib
import html
import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, fields, replace
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd
import streamlit as st

from posviz.drawing import charts, figures, images
from posviz.drawing.display import number
from posviz.maths import grids

if TYPE_CHECKING:  # an internal module path: only type checkers read it
    from streamlit.runtime.state import SessionStateProxy

MAX_TEXT = 300
MAX_WORDS = 64

_frozen = False


def freeze_startup_heap() -> None:
    """Take the objects alive now (numpy, pandas, Streamlit's modules) out of the garbage collector's sight.

    Streamlit runs a full collection after every script run; its cost grows with every live object,
    and most of those are modules imported once: about 0.1 s per run, holding the GIL, measured as
    half of the server's time under load. Garbage that later script runs make is still collected.
    The router calls this on its first run; later calls do nothing.
    """
    global _frozen
    if not _frozen:
        gc.collect()
        gc.freeze()
        _frozen = True


def legacy_pages_flag() -> tuple[type, str]:
    """Where Streamlit records that an app runs as a legacy pages/ app (a private attribute: tested on upgrade)."""
    from streamlit.runtime.pages_manager import PagesManager

    return PagesManager, "uses_pages_directory"


def end_legacy_pages_mode() -> None:
    """Hand a deep link opened before the router ever ran back to the router.

    Streamlit treats an app with a pages/ folder as a legacy multipage app until its main script
    calls st.navigation. So the first visitor of a freshly started server who opens /order directly
    gets pages/order.py without the router (no presenter switch, no wide layout, file-name
    navigation). Here we end that legacy mode and rerun, and the router serves the same URL. If a
    Streamlit upgrade removes the flag, this does nothing (tests/test_app.py fails loudly instead).
    """
    owner, flag = legacy_pages_flag()
    if getattr(owner, flag, False):
        setattr(owner, flag, False)
        st.rerun()


def page_setup(doc: str | None = None, formula: str | None = None) -> None:
    """Call first on every page: ends legacy pages mode, and tightens the top margin in presenter mode.

    `doc`, the page's docstring (`ui.page_setup(__doc__)`), is its opening text: the first line is the title,
    each paragraph after it an `intro` (hidden in presenter mode), its lines joined by spaces. `formula`
    (LaTeX, also hidden in presenter mode) stands after the first paragraph.
    """
    end_legacy_pages_mode()
    if presenter():
        st.html(
            "<style>[data-testid='stMainBlockContainer'] {padding-top: 2rem}"
            " [data-testid='stImageCaption'] * {font-size: 1rem}</style>"  # a picture's caption reaches 16 px
        )
    if doc:
        title, *paragraphs = doc.strip().split("\n\n")
        st.title(title)
        for i, paragraph in enumerate(paragraphs):
            intro(" ".join(paragraph.split("\n")))
            if i == 0 and formula and not presenter():
                st.latex(formula)


@dataclass(frozen=True)
class Param:
    """A view-defining control, declared once: its URL key, type, bounds and step, and how its widget looks.

    kind: "int" and "float" within [lo, hi], "choice" among `options`, "bool", "text" (at most
    `max_len` characters). A URL value that does not parse is reported and replaced by `default`.
    widget: how `control` draws it; "" picks by kind (slider, selectbox, toggle, text box).
    `names` gives options' display names (format_func).
    """

    key: str
    default: object
    kind: str
    lo: float | None = None
    hi: float | None = None
    options: Sequence[object] = field(default_factory=tuple)
    max_len: int = MAX_TEXT
    step: float = 1
    label: str = ""
    help: str | None = None
    widget: str = ""
    names: Mapping[object, str] | None = None
    number_format: str | None = None  # printf-style, for a number box ("%.0f")
    nudge: float | None = None  # a number box's +/- step where it is not a constraint (an int's `step` is)
    aliases: tuple[str, ...] = ()  # older URL keys for the same control: read when `key` is absent, then replaced

    def parse(self, raw: str) -> object:
        """The value a URL string stands for, or ValueError saying what was expected."""
        if self.kind == "bool":
            if raw.lower() in ("true", "1", "yes", "on"):
                return True
            if raw.lower() in ("false", "0", "no", "off"):
                return False
            raise ValueError("expected true or false")
        if self.kind == "text":
            if len(raw) > self.max_len:
                raise ValueError(f"expected at most {self.max_len} characters, got {len(raw)}")
            return raw
        if self.kind == "choice":
            for option in self.options:
                if str(option) == raw or (isinstance(option, float) and _same_number(raw, option)):
                    return option
            shown = ", ".join(map(str, self.options[:12])) + (", …" if len(self.options) > 12 else "")
            raise ValueError(f"expected one of {shown}")
        return self._number(raw)

    def _number(self, raw: str) -> int | float:
        want = "a whole number" if self.kind == "int" else "a number"
        expected = f"expected {want} from {self.lo:g} to {self.hi:g}"
        try:
            value = int(raw) if self.kind == "int" else float(raw)
        except (ValueError, OverflowError):
            raise ValueError(expected) from None
        if not math.isfinite(value) or not self.lo <= value <= self.hi:
            raise ValueError(expected)
        if self.kind == "int" and (value - self.lo) % self.step:
            raise ValueError(f"{expected} in steps of {self.step}")
        return value

    def format(self, value: object) -> str:
        if self.kind == "bool":
            return "true" if value else "false"
        return str(value)


def params(*declared: Param) -> dict[str, Param]:
    """A page's controls by key, in the order they are declared (and drawn)."""
    return {p.key: p for p in declared}


# The controls several pages share, declared once; a page passes what differs (its default, bounds, label).
def seed_param(default: int, **declared: object) -> Param:
    """The random seed, typed in a number box (0 to 99,999)."""
    return Param("seed", default, "int", 0, 99_999, **{"widget": "number", **declared})


def tokens_param(default: int, hi: int, **declared: object) -> Param:
    """T, the number of tokens, from 2 to `hi`."""
    return Param("T", default, "int", 2, hi, **{"label": "tokens T", **declared})


def width_param(default: int, lo: int, hi: int, *, even: bool = True, **declared: object) -> Param:
    """d, the width, from `lo` to `hi`; in steps of 2 when `even` (sinusoids and rotary need pairs)."""
    label = "width d (even)" if even else "width d"
    return Param("d", default, "int", lo, hi, step=2 if even else 1, **{"label": label, **declared})


def weight_scale_param() -> Param:
    """The scale of the random attention weights, 0 to 3."""
    return Param("wscale", 0.5, "float", 0.0, 3.0, step=0.05, label="weight scale")


def part_param(parts: Mapping[str, str]) -> Param:
    """The switch of a page in parts: `parts` maps each part's URL value to its name, the first drawn on arrival."""
    count = {2: "two", 3: "three"}.get(len(parts), str(len(parts)))
    return Param("part", next(iter(parts)), "choice", options=tuple(parts), names=dict(parts),
                 label=f"this page has {count} parts", widget="segmented")  # fmt: skip


def sentence_params(limit: str = f"{MAX_WORDS} words") -> tuple[Param, Param]:
    """The two sentences compared ("dog bites man", "man bites dog"), each up to `limit`."""
    return tuple(
        Param(f"s{i}", default, "text", label=f"sentence {i} (up to {limit})")
        for i, default in ((1, "dog bites man"), (2, "man bites dog"))
    )


WIDGETS = {
    "slider": lambda p, label, **kw: st.slider(label, p.lo, p.hi, step=p.step, **kw),
    "number": lambda p, label, **kw: st.number_input(
        label, p.lo, p.hi, step=p.nudge or p.step, format=p.number_format, **kw
    ),
    "selectbox": lambda p, label, **kw: st.selectbox(label, p.options, **kw),
    "radio": lambda p, label, **kw: st.radio(label, p.options, **kw),
    "horizontal": lambda p, label, **kw: st.radio(label, p.options, horizontal=True, **kw),
    "select_slider": lambda p, label, **kw: st.select_slider(label, p.options, **kw),
    "segmented": lambda p, label, **kw: st.segmented_control(label, p.options, **kw),
    "toggle": lambda p, label, **kw: st.toggle(label, **kw),
    "text": lambda p, label, **kw: st.text_input(label, max_chars=p.max_len, **kw),
}
_PARAM_FIELDS = frozenset(f.name for f in fields(Param))
DEFAULT_WIDGET = {"int": "slider", "float": "slider", "choice": "selectbox", "bool": "toggle", "text": "text"}


def control(p: Param, **override: object) -> object:
    """Draw `p`'s widget, bound to its key, from its declaration.

    `override` changes a declared field for this draw only (a bound that depends on another control:
    `control(P["prefill"], hi=s.T)`); other keywords go to the widget (`disabled=True`).
    """
    p = replace(p, **{k: v for k, v in override.items() if k in _PARAM_FIELDS})
    widget_options = {k: v for k, v in override.items() if k not in _PARAM_FIELDS}
    kind = p.widget or DEFAULT_WIDGET[p.kind]
    extra = {"format_func": lambda v: p.names.get(v, str(v))} if p.names else {}
    if kind in ("select_slider", "segmented") and not p.names and p.kind == "choice":
        extra = {"format_func": lambda v: f"{v:g}" if isinstance(v, float) else str(v)}
    if kind in ("slider", "number") and p.kind == "int":
        p = replace(p, lo=int(p.lo), hi=int(p.hi), step=int(p.step), nudge=p.nudge and int(p.nudge))
    return WIDGETS[kind](p, p.label or p.key, key=p.key, help=p.help, **extra, **widget_options)


def part(p: Param) -> str:
    """A page's part switch (a segmented choice at the top, `required`: one part is always picked).

    In presenter mode its label is left out (the buttons say enough), so the part keeps the screen's height.
    """
    return control(p, label_visibility="collapsed" if presenter() else "visible", required=True)


def controls(declared: Iterable[Param]) -> None:
    """Draw every control in `declared`, in order."""
    for p in declared:
        control(p)


def _each(params: Mapping[str, Param] | Iterable[Param]) -> list[Param]:
    return list(params.values()) if isinstance(params, Mapping) else list(params)


def _same_number(raw: str, option: float) -> bool:
    try:
        return math.isclose(float(raw), option, rel_tol=1e-9, abs_tol=1e-15)
    except (ValueError, OverflowError):
        return False


def _short(raw: str, limit: int = 40) -> str:
    return raw if len(raw) <= limit else raw[:limit] + "…"


_PAGE_KEY = "_posviz_page"  # the page whose controls the session state holds


def url_state(params: Iterable[Param], *, page: str) -> SessionStateProxy:
    """Seed each control's session value from the URL (first run of the page), reporting bad values.

    Call before the widgets (draw them with `control`); `page` names the calling page.
    Returns the session state, where the page reads its controls' values (`s.seed`).

    Pages share some keys (seed, T, ...). Streamlit keeps a widget's value across a move to another
    page when that page has a widget with the same key, but the new widget is a different one and
    would start at its minimum. So on arriving at a page (its first run, or a move from another page
    in the sidebar) every control is seeded again from the URL, or its default.
    """
    params = _each(params)
    arrived = st.session_state.get(_PAGE_KEY) != page
    st.session_state[_PAGE_KEY] = page
    problems = []
    for p in params:
        if p.key in st.session_state and not arrived:
            continue
        value = p.default
        key = next((k for k in (p.key, *p.aliases) if k in st.query_params), p.key)
        raw = st.query_params.get(key)
        if raw is not None:
            try:
                value = p.parse(raw)
            except ValueError as error:
                problems.append(f"{key}={_short(raw)!r}: {error}; using {p.format(p.default)}")
        st.session_state[p.key] = value
    if problems:
        note("Some link settings were not understood and fell back to defaults:\n" + "\n".join(problems))
    return st.session_state


def sidebar(
    params: Mapping[str, Param], *, page: str, keys: Iterable[str] | Mapping[str, Iterable[str]] | None = None
) -> SessionStateProxy:
    """A page's usual start: `url_state`, the controls named by `keys` (default: all) in the sidebar, `sync_url`.

    A page in parts (a `part` control) draws its part switch first, and `keys` maps each part to its controls.
    Returns the session state, as `url_state` does (`state.part` is the part drawn).
    """
    state = url_state(params, page=page)
    if "part" in params:
        keys = keys[part(params["part"])]
    with st.sidebar:
        controls(params[k] for k in (params if keys is None else keys))
    sync_url(params)
    return state


def sync_url(params: Iterable[Param]) -> None:
    """Write every non-default control value into the URL so the view can be shared (old alias keys go)."""
    params = _each(params)
    for p in params:
        for alias in p.aliases:
            if alias in st.query_params:
                del st.query_params[alias]
        value = st.session_state.get(p.key, p.default)
        if value == p.default or value is None:  # None: a segmented control with nothing picked
            if p.key in st.query_params:
                del st.query_params[p.key]
        else:
            st.query_params[p.key] = p.format(value)


_MARKDOWN_SPECIALS = set("\\`*_{}[]()#+-.!|<>~$:&")


def escape(text: str) -> str:
    """`text` with every Markdown/HTML special character backslash-escaped, so it shows literally."""
    return "".join("\\" + c if c in _MARKDOWN_SPECIALS else c for c in text)


def html_text(text: str) -> str:
    """`text` for an HTML snippet: HTML-escaped, and Markdown punctuation as character references."""
    return "".join(f"&#{ord(c)};" if c in "[]()!*_`\\" else c for c in html.escape(text))


def note(message: str) -> None:
    """A short visible warning. The message is escaped: text from a URL or a text box stays plain."""
    st.warning("  \n".join(escape(line) for line in message.split("\n")), icon="⚠️")


def presenter() -> bool:
    """True when presenter mode is on (router toggle, or ?presenter=true when a page runs alone)."""
    if "presenter" in st.session_state:
        return bool(st.session_state["presenter"])
    return st.query_params.get("presenter", "").lower() in ("true", "1")


def legend_side() -> str:
    """Where a heatmap's colour legend goes: under it, or at its right in presenter mode (height is scarcer)."""
    return "right" if presenter() else "bottom"


def fit(normal: int | None, presenting: int) -> int | None:
    """A chart height for this mode: `presenting` pixels in presenter mode, so the chart fits a 720 px screen."""
    return presenting if presenter() else normal


def intro(text: str) -> None:
    """Explanatory prose, hidden in presenter mode to leave room for charts."""
    if not presenter():
        st.markdown(text)


def lecture_style() -> None:
    """The lecture's screen: a tighter top margin, and the arrow-key buttons kept out of sight."""
    st.html(
        "<style>.st-key-lecture-arrows {display: none}"
        " [data-testid='stMainBlockContainer'] {padding-top: 0.75rem; padding-bottom: 0.5rem}"
        # the header band stays (its sidebar and menu buttons sit at the edges) but lets the step use the screen
        " [data-testid='stHeader'] {background: transparent; pointer-events: none}"
        " [data-testid='stHeader'] button, [data-testid='stHeader'] a {pointer-events: auto}"
        " .st-key-lecture-nav {gap: 0.5rem; position: relative; z-index: 999991}</style>"
    )


def claim(text: str) -> None:
    """A step's claim: one sentence in large type, with no heading margin to spare the screen."""
    size = "1.85rem" if presenter() else "1.5rem"
    st.markdown(
        f"<div style='font-size:{size};font-weight:600;line-height:1.25;margin:0 0 0.5rem'>{html_text(text)}</div>",
        unsafe_allow_html=True,
    )


def badge(ok: bool, yes: str, no: str, *, state: bool = False, problem: bool = False) -> None:
    """The verdict in words. Green with a check when `ok`: the outcome the experiment sets out to show, or a
    check that passes; orange (`no`) only for a problem. `state=True`: a state the controls set, good either
    way (np.allclose at a chosen scale, a difference the page describes), in blue."""
    if problem:  # the outcome shown is itself a mistake to recognise (a test's bug), whatever `ok` says
        st.badge(yes if ok else no, color="orange", icon=":material/warning:")
    elif state:
        st.badge(yes if ok else no, color="blue", icon=":material/info:")
    else:
        st.badge(yes if ok else no, color="green" if ok else "orange", icon=":material/check:" if ok else None)


def html_table(frame: pd.DataFrame, *, height: int | None = None) -> None:
    """A small read-only table as HTML: a header that stays in view, numbers aligned right, scrolling past `height`
    pixels. Streamlit's interactive dataframe (sorting, search) took a page ~0.13 s of first paint in an A/B for a
    few dozen rows that nobody sorts; a table's values are written as given (format them first)."""
    # a column of numbers, or of numbers already written as text (display.number), is aligned right
    numeric = [pd.to_numeric(frame[c], errors="coerce").notna().all() for c in frame.columns]
    size = "1rem" if presenter() else "0.9rem"
    cell = f"padding:0.15rem 0.5rem;font-size:{size};white-space:nowrap"
    head = "".join(
        f"<th style='{cell};white-space:normal;position:sticky;top:0;background:white;"
        f"text-align:{'right' if n else 'left'}'>"
        f"{html_text(str(c))}</th>"
        for c, n in zip(frame.columns, numeric, strict=True)
    )
    body = "".join(
        "<tr>"
        + "".join(
            f"<td style='{cell};text-align:{'right' if n else 'left'}'>{html_text(str(v))}</td>"
            for v, n in zip(row, numeric, strict=True)
        )
        + "</tr>"
        for row in frame.itertuples(index=False)
    )
    box = f"max-height:{height}px;overflow-y:auto;" if height else ""
    st.markdown(
        f"<div style='{box}font-variant-numeric:tabular-nums'>"
        f"<table style='border-collapse:collapse;width:100%;margin:0'><thead><tr>{head}</tr></thead>"
        f"<tbody>{body}</tbody></table></div>",
        unsafe_allow_html=True,
    )


def headline(label: str, value: str, help_text: str | None = None) -> None:
    """The page's key number, large enough for the back row."""
    size, label_size = ("3.4rem", "1.25rem") if presenter() else ("2.4rem", "0.95rem")
    st.markdown(
        f"<div style='font-size:{label_size};opacity:0.75' title='{html_text(help_text or '')}'>"
        f"{html_text(label)}</div>"
        f"<div class='posviz-number' style='font-size:{size};font-weight:700;line-height:1.15;"
        "font-variant-numeric:tabular-nums'>"
        f"{html_text(value)}</div>",
        unsafe_allow_html=True,
    )


def show_chart(
    builder: Callable,
    *frames: pd.DataFrame,
    name: str,
    downloads: bool = True,
    table: pd.DataFrame | None = None,
    **shape: object,
) -> None:
    """Draw `builder`'s chart of `frames`, styled for the current mode, with `table` (default: the first frame)
    as CSV and the chart as SVG. The spec is compiled once per shape (`charts.chart_spec`); a rerun binds only
    its data."""
    table = frames[0] if table is None else table
    spec = charts.chart_spec(builder, *frames, presenter=presenter(), **shape)
    # a square plot and a row of panels keep their size; "stretch" would squash a square's height
    fixed = isinstance(spec.get("width"), int) or "facet" in spec
    st.vega_lite_chart(spec, width="content" if fixed else "stretch")
    if downloads and not presenter():
        with st.popover("Download", icon=":material/download:"):
            st.download_button(
                "data (CSV)",
                data=lambda: table.to_csv(index=False),  # written on click: eagerly it was most of a rerun
                file_name=f"{name}.csv",
                mime="text/csv",
                key=f"csv-{name}",
                on_click="ignore",
            )
            st.download_button(
                "chart (SVG)",
                data=lambda: charts.to_svg(spec),
                file_name=f"{name}.svg",
                mime="image/svg+xml",
                key=f"svg-{name}",
                on_click="ignore",
            )


def figure(
    fig: figures.Figure,
    *,
    prefix: str = "",
    downloads: bool = True,
    image_height: int | None = None,
    fill_images: bool = False,
    **shape: object,
) -> None:
    """Draw a core `Figure`: `show_chart` named `prefix` + its name, or `show_image` (at most `image_height` px tall;
    with `fill_images`, as wide as the column and `image_height` tall) for a picture. `shape` adds what depends on the
    mode (a height from `fit`)."""
    if fig.image is not None:
        show_image(fig.image, height=image_height, fill=fill_images, **fig.shape, **shape)
    elif fig.cells is not None:  # a heatmap: a mark a cell, or one picture past PICTURE_CELLS
        merged = {k: v for k, v in {**fig.shape, **shape}.items() if k != "subtitle"}
        reduced_heatmap(fig.cells, name=prefix + fig.name, legend=merged.pop("legend", None), **merged)
    else:
        show_chart(
            fig.builder,
            *fig.frames,
            name=prefix + fig.name,
            downloads=downloads,
            table=fig.table,
            **{**fig.shape, **shape},
        )


def guarded(
    action: Callable[[], object], fallback: Callable[[], object], what: str, instead: str = "showing the defaults"
) -> object:
    """Run `action`; on the core's ValueError/TypeError show its message and run `fallback` instead."""
    try:
        return action()
    except (ValueError, TypeError) as error:
        note(f"{what}: {error}. {instead[:1].upper()}{instead[1:]} instead.")
        return fallback()


def _pictured(shape: tuple[int, int], width: float, height: int) -> bool:
    """Whether `matrix_chart` draws a matrix of `shape` in `width` x `height` px as a picture (past a few pixels a
    cell), not as labelled cells or a mark a cell."""
    return (
        not charts.labels_cells(shape) and grids.draw_plan(*shape, max(1.0, width - AXIS_WIDTH), height).kind != "cells"
    )


# A heatmap of more cells is one image mark on the same axes: Streamlit draws a chart, then resizes and redraws it,
# and each rect is encoded on both passes (hover values then come from the CSV).
PICTURE_CELLS = 1024
# The main column's width at 1280 x 720 in the wide layout, measured in Chromium: 820 px beside the open
# sidebar, 1120 px in presenter mode (sidebar closed); columns are 16 px apart; a heatmap's y axis takes ~60 px.
PAGE_WIDTH, PRESENTER_WIDTH, COLUMN_GAP, AXIS_WIDTH = 820, 1120, 16, 60


def enclosing_columns() -> list[int]:
    """How many columns each `st.columns` row around the current element has, innermost first.

    Streamlit does not say how wide a container is. This reads private attributes of its
    DeltaGenerator (a column's parent row has opened one block per column); tests/test_app.py
    checks it on every Streamlit upgrade. Columns of unequal weights count as equal.
    """
    from streamlit.delta_generator_singletons import get_last_dg_added_to_context_stack

    counts, dg = [], get_last_dg_added_to_context_stack()
    while dg is not None:
        parent = dg._parent
        if dg._block_type == "column" and parent is not None:
            counts.append(max(1, parent._cursor.index))
        dg = parent
    return counts


def container_width() -> float:
    """Pixels across the current container on a 1280 x 720 screen: the main column shared by the columns around it."""
    width = PRESENTER_WIDTH if presenter() else PAGE_WIDTH
    try:
        counts = enclosing_columns()
    except (AttributeError, ImportError):  # a Streamlit upgrade moved them: assume the whole width
        counts = []
    for n in counts:
        width = _column_width(width, n)
    return width


def _column_width(width: float, n: int) -> float:
    """Pixels across each of `n` columns sharing `width` (st.columns puts COLUMN_GAP between them)."""
    return (width - COLUMN_GAP * (n - 1)) / n


def matrix_chart(
    m,
    *,
    title: str,
    row_title: str,
    col_title: str,
    name: str,
    domain: tuple[float, float] | None = None,
    row_labels: Sequence[str] | None = None,
    col_labels: Sequence[str] | None = None,
    scheme: str = charts.SIGNED_SCHEME,
    value_title: str = "value",
    height: int = 300,
    annotate_cols: int = 6,
    row_offset: int = 0,
    col_offset: int = 0,
    note: str | None = None,
    legend: bool = True,
    hover: bool = False,
) -> None:
    """Show a matrix within the pixels it gets: labelled cells when small (each printing its value, and then no
    colour legend, when at most 100 cells), every value as a mark while each cell is a few pixels
    (`grids.draw_plan`), else a PNG of at most one value (or block mean) per pixel.

    `note`: a line written across the middle ("all zeros"; "" writes nothing but keeps the chart's shape).
    `domain`: the colour scale's ends; by default symmetric about 0 (`charts.signed_domain`).
    `hover`: keep a mark a cell, each with its value on hover, for a view that exists to show exact values.
    """
    m = np.asarray(m, dtype=np.float64)
    domain = charts.signed_domain(m) if domain is None else domain
    rows, cols = m.shape
    common = dict(title=title, row_title=row_title, col_title=col_title, scheme=scheme, domain=domain,
                  value_title=value_title, height=height, legend=legend_side() if legend else "none")  # fmt: skip
    if note is not None:
        common["note"] = note
    if charts.labels_cells(m.shape):
        frame = charts.matrix_frame(
            m,
            row_labels if row_labels is not None else [str(row_offset + i) for i in range(rows)],
            col_labels if col_labels is not None else [str(col_offset + j) for j in range(cols)],
        )
        annotate = charts.prints_values(m.shape, annotate_cols)
        if annotate:  # each cell prints its value: a colour legend would repeat it
            common["legend"] = "none"
        show_chart(charts.token_heatmap, frame, name=name, annotate=annotate, angled=cols > 8, **common)
        return
    if not _pictured(m.shape, container_width(), height):
        reduced_heatmap(grids.reduced(m, 1, 1).shifted(row_offset, col_offset), name=name, hover=hover, **common)
        return
    picture = grids.reduced(m, 1, 1)  # show_image averages it down to its pixels (no axes beside a picture)
    start = f" from ({row_offset}, {col_offset})" if row_offset or col_offset else ""
    show_image(picture, title=title, scheme=scheme, domain=domain, value_title=value_title,
               what=f"{col_title or 'column'} →, {row_title or 'row'} ↓{start}", height=height, fill=True)  # fmt: skip
    if note:
        st.markdown(f"**{escape(note.replace(chr(10), ' '))}**")  # a picture has no layer to write it on
    if not presenter():
        _matrix_csv(m, name, row_offset, col_offset)


@dataclass(frozen=True)
class Panel:
    """One matrix in a row of panels (`matrix_panels`): its title, CSV name, optional note and labels."""

    title: str
    matrix: np.ndarray
    name: str
    note: str | None = None  # written across its middle ("all zeros"), as matrix_chart's note
    rows: Sequence[str] | None = None  # row labels (default: 0, 1, ...)
    cols: Sequence[str] | None = None  # column labels (default: 0, 1, ...)


PANEL_GAP = charts.PANEL_SPACING  # pixels between panels of one faceted chart
LEGEND_WIDTH = 90  # a colour legend at the right: its bar, labels and padding


def _checked(panels: Sequence[Panel]) -> list[np.ndarray]:
    """The panels' matrices as float arrays, or a ValueError: none given, one not 2-D or empty, two titles alike (a
    facet groups cells by title) or two names alike (each names a CSV download)."""
    if not panels:
        raise ValueError("expected at least one panel, got none")
    matrices = [np.asarray(p.matrix, dtype=np.float64) for p in panels]
    for p, m in zip(panels, matrices, strict=True):
        if m.ndim != 2 or 0 in m.shape:
            raise ValueError(f"panel {p.title!r}: expected a non-empty 2-D matrix, got shape {m.shape}")
    for field_name in ("title", "name"):
        values = [getattr(p, field_name) for p in panels]
        if len(set(values)) != len(values):
            raise ValueError(f"panel {field_name}s must differ, got {values}")
    return matrices


def _charts_in_columns(panels: Sequence[Panel], matrices: Sequence[np.ndarray], columns: int, **common: object) -> None:
    """A `matrix_chart` a panel, `columns` a row."""
    for start in range(0, len(panels), columns):
        row = zip(st.columns(columns), panels[start : start + columns], matrices[start:], strict=False)
        for column, p, m in row:
            with column:
                matrix_chart(m, title=p.title, name=p.name, row_labels=p.rows, col_labels=p.cols, note=p.note, **common)


def matrix_panels(
    panels: Sequence[Panel],
    *,
    name: str,
    row_title: str,
    col_title: str,
    domain: tuple[float, float],
    scheme: str = charts.SIGNED_SCHEME,
    value_title: str = "value",
    height: int = 300,
    columns: int | None = None,
    shared: bool = True,
    annotate_cols: int = 6,
    legend_each: bool = True,
) -> None:
    """Matrices on one colour scale, `columns` a row (default: all in one row).

    Small ones (`charts.labels_cells`) are one faceted chart, `charts.heatmap_panels`: one legend, row and column
    labels once when `shared`, one CSV of every panel (`name`), and a browser draws it faster than a chart a panel.
    Larger ones are a `matrix_chart` each, in columns, as their pixels allow (with a colour legend each if
    `legend_each`).
    """
    matrices = _checked(panels)
    columns = columns or len(panels)
    if not all(charts.labels_cells(m.shape) for m in matrices):
        _charts_in_columns(panels, matrices, columns, row_title=row_title, col_title=col_title, domain=domain,
                           scheme=scheme, value_title=value_title, height=height, annotate_cols=annotate_cols,
                           legend=legend_each)  # fmt: skip
        return
    shapes = [(p, m.shape) for p, m in zip(panels, matrices, strict=True)]
    rows = [[str(r) for r in (range(shape[0]) if p.rows is None else p.rows)] for p, shape in shapes]
    cols = [[str(c) for c in (range(shape[1]) if p.cols is None else p.cols)] for p, shape in shapes]
    cells = pd.concat(
        [
            charts.matrix_frame(m, r, c, panel=p.title, note=p.note or "").assign(panel_index=i)
            for i, (p, m, r, c) in enumerate(zip(panels, matrices, rows, cols, strict=True))
        ],
        ignore_index=True,
    )
    # Pixels on a 1280 x 720 screen: a label character is about 7 px (9 in presenter mode), Vega cuts a label at
    # 120 px, an axis title and padding take ~48 px; a cell prints its value while it has room for "0.00".
    char = 9 if presenter() else 7
    axis = min(120, char * max(len(label) for r in rows for label in r)) + 48
    axes = axis if shared else axis * columns  # row labels once, or beside every panel
    widest = max(m.shape[1] for m in matrices)

    def panel_width(beside: int) -> int:
        return max(40, int((container_width() - axes - beside - PANEL_GAP * (columns - 1)) / columns))

    room = panel_width(0) / max(1, widest)
    annotate = all(charts.prints_values(m.shape, annotate_cols) for m in matrices) and room >= 5 * char
    legend = "none" if annotate else legend_side()  # each cell printing its value says what a legend would
    width = panel_width(LEGEND_WIDTH if legend == "right" else 0)
    angled = char * max(len(label) for c in cols for label in c) > width / max(1, widest) - 4  # else Vega drops some
    show_chart(charts.heatmap_panels, cells, name=name, row_title=row_title, col_title=col_title, width=width,
               height=height, columns=columns, shared=shared, scheme=scheme, domain=domain, value_title=value_title,
               annotate=annotate, angled=angled, legend=legend, notes=any(p.note for p in panels),
               title_width=width + PANEL_GAP + (0 if shared else axis))  # fmt: skip


def reduced_heatmap(
    reduced: grids.Reduced, *, name: str, legend: str | None = None, hover: bool = False, **shape: object
) -> None:
    """A reduced matrix as a heatmap of its cells; the subtitle says when a cell is a block mean.

    `legend`: where the colour legend goes (default `legend_side()`); `hover`: one mark a cell with its value on
    hover even past PICTURE_CELLS (a view that exists for exact values); `shape`: `charts.grid_heatmap`'s titles.
    """
    subtitle = None if presenter() and not reduced.aggregated else reduced.note  # "every value shown" costs a line
    shape.update(legend=legend or legend_side(), subtitle=subtitle)
    cells = charts.reduced_frame(reduced)
    if reduced.values.size <= PICTURE_CELLS or hover:
        show_chart(charts.grid_heatmap, cells, name=name, **shape)
        return
    domain = tuple(shape.get("domain", (-1.0, 1.0)))
    scheme = str(shape.get("scheme", charts.SIGNED_SCHEME))
    box = (shape.get("height", 320), max(1.0, container_width() - AXIS_WIDTH))  # about the pixels it is shown with
    picture = charts.picture_frame(_png(reduced.values, scheme, domain, box=box))
    if subtitle is not None and not reduced.aggregated and not presenter():
        shape["subtitle"] = f"{subtitle}; each value in the CSV"  # the Download menu (not in presenter mode)
    extent = charts.extent_frame(reduced, domain)
    show_chart(charts.picture_heatmap, picture, extent, name=name, table=cells, **shape)


def _matrix_csv(m: np.ndarray, name: str, row_offset: int, col_offset: int, label: str = "exact values (CSV)") -> None:
    """Every exact value of a matrix drawn as a picture, as a CSV written when clicked."""

    def csv() -> str:
        rows = [str(row_offset + i) for i in range(m.shape[0])]
        return charts.matrix_frame(m, rows, [str(col_offset + j) for j in range(m.shape[1])]).to_csv(index=False)

    st.download_button(label, data=csv, file_name=f"{name}.csv", mime="text/csv",
                       key=f"csv-{name}", on_click="ignore", icon=":material/download:")  # fmt: skip


def weights_chart(
    weights,
    tokens: Sequence[str],
    *,
    title: str,
    name: str,
    height: int | None = None,
    annotate_cols: int = 6,
    legend: bool = True,
    numbered: bool = True,
) -> None:
    """Attention weights labelled by token ("0 dog", "1 bites", ...) on the fixed [0, 1] weight scale.

    `legend=False` leaves the colour legend to a neighbouring panel on the same scale (narrow rows of panels);
    `numbered=False` takes `tokens` as the labels themselves (they must differ: "t0", "t1", ...)."""
    labels = charts.labelled(tokens) if numbered else list(tokens)
    matrix_chart(weights, title=title, row_title="query", col_title="key", domain=(0.0, 1.0),
                 scheme=charts.WEIGHT_SCHEME, value_title="weight", row_labels=labels, col_labels=labels,
                 name=name, height=height or weights_height(len(labels)), annotate_cols=annotate_cols,
                 legend=legend)  # fmt: skip


def weights_height(tokens: int) -> int:
    """26 px a token while the chart labels its rows (see matrix_chart), else 340 px."""
    return max(220, 26 * tokens) if charts.labels_cells((tokens, tokens)) else 340


def token_notes(pairs: Iterable[tuple[object, str]], max_tokens: int) -> None:
    """Notes for sentences the real model read differently from what was typed: [UNK] pieces, or cut at
    `max_tokens`. `pairs`: (posviz.models.minilm.Tokens, label) for each sentence."""
    for tokens, label in pairs:
        if tokens.unknown:
            note(f"{label}: the vocabulary has no piece for {', '.join(tokens.unknown)}; the model reads [UNK].")
        if tokens.truncated:
            note(f"{label} is longer than {max_tokens} tokens; the rest is cut.")


def capped_sentence(text: str, label: str, default: str) -> str:
    """`text` cut to its first MAX_WORDS words, or `default` if it has none; says so when it changes it."""
    words = text.split()
    if not words:
        note(f"{label} is empty; using {default!r}.")
        return default
    if len(words) > MAX_WORDS:
        note(f"{label} has {len(words)} words; using the first {MAX_WORDS}.")
    return " ".join(words[:MAX_WORDS])


def capped_sentences(state: Mapping[str, object], params: Mapping[str, Param]) -> tuple[str, str]:
    """Sentences 1 and 2 (controls `s1`, `s2`) each passed through `capped_sentence`."""
    first, second = (capped_sentence(state[k], f"Sentence {k[1]}", params[k].default) for k in ("s1", "s2"))
    return first, second


def show_image(
    reduced: grids.Reduced,
    *,
    title: str,
    domain: tuple[float, float],
    value_title: str,
    what: str,
    scheme: str = charts.SIGNED_SCHEME,
    height: int | None = None,
    fill: bool = False,
) -> None:
    """A whole matrix as a colour-mapped PNG (same palette as the charts) with its colour bar.

    With `height` (pixels) the picture is drawn at most that tall, keeping its aspect ratio; with `fill` too it
    fills the container's width and `height` as a heatmap chart would (each axis stretched on its own). A picture
    with more values than the pixels it is shown with (on a 1280 x 720 screen) is averaged down to them.
    """
    rows, cols = reduced.values.shape
    across = container_width()
    if fill and height is not None:
        shown_rows, shown_cols = height, across
    else:
        shown_cols = across if height is None else min(across, height * cols / rows)
        shown_rows = shown_cols * rows / cols
    reduced = grids.fit_picture(reduced, shown_rows, shown_cols)
    box = (shown_rows, shown_cols) if fill else None
    width = "stretch" if height is None else max(1, round(shown_cols))
    st.markdown(f"**{escape(title)}**")
    key, exact = None, ""
    if box is not None:  # whole-number repeats only come near the box (256 x 384 for 240 x 552): CSS sets its height
        key = "posviz-picture-" + hashlib.blake2b(f"{title}|{what}".encode(), digest_size=6).hexdigest()
        exact = f"<style>.st-key-{key} img {{height:{round(shown_rows)}px !important; object-fit:fill;"
        exact += " image-rendering:pixelated}</style>"  # pixelated: stretched without blending colours
    with st.container(key=key) if key else contextlib.nullcontext():
        st.image(
            _png(reduced.values, scheme, tuple(domain), box=box),
            output_format="PNG",  # "auto" would re-encode the bytes as JPEG: blurred, off-palette colours
            width=width,
            caption=_picture_caption(reduced, what),
        )
    st.image(_colour_bar(tuple(domain), scheme), output_format="PNG", width=width)
    span = "" if width == "stretch" else f"width:{width}px;"  # the ticks sit under the colour bar, not the column
    st.markdown(exact + _bar_labels(domain, value_title, span, pull_up="margin-top:-0.8rem;"), unsafe_allow_html=True)


def _picture_caption(reduced: grids.Reduced, what: str) -> str:
    """What a picture's axes are and, off the shared screen, how many pixels it has and what each one is."""
    if presenter():
        return what  # 16 px: the axes only
    rows, cols = reduced.values.shape
    means = f"each a mean of {reduced.row_factor} x {reduced.col_factor}" if reduced.aggregated else reduced.note
    return f"{what}; {rows} x {cols} pixels, {means}"


def _bar_labels(domain: tuple[float, float], value_title: str, style: str = "", pull_up: str = "") -> str:
    """HTML under a colour bar: its ends and middle (2 digits are plenty), then what the colour is. `style` sets both
    lines (a width), `pull_up` a negative top margin for the first (up to an st.image's bar)."""
    size = "1rem" if presenter() else "0.9rem"  # 16 px on the lecture screen
    ticks = (domain[0], (domain[0] + domain[1]) / 2, domain[1])
    return (
        f"<div style='{style}{pull_up}display:flex;justify-content:space-between;font-size:{size}'>"
        + "".join(f"<span>{number(t, digits=2)}</span>" for t in ticks)
        + f"</div><div style='{style}text-align:center;font-size:{size};opacity:0.75'>{html_text(value_title)}</div>"
    )


def matrix_grid(
    panels: Sequence[Panel], *, row_title: str, col_title: str, columns: int = 3, height: int = 220
) -> None:
    """Matrices each on its own colour scale (symmetric about 0, `charts.signed_domain`), `columns` a row.

    When every one would be a picture in its cell (`matrix_chart`'s rule), they are one block of pictures: each a PNG
    of at most one value (or block mean) per pixel of its cell, stretched to `height` px, with its colour bar and its
    ends, as `show_image` draws one, but all written into the page as one element (a browser draws it in one go; five
    pictures as Streamlit images were 25 elements and 10 fetches), the exact values in one Download menu, a CSV each
    (not in presenter mode). Otherwise every one is a `matrix_chart` (labelled cells, a mark a cell, or a picture).
    """
    matrices = _checked(panels)
    across = _column_width(container_width(), columns)  # a grid cell is as wide as a column of st.columns
    if not all(_pictured(m.shape, across, height) for m in matrices):
        _charts_in_columns(panels, matrices, columns, row_title=row_title, col_title=col_title, height=height)
        return
    caption_size = "1rem" if presenter() else "0.875rem"  # as st.image's caption on each screen
    cells = []
    for p, m in zip(panels, matrices, strict=True):
        domain = charts.signed_domain(m)
        reduced = grids.fit_picture(grids.reduced(m, 1, 1), height, across)
        caption = html_text(_picture_caption(reduced, f"{col_title} →, {row_title} ↓"))
        title = _one_line(p.title)
        picture = _data_uri(_png(reduced.values, charts.SIGNED_SCHEME, domain, box=(height, across)))
        note = f"<div style='font-weight:700'>{_one_line(p.note)}</div>" if p.note else ""
        cells.append(
            f"<div><div style='font-weight:600;margin-bottom:0.25rem'>{title}</div>"
            f"<img src='{picture}' alt='{title}: {caption}' style='display:block;width:100%;"
            f"height:{height}px;object-fit:fill;image-rendering:pixelated'>{note}"
            f"<div style='font-size:{caption_size};opacity:0.75;text-align:center'>{caption}</div>"
            f"<img src='{_data_uri(_colour_bar(domain, charts.SIGNED_SCHEME))}' alt='' style='display:block;"
            f"width:100%;height:12px;object-fit:fill;margin-top:0.3rem'>{_bar_labels(domain, 'value')}</div>"
        )
    st.markdown(
        f"<div style='display:grid;grid-template-columns:repeat({columns},minmax(0,1fr));gap:1.2rem {COLUMN_GAP}px'>"
        + "".join(cells)
        + "</div>",
        unsafe_allow_html=True,
    )
    if not presenter():
        with st.popover("Download the matrices (CSV)", icon=":material/download:"):
            for p, m in zip(panels, matrices, strict=True):
                _matrix_csv(m, p.name, 0, 0, label=f"{p.title} (CSV)")


def _one_line(text: str) -> str:
    """`html_text` on one line: a blank line would end the HTML block and leave the rest to Markdown."""
    return html_text(" ".join(text.split()))


def _data_uri(png: bytes) -> str:
    return "data:image/png;base64," + base64.b64encode(png).decode("ascii")


def _digest(values: np.ndarray) -> str:
    """An exact key for an array (Streamlit hashes large arrays from a sample of their values)."""
    return f"{values.shape}{values.dtype}{hashlib.blake2b(np.ascontiguousarray(values).tobytes()).hexdigest()}"


# The pictures' PNG bytes, cached by an exact digest of the values (`_digest`): reruns and visitors ask again.
_png = st.cache_data(images.matrix_png, max_entries=16, show_spinner=False, hash_funcs={np.ndarray: _digest})
_colour_bar = st.cache_data(images.colour_bar_png, max_entries=16, show_spinner=False)
