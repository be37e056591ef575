"""Layouts: the same code in a different order

Codebases write the same sinusoids and rotations in different dimension orders: the paper interleaves sin and cos (2i,
2i+1); tensor2tensor and the TensorFlow tutorial put all sines first, then all cosines. RoFormer and GPT-J rotate
interleaved pairs; GPT-NeoX and Llama rotate dimension i with i + d/2. Each pair of layouts is equal after one fixed
permutation of the dimensions. The one real numeric difference is tensor2tensor's choice of frequencies.
"""

import streamlit as st

import ui
from posviz.drawing import figures
from posviz.drawing.display import number
from posviz.maths import variants, verdicts

ui.page_setup(__doc__)
P = ui.params(
    ui.tokens_param(64, 1024, label="length T", widget="number", aliases=("length",)),
    ui.width_param(64, 4, 1024, widget="number", aliases=("width",)),
    ui.Param("base", 10000.0, "float", 2.0, 10_000_000.0, nudge=1000.0, widget="number", number_format="%.0f"),
)
compare = st.cache_data(variants.compare_layouts, max_entries=8)

s = ui.sidebar(P, page="layouts")

r = compare(s.T, s.d, s.base)
a, b, c = st.columns(3)
with a:
    ui.headline("sin/cos tables: max diff after permuting", number(r.table_gap))
    ui.badge(verdicts.exactly_zero(r.table_gap), "interleaved = [sin | cos], permuted", "they differ")
with b:
    ui.headline("RoPE: max diff after permuting", number(r.rope_gap))
    ui.badge(verdicts.exactly_zero(r.rope_gap), "interleaved = rotate-half, permuted", "they differ")
with c:
    ui.headline("tensor2tensor table: max diff", number(r.timescale_gap))
    ui.badge(
        not verdicts.exactly_zero(r.timescale_gap), "a real difference, not a layout", "same timescales", state=True
    )
    if not ui.presenter():  # the shared screen keeps its line for the charts
        st.caption(f"slowest frequency: {number(r.slowest_paper)} (paper) vs {number(r.slowest_t2t)} (tensor2tensor)")

ui.takeaway(
    "Same values, other columns: the right table is the left one with its sines moved to the first half and "
    "its cosines to the second (this table uses the paper's frequencies in both layouts)."
)
left, right = st.columns(2)
for column, table, title, name in (
    (left, r.interleaved, "the paper: interleaved sin, cos", "interleaved"),
    (right, r.concat, "tensor2tensor layout: [sin | cos]", "concatenated"),
):
    with column:
        ui.matrix_chart(table, title=title, name=name, height=ui.fit(300, 250), in_columns=2, **figures.table_axes())

ui.takeaway(
    f"The one real difference: tensor2tensor spaces its frequencies by i/(d/2 − 1), not 2i/d, so its slowest "
    f"pair turns at {number(r.slowest_t2t)} radians per position, the paper's at {number(r.slowest_paper)}."
)
ui.figure(figures.frequencies(s.d, s.base))
