"""MiniLM: a trained encoder (all-MiniLM-L6-v2)

The toy pages use random weights. This one uses a trained sentence encoder (6 layers, width 384, 12 heads),
which adds a learned position row to every token before its first attention layer. Training gave position 0 a
long vector of its own and made neighbouring rows similar: a smooth code of position, found without any
formula. Remove the rows and the model is as order-blind as the toy.
"""

import streamlit as st

import ui
from posviz.drawing import figures
from posviz.drawing.display import number
from posviz.experiments import lessons
from posviz.maths import verdicts
from posviz.models import minilm

ui.page_setup(__doc__)
STEPS = lessons.magnitude_steps()
# Two parts, so that a first visit draws two charts and three pictures, not seven and nine.
PARTS = {"table": "the learned position table", "sentences": "two sentences through layer 0"}
P = ui.params(
    ui.part_param(PARTS),
    *ui.sentence_params(f"{minilm.MAX_TOKENS} tokens"),
    ui.Param("head", 1, "int", 1, 12, label="attention head"),
    ui.Param(
        "scale",
        1.0,
        "choice",
        options=STEPS,
        label="scale of the position rows (1 = the trained model)",
        widget="select_slider",
    ),
    ui.Param("token", "man", "text", max_len=60, label="token in both sentences"),
)
table = st.cache_resource(minilm.position_table)
pair = st.cache_data(minilm.compare_texts, max_entries=32)
curve = st.cache_data(minilm.curve_texts, max_entries=32)

# Each part's controls: the sentences part's in the sidebar, and its scale and token beside its numbers (the token is
# picked among the tokens both sentences have, known once they are read).
s = ui.sidebar(P, page="minilm", keys={"table": (), "sentences": ("s1", "s2", "head")})

if s.part == "table":
    pos = table()
    ui.readings(
        [
            ui.Reading(
                "norm of position 0", pos.norms[0], caption=f"median of positions 1-511: {number(pos.median_norm)}"
            ),
            ui.Reading(
                "cosine of neighbouring positions",
                pos.neighbour_cosine,
                caption=f"median over all t; positions 128 apart: {number(pos.apart(128))}",
            ),
            ui.Reading(
                "most opposite pair of rows",
                pos.most_opposite,
                caption="cosine similarity; far positions can point away from each other",
            ),
        ]
    )
    left, right = st.columns(2)
    long_rows = pos.long_rows(1.3)
    norms_line = (
        f"rows {', '.join(str(t) for t in long_rows)} are also over 1.3 × the median "
        f"({', '.join(number(pos.norms[t]) for t in long_rows)})"
        if long_rows
        else "no other row is over 1.3 × the median"
    )
    with left:
        ui.figure(figures.learned_table_picture(pos), image_height=ui.fit(None, 290), in_columns=2)
        ui.takeaway(
            f"Take from it: a row per position, a column per dimension; row 0 (the top line) is the longest, "
            f"{number(pos.norms[0] / pos.median_norm)} × the median norm. Colours stop at the 99th percentile of "
            "|value|: the largest 1% of values share the end colours."
        )
    with right:
        norms, profile = figures.learned_table_curves(pos)
        ui.figure(norms, height=ui.fit(280, 170), in_columns=2)
        ui.takeaway(
            f"Take from it: besides row 0, {norms_line}. Median norm of rows 1-126: "
            f"{number(pos.median_norm_of(1, 127))}, of rows 128-509: {number(pos.median_norm_of(128, 510))}: "
            "a step after row 127. The table shows it; it does not say why."
        )
        ui.figure(profile, height=ui.fit(280, 170), in_columns=2)
        ui.takeaway(
            f"Take from it: neighbouring rows point alike ({number(pos.apart(1))}), rows 128 apart hardly "
            f"({number(pos.apart(128))}); over the first 128 k the learned curve goes up again {pos.rises(128)} times."
        )
    for column, fig in zip(st.columns(2), figures.position_cosine_pictures(pos), strict=True):
        with column:
            ui.figure(fig, in_columns=2)
    ui.takeaway(
        "Take from it: row t against column u, both 0-511; the diagonal is 1 (a row with itself), and the brightness "
        f"beside it is how alike nearby positions are. At 128 apart: learned {number(pos.apart(128))}, "
        f"sinusoidal {number(pos.apart(128, sinusoid=True))}."
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
    ui.readings(
        [
            ui.Reading(
                f"'{token}', layer-0 output, position rows removed: max diff",
                plain,
                ui.Badge(verdicts.machine_zero(plain), "identical in both sentences (order-blind)", "different"),
            ),
            ui.Reading(
                f"'{token}', layer-0 output, rows × {number(s.scale)}: max diff",
                real,
                ui.Badge(not verdicts.machine_zero(real), "different: position tells the sentences apart", "identical"),
            ),
        ]
    )
    for name, rows, with_position in (
        ("plain", "no position", False),
        ("position", f"position rows × {number(s.scale)}", True),
    ):
        first, second = result.head_weights(s.head, with_position=with_position)
        ui.weights_row(
            [
                ui.Panel(f"head {s.head}, sentence 1, {rows}", first, f"minilm-{name}-1", rows=result.first.tokens),
                ui.Panel(f"head {s.head}, sentence 2, {rows}", second, f"minilm-{name}-2", rows=result.second.tokens),
            ],
            annotate_cols=8,
            height=ui.fit(None, 190),
        )

    ui.takeaway(
        "Take from it: without position rows the two sentences' maps hold the same weights, moved with the words "
        "(a token attends alike wherever it stands); with the rows they differ."
    )
    scales, distances = curve(text1, text2, token)
    fig = figures.distance_curve(scales, distances, s.scale, real, log=True)
    ui.figure(
        fig,
        prefix="minilm-",
        points=False,
        height=320,
        x_title="scale of the position rows (log)",
        title=f"'{token}': distance between its two layer-0 outputs against the scale",
    )
    said = ui.escape(token)  # a token of typed text: shown literally
    ui.takeaway(
        f"Take from it: the distance between '{said}''s two outputs comes from the position rows alone: at scale 0 "
        "it is rounding only; the marked point is the scale set above (a log axis has no place for 0)."
        if verdicts.machine_zero(distances[0])
        else f"Take from it: '{said}''s two outputs differ even without position rows here; the rows add to that."
    )
    st.caption(f"At scale 0 the distance is {number(distances[0])}; the log axes start at 1e-4.")
