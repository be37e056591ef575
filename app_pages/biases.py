"""Relative position biases

Instead of rotating queries and keys, these schemes add a number to each attention logit that depends on how far the key
is from the query. T5 (32 buckets, max distance 128) learns one number per bucket: exact buckets for small distances,
log-spaced after, the last one from well before the max distance on. Shaw et al. learn one per offset clipped to ±k.
ALiBi and KERPLE use a fixed shape with a slope or two learned scalars. T5's and Shaw's learned numbers are a seeded
N(0, 1) stand-in here.
"""

import streamlit as st

import ui
from posviz.drawing import colours, frames, heatmaps, lines_bars
from posviz.drawing.display import number
from posviz.experiments import longer
from posviz.maths import biases, verdicts

ui.page_setup(__doc__)
P = ui.params(
    ui.tokens_param(48, 200, label="matrix size T"),
    ui.Param("reach", 160, "int", 8, 1000, label="offsets drawn, ±"),
    ui.Param("clip", 4, "int", 1, 64, label="Shaw clip k"),
    ui.Param("heads", longer.ALIBI_HEADS, "int", 1, 32, label="ALiBi heads", widget="number"),
    ui.Param("head", longer.ALIBI_HEAD, "int", 1, 32, label="ALiBi head", widget="number"),
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

matrices = longer.bias_matrices(s.T, **shape)
residuals = {kind: biases.offset_residual(m) for kind, m in matrices.items()}
top, side = st.columns([1, 2])
with top:
    ui.headline("largest |b(i+1, j+1) − b(i, j)|, all five matrices", number(max(residuals.values())))
    varying = ", ".join(longer.BIAS_NAMES[k] for k, r in residuals.items() if not verdicts.exactly_zero(r))
    ui.badge(not varying, f"all {len(residuals)} depend only on j - i", f"varies along a diagonal: {varying}")
with side:
    ui.takeaway(
        "That number is how much a bias changes from a cell to the next one down its diagonal: 0 means each bias is "
        "the same all along every diagonal, so it depends on the offset j − i alone, not on where the query is."
    )
    far, far_causal = biases.t5_last_bucket_start(), biases.t5_last_bucket_start(bidirectional=False)
    ui.takeaway(
        f"T5's and Shaw's values are random stand-ins (a seeded N(0, 1) number per bucket or clipped offset), not "
        f"trained ones: read where they step, not how high. T5's last bucket starts at |j − i| = {far} "
        f"(causal: i − j = {far_causal}), not at 128: its log-spaced buckets round down."
    )

slope = longer.alibi_slope(s.heads, s.head)
curves = frames.bias_frame(s.reach, **shape)
ui.show_chart(
    lines_bars.lines_keyed,
    frames.step_corners(curves, y="bias", group="kind"),  # the same steps with fewer points to draw
    table=curves,  # every offset in the CSV
    name="biases",
    x="offset",
    y="bias",
    color="kind",
    colours=colours.bias_colours(),
    title=f"bias against the offset j - i (ALiBi: head {s.head} of {s.heads}, slope {number(slope)})",
    x_title="key position - query position (j - i)",
    y_title="bias added to the logit",
    steps=True,
    height=ui.fit(260, 210),
)

shared = heatmaps.signed_domain(*matrices.values())
st.subheader(f"As {s.T} x {s.T} matrices (query i down, key j across)")
ui.takeaway(
    f"All five on one colour scale, ±{number(shared[1], 2)}: a paler matrix adds smaller numbers. ALiBi is head "
    f"{s.head} of {s.heads} (slope {number(slope)}), as in the chart above."
)
ui.matrix_grid(
    [ui.Panel(longer.BIAS_NAMES[kind], m, f"bias-{kind}", domain=shared) for kind, m in matrices.items()],
    row_title="query i",
    col_title="key j",
)
st.caption(
    "T5: `_relative_position_bucket` of Hugging Face transformers (Raffel et al. 2020); Shaw et al. 2018, "
    "section 3.2; ALiBi: Press et al. 2022, symmetric form (a causal model masks j > i anyway); KERPLE: "
    "Chi et al. 2022, -r1 log(1 + r2 |j - i|)."
)
