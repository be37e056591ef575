"""A compiled Altair chart on the page, with its data (CSV) and the chart (SVG) to download."""

from __future__ import annotations

import time
from collections.abc import Callable

import pandas as pd
import streamlit as st

from posviz.drawing import engine
from posviz.drawing.display import number
from ui.declarations import RESEND_CONTROLS
from ui.screen import chart_screen, presenter


def show_chart(
    builder: Callable,
    *frames: pd.DataFrame,
    name: str,
    downloads: bool = True,
    table: pd.DataFrame | None = None,
    **shape: object,
) -> None:
    """Draw `builder`'s chart of `frames`, styled for the current mode, with `table` (default: the first frame)
    as CSV and the chart as SVG. The spec is compiled once per shape (`engine.chart_spec`); a rerun binds only
    its data."""
    table = frames[0] if table is None else table
    spec = engine.chart_spec(builder, *frames, presenter=chart_screen(), **shape)
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
                data=lambda: engine.to_svg(spec),
                file_name=f"{name}.svg",
                mime="image/svg+xml",
                key=f"svg-{name}",
                on_click="ignore",
            )


def quick_then_whole(key: str, inputs: object, draw: Callable[[bool], None], wait: float = 1.0) -> None:
    """Draw a slow part twice: `draw(False)`, its quick version, in the page's run, so the page is complete sooner;
    then `draw(True)`, the whole version, in a fragment run that starts `wait` seconds after the page has finished
    (1 s by default: time for the browser to paint the first view, which a fragment run begun sooner delays; the whole
    version can be computing meanwhile). Once drawn whole for these `inputs` (what the whole version is computed
    from), later runs draw it whole at once.

    The fragment run ends with a rerun of the page, which stops the fragment's timer (a full run clears it). Each
    version sits in a keyed container, so a browser can tell them apart: `.st-key-quick-KEY`, `.st-key-whole-KEY`.
    """
    whole, quick = f"_whole-{key}", f"_quick-{key}"
    if st.session_state.get(whole) == inputs:
        with st.container(key=f"whole-{key}"):  # the page says which version it shows (.st-key-whole-KEY)
            draw(True)
        return
    st.session_state.pop(quick, None)

    @st.fragment(run_every=wait)
    def part() -> None:
        drawn = st.session_state.get(quick)
        # the page's run, or a fragment run queued while the page ran (the timer starts when the fragment is
        # declared): the quick version, so that the page finishes and shows before the whole one is computed
        if drawn is None or drawn[0] != inputs or time.monotonic() - drawn[1] < wait:
            with st.container(key=f"quick-{key}"):
                draw(False)
            if drawn is None or drawn[0] != inputs:
                st.session_state[quick] = (inputs, time.monotonic())
            return
        with st.container(key=f"whole-{key}"):  # the fragment's run after the page has painted
            draw(True)
        st.session_state[whole] = inputs
        # a workaround, see RESEND_CONTROLS (Streamlit's frontend, the upstream issue): the controls are sent again
        st.session_state[RESEND_CONTROLS] = True
        st.rerun()

    part()


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
