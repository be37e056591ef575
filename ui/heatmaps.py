"""A matrix within the pixels it gets: labelled cells, a mark a cell, or a picture; attention weights by token."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import streamlit as st

from posviz.drawing import frames, heatmaps, images
from posviz.drawing.layout import AXIS_WIDTH, PICTURE_CELLS
from posviz.maths import grids
from ui.chart import show_chart
from ui.pictures import cached_png, show_image
from ui.screen import legend_side, presenter
from ui.text import escape
from ui.widths import container_width

# A heatmap of more than PICTURE_CELLS cells is one image mark on the same axes: Streamlit draws a chart, then resizes
# and redraws it, and each rect is encoded on both passes (hover values then come from the CSV).


def pictured(shape: tuple[int, int], width: float, height: int) -> bool:
    """Whether `matrix_chart` draws a matrix of `shape` in `width` x `height` px as a picture (past a few pixels a
    cell), not as labelled cells or a mark a cell."""
    return (
        not heatmaps.labels_cells(shape)
        and grids.draw_plan(*shape, max(1.0, width - AXIS_WIDTH), height).kind != "cells"
    )


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
    scheme: str = images.SIGNED_SCHEME,
    value_title: str = "value",
    height: int = 300,
    annotate_cols: int = 6,
    row_offset: int = 0,
    col_offset: int = 0,
    note: str | None = None,
    legend: bool = True,
    hover: bool = False,
    in_columns: int = 1,
    square: bool = False,
    row_label_limit: int | None = None,
    causal: bool = False,
) -> None:
    """Show a matrix within the pixels it gets: labelled cells when small (each printing its value, and then no
    colour legend, when at most 100 cells), every value as a mark while each cell is a few pixels
    (`grids.draw_plan`), else a PNG of at most one value (or block mean) per pixel.

    `note`: a line written across the middle ("all zeros"; "" writes nothing but keeps the chart's shape).
    `domain`: the colour scale's ends; by default symmetric about 0 (`heatmaps.signed_domain`).
    `hover`: keep a mark a cell, each with its value on hover, for a view that exists to show exact values.
    `in_columns`: how many equal columns share the main column where it is drawn (`widths.container_width`).
    `square`: drawn `height` x `height` (a similarity matrix: its diagonal runs at 45°), as a chart or a picture.
    `row_label_limit`: pixels a row label of labelled cells may take (default 120; longer ones end in "…").
    `causal`: the keys after each query are masked; labelled cells draw them grey, without a value.
    """
    m = np.asarray(m, dtype=np.float64)
    domain = heatmaps.signed_domain(m) if domain is None else domain
    rows, cols = m.shape
    scale = dict(row_title=row_title, col_title=col_title, scheme=scheme, domain=domain, value_title=value_title)
    legend_at = legend_side() if legend else "none"
    common = dict(title=title, height=height)
    if note is not None:
        common["note"] = note
    if square:
        common["square"] = True
    if heatmaps.labels_cells(m.shape):
        frame = frames.matrix_frame(
            m,
            row_labels if row_labels is not None else [str(row_offset + i) for i in range(rows)],
            col_labels if col_labels is not None else [str(col_offset + j) for j in range(cols)],
        )
        annotate = heatmaps.prints_values(m.shape, annotate_cols)
        style = heatmaps.CellStyle(
            **scale,
            annotate=annotate,
            angled=cols > 8,
            legend="none" if annotate else legend_at,  # each cell printing its value: a legend would repeat it
            masked=causal,
            **({} if row_label_limit is None else {"row_label_limit": row_label_limit}),
        )
        frame = frames.masked_frame(frame) if causal else frame
        show_chart(heatmaps.token_heatmap, frame, name=name, style=style, **common)
        return
    across = min(container_width(in_columns), height + AXIS_WIDTH) if square else container_width(in_columns)
    if not pictured(m.shape, across, height):
        reduced_heatmap(
            grids.reduced(m, 1, 1).shifted(row_offset, col_offset),
            name=name,
            legend=legend_at,
            hover=hover,
            in_columns=in_columns,
            **scale,
            **common,
        )
        return
    picture = grids.reduced(m, 1, 1)  # show_image averages it down to its pixels (no axes beside a picture)
    start = f" from ({row_offset}, {col_offset})" if row_offset or col_offset else ""
    show_image(
        picture,
        title=title,
        scheme=scheme,
        domain=domain,
        value_title=value_title,
        what=f"{col_title or 'column'} →, {row_title or 'row'} ↓{start}",
        height=height,
        fill=True,
        in_columns=in_columns,
        square=square,
    )
    if note:
        st.markdown(f"**{escape(note.replace(chr(10), ' '))}**")  # a picture has no layer to write it on
    if not presenter():
        matrix_csv(m, name, row_offset, col_offset)


def reduced_heatmap(
    reduced: grids.Reduced,
    *,
    name: str,
    legend: str | None = None,
    hover: bool = False,
    in_columns: int = 1,
    details: bool = True,
    **shape: object,
) -> None:
    """A reduced matrix as a heatmap of its cells; the subtitle says when a cell is a block mean.

    `legend`: where the colour legend goes (default `legend_side()`); `hover`: one mark a cell with its value on
    hover even past PICTURE_CELLS (a view that exists for exact values); `in_columns`: as `matrix_chart`'s (the
    pixels a picture inside the chart is drawn for); `details=False`: no subtitle and no Download menu (the lecture:
    how a heatmap is drawn is no part of its step); `shape`: `heatmaps.grid_heatmap`'s titles.
    """
    subtitle = None if presenter() and not reduced.aggregated else reduced.note  # "every value shown" costs a line
    subtitle = subtitle if details else None
    shape.update(legend=legend or legend_side(), subtitle=subtitle)
    cells = frames.reduced_frame(reduced)
    if reduced.values.size <= PICTURE_CELLS or hover:
        show_chart(heatmaps.grid_heatmap, cells, name=name, downloads=details, **shape)
        return
    domain = tuple(shape.get("domain", (-1.0, 1.0)))
    scheme = str(shape.get("scheme", images.SIGNED_SCHEME))
    # about the pixels it is shown with (a square plot is as wide as it is tall)
    tall = shape.get("height", 320)
    box = (tall, tall) if shape.get("square") else (tall, max(1.0, container_width(in_columns) - AXIS_WIDTH))
    picture = frames.picture_frame(cached_png(reduced.values, scheme, domain, box=box))
    if subtitle is not None and not reduced.aggregated and not presenter():
        shape["subtitle"] = f"{subtitle}; each value in the CSV"  # the Download menu (not in presenter mode)
    extent = frames.extent_frame(reduced, domain)
    show_chart(heatmaps.picture_heatmap, picture, extent, name=name, table=cells, downloads=details, **shape)


def matrix_csv(m: np.ndarray, name: str, row_offset: int, col_offset: int, label: str = "exact values (CSV)") -> None:
    """Every exact value of a matrix drawn as a picture, as a CSV written when clicked."""

    def csv() -> str:
        rows = [str(row_offset + i) for i in range(m.shape[0])]
        return frames.matrix_frame(m, rows, [str(col_offset + j) for j in range(m.shape[1])]).to_csv(index=False)

    st.download_button(
        label,
        data=csv,
        file_name=f"{name}.csv",
        mime="text/csv",
        key=f"csv-{name}",
        on_click="ignore",
        icon=":material/download:",
    )


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
    in_columns: int = 1,
    causal: bool = False,
) -> None:
    """Attention weights labelled by token ("0 dog", "1 bites", ...) on the fixed [0, 1] weight scale.

    `legend=False` leaves the colour legend to a neighbouring panel on the same scale (narrow rows of panels);
    `numbered=False` takes `tokens` as the labels themselves (they must differ: "t0", "t1", ...); `in_columns` and
    `causal`: as `matrix_chart`'s."""
    labels = frames.labelled(tokens) if numbered else list(tokens)
    matrix_chart(
        weights,
        title=title,
        row_title="query",
        col_title="key",
        domain=(0.0, 1.0),
        scheme=images.WEIGHT_SCHEME,
        value_title="weight",
        row_labels=labels,
        col_labels=labels,
        name=name,
        height=height or weights_height(len(labels)),
        square=True,  # queries by keys: drawn square, as the lecture draws it
        annotate_cols=annotate_cols,
        legend=legend,
        in_columns=in_columns,
        causal=causal,
    )


def weights_height(tokens: int) -> int:
    """26 px a token while the chart labels its rows (see matrix_chart), else 340 px."""
    return max(220, 26 * tokens) if heatmaps.labels_cells((tokens, tokens)) else 340
