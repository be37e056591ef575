"""Relative position biases

Instead of rotating queries and keys, these schemes add a number to each attention logit that depends on how far the key
is from the query. T5 (32 buckets, max distance 128) learns one number per bucket: exact buckets for small distances,
log-spaced after, everything past the max distance in the last one. Shaw et al. learn one per offset clipped to ±k.
ALiBi and KERPLE use a fixed shape with a slope or two learned scalars. T5's and Shaw's learned numbers are a seeded
N(0, 1) stand-in here.
"""

import streamlit as st

import ui
from posviz.drawing import charts, frames, longviews
from posviz.drawing.display import number
from posviz.maths import biases, verdicts

ui.page_setup(__doc__)
P = ui.params(
    ui.tokens_param(48, 200, label="matrix size T"),
    ui.Param("reach", 160, "int", 8, 1000, label="offsets drawn, ±"),
    ui.Param("clip", 4, "int", 1, 64, label="Shaw clip k"),
    ui.Param("heads", 8, "int", 1, 32, label="ALiBi heads", widget="number"),
    ui.Param("head", 5, "int", 1, 32, label="ALiBi head", widget="number"),
    ui.Param("r1", 1.0, "float", 0.01, 10.0, step=0.01, label="KERPLE r1", widget="number"),
    ui.Param("r2", 1.0, "float", 0.01, 10.0, step=0.01, label="KERPLE r2", widget="number"),
    ui.seed_param(0, label="stand-in table seed"),
)
s = ui.url_state(P, page="biases")
with st.sidebar:
    ui.controls(P[k] for k in ("T", "reach", "clip", "heads"))
    if s.head > s.heads:
        ui.note(f"ALiBi head {s.head} of {s.heads} heads does not exist; drawing head {s.heads}.")
        s.head = s.heads
    ui.control(P["head"], hi=s.heads)
    ui.controls(P[k] for k in ("r1", "r2", "seed"))
ui.sync_url(P)
shape = dict(clip=s.clip, heads=s.heads, head=s.head, r1=s.r1, r2=s.r2, seed=s.seed)

matrices = longviews.bias_matrices(s.T, **shape)
residuals = {kind: biases.offset_residual(m) for kind, m in matrices.items()}
ui.headline("largest change along any diagonal, all five biases", number(max(residuals.values())))
varying = ", ".join(longviews.BIAS_NAMES[k] for k, r in residuals.items() if not verdicts.exactly_zero(r))
ui.badge(not varying, f"all {len(residuals)} depend only on j - i", f"varies along a diagonal: {varying}")

curves = longviews.bias_frame(s.reach, **shape)
ui.show_chart(
    charts.lines,
    frames.step_corners(curves, y="bias", group="kind"),  # the same steps with fewer points to draw
    table=curves,  # every offset in the CSV
    name="biases",
    x="offset",
    y="bias",
    color="kind",
    title="bias against the offset j - i",
    x_title="key position - query position (j - i)",
    y_title="bias added to the logit",
    steps=True,
    height=260,
)

st.subheader(f"As {s.T} x {s.T} matrices (query i down, key j across)")
ui.matrix_grid(
    [ui.Panel(longviews.BIAS_NAMES[kind], m, f"bias-{kind}") for kind, m in matrices.items()],
    row_title="query i",
    col_title="key j",
)
st.caption(
    "T5: `_relative_position_bucket` of Hugging Face transformers (Raffel et al. 2020); Shaw et al. 2018, "
    "section 3.2; ALiBi: Press et al. 2022, symmetric form (a causal model masks j > i anyway); KERPLE: "
    "Chi et al. 2022, -r1 log(1 + r2 |j - i|)."
)
