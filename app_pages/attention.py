"""Attention before and after position

Two sentences with the same words in a different order, through one attention head with the same weights. Without
position, sentence 2's attention matrix is sentence 1's with its rows and columns reordered, and each word gets the same
output in both sentences. Adding position rows makes the matrices and the words' outputs differ.

In words: E holds one position vector per row and s scales it; machine zero means equal up to rounding.
"""

import streamlit as st

import ui
from posviz.drawing import frames, images
from posviz.drawing.display import number
from posviz.experiments import lessons
from posviz.maths import verdicts

KINDS = lessons.SENTENCE_POSITIONS
FORMULA = r"W = \mathrm{softmax}\!\Big(\frac{(X + sE)W_q\,\big((X + sE)W_k\big)^{\top}}{\sqrt{d}}\Big)"
ui.page_setup(__doc__, FORMULA)  # module 09
P = ui.params(
    *ui.sentence_params(),
    ui.Param(
        "position",
        "random",
        "choice",
        options=KINDS,
        label="position signal",
        help="random: randn(T, d) drawn after the weights",
    ),
    ui.Param("pscale", 0.5, "float", 0.0, 1.0, step=0.01, label="position scale"),
    ui.seed_param(2),
    ui.width_param(6, 2, 256),
    ui.Param("word", "man", "text", max_len=60),
)
run = st.cache_data(lessons.sentence_experiment, max_entries=64)

s = ui.sidebar(P, page="attention", keys=("s1", "s2", "position", "pscale", "seed", "d"))

text1, text2 = ui.capped_sentences(s, P)
result = ui.guarded(
    lambda: run(text1, text2, seed=s.seed, d=s.d, scale=s.pscale, position=s.position),
    lambda: run(),
    "These sentences",
)

gap_plain = result.permuted_gap(with_position=False)
gap_pos = result.permuted_gap(with_position=True)
left, right = st.columns([3, 2])
with left:
    if gap_plain is None:
        ui.headline("sentence 2 reorders sentence 1?", "no")
        st.caption("The two sentences do not hold the same words, so there is no reordering to compare.")
    else:
        ui.headline("max |W₂ − P W₁ Pᵀ|: no position → with position", f"{number(gap_plain)} → {number(gap_pos)}")
        ui.badge(
            verdicts.machine_zero(gap_plain),
            "without position: a pure reordering (machine zero)",
            "differs even without",
        )
        ui.badge(not verdicts.machine_zero(gap_pos), "with position: not a reordering", "still a reordering")
with right:
    st.text(f"1: {' '.join(result.words1)}\n2: {' '.join(result.words2)}")
    st.caption(f"position: {s.position} × {number(s.pscale)}  ·  seed {s.seed}  ·  d = {s.d}")
    st.caption(
        "P is the permutation (a reordering) that puts sentence 1's words in sentence 2's order. Words are split at "
        "spaces and lower-cased; punctuation stays part of its word, so 'dog,' and 'dog' are two different words."
    )

signal = f"{s.position} × {number(s.pscale)}"
short = ui.presenter()  # four titles in one row: "1 · no position"
labels1, labels2 = frames.labelled(result.words1), frames.labelled(result.words2)
views = {  # short title (presenter), title, the two sentences' weights
    "plain": ("no position", "no position", (result.weights1_plain, result.weights2_plain)),
    "position": (signal, f"with {signal}", (result.weights1_positioned, result.weights2_positioned)),
}
panels = [
    ui.Panel(
        f"{n} · {brief}" if short else f"sentence {n}, {said}",
        weights[n - 1],
        f"weights-s{n}-{key}",
        rows=labels,
        cols=labels,
    )
    for key, (brief, said, weights) in views.items()
    for n, labels in ((1, labels1), (2, labels2))
]
longest = max(len(labels1), len(labels2))
# presenter: without and with position in one row, on one screen; each sentence has its own token labels
ui.matrix_panels(
    panels,
    name="attention-weights",
    row_title="query",
    col_title="key",
    domain=(0.0, 1.0),
    scheme=images.WEIGHT_SCHEME,
    value_title="weight",
    columns=4 if short else 2,
    shared=False,
    height=200 if short and longest <= 8 else ui.weights_height(longest),
    legend_each=not short,
)
if gap_plain is None:
    ui.takeaway(
        "The sentences do not hold the same words, so even without position the matrices are not one "
        "reordered into the other: what differs here is content as well as order."
    )
elif verdicts.machine_zero(gap_pos):
    ui.takeaway(f"With {signal} the matrices are still one reordered into the other: this signal adds no order here.")
else:
    ui.takeaway(
        "Without position, matrix 2 is matrix 1 with its rows and columns in sentence 2's order (the same "
        f"weights, moved); with {signal} the weights themselves change."
    )
st.caption(
    "All four matrices share one colour scale (viridis): weights from 0 (dark purple) to 1 (yellow); each row "
    "sums to 1."
)

common = result.common_words()
if common:
    st.subheader("One word in both sentences")
    if s.word not in common:
        s.word = common[0]
    word = ui.control(P["word"], kind="choice", options=common)
    a, b, c = st.columns(3)
    with a:
        ui.headline(
            f"'{word}': max diff, no position",
            number(result.word_diff(word, with_position=False)),
            "np.allclose: " + str(result.word_allclose(word, with_position=False)),
        )
    with b:
        ui.headline(
            f"'{word}': max diff, with position",
            number(result.word_diff(word, with_position=True)),
            "np.allclose: " + str(result.word_allclose(word, with_position=True)),
        )
    with c:
        ui.headline(
            "sentence means allclose: no position → with position",
            f"{result.means_allclose(with_position=False)} → {result.means_allclose(with_position=True)}",
            "np.allclose of the two sentences' mean output vectors (lesson 002)",
        )
    i, j = result.word_rows(word)
    n1, n2 = result.words1.count(word), result.words2.count(word)
    which = f"'{ui.escape(word)}' at position {i} of sentence 1 and position {j} of sentence 2"  # typed text: escaped
    if n1 > 1 or n2 > 1:
        which += f": the first of its {n1} in sentence 1 and of its {n2} in sentence 2"
    only1, only2 = result.unmatched_words()
    plain_diff = result.word_diff(word, with_position=False)
    if only1 or only2:
        extra = (
            ", ".join(f"'{ui.escape(w)}'" for w in only1) or "nothing",
            ", ".join(f"'{ui.escape(w)}'" for w in only2) or "nothing",
        )
        content = (
            f" Without position the difference is {number(plain_diff)}, not 0, because the sentences hold "
            f"different words (sentence 1 has {extra[0]} beyond sentence 2, which has {extra[1]}): "
            "the word attends over other values, a difference of content, not of position."
        )
    else:
        content = " Without position its output is the same in both up to rounding (the same words, reordered)."
    ui.takeaway(
        f"Compared: {which}.{content} np.allclose says True when every entry agrees within 1e-8 + 1e-5 × "
        "its size, numerically equal."
    )
