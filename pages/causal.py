"""The causal mask carries position: even with no position signal, masking breaks order blindness."""

import streamlit as st

import ui
from posviz import lessons, verdicts

ui.page_setup()
P = ui.params(
    ui.Param("seed", 42, "int", 0, 99_999, widget="number"),
    ui.Param("T", 6, "int", 2, 64, label="tokens T"),
    ui.Param("C", 8, "int", 2, 64, label="width C"),
    ui.Param("wscale", 0.5, "float", 0.0, 3.0, step=0.05, label="weight scale"),
    ui.Param("shuffle_seed", 0, "int", 0, 99_999, label="shuffle seed (used when T is not 6)", widget="number"),
)
experiment = st.cache_data(lessons.order_experiment, max_entries=32)
twins = st.cache_data(lessons.twin_experiment, max_entries=32)

st.title("The causal mask carries position")
ui.intro(
    "A decoder hides the keys after each query. No position vector is added here, yet the mask alone tells "
    "the first token from the last: token t averages over t + 1 tokens. So the shuffle test fails, and two "
    "copies of one token get different outputs."
)
st.latex(r"\text{equal scores:}\quad \mathrm{out}_t = \frac{1}{t+1}\sum_{j \le t} v_j")
ui.url_state(P, page="causal")
s = st.session_state
with st.sidebar:
    ui.controls(P.values())
ui.sync_url(P)

perm = lessons.lesson_or_shuffled(s.T, s.shuffle_seed)
plain = experiment(seed=s.seed, length=s.T, width=s.C, weight_scale=s.wscale, perm=perm)
masked = experiment(seed=s.seed, length=s.T, width=s.C, weight_scale=s.wscale, perm=perm, causal=True)
twin = twins(seed=s.seed, length=s.T, width=s.C, weight_scale=s.wscale, first=0, second=s.T - 1, causal=True)

a, b, c = st.columns(3)
with a:
    ui.headline("no mask: max |attn(PX) − P attn(X)|", f"{plain.max_diff:.3g}")
    ui.badge(plain.order_blind, "order-blind", "order-aware")
with b:
    ui.headline("causal mask: max |attn(PX) − P attn(X)|", f"{masked.max_diff:.5g}")
    ui.badge(not masked.order_blind, "the mask alone makes it order-aware", "order-blind")
with c:
    ui.headline(f"one token at 0 and {s.T - 1}, causal: row difference", f"{twin.row_diff:.3g}")
    ui.badge(not verdicts.negligible(twin.row_diff), "the copies differ", "the copies are equal")

left, right = st.columns(2)
tokens = ["x"] * s.T  # labelled "0 x", "1 x", ...: anonymous tokens by position
with left:
    ui.weights_chart(masked.weights, tokens, title="causal attention weights of X", name="causal-weights", height=300)
with right:
    uniform = lessons.uniform_causal(s.seed, s.T, s.C)
    gap = uniform.gap
    ui.weights_chart(
        uniform.weights, tokens, title="equal scores (w_q = 0): row t is 1/(t+1)", name="uniform-causal", height=300
    )
    ui.badge(
        verdicts.negligible(gap), f"output = running mean of the values (max diff {gap:.1g})", f"differs by {gap:.2g}"
    )
