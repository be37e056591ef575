"""Pixels: how wide the main column and the columns in it are on a 1280 x 720 screen, for the helpers that size a
matrix to the pixels it gets."""

from __future__ import annotations

from posviz.drawing.layout import AXIS_WIDTH, COLUMN_GAP, PAGE_WIDTH, PRESENTER_WIDTH
from ui.screen import presenter

__all__ = ["AXIS_WIDTH", "COLUMN_GAP", "PAGE_WIDTH", "PRESENTER_WIDTH", "column_width", "container_width"]


def container_width(in_columns: int = 1) -> float:
    """Pixels across one of `in_columns` equal columns sharing the main column on a 1280 x 720 screen (1: all of it).

    Streamlit does not say how wide a container is, so a page says how many columns share the main column where
    it draws: 3 inside `st.columns(3)`, 6 inside one of `st.columns(2)` nested in one of three (the same pixels as
    six columns side by side). Columns of unequal weights count as equal (`st.columns([2, 3])`: 2).
    """
    if isinstance(in_columns, bool) or not isinstance(in_columns, int) or in_columns < 1:
        raise ValueError(f"in_columns must be a whole number of columns, at least 1, got {in_columns!r}")
    return column_width(PRESENTER_WIDTH if presenter() else PAGE_WIDTH, in_columns)


def column_width(width: float, n: int) -> float:
    """Pixels across each of `n` columns sharing `width` (st.columns puts COLUMN_GAP between them).

    Nested columns multiply: `column_width(column_width(w, a), b) == column_width(w, a * b)`.
    """
    return (width - COLUMN_GAP * (n - 1)) / n
