"""A compiled Altair chart on the page, with its data (CSV) and the chart (SVG) to download."""

from __future__ import annotations

from collections.abc import Callable

import pandas as pd
import streamlit as st

from posviz.drawing import charts
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
