"""A real transformer: all-MiniLM-L6-v2

The toy pages use random weights. This one uses a trained sentence encoder (6 layers, width 384, 12 heads),
which adds a learned position row to every token before its first attention layer. Training gave position 0 a
long vector of its own and made neighbouring rows similar: a smooth code of position, found without any
formula. Remove the rows and the model is as order-blind as the toy.
"""

import streamlit as st

import ui
from posviz.drawing import charts, figures
from posviz.drawing.display import number
from posviz.experiments import lessons
from posviz.maths import grids, verdicts
from posviz.models import minilm

ui.page_setup(__doc__)
STEPS = lessons.magnitude_steps()
# Two parts, so that a first visit draws two charts and three pictures, not seven and nine.
PARTS = {"table": "the learned position table", "sentences": "two sentences through layer 0"}
P = ui.params(
    ui.part_param(PARTS),
    *ui.sentence_params(f"{minilm.MAX_TOKENS} tokens"),
    ui.Param("head", 1, "int", 1, 12, label="attention head"),
    ui.Param("scale", 1.0, "choice", options=STEPS, label="scale of the position rows (1 = the trained model)",
             widget="select_slider"),
    ui.Param("token", "man", "text", max_len=60, label="token in both sentences"),
)  # fmt: skip
table = st.cache_resource(minilm.position_table)
pair = st.cache_data(minilm.compare_texts, max_entries=32)
curve = st.cache_data(minilm.curve_texts, max_entries=32)

s = ui.sidebar(P, page="minilm", keys={"table": (), "sentences": ("s1", "s2", "head")})

if s.part == "table":
    pos = table()
    a, b, c = st.columns(3)
    with a:
        ui.headline("norm of position 0", number(pos.norms[0]))
        st.caption(f"median of positions 1-511: {number(pos.median_norm)}")
    with b:
        ui.headline("cosine of neighbouring positions", number(pos.neighbour_cosine))
        st.caption(f"median over all t; positions 128 apart: {number(pos.by_distance[127])}")
    with c:
        ui.headline("most opposite pair of rows", number(pos.cosine.min()))
        st.caption("cosine similarity; far positions can point away from each other")

    left, right = st.columns(2)
    with left:
        clip = charts.robust_domain(pos.table)
        ui.show_image(
            grids.reduced(pos.table, 1, 1),
            title="position rows (512 x 384)",
            scheme=charts.SIGNED_SCHEME,
            domain=clip,
            value_title=f"value (colours clipped at ±{number(clip[1])}, the 99th percentile)",
            what="dimension →, position ↓",
            height=ui.fit(None, 290),
            in_columns=2,
        )
    with right:
        for fig in figures.learned_table_curves(pos):
            ui.figure(fig, height=ui.fit(280, 170), in_columns=2)
    for column, cosine, which in zip(
        st.columns(2), (pos.cosine, pos.sinusoid_cosine), ("MiniLM (learned)", "sinusoidal"), strict=True
    ):
        with column:
            ui.show_image(
                grids.reduced(cosine, 1, 1),
                title=f"cosine between positions: {which}",
                scheme=charts.SIGNED_SCHEME,
                domain=(-1.0, 1.0),
                value_title="cosine",
                what="position →, position ↓",
                in_columns=2,
            )
else:
    text1, text2 = ui.capped_sentences(s, P)
    result = pair(text1, text2, s.scale)
    ui.token_notes(((result.first, "Sentence 1"), (result.second, "Sentence 2")), minilm.MAX_TOKENS)
    if not ui.presenter():  # the headlines name the token; a shared screen keeps the height for the weights
        st.text(f"1: {' '.join(result.first.tokens)}\n2: {' '.join(result.second.tokens)}")
    shared = result.shared_tokens()
    if not shared:
        ui.control(P["scale"])
        ui.note("The sentences share no token, so there is no word to compare; try the defaults.")
        st.stop()
    if s.token not in shared:
        s.token = shared[0]
    scale_box, token_box = st.columns([3, 1])  # side by side: the comparison below stays on a 720 px screen
    with scale_box:
        ui.control(P["scale"])
    with token_box:
        token = ui.control(P["token"], kind="choice", options=shared)
    ui.sync_url(P)

    plain, real = result.token_diff(token, with_position=False), result.token_diff(token, with_position=True)
    a, b = st.columns(2)
    with a:
        ui.headline(f"'{token}', layer-0 output, position rows removed: max diff", number(plain))
        ui.badge(verdicts.machine_zero(plain), "identical in both sentences (order-blind)", "different")
    with b:
        ui.headline(f"'{token}', layer-0 output, rows × {number(s.scale)}: max diff", number(real))
        ui.badge(not verdicts.machine_zero(real), "different: position tells the sentences apart", "identical")

    h = s.head - 1
    for weights, tokens, name in (
        (result.weights_plain, "no position", "plain"),
        (result.weights, f"position rows × {number(s.scale)}", "position"),
    ):
        cols = st.columns(2)
        for col, w, toks, which in zip(cols, weights, (result.first, result.second), (1, 2), strict=True):
            with col:
                ui.weights_chart(
                    w[h],
                    toks.tokens,
                    title=f"head {s.head}, sentence {which}, {tokens}",
                    name=f"minilm-{name}-{which}",
                    annotate_cols=8,
                    height=ui.fit(None, 190),
                    in_columns=2,
                )

    scales, distances = curve(text1, text2, token)
    fig = figures.distance_curve(scales, distances, s.scale, real, log=True)
    ui.figure(fig, prefix="minilm-", points=False, height=320, x_title="scale of the position rows (log)",
              title=f"'{token}': distance between its two layer-0 outputs against the scale")  # fmt: skip
    st.caption(f"At scale 0 the distance is {number(distances[0])}; the log axes start at 1e-4.")
