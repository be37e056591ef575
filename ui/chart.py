"""A compiled Altair chart on the page, with its data (CSV) and the chart (SVG) to download."""

from __future__ import annotations

from collections.abc import Callable

import pandas as pd
import streamlit as st

from posviz.drawing import charts
from posviz.drawing.display import number
from ui.screen import presenter


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
    st.vega_lite_chart(spec, width="content" if fixed else "stretch", alt=chart_alt(shape.get("title"), table, name))
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


# the column a chart's colour or height shows, in the order a table is searched for it
VALUE_COLUMNS = ("value", "weight", "cosine", "score", "y")


def chart_alt(title: object, table: pd.DataFrame, name: str) -> str:
    """A chart's text alternative: its title (else its name), its rows and columns, and the range of the value it
    draws (`VALUE_COLUMNS`, else the last numeric column), e.g. "Weights: 36 rows of query, key, weight; weight
    from 0.012 to 0.52"."""
    head = " ".join(str(title).split()) if title else name
    numeric = [c for c in table.columns if pd.api.types.is_numeric_dtype(table[c]) and table[c].dtype != bool]
    named = [c for c in VALUE_COLUMNS if c in numeric]
    text = f"{head}: chart of {len(table)} rows of {', '.join(map(str, table.columns[:6]))}"
    column = (named or numeric[-1:] or [None])[0]
    values = table[column].dropna() if column is not None else pd.Series(dtype=float)
    if values.empty:
        return text
    return f"{text}; {column} from {number(values.min())} to {number(values.max())}"
