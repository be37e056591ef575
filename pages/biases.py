"""Relative biases: T5 buckets, Shaw's clipping, ALiBi and KERPLE, each a function of j - i only."""

import streamlit as st

import ui
from posviz import biases, charts, longcharts

ui.page_setup()
LABELS = {
    "t5": "T5 bidirectional",
    "t5_causal": "T5 causal",
    "shaw": "Shaw clipped",
    "alibi": "ALiBi",
    "kerple": "KERPLE log",
}
PARAMS = [
    ui.Param("T", 48, "int", 2, 200),
    ui.Param("reach", 160, "int", 8, 1000),
    ui.Param("clip", 4, "int", 1, 64),
    ui.Param("heads", 8, "int", 1, 32),
    ui.Param("head", 5, "int", 1, 32),
    ui.Param("r1", 1.0, "float", 0.01, 10.0),
    ui.Param("r2", 1.0, "float", 0.01, 10.0),
    ui.Param("seed", 0, "int", 0, 99_999),
]
st.title("Relative position biases")
ui.intro(
    "Instead of rotating queries and keys, these schemes add a number to each attention logit that depends on "
    "how far the key is from the query. T5 (32 buckets, max distance 128) learns one number per bucket: exact "
    "buckets for small distances, log-spaced after, everything past the max distance in the last one. Shaw et "
    "al. learn one per offset clipped to ±k. ALiBi and KERPLE use a fixed shape with a slope or two learned "
    "scalars. T5's and Shaw's learned numbers are a seeded N(0, 1) stand-in here."
)
ui.url_state(PARAMS)
s = st.session_state
with st.sidebar:
    st.slider("matrix size T", 2, 200, key="T")
    st.slider("offsets drawn, ±", 8, 1000, key="reach")
    st.slider("Shaw clip k", 1, 64, key="clip")
    st.number_input("ALiBi heads", 1, 32, key="heads")
    if s.head > s.heads:
        ui.note(f"ALiBi head {s.head} of {s.heads} heads does not exist; drawing head {s.heads}.")
        s.head = s.heads
    st.number_input("ALiBi head", 1, s.heads, key="head")
    st.number_input("KERPLE r1", 0.01, 10.0, key="r1")
    st.number_input("KERPLE r2", 0.01, 10.0, key="r2")
    st.number_input("stand-in table seed", 0, 99_999, key="seed")
ui.sync_url(PARAMS)
shape = dict(clip=s.clip, heads=s.heads, head=s.head, r1=s.r1, r2=s.r2, seed=s.seed)

matrices = {kind: biases.bias(kind, biases.offsets(s.T), **shape) for kind in biases.KINDS}
residuals = {kind: biases.offset_residual(m) for kind, m in matrices.items()}
ui.headline("largest change along any diagonal, all five biases", f"{max(residuals.values()):g}")
for column, (kind, residual) in zip(st.columns(len(residuals)), residuals.items(), strict=True):
    with column:
        ui.badge(residual == 0, f"{LABELS[kind]}: only j - i", f"{LABELS[kind]}: varies along a diagonal")

offsets = biases.offsets(2 * s.reach + 1)[s.reach]  # -reach .. reach
frame = longcharts.bias_frame(offsets, {LABELS[k]: biases.bias(k, offsets, **shape) for k in biases.KINDS})
ui.show_chart(
    longcharts.bias_chart(frame, title="bias against the offset j - i", height=260).to_dict(), frame, "biases"
)

st.subheader(f"As {s.T} x {s.T} matrices (query i down, key j across)")
columns = st.columns(3) + st.columns(3)
for column, (kind, m) in zip(columns, matrices.items(), strict=False):
    with column:
        ui.matrix_chart(
            m, title=LABELS[kind], row_title="query i", col_title="key j", domain=charts.signed_domain(m),
            name=f"bias-{kind}", height=220,
        )  # fmt: skip
st.caption(
    "T5: `_relative_position_bucket` of Hugging Face transformers (Raffel et al. 2020); Shaw et al. 2018, "
    "section 3.2; ALiBi: Press et al. 2022, symmetric form (a causal model masks j > i anyway); KERPLE: "
    "Chi et al. 2022, -r1 log(1 + r2 |j - i|)."
)
