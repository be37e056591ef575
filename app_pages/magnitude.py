"""Position magnitude

The same experiment with the position rows multiplied by a scale. At scale 0 there is no position and the word's two
outputs are identical; as the scale grows they separate, in proportion to the scale at small scales (a line of
slope 1 on log-log axes). The distance shrinks with the signal but vanishes only at 0: at 0.001 np.allclose still says
the two outputs differ.

In words: E holds one position vector per row and s scales it; i₁ and i₂ are the word's rows in sentence 1 and in
sentence 2; `np.allclose` asks whether the two outputs are numerically equal (within 1e-8 + 1e-5 of each other).
"""

import streamlit as st

import ui
from posviz.drawing import figures, frames, heatmaps
from posviz.drawing.display import number
from posviz.experiments import lessons
from posviz.maths import verdicts

STEPS = lessons.magnitude_steps()
FORMULA = r"\Delta(s) = \max_j \big|\,\mathrm{attn}(X_1 + sE)_{i_1 j} - \mathrm{attn}(X_2 + sE)_{i_2 j}\big|"
ui.page_setup(__doc__, FORMULA)  # module 09, exercise 3
P = ui.params(
    ui.Param("scale", 0.5, "choice", options=STEPS, label="position scale (fine steps near 0)", widget="select_slider"),
    *ui.sentence_params(),
    ui.Param("word", "man", "text", max_len=60, label="word in both sentences"),
    ui.Param("loglog", False, "bool", label="log-log axes"),
)
run = st.cache_data(lessons.sentence_experiment, max_entries=64)
curve = st.cache_data(lessons.magnitude_curve, max_entries=64)

s = ui.sidebar(P, page="magnitude", keys=("s1", "s2", "loglog"))

text1, text2 = ui.capped_sentences(s, P)
result = ui.guarded(lambda: run(text1, text2), lambda: run(), "These sentences")
common = result.common_words()
if not common:
    ui.note("The sentences share no word; comparing 'man' in the default sentences instead.")
    text1, text2 = P["s1"].default, P["s2"].default
    result, common = run(text1, text2), ["man"]


@st.fragment
def live() -> None:
    """The slider and everything it changes: a slider move reruns only this block."""
    slider, picker = st.columns([4, 1])
    with slider:
        ui.control(P["scale"])
    if s.word not in common:
        s.word = common[0]
    with picker:
        word = ui.control(P["word"], kind="choice", options=common)
    ui.sync_url(P)

    a, b = result.word_outputs(word, s.scale)
    distance = result.word_distance(word, s.scale)
    close = verdicts.numerically_equal(a, b)
    left, right = st.columns([2, 3])
    with left:
        ui.headline(f"max |out₁('{word}') − out₂('{word}')| at scale {number(s.scale)}", number(distance))
        ui.badge(close, "np.allclose: True (numerically the same)", "np.allclose: False (different)", state=True)
        ui.figure(figures.word_outputs(a, b, word), height=ui.fit(260, 190), in_columns=2)
    with right:
        scales, distances = curve(text1, text2, word)
        drawn = figures.distance_curve(scales, distances, s.scale, distance, log=s.loglog)
        ui.figure(drawn, height=ui.fit(380, 300), in_columns=2)
        if s.loglog and s.scale == 0:
            st.caption("Scale 0 has no place on a log axis; its distance is shown on the left.")

    aligned = result.aligned_outputs(s.scale)
    if aligned is not None:
        st.subheader("Every word at once")
        whole = result.sentence_distance(s.scale)
        ui.headline(
            f"max over every word: |out₁ − out₂| (rows matched by word) at scale {number(s.scale)}", number(whole)
        )
        domain = heatmaps.signed_domain(*aligned)
        words = frames.labelled(result.words1)  # both in sentence 1's word order: one set of row labels
        panels = [
            ui.Panel("sentence 1: output rows", aligned[0], "sentence1-outputs", rows=words),
            ui.Panel("sentence 2: output rows in sentence 1's word order", aligned[1], "sentence2-aligned", rows=words),
        ]
        ui.matrix_panels(
            panels, name="every-word-outputs", row_title="word", col_title="feature", domain=domain, height=220
        )


live()
