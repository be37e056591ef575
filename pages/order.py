"""Order blindness: shuffle the tokens, attend, and compare with the shuffled output (lesson 000)."""

import streamlit as st

import posviz
import ui
from posviz import lessons, parsing, verdicts
from posviz.display import number

KINDS = posviz.POSITION_KINDS
ui.page_setup()
P = ui.params(
    ui.Param("seed", 42, "int", 0, 99_999, widget="number", help="RandomState seed for X, then w_q, w_k, w_v"),
    ui.Param("T", 6, "int", 2, 256, label="tokens T"),
    ui.Param("C", 8, "int", 2, 256, step=2, label="width C (even)", help="even, so sinusoids and rotary have pairs"),
    ui.Param("wscale", 0.5, "float", 0.0, 3.0, step=0.05, label="weight scale"),
    ui.Param("perm_mode", "typed", "choice", options=("typed", "shuffle"), label="permutation", widget="horizontal"),
    ui.Param("perm", "3 0 5 1 4 2", "text", max_len=1200, label="perm (0..T-1, each once)"),
    ui.Param("shuffle_seed", 0, "int", 0, 99_999, label="shuffle seed", widget="number"),
    ui.Param("position", "none", "choice", options=KINDS, label="position signal"),
    ui.Param("pscale", 0.6, "float", 0.0, 3.0, step=0.05, label="position scale"),
    ui.Param("causal", False, "bool", label="causal mask"),
    ui.Param("forget", False, "bool", label="1: forget to reorder the reference"),
    ui.Param("offset", False, "bool", label="2: constant offset 0.6 instead"),
    ui.Param("first", 0, "int", 0, 255, label="first slot", widget="number"),
    ui.Param("second", 4, "int", 0, 255, label="second slot", widget="number"),
)
experiment = st.cache_data(lessons.order_experiment, max_entries=64)
twins = st.cache_data(lessons.twin_experiment, max_entries=64)
pair_moves = st.cache_data(lessons.pair_move_experiment, max_entries=64)

st.title("Order blindness")
ui.intro(
    "Shuffle the input tokens, run one attention head, and compare with the original output shuffled "
    "the same way. Without position the two agree to the last bit: attention treats its input as a set. "
    "Add a vector that differs per position (the position vectors stay in their slots while the tokens "
    "move) and the agreement breaks."
)
ui.url_state(P, page="order")
s = st.session_state
with st.sidebar:
    ui.controls(P[k] for k in ("seed", "T", "C", "wscale", "perm_mode"))
    ui.control(P["perm"] if s.perm_mode == "typed" else P["shuffle_seed"])
    ui.control(P["position"], disabled=s.offset)
    ui.controls(P[k] for k in ("pscale", "causal"))
    st.caption("Lesson 000 exercises")
    ui.controls(P[k] for k in ("forget", "offset"))
ui.sync_url(P)

T, C = s.T, s.C
position, pscale = ("constant", 0.6) if s.offset else (s.position, s.pscale)
perm = lessons.shuffled(T, s.shuffle_seed)
if s.perm_mode == "typed":
    perm = ui.guarded(
        lambda: parsing.parse_permutation(s.perm, T),
        lambda: perm,
        "The typed permutation",
        f"using a shuffle with seed {s.shuffle_seed}",
    )
result = experiment(
    seed=s.seed,
    length=T,
    width=C,
    weight_scale=s.wscale,
    perm=tuple(int(p) for p in perm),
    position=position,
    scale=pscale,
    causal=s.causal,
    forget_reorder=s.forget,
)

blind = result.order_blind
left, right = st.columns([3, 2])
with left:
    ui.headline("max |attn(P X) − P attn(X)|", f"{result.max_diff:.3g}")
    ui.badge(blind, "order-blind (machine zero)", "order-aware")
with right:
    st.latex(r"\mathrm{attn}(PX + \mathrm{pos}) \;\overset{?}{=}\; P\,\mathrm{attn}(X + \mathrm{pos})")
    st.caption(
        f"perm = {' '.join(map(str, result.perm[:32]))}{' …' if T > 32 else ''}  ·  position: {position}"
        f" × {pscale:g}{'  ·  causal' if s.causal else ''}{'  ·  reference NOT reordered' if s.forget else ''}"
    )

domain = posviz.charts.signed_domain(result.out, result.out_perm)
cols = st.columns(3)
panels = [
    ("attend, then shuffle" if not s.forget else "attend (not reordered)", result.reference),
    ("shuffle, then attend", result.out_perm),
    ("difference", result.difference),
]
for col, (title, matrix) in zip(cols, panels, strict=True):
    with col:
        ui.matrix_chart(
            matrix,
            title=title,
            row_title="slot",
            col_title="feature",
            domain=domain,
            name=f"order-{title.split(',')[0].replace(' ', '-')}",
            height=340,
        )
st.caption("All three panels share one diverging colour scale centred on 0, so a machine-zero difference is blank.")

st.subheader("Identical tokens")
ui.intro(
    "Put one token vector in two slots. Without position their outputs are equal; a per-slot signal tells them apart."
)
a, b, c = st.columns([1, 1, 3])
with a:
    ui.control(P["first"])
with b:
    ui.control(P["second"])
first, second = min(s.first, T - 1), min(s.second, T - 1)
if (first, second) != (s.first, s.second):
    ui.note(f"Slots must be below T = {T}; using {first} and {second}.")
plain = twins(seed=s.seed, length=T, width=C, weight_scale=s.wscale, first=first, second=second, causal=s.causal)
marked = twins(
    seed=s.seed,
    length=T,
    width=C,
    weight_scale=s.wscale,
    first=first,
    second=second,
    position=position,
    scale=pscale,
    causal=s.causal,
)
with c:
    m1, m2 = st.columns(2)
    m1.metric("row difference, no position", f"{plain.row_diff:.3g}")
    m2.metric(f"row difference, {position} × {pscale:g}", f"{marked.row_diff:.3g}")
rows = lessons.twin_rows(plain, marked)
labels = [
    f"slot {first}, no position",
    f"slot {second}, no position",
    f"slot {first}, with {position}",
    f"slot {second}, with {position}",
]
ui.matrix_chart(
    rows,
    title="output rows of the two copies",
    row_title="",
    col_title="feature",
    domain=posviz.charts.signed_domain(rows),
    row_labels=labels,
    name="identical-tokens",
    height=260,
)

st.subheader("Move each token with its position")
ui.intro(
    "Lesson 003 separates two experiments. Reorder the sentence and give the new first token position 0, and "
    "each token meets another position vector: the outputs change. Move every (token, position) pair "
    "together and nothing is lost: the outputs only follow the move."
)
kind = position if position not in ("none", "rotary") else "sinusoidal"
moves = pair_moves(seed=s.seed, length=T, width=C, weight_scale=s.wscale, perm=tuple(int(p) for p in perm),
                   position=kind, scale=pscale or 1.0)  # fmt: skip
m1, m2, m3 = st.columns(3)
with m1:
    ui.headline("token and position moved together", number(moves.together))
    ui.badge(verdicts.machine_zero(moves.together), "outputs only reordered", "outputs changed")
with m2:
    ui.headline("tokens moved, positions stay", number(moves.tokens_only))
with m3:
    ui.headline("same tokens, positions moved", number(moves.positions_only))
st.caption(f"max abs differences against the reordered outputs; position signal: {kind} × {pscale or 1.0:g}")
