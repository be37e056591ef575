"""Pixels: how wide the main column and the columns in it are on a 1280 x 720 screen, for the helpers that size a
matrix to the pixels it gets."""

from __future__ import annotations

from ui.screen import presenter

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
        width = column_width(width, n)
    return width


def column_width(width: float, n: int) -> float:
    """Pixels across each of `n` columns sharing `width` (st.columns puts COLUMN_GAP between them)."""
    return (width - COLUMN_GAP * (n - 1)) / n
