"""Streamlit helpers shared by the pages: URL state, presenter mode, badges, chart display.

The core (posviz/) never imports this module; pages import it and posviz.
"""

from __future__ import annotations

import gc
import hashlib
import html
import io
import math
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np
import pandas as pd
import streamlit as st

from posviz import charts, grids, images

MAX_TEXT = 300
MAX_WORDS = 64

# Streamlit runs a full garbage collection after every script run (runner.postScriptGC). Its cost
# grows with every object alive, and most of those are modules imported once (numpy, pandas,
# Streamlit itself): about 0.1 s per run, holding the GIL, measured as half of the server's time
# under load. Freezing them at first import takes them out of the collector's sight; garbage made
# later, by script runs, is still collected after each run.
gc.collect()
gc.freeze()


def page_setup() -> None:
    """Call first on every page: hands a deep link opened before the router ever ran back to the router.

    Streamlit treats an app with a pages/ folder as a legacy multipage app until its main script
    calls st.navigation. So the first visitor of a freshly started server who opens /order directly
    gets pages/order.py without the router (no presenter switch, no wide layout, file-name
    navigation). Here we end that legacy mode and rerun, and the router serves the same URL.
    """
    from streamlit.runtime.pages_manager import PagesManager

    if PagesManager.uses_pages_directory:
        PagesManager.uses_pages_directory = False
        st.rerun()
    if presenter():
        st.html("<style>[data-testid='stMainBlockContainer'] {padding-top: 2rem}</style>")


@dataclass(frozen=True)
class Param:
    """A view-defining control whose value lives in the URL under `key`.

    kind: "int" and "float" within [lo, hi], "choice" among `options`, "bool", "text" (at most
    `max_len` characters). A URL value that does not parse is reported and replaced by `default`.
    """

    key: str
    default: object
    kind: str
    lo: float | None = None
    hi: float | None = None
    options: Sequence[object] = field(default_factory=tuple)
    max_len: int = MAX_TEXT
    step: int = 1

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


def _same_number(raw: str, option: float) -> bool:
    try:
        return math.isclose(float(raw), option, rel_tol=1e-9, abs_tol=1e-15)
    except (ValueError, OverflowError):
        return False


def _short(raw: str, limit: int = 40) -> str:
    return raw if len(raw) <= limit else raw[:limit] + "…"


_PAGE_KEY = "_posviz_page"  # the page whose controls the session state holds


def url_state(params: Sequence[Param]) -> None:
    """Seed each control's session value from the URL (first run of the page), reporting bad values.

    Call before the widgets; give each widget `key=param.key` and no `value`.

    Pages share some keys (seed, T, ...). Streamlit keeps a widget's value across a move to another
    page when that page has a widget with the same key, but the new widget is a different one and
    would start at its minimum. So on arriving at a page (its first run, or a move from another page
    in the sidebar) every control is seeded again from the URL, or its default.
    """
    page = sys._getframe(1).f_code.co_filename
    arrived = st.session_state.get(_PAGE_KEY) != page
    st.session_state[_PAGE_KEY] = page
    problems = []
    for p in params:
        if p.key in st.session_state and not arrived:
            continue
        value = p.default
        raw = st.query_params.get(p.key)
        if raw is not None:
            try:
                value = p.parse(raw)
            except ValueError as error:
                problems.append(f"{p.key}={_short(raw)!r}: {error}; using {p.format(p.default)}")
        st.session_state[p.key] = value
    if problems:
        note("Some link settings were not understood and fell back to defaults:\n" + "\n".join(problems))


def sync_url(params: Sequence[Param]) -> None:
    """Write every non-default control value into the URL so the view can be shared."""
    for p in params:
        value = st.session_state.get(p.key, p.default)
        if value == p.default:
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


def intro(text: str) -> None:
    """Explanatory prose, hidden in presenter mode to leave room for charts."""
    if not presenter():
        st.markdown(text)


def badge(ok: bool, yes: str, no: str) -> None:
    """A green or orange badge with the verdict in words."""
    st.badge(yes if ok else no, color="green" if ok else "orange", icon=":material/check:" if ok else None)


def headline(label: str, value: str, help_text: str | None = None) -> None:
    """The page's key number, large enough for the back row."""
    size, label_size = ("3.4rem", "1.25rem") if presenter() else ("2.4rem", "0.95rem")
    st.markdown(
        f"<div style='font-size:{label_size};opacity:0.75' title='{html_text(help_text or '')}'>"
        f"{html_text(label)}</div>"
        f"<div style='font-size:{size};font-weight:700;line-height:1.15;font-family:monospace'>"
        f"{html_text(value)}</div>",
        unsafe_allow_html=True,
    )


def show_chart(chart: dict, data: pd.DataFrame, name: str, *, downloads: bool = True) -> None:
    """Draw a chart styled for the current mode, with its data as CSV and the chart as SVG."""
    styled = charts.style(chart, presenter=presenter())
    st.vega_lite_chart(charts.finish(styled), width="stretch")
    if downloads and not presenter():
        with st.popover("Download", icon=":material/download:"):
            st.download_button(
                "data (CSV)",
                data=lambda: data.to_csv(index=False),  # written on click: eagerly it was most of a rerun
                file_name=f"{name}.csv",
                mime="text/csv",
                key=f"csv-{name}",
                on_click="ignore",
            )
            st.download_button(
                "chart (SVG)",
                data=lambda: charts.to_svg(styled),
                file_name=f"{name}.svg",
                mime="image/svg+xml",
                key=f"svg-{name}",
                on_click="ignore",
            )


def show_altair(chart, data: pd.DataFrame, name: str) -> None:
    """An Altair chart styled as show_chart styles its dicts (until the app's charts move to Altair)."""
    spec = chart.to_dict()
    datasets = spec.pop("datasets", {})
    styled = {**charts.style(spec, presenter=presenter()), "datasets": datasets}
    st.vega_lite_chart(styled, width="stretch")
    if not presenter():
        with st.popover("Download", icon=":material/download:"):
            st.download_button("data (CSV)", data=lambda: data.to_csv(index=False), file_name=f"{name}.csv",
                               mime="text/csv", key=f"csv-{name}", on_click="ignore")  # fmt: skip
            st.download_button("chart (SVG)", data=lambda: charts.to_svg(styled), file_name=f"{name}.svg",
                               mime="image/svg+xml", key=f"svg-{name}", on_click="ignore")  # fmt: skip


def guarded(
    action: Callable[[], object], fallback: Callable[[], object], what: str, instead: str = "showing the defaults"
) -> object:
    """Run `action`; on the core's ValueError/TypeError show its message and run `fallback` instead."""
    try:
        return action()
    except (ValueError, TypeError) as error:
        note(f"{what}: {error}. {instead[:1].upper()}{instead[1:]} instead.")
        return fallback()


SMALL_CELLS = 400
MAX_MARKS = 40_000


def matrix_chart(
    m,
    *,
    title: str,
    row_title: str,
    col_title: str,
    domain: tuple[float, float],
    name: str,
    row_labels: Sequence[str] | None = None,
    col_labels: Sequence[str] | None = None,
    scheme: str = charts.SIGNED_SCHEME,
    value_title: str = "value",
    height: int = 300,
    annotate_cols: int = 6,
    row_offset: int = 0,
    col_offset: int = 0,
) -> None:
    """Show a matrix: labelled cells with values when small, block means (at most 40k marks) when large."""
    rows, cols = m.shape
    common = dict(title=title, row_title=row_title, col_title=col_title, scheme=scheme, domain=domain,
                  value_title=value_title, height=height)  # fmt: skip
    if rows * cols <= SMALL_CELLS and cols <= 24:
        frame = charts.matrix_frame(
            m,
            row_labels if row_labels is not None else [str(row_offset + i) for i in range(rows)],
            col_labels if col_labels is not None else [str(col_offset + j) for j in range(cols)],
        )
        chart = charts.token_heatmap(frame, annotate=rows * cols <= 100 and cols <= annotate_cols, **common)
    else:
        reduced = grids.block_mean(m, MAX_MARKS).shifted(row_offset, col_offset)
        frame = charts.reduced_frame(reduced)
        chart = charts.grid_heatmap(reduced, **common)
    show_chart(chart, frame, name)


def weights_chart(
    weights, tokens: Sequence[str], *, title: str, name: str, height: int | None = None, annotate_cols: int = 6
) -> None:
    """Attention weights labelled by token ("0 dog", "1 bites", ...) on the fixed [0, 1] weight scale."""
    labels = charts.labelled(tokens)
    matrix_chart(weights, title=title, row_title="query", col_title="key", domain=(0.0, 1.0),
                 scheme=charts.WEIGHT_SCHEME, value_title="weight", row_labels=labels, col_labels=labels,
                 name=name, height=height or max(220, 26 * len(labels)), annotate_cols=annotate_cols)  # fmt: skip


def capped_sentence(text: str, label: str, default: str) -> str:
    """`text` cut to its first MAX_WORDS words, or `default` if it has none; says so when it changes it."""
    words = text.split()
    if not words:
        note(f"{label} is empty; using {default!r}.")
        return default
    if len(words) > MAX_WORDS:
        note(f"{label} has {len(words)} words; using the first {MAX_WORDS}.")
    return " ".join(words[:MAX_WORDS])


def show_image(
    reduced: grids.Reduced, *, title: str, scheme: str, domain: tuple[float, float], value_title: str, what: str
) -> None:
    """A whole matrix as a colour-mapped PNG (same palette as the charts) with its colour bar."""
    stops = images.SIGNED_STOPS if scheme == charts.SIGNED_SCHEME else images.WEIGHT_STOPS
    st.markdown(f"**{escape(title)}**")
    st.image(
        _png(reduced.values, stops, tuple(domain)),
        output_format="PNG",  # "auto" would re-encode the bytes as JPEG: blurred, off-palette colours
        width="stretch",
        caption=f"{what}; {reduced.values.shape[0]} x {reduced.values.shape[1]} pixels, {reduced.note}",
    )
    ramp = np.linspace(domain[0], domain[1], 512)[None, :]
    st.image(_png(ramp, stops, tuple(domain), bar=True), output_format="PNG", width="stretch")
    ticks = (domain[0], (domain[0] + domain[1]) / 2, domain[1])
    st.markdown(
        "<div style='display:flex;justify-content:space-between;margin-top:-0.8rem;font-size:0.9rem'>"
        + "".join(f"<span>{t:g}</span>" for t in ticks)
        + f"</div><div style='text-align:center;font-size:0.9rem;opacity:0.75'>{html.escape(value_title)}</div>",
        unsafe_allow_html=True,
    )


def _digest(values: np.ndarray) -> str:
    """An exact key for an array (Streamlit hashes large arrays from a sample of their values)."""
    return f"{values.shape}{values.dtype}{hashlib.blake2b(np.ascontiguousarray(values).tobytes()).hexdigest()}"


@st.cache_data(max_entries=16, show_spinner=False, hash_funcs={np.ndarray: _digest})
def _png(values: np.ndarray, stops: tuple[str, ...], domain: tuple[float, float], bar: bool = False) -> bytes:
    """PNG bytes of a colour-mapped matrix (a colour bar is 18 rows high), cached by an exact digest of
    `values`: a 512 x 1024 image takes ~0.2 s to colour and compress, and reruns and visitors ask again."""
    from PIL import Image

    # One byte a pixel, 128 colours over the domain: the MiniLM page's three noisy 512-row images went
    # from 1,139 kB as RGB to 339 kB (255 colours: 409 kB); a level is 1/127 of the colour bar.
    index, palette = images.indexed(values, stops, domain, levels=128)
    index = np.repeat(index, 18, axis=0) if bar else images.upscale(index)
    picture = Image.fromarray(index)
    picture.putpalette(palette.ravel().tolist())
    out = io.BytesIO()
    picture.save(out, format="PNG", optimize=True)
    return out.getvalue()
