"""Order blindness: shuffle the tokens, attend, and compare with the shuffled output (lesson 000)."""

import streamlit as st

import posviz
import ui
from posviz import lessons, parsing

KINDS = posviz.POSITION_KINDS
ui.page_setup()
PARAMS = [
    ui.Param("seed", 42, "int", 0, 99_999),
    ui.Param("T", 6, "int", 2, 256),
    ui.Param("C", 8, "int", 2, 256, step=2),
    ui.Param("wscale", 0.5, "float", 0.0, 3.0),
    ui.Param("perm_mode", "typed", "choice", options=("typed", "shuffle")),
    ui.Param("perm", "3 0 5 1 4 2", "text", max_len=1200),
    ui.Param("shuffle_seed", 0, "int", 0, 99_999),
    ui.Param("position", "none", "choice", options=KINDS),
    ui.Param("pscale", 0.6, "float", 0.0, 3.0),
    ui.Param("causal", False, "bool"),
    ui.Param("forget", False, "bool"),
    ui.Param("offset", False, "bool"),
    ui.Param("first", 0, "int", 0, 255),
    ui.Param("second", 4, "int", 0, 255),
]
experiment = st.cache_data(lessons.order_experiment, max_entries=64)
twins = st.cache_data(lessons.twin_experiment, max_entries=64)

st.title("Order blindness")
ui.intro(
    "Shuffle the input tokens, run one attention head, and compare with the original output shuffled "
    "the same way. Without position the two agree to the last bit: attention treats its input as a set. "
    "Add a vector that differs per position (the position vectors stay in their slots while the tokens "
    "move) and the agreement breaks."
)
ui.url_state(PARAMS)
s = st.session_state
with st.sidebar:
    st.number_input("seed", 0, 99_999, key="seed", help="RandomState seed for X, then w_q, w_k, w_v")
    st.slider("tokens T", 2, 256, key="T")
    st.slider("width C (even)", 2, 256, step=2, key="C", help="even, so sinusoids and rotary have pairs")
    st.slider("weight scale", 0.0, 3.0, step=0.05, key="wscale")
    st.radio("permutation", ["typed", "shuffle"], key="perm_mode", horizontal=True)
    if s.perm_mode == "typed":
        st.text_input("perm (0..T-1, each once)", key="perm", max_chars=1200)
    else:
        st.number_input("shuffle seed", 0, 99_999, key="shuffle_seed")
    st.selectbox("position signal", KINDS, key="position", disabled=s.offset)
    st.slider("position scale", 0.0, 3.0, step=0.05, key="pscale")
    st.toggle("causal mask", key="causal")
    st.caption("Lesson 000 exercises")
    st.toggle("1: forget to reorder the reference", key="forget")
    st.toggle("2: constant offset 0.6 instead", key="offset")
ui.sync_url(PARAMS)

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
a.number_input("first slot", 0, 255, key="first")
b.number_input("second slot", 0, 255, key="second")
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
