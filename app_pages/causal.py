"""The causal mask carries position

A decoder hides the keys after each query. No position vector is added here, yet the mask alone tells the first token
from the last: token t mixes only tokens 0..t (with equal scores, their plain average). So the shuffle test's two sides
differ (the mask breaks attention's symmetry, as a position signal should), and two copies of one token get different
outputs.

In words: order-blind means the two sides agree up to rounding (machine zero).
"""

import streamlit as st

import ui
from posviz.drawing.display import number
from posviz.experiments import lessons
from posviz.maths import verdicts

ui.page_setup(__doc__, r"\text{equal scores:}\quad \mathrm{out}_t = \frac{1}{t+1}\sum_{j \le t} v_j")
P = ui.params(
    ui.seed_param(42),
    ui.tokens_param(6, 64),
    ui.width_param(8, 2, 64, even=False, aliases=("C",)),
    ui.weight_scale_param(),
    ui.Param("shuffle_seed", 0, "int", 0, 99_999, label="shuffle seed (used when T is not 6)", widget="number"),
)
experiment = st.cache_data(lessons.order_experiment, max_entries=32)
twins = st.cache_data(lessons.twin_experiment, max_entries=32)

s = ui.sidebar(P, page="causal")

perm = lessons.lesson_or_shuffled(s.T, s.shuffle_seed)
plain = experiment(seed=s.seed, T=s.T, d=s.d, weight_scale=s.wscale, perm=perm)
masked = experiment(seed=s.seed, T=s.T, d=s.d, weight_scale=s.wscale, perm=perm, causal=True)
twin = twins(seed=s.seed, T=s.T, d=s.d, weight_scale=s.wscale, first=0, second=s.T - 1, causal=True)

a, b, c = st.columns(3)
with a:
    ui.headline("no mask: max |attn(PX) − P attn(X)|", number(plain.max_diff))
    ui.badge(plain.order_blind, "order-blind (0 up to rounding)", "order-aware")
with b:
    ui.headline("causal mask: max |attn(PX) − P attn(X)|", number(masked.max_diff))
    ui.badge(not masked.order_blind, "the mask alone makes it order-aware", "order-blind")
with c:
    ui.headline(f"one token at 0 and {s.T - 1}, causal: row difference", number(twin.row_diff))
    ui.badge(not verdicts.negligible(twin.row_diff), "the copies differ", "the copies are equal")

left, right = st.columns(2)
tokens = [f"t{i}" for i in range(s.T)]  # anonymous tokens, named by their position
side_by_side = dict(height=ui.fit(300, 220), numbered=False, in_columns=2, causal=True)  # both charts alike
with left:
    ui.weights_chart(
        masked.weights, tokens, title="causal attention weights of X", name="causal-weights", **side_by_side
    )
    ui.takeaway(
        "Grey, above the diagonal: keys the mask hides (weight 0). Row t sees only keys 0..t, so a shuffle "
        "(P, a permutation of the tokens) changes what each token sees: the shuffle test's two sides differ, the order "
        "the mask gives."
    )
with right:
    uniform = lessons.uniform_causal(s.seed, s.T, s.d)
    gap = uniform.gap
    ui.weights_chart(
        uniform.weights, tokens, title="equal scores (w_q = 0): row t is 1/(t+1)", name="uniform-causal", **side_by_side
    )
    ui.takeaway(
        "Order, not distance: with equal scores row t spreads 1/(t+1) evenly over keys 0..t. That tells the first "
        "token from the last, but a key 1 step back weighs as much as a key t steps back: distance adds nothing."
    )
    ui.badge(
        verdicts.negligible(gap),
        f"output = running mean of the values (max diff {number(gap)})",
        f"differs by {number(gap)}",
    )
st.caption(
    "How far apart two tokens are never enters the scores, so decoders still add a position signal: see "
    "[Sinusoids](./sinusoids), [Learned and rotary](./rotary) and [Relative biases](./biases)."
)
