"""Matrices as PNG pictures with their colour bars; the bytes (posviz.drawing.images) cached by an exact digest."""

from __future__ import annotations

import base64
import contextlib
import hashlib

import numpy as np
import streamlit as st

from posviz.drawing import images
from posviz.drawing.display import number
from posviz.maths import grids
from ui.screen import hall, presenter
from ui.text import escape, html_text
from ui.widths import container_width


def show_image(
    reduced: grids.Reduced,
    *,
    title: str,
    domain: tuple[float, float],
    value_title: str,
    what: str,
    scheme: str = images.SIGNED_SCHEME,
    height: int | None = None,
    fill: bool = False,
    in_columns: int = 1,
    square: bool = False,
    details: bool = True,
) -> None:
    """A whole matrix as a colour-mapped PNG (same palette as the charts) with its colour bar.

    With `height` (pixels) the picture is drawn at most that tall, keeping its aspect ratio; with `fill` too it
    fills the container's width and `height` as a heatmap chart would (each axis stretched on its own). A picture
    with more values than the pixels it is shown with (on a 1280 x 720 screen) is averaged down to them; the
    container is one of `in_columns` equal columns sharing the main column (`widths.container_width`). With `square`
    the picture is as wide as it is tall (`height`, or the container's width if narrower): a similarity matrix's
    diagonal then runs at 45° whatever its shape. `details=False` leaves out the pixel count (the lecture: how a
    picture is drawn is no part of its step).
    """
    rows, cols = reduced.values.shape
    across = container_width(in_columns)
    if square:
        side = across if height is None else min(across, height)
        shown_rows = shown_cols = side
        fill, height = True, round(side)  # stretched into the square box, each axis on its own
    elif fill and height is not None:
        shown_rows, shown_cols = height, across
    else:
        shown_cols = across if height is None else min(across, height * cols / rows)
        shown_rows = shown_cols * rows / cols
    reduced = grids.fit_picture(reduced, shown_rows, shown_cols)
    box = (shown_rows, shown_cols) if fill else None
    width = "stretch" if height is None else max(1, round(shown_cols))
    st.markdown(f"**{escape(title)}**")  # 24 px in the lecture projected, as a chart's title (screen.HALL_CSS)
    key, exact = None, ""
    if box is not None:  # whole-number repeats only come near the box (256 x 384 for 240 x 552): CSS sets its height
        key = "posviz-picture-" + hashlib.blake2b(f"{title}|{what}".encode(), digest_size=6).hexdigest()
        exact = f"<style>.st-key-{key} img {{height:{round(shown_rows)}px !important; object-fit:fill;"
        exact += " image-rendering:pixelated}</style>"  # pixelated: stretched without blending colours
    with st.container(key=key) if key else contextlib.nullcontext():
        st.image(
            cached_png(reduced.values, scheme, tuple(domain), box=box),
            output_format="PNG",  # "auto" would re-encode the bytes as JPEG: blurred, off-palette colours
            width=width,
            caption=picture_caption(reduced, what) if details else what,
            alt=picture_alt(title, reduced.values, what),
        )
    bar = cached_colour_bar(tuple(domain), scheme)
    st.image(bar, output_format="PNG", width=width, alt=bar_alt(domain, value_title))
    span = "" if width == "stretch" else f"width:{width}px;max-width:100%;"  # under the bar
    st.markdown(exact + bar_labels(domain, value_title, span, pull_up="margin-top:-0.8rem;"), unsafe_allow_html=True)


def picture_caption(reduced: grids.Reduced, what: str) -> str:
    """What a picture's axes are and, off the shared screen, how many pixels it has and what each one is."""
    if presenter():
        return what  # 16 px: the axes only
    rows, cols = reduced.values.shape
    means = f"each a mean of {reduced.row_factor} x {reduced.col_factor}" if reduced.aggregated else reduced.note
    return f"{what}; {rows} x {cols} pixels, {means}"


def picture_alt(title: str, values: np.ndarray, what: str) -> str:
    """A picture's text alternative: its title, what its axes are, its size and the range of its values."""
    finite = values[np.isfinite(values)]
    span = f"; values from {number(finite.min())} to {number(finite.max())}" if finite.size else ""
    return f"{' '.join(title.split())}: picture of {values.shape[0]} x {values.shape[1]} values, {what}{span}"


def bar_alt(domain: tuple[float, float], value_title: str) -> str:
    """A colour bar's text alternative: what its colour is and its ends."""
    return f"colour bar: {value_title} from {number(domain[0], digits=2)} to {number(domain[1], digits=2)}"


def bar_labels(domain: tuple[float, float], value_title: str, style: str = "", pull_up: str = "") -> str:
    """HTML under a colour bar: its ends and middle (2 digits are plenty), then what the colour is. `style` sets both
    lines (a width), `pull_up` a negative top margin for the first (up to an st.image's bar)."""
    size = "1.25rem" if hall() else "1rem" if presenter() else "0.9rem"  # the lecture's 20 px, as its charts' labels
    ticks = (domain[0], (domain[0] + domain[1]) / 2, domain[1])
    return (
        f"<div style='{style}{pull_up}display:flex;justify-content:space-between;font-size:{size}'>"
        + "".join(f"<span>{number(t, digits=2).replace('-', '−', t < 0)}</span>" for t in ticks)  # −, as Vega's
        + f"</div><div style='{style}text-align:center;font-size:{size};opacity:0.75'>{html_text(value_title)}</div>"
    )


def data_uri(png: bytes) -> str:
    return "data:image/png;base64," + base64.b64encode(png).decode("ascii")


def digest(values: np.ndarray) -> str:
    """An exact key for an array (Streamlit hashes large arrays from a sample of their values)."""
    return f"{values.shape}{values.dtype}{hashlib.blake2b(np.ascontiguousarray(values).tobytes()).hexdigest()}"


# The pictures' PNG bytes, cached by an exact digest of the values (`digest`): reruns and visitors ask again.
cached_png = st.cache_data(images.matrix_png, max_entries=16, show_spinner=False, hash_funcs={np.ndarray: digest})


cached_colour_bar = st.cache_data(images.colour_bar_png, max_entries=16, show_spinner=False)
