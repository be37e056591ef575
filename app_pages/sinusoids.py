"""Sinusoids

Each pair of features turns around a circle at its own rate as the position grows: the first pair once every 2π
positions, the last pair almost `base` times slower. Together the pairs give every position a distinct code of constant
length, and moving k positions is the same rotation for every row.
"""

import streamlit as st

import posviz
import ui
from posviz.drawing import figures
from posviz.drawing.display import number
from posviz.maths import grids, parsing, properties, verdicts

FORMULA = (
    r"\mathrm{pe}_{t,2i} = \sin\!\big((s+t)\,\omega_i\big),\quad"
    r"\mathrm{pe}_{t,2i+1} = \cos\!\big((s+t)\,\omega_i\big),\quad \omega_i = \mathrm{base}^{-2i/d}"
)
ui.page_setup(__doc__, FORMULA)
MAX_LENGTH, MAX_WIDTH = 8192, 2048
CURVE_WINDOW, SIM_WINDOW, ZOOM_WINDOW, TABLE_CELLS = 256, 64, 64, 4096
VIEWS = ("auto", "chart", "zoom: exact values", "image")
CHECKS = ("row norms", "similarity", "wavelengths", "dimensions over position")
P = ui.params(
    ui.Param(
        "T", 64, "int", 1, MAX_LENGTH, label=f"length T (1 to {MAX_LENGTH})", widget="number", aliases=("length",)
    ),
    ui.width_param(64, 2, MAX_WIDTH, label=f"width d (even, 2 to {MAX_WIDTH})", widget="number", aliases=("width",)),
    ui.Param("base", 10000.0, "float", 2.0, 10_000_000.0, nudge=1000.0, widget="number", number_format="%.0f"),
    ui.Param("start", 0, "int", 0, 1_000_000, label="start s (first position)", widget="number"),
    ui.Param("k", 3, "int", 1, MAX_LENGTH - 1, label="offset k for the linear-map check", widget="number"),
    ui.Param("view", "auto", "choice", options=VIEWS, label="table view", widget="segmented"),
    ui.Param("zr", 0, "int", 0, MAX_LENGTH - 1, nudge=16, label="first row of the window", widget="number"),
    ui.Param("zc", 0, "int", 0, MAX_WIDTH - 1, nudge=16, label="first dimension of the window", widget="number"),
    ui.Param("check", CHECKS[0], "choice", options=CHECKS, widget="segmented"),
    ui.Param("dims", "0 1 8 9", "text", max_len=80, label="dimensions to draw (up to 6)"),
)
summarize = st.cache_data(properties.summarize_sinusoid, max_entries=4)
table = st.cache_data(posviz.sinusoidal, max_entries=8)
zoom = st.cache_data(properties.sinusoid_window, max_entries=16)
AXES = figures.table_axes("position t (from start)")

s = ui.sidebar(P, page="sinusoids", keys=("T", "d", "base", "start", "k"))

summary = summarize(s.T, s.d, s.start, s.base, offset=min(s.k, max(s.T - 1, 1)), max_cells=TABLE_CELLS)
sin0, cos0 = properties.first_row_errors(s.d, s.base)
k = summary.offset

m1, m2, m3 = st.columns(3)
with m1:
    ui.headline("max |‖pe_t‖² − d/2| over all rows", number(summary.norm_deviation))
    ui.badge(verdicts.negligible(summary.norm_deviation), f"every row has ‖pe‖² = {s.d // 2}", "norms drift")
with m2:
    ui.headline("position 0: max |sin|, max |cos − 1|", f"{number(sin0)}, {number(cos0)}")
    ui.badge(verdicts.exactly_zero(sin0) and verdicts.exactly_zero(cos0), "sines 0, cosines 1", "position 0 is off")
with m3:
    ui.headline(f"max |pe[t+{k}] − M_{k} pe[t]|", number(summary.offset_residual))
    ui.badge(
        verdicts.negligible(summary.offset_residual), f"one matrix shifts every row by {k}", "no single linear map"
    )
    st.caption(f"M_{k}: one fixed matrix (a rotation per pair) that moves each row {k} rows on.")


@st.fragment
def table_view() -> None:
    picker, words = st.columns([2, 3], vertical_alignment="bottom")
    with picker:
        view = ui.control(P["view"]) or "auto"
    with words:  # beside the picker: the line stays on the first screen in presenter mode
        ui.takeaway(
            "Each pair of columns is one sine and its cosine: the first pair changes fastest (a turn every "
            "2π ≈ 6.3 positions), each later pair slower, so every row holds its own pattern."
        )
    if view == "auto":
        view = "image" if summary.chart.aggregated else "chart"
        if not ui.presenter():
            st.caption(f"auto: {view} (a chart when every value fits in {TABLE_CELLS:,} cells, else the image)")
    title = f"sinusoidal table, positions {s.start}..{s.start + s.T - 1}"
    if view == "chart":
        ui.reduced_heatmap(summary.chart, name="sinusoid-table", title=title, height=ui.fit(360, 180), **AXES)
    elif view == "zoom: exact values":
        s.zr, s.zc = min(s.zr, s.T - 1), min(s.zc, s.d - 1)
        a, b = st.columns(2)
        with a:
            ui.control(P["zr"], hi=s.T - 1)
        with b:
            ui.control(P["zc"], hi=s.d - 1)
        part, row0, col0 = zoom(s.T, s.d, s.start, s.base, s.zr, s.zc, ZOOM_WINDOW)
        where = f"{title}: exact values from row {row0}, dimension {col0}"
        ui.matrix_chart(
            part, title=where, name="sinusoid-window", row_offset=row0, col_offset=col0, height=360, hover=True, **AXES
        )
    else:
        ui.show_image(summary.image, title=title, domain=(-1.0, 1.0), value_title="pe", what="dimension →, position ↓")
    ui.sync_url(P)


def open_checks() -> None:
    s.checks_open = True


@st.fragment
def check_view() -> None:
    if summary.chart.aggregated and "check" not in st.query_params and not s.get("checks_open"):
        st.caption(
            "For a table this large the page opens without a check chart (the numbers above already check "
            "every row); a chart costs most of a second on first paint."
        )
        st.button("Draw the check charts", icon=":material/monitoring:", on_click=open_checks)
        return
    check = ui.control(P["check"]) or CHECKS[0]
    head = table(min(s.T, max(CURVE_WINDOW, SIM_WINDOW)), s.d, start=s.start, base=s.base)
    if check == "row norms":
        stride = grids.stride(s.T, 2048)
        ui.takeaway(f"Every row's squared norm sits on d/2 = {s.d // 2}: each sin/cos pair adds sin² + cos² = 1.")
        ui.figure(figures.row_norms(summary.squared_norms, s.d, start=s.start, stride=stride))
        if stride > 1:
            st.caption(f"Every {stride}th position drawn; the badge above checks all {s.T}.")
    elif check == "similarity":
        sim = properties.similarity(head[:SIM_WINDOW])
        spread = properties.diagonal_spread(sim)
        ui.badge(
            verdicts.depends_only_on_offset(sim),
            f"depends only on t − u (spread along diagonals {number(spread)})",
            f"varies along diagonals ({number(spread)})",
        )
        ui.takeaway(
            f"Each diagonal (one offset t − u) holds one value, largest on the main one (a row with itself: "
            f"d/2 = {s.d // 2}): two rows' similarity depends only on how far apart they are."
        )
        shape = dict(
            row_title="position t",
            col_title="position u",
            value_title="dot product",
            height=ui.fit(360, 300),
            square=True,
        )
        title = f"similarity pe·peᵀ, first {sim.shape[0]} positions"
        ui.matrix_chart(sim, title=title, name="similarity", row_offset=s.start, col_offset=s.start, **shape)
    elif check == "wavelengths":
        ui.takeaway(
            "From 2π ≈ 6.3 positions a turn for pair 0 to almost 2π × base for the last: each pair is a fixed "
            "factor slower than the one before, a straight line on the log axis."
        )
        ui.figure(figures.wavelengths(s.d, s.base))
    else:
        ui.control(P["dims"])
        dims = ui.guarded(
            lambda: parsing.parse_indices(s.dims, s.d),
            lambda: [0, 1],
            "Dimensions to draw",
            "drawing dimensions 0 and 1",
        )
        ui.takeaway(
            "Dimension 2i is a sine and 2i + 1 its cosine: a pair's two curves share one rate, and a "
            "higher pair turns more slowly."
        )
        ui.figure(figures.dimension_curves(head, dims, start=s.start, shown=min(s.T, CURVE_WINDOW)))
    ui.sync_url(P)


table_view()
check_view()
