"""Several matrices side by side: one faceted chart on one colour scale, or a block of pictures each on its own."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd
import streamlit as st

from posviz.drawing import frames, heatmaps, images, layout
from posviz.maths import grids
from ui.chart import show_chart
from ui.heatmaps import matrix_chart, matrix_csv, pictured, weights_chart
from ui.pictures import bar_labels, cached_colour_bar, cached_png, data_uri, picture_alt, picture_caption
from ui.screen import legend_side, presenter
from ui.text import html_text
from ui.widths import COLUMN_GAP, column_width, container_width

if TYPE_CHECKING:
    from streamlit.delta_generator import DeltaGenerator


@dataclass(frozen=True)
class Panel:
    """One matrix in a row of panels (`matrix_panels`, `matrix_row`, `weights_row`): its title, CSV name, optional
    note and labels, and for a panel on its own colour scale (`matrix_row`) that scale's ends and title."""

    title: str
    matrix: np.ndarray
    name: str
    note: str | None = None  # written across its middle ("all zeros"), as matrix_chart's note
    rows: Sequence[str] | None = None  # row labels (default: 0, 1, ...); weights_row: the tokens
    cols: Sequence[str] | None = None  # column labels (default: 0, 1, ...)
    domain: tuple[float, float] | None = None  # matrix_row, matrix_grid: its colour scale (default: symmetric about 0)
    value_title: str = "value"  # matrix_row: what its colour is


PANEL_GAP = layout.PANEL_SPACING  # pixels between panels of one faceted chart


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


def _charts_in_columns(
    panels: Sequence[Panel], matrices: Sequence[np.ndarray], columns: int, in_columns: int, **common: object
) -> None:
    """A `matrix_chart` a panel, `columns` a row (each column one of `in_columns * columns` in the main column)."""
    for start in range(0, len(panels), columns):
        row = zip(st.columns(columns), panels[start : start + columns], matrices[start:], strict=False)
        for column, p, m in row:
            own = {"domain": p.domain} if p.domain is not None and "domain" not in common else {}
            with column:
                matrix_chart(
                    m,
                    title=p.title,
                    name=p.name,
                    row_labels=p.rows,
                    col_labels=p.cols,
                    note=p.note,
                    in_columns=in_columns * columns,
                    **own,
                    **common,
                )


def matrix_panels(
    panels: Sequence[Panel],
    *,
    name: str,
    row_title: str,
    col_title: str,
    domain: tuple[float, float],
    scheme: str = images.SIGNED_SCHEME,
    value_title: str = "value",
    height: int = 300,
    columns: int | None = None,
    shared: bool = True,
    annotate_cols: int = 6,
    legend_each: bool = True,
    in_columns: int = 1,
) -> None:
    """Matrices on one colour scale, `columns` a row (default: all in one row), across one of `in_columns` equal
    columns sharing the main column (`widths.container_width`).

    Small ones (`heatmaps.labels_cells`) are one faceted chart, `heatmaps.heatmap_panels`: one legend, row and column
    labels once when `shared`, one CSV of every panel (`name`), and a browser draws it faster than a chart a panel.
    Larger ones are a `matrix_chart` each, in columns, as their pixels allow (with a colour legend each if
    `legend_each`).
    """
    matrices = _checked(panels)
    columns = columns or len(panels)
    if not all(heatmaps.labels_cells(m.shape) for m in matrices):
        _charts_in_columns(
            panels,
            matrices,
            columns,
            in_columns,
            row_title=row_title,
            col_title=col_title,
            domain=domain,
            scheme=scheme,
            value_title=value_title,
            height=height,
            annotate_cols=annotate_cols,
            legend=legend_each,
        )
        return
    shapes = [(p, m.shape) for p, m in zip(panels, matrices, strict=True)]
    rows = [[str(r) for r in (range(shape[0]) if p.rows is None else p.rows)] for p, shape in shapes]
    cols = [[str(c) for c in (range(shape[1]) if p.cols is None else p.cols)] for p, shape in shapes]
    cells = pd.concat(
        [
            frames.matrix_frame(m, r, c, panel=p.title, note=p.note or "").assign(panel_index=i)
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
        return max(40, int((container_width(in_columns) - axes - beside - PANEL_GAP * (columns - 1)) / columns))

    room = panel_width(0) / max(1, widest)
    annotate = all(heatmaps.prints_values(m.shape, annotate_cols) for m in matrices) and room >= 5 * char
    legend = "none" if annotate else legend_side()  # each cell printing its value says what a legend would
    width = panel_width(layout.LEGEND_WIDTH if legend == "right" else 0)
    angled = char * max(len(label) for c in cols for label in c) > width / max(1, widest) - 4  # else Vega drops some
    show_chart(
        heatmaps.heatmap_panels,
        cells,
        name=name,
        style=heatmaps.CellStyle(
            row_title, col_title, scheme, domain, value_title, annotate=annotate, angled=angled, legend=legend
        ),
        width=width,
        height=height,
        columns=columns,
        shared=shared,
        notes=any(p.note for p in panels),
        title_width=width + PANEL_GAP + (0 if shared else axis),
    )


def matrix_grid(
    panels: Sequence[Panel], *, row_title: str, col_title: str, columns: int = 3, height: int = 220, in_columns: int = 1
) -> None:
    """Matrices each on its own colour scale (`Panel.domain`, default symmetric about 0, `heatmaps.signed_domain`; give
    compared ones the same), `columns` a row, across one of `in_columns` equal columns sharing the main column.

    When every one would be a picture in its cell (`matrix_chart`'s rule), they are one block of pictures: each a PNG
    of at most one value (or block mean) per pixel of its cell, stretched to `height` px, with its colour bar and its
    ends, as `show_image` draws one, but all written into the page as one element (a browser draws it in one go; five
    pictures as Streamlit images were 25 elements and 10 fetches), the exact values in one Download menu, a CSV each
    (not in presenter mode). Otherwise every one is a `matrix_chart` (labelled cells, a mark a cell, or a picture).
    """
    matrices = _checked(panels)
    across = column_width(container_width(in_columns), columns)  # a grid cell is as wide as a column of st.columns
    if not all(pictured(m.shape, across, height) for m in matrices):
        _charts_in_columns(
            panels, matrices, columns, in_columns, row_title=row_title, col_title=col_title, height=height
        )
        return
    caption_size = "1rem" if presenter() else "0.875rem"  # as st.image's caption on each screen
    cells = []
    for p, m in zip(panels, matrices, strict=True):
        domain = p.domain or heatmaps.signed_domain(m)
        reduced = grids.fit_picture(grids.reduced(m, 1, 1), height, across)
        caption = html_text(picture_caption(reduced, f"{col_title} →, {row_title} ↓"))
        title = _one_line(p.title)
        picture = data_uri(cached_png(reduced.values, images.SIGNED_SCHEME, domain, box=(height, across)))
        alt = html_text(picture_alt(p.title, m, f"{col_title} →, {row_title} ↓"))
        note = f"<div style='font-weight:700'>{_one_line(p.note)}</div>" if p.note else ""
        cells.append(
            f"<div><div style='font-weight:600;margin-bottom:0.25rem'>{title}</div>"
            f"<img src='{picture}' alt='{alt}' style='display:block;width:100%;"
            f"height:{height}px;object-fit:fill;image-rendering:pixelated'>{note}"
            f"<div style='font-size:{caption_size};opacity:0.75;text-align:center'>{caption}</div>"
            f"<img src='{data_uri(cached_colour_bar(domain, images.SIGNED_SCHEME))}' alt='' style='display:block;"
            f"width:100%;height:12px;object-fit:fill;margin-top:0.3rem'>{bar_labels(domain, 'value')}</div>"
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
                matrix_csv(m, p.name, 0, 0, label=f"{p.title} (CSV)")


def _one_line(text: str) -> str:
    """`html_text` on one line: a blank line would end the HTML block and leave the rest to Markdown."""
    return html_text(" ".join(text.split()))


def matrix_row(panels: Sequence[Panel], *, row_title: str, col_title: str, height: int = 300) -> None:
    """Matrices side by side, a `matrix_chart` each in its own column on its own colour scale (`Panel.domain`)."""
    for column, p in zip(st.columns(len(panels)), panels, strict=True):
        with column:
            matrix_chart(
                p.matrix,
                title=p.title,
                row_title=row_title,
                col_title=col_title,
                name=p.name,
                domain=p.domain,
                row_labels=p.rows,
                col_labels=p.cols,
                value_title=p.value_title,
                height=height,
                note=p.note,
                in_columns=len(panels),
            )


def weights_row(panels: Sequence[Panel], *, height: int | None = None, annotate_cols: int = 6) -> None:
    """Attention weights side by side, a `weights_chart` each in its own column (`Panel.rows`: its tokens)."""
    for column, p in zip(st.columns(len(panels)), panels, strict=True):
        with column:
            weights_chart(
                p.matrix,
                p.rows,
                title=p.title,
                name=p.name,
                height=height,
                annotate_cols=annotate_cols,
                in_columns=len(panels),
            )


# Two panels to compare: side by side on a wide screen; on a phone (<= 640 px, where Streamlit stacks columns and the
# second panel falls below the first screen) one at a time, flipped by two radio buttons. CSS alone does the flip
# (:has(:checked)): no rerun, and the radios are plain ones a keyboard (arrow keys) and a screen reader use.
_FLIP = """<fieldset class="posviz-flip"><legend>Two panels compared, one at a time: tap the other</legend>
{radios}</fieldset>
<style>[data-testid='stElementContainer']:has(> .stHtml > .posviz-flip) {{display: none}}
@media (max-width: 640px) {{
[data-testid='stElementContainer']:has(> .stHtml > .posviz-flip) {{display: block}}
.posviz-flip {{display: flex; gap: 0.5rem; border: 0; margin: 0; padding: 0; min-width: 0}}
.posviz-flip legend {{padding: 0; margin-bottom: 0.3rem; font-size: 0.85rem; opacity: 0.75}}
.posviz-flip label {{flex: 1 1 0; min-width: 0; display: flex; gap: 0.4rem; align-items: center; cursor: pointer;
  padding: 0.35rem 0.6rem; border: 1px solid rgba(49, 51, 63, 0.25); border-radius: 0.5rem; line-height: 1.25}}
.posviz-flip label:has(input:checked) {{border-color: #c2185b; background: #fdecf2}}
.posviz-flip input {{accent-color: #c2185b; margin: 0; flex: none}}
{hide}}}</style>"""
_HIDE = (
    ".st-key-{key}:has(#{key}-{shown}:checked) [data-testid='stColumn']:has(.st-key-{key}-{hidden}) {{display: none}}"
)


def compared(labels: Sequence[str], key: str = "compared", first: int = 1) -> tuple[DeltaGenerator, DeltaGenerator]:
    """Two places for the two panels a step exists to compare, labelled `labels`: columns side by side on a wide
    screen, one at a time on a phone with a radio button for each (panel `first`, 1 or 2, shown first: the one that
    makes the comparison's point). Returns the two places, as `st.columns(2)` does; `key` names the block (once a
    page)."""
    if len(labels) != 2:
        raise ValueError(f"expected 2 labels, one a panel, received {len(labels)}")
    if first not in (1, 2):
        raise ValueError(f"expected the panel shown first to be 1 or 2, received {first!r}")
    radios = "".join(
        f"<label for='{key}-{i}'><input type='radio' name='{key}' id='{key}-{i}'{' checked' if i == first else ''}>"
        f"{html_text(label)}</label>"
        for i, label in enumerate(labels, start=1)
    )
    hide = "\n".join(_HIDE.format(key=key, shown=a, hidden=b) for a, b in ((1, 2), (2, 1)))
    with st.container(key=key):
        st.html(_FLIP.format(radios=radios, hide=hide))
        left, right = st.columns(2)
    return left.container(key=f"{key}-1"), right.container(key=f"{key}-2")
