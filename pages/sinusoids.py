"""Sinusoids: the fixed position table, its frequencies, and the properties that make it useful."""

import numpy as np
import pandas as pd
import streamlit as st

import posviz
import ui
from posviz import charts, lessons, properties

MAX_LENGTH, MAX_WIDTH, CURVE_WINDOW, SIM_WINDOW = 8192, 2048, 1024, 128
ui.page_setup()
PARAMS = [
    ui.Param("length", 64, "int", 1, MAX_LENGTH),
    ui.Param("width", 64, "int", 2, MAX_WIDTH, step=2),
    ui.Param("base", 10000.0, "float", 2.0, 10_000_000.0),
    ui.Param("start", 0, "int", 0, 1_000_000),
    ui.Param("dims", "0 1 8 9", "text", max_len=80),
    ui.Param("k", 3, "int", 1, MAX_LENGTH - 1),
]
table = st.cache_data(posviz.sinusoidal, max_entries=16)

st.title("Sinusoids")
ui.intro(
    "Each pair of features turns around a circle at its own rate as the position grows: "
    "the first pair every 2π positions, the last pair almost `base` times slower. "
    "Together the pairs give every position a distinct code, and moving k positions is the same "
    "rotation for every row."
)
st.latex(
    r"\mathrm{pe}_{t,2i} = \sin\!\big((s+t)\,\omega_i\big),\quad"
    r"\mathrm{pe}_{t,2i+1} = \cos\!\big((s+t)\,\omega_i\big),\quad \omega_i = \mathrm{base}^{-2i/d}"
)
ui.url_state(PARAMS)
s = st.session_state
with st.sidebar:
    st.number_input(f"length T (1 to {MAX_LENGTH})", 1, MAX_LENGTH, key="length")
    st.number_input(f"width d (even, 2 to {MAX_WIDTH})", 2, MAX_WIDTH, step=2, key="width")
    st.number_input("base", 2.0, 10_000_000.0, step=1000.0, key="base", format="%.0f")
    st.number_input("start s (first position)", 0, 1_000_000, key="start")
    st.text_input("dimensions to draw (up to 6)", key="dims", max_chars=80)
    st.number_input("offset k for the linear-map check", 1, MAX_LENGTH - 1, key="k")
ui.sync_url(PARAMS)

pe = table(s.length, s.width, start=s.start, base=s.base)
norms = properties.squared_norms(pe)
norm_dev = properties.norm_deviation(pe)
sin0, cos0 = properties.first_row_errors(s.width, s.base)
k = min(s.k, max(s.length - 1, 1))
residual = properties.offset_residual(pe, k, s.base) if s.length > 1 else 0.0

m1, m2, m3 = st.columns(3)
with m1:
    ui.headline("max |‖pe_t‖² − d/2| over all rows", f"{norm_dev:.2g}")
    ui.badge(norm_dev < 1e-9, f"every row has ‖pe‖² = {s.width // 2}", "norms drift")
with m2:
    ui.headline("position 0: max |sin|, max |cos − 1|", f"{sin0:.2g}, {cos0:.2g}")
    ui.badge(sin0 == 0 and cos0 == 0, "sines 0, cosines 1", "position 0 is off")
with m3:
    ui.headline(f"max |pe[t+{k}] − M_{k} pe[t]|", f"{residual:.2g}")
    ui.badge(residual < 1e-9, f"one matrix shifts every row by {k}", "no single linear map")

reduced = posviz.grids.block_mean(pe, ui.MAX_MARKS)
ui.show_chart(
    charts.grid_heatmap(
        reduced,
        title=f"sinusoidal table, positions {s.start}..{s.start + s.length - 1}",
        row_title="position t (from start)",
        col_title="dimension",
        value_title="pe",
        domain=(-1.0, 1.0),
        height=360,
    ),
    charts.reduced_frame(reduced),
    "sinusoid-table",
)

left, right = st.columns(2)
with left:
    waves = pd.DataFrame({"pair": np.arange(s.width // 2), "wavelength": properties.wavelengths(s.width, s.base)})
    ui.show_chart(
        charts.lines(
            waves,
            x="pair",
            y="wavelength",
            title="wavelength of each sin/cos pair",
            x_title="pair i (dimensions 2i, 2i+1)",
            y_title="positions per turn (log)",
            log_y=True,
        ),
        waves,
        "wavelengths",
    )
with right:
    dims = ui.guarded(
        lambda: lessons.parse_indices(s.dims, s.width),
        lambda: [0, 1],
        "Dimensions to draw",
        "drawing dimensions 0 and 1",
    )
    shown = min(s.length, CURVE_WINDOW)
    curves = charts.columns_frame(pe, dims, first=s.start, rows=shown)
    ui.show_chart(
        charts.lines(
            curves,
            x="position",
            y="value",
            color="dimension",
            title=f"chosen dimensions over the first {shown} positions",
            x_title="position",
            y_title="pe",
        ),
        curves,
        "dimension-curves",
    )

left, right = st.columns(2)
with left:
    stride = max(1, s.length // 2048)
    norm_frame = pd.DataFrame({"position": s.start + np.arange(0, s.length, stride), "squared norm": norms[::stride]})
    chart = charts.lines(
        norm_frame,
        x="position",
        y="squared norm",
        title="squared norm of every row",
        x_title="position",
        y_title="‖pe_t‖²",
    ) + charts.hline(s.width / 2, f"d/2 = {s.width // 2}")
    ui.show_chart(chart, norm_frame, "row-norms")
    if stride > 1:
        st.caption(f"Every {stride}th position drawn; the badge above checks all {s.length}.")
with right:
    window = pe[:SIM_WINDOW]
    sim = properties.similarity(window)
    spread = properties.diagonal_spread(sim)
    ui.matrix_chart(
        sim,
        title=f"similarity pe·peᵀ, first {window.shape[0]} positions",
        row_title="position t",
        col_title="position u",
        domain=charts.signed_domain(sim),
        name="similarity",
        value_title="dot product",
    )
    ui.badge(spread < 1e-9, f"depends only on t − u (spread {spread:.1g})", f"varies along diagonals ({spread:.2g})")
