"""Position magnitude: shrink the position rows and watch the two sentences' outputs converge (module 09, ex. 3)."""

import streamlit as st

import ui
from posviz import charts, frames, lessons, verdicts

STEPS = lessons.magnitude_steps()
ui.page_setup()
PARAMS = [
    ui.Param("scale", 0.5, "choice", options=STEPS),
    ui.Param("s1", "dog bites man", "text"),
    ui.Param("s2", "man bites dog", "text"),
    ui.Param("word", "man", "text", max_len=60),
    ui.Param("loglog", False, "bool"),
]
run = st.cache_data(lessons.sentence_experiment, max_entries=64)
curve = st.cache_data(lessons.magnitude_curve, max_entries=64)

st.title("Position magnitude")
ui.intro(
    "The same experiment with the position rows multiplied by a scale. At scale 0 there is no position "
    "and the word's two outputs are identical; as the scale grows they separate, about in proportion at "
    "small scales. A position signal far smaller than the token vectors is nearly invisible to attention."
)
st.latex(r"\Delta(s) = \max_j \big|\,\mathrm{attn}(X_1 + sP)_{i_1 j} - \mathrm{attn}(X_2 + sP)_{i_2 j}\big|")
ui.url_state(PARAMS)
s = st.session_state
with st.sidebar:
    st.text_input(f"sentence 1 (up to {ui.MAX_WORDS} words)", key="s1", max_chars=ui.MAX_TEXT)
    st.text_input(f"sentence 2 (up to {ui.MAX_WORDS} words)", key="s2", max_chars=ui.MAX_TEXT)
    st.toggle("log-log axes", key="loglog")

text1 = ui.capped_sentence(s.s1, "Sentence 1", PARAMS[1].default)
text2 = ui.capped_sentence(s.s2, "Sentence 2", PARAMS[2].default)
result = ui.guarded(lambda: run(text1, text2), lambda: run(), "These sentences")
common = result.common_words()
if not common:
    ui.note("The sentences share no word; comparing 'man' in the default sentences instead.")
    text1, text2 = PARAMS[1].default, PARAMS[2].default
    result, common = run(text1, text2), ["man"]


@st.fragment
def live() -> None:
    """The slider and everything it changes: a slider move reruns only this block."""
    st.select_slider("position scale (fine steps near 0)", STEPS, key="scale", format_func=lambda v: f"{v:g}")
    if s.word not in common:
        s.word = common[0]
    word = st.selectbox("word in both sentences", common, key="word")
    ui.sync_url(PARAMS)

    a, b = result.word_outputs(word, s.scale)
    distance = result.word_distance(word, s.scale)
    close = verdicts.numerically_equal(a, b)
    left, right = st.columns([2, 3])
    with left:
        ui.headline(f"max |out₁('{word}') − out₂('{word}')| at scale {s.scale:g}", f"{distance:.7g}")
        ui.badge(close, "np.allclose: True (numerically the same)", "np.allclose: False (different)")
        bars = charts.vectors_frame([a, b], [f"{word} in sentence 1", f"{word} in sentence 2"])
        ui.show_chart(
            charts.grouped_bars(
                bars,
                x="component",
                y="value",
                group="vector",
                title=f"'{word}' in each sentence",
                y_title="output",
            ),
            bars,
            "word-outputs",
        )
    with right:
        scales, distances = curve(text1, text2, word)
        frame = frames.distance_curve(scales, distances, log=s.loglog)
        here = frames.on_log_axis(distance) if s.loglog else distance
        chart = charts.lines(
            frame,
            x="scale",
            y="distance",
            title="distance between the two outputs against the scale",
            x_title="position scale" + (" (log)" if s.loglog else ""),
            y_title="max abs difference" + (" (log)" if s.loglog else ""),
            log_x=s.loglog,
            log_y=s.loglog,
            height=380,
        )
        if s.scale > 0 or not s.loglog:
            chart = charts.layer(chart, charts.marker(s.scale, here, f"{s.scale:g} → {distance:.3g}"))
        ui.show_chart(chart, frame, "distance-curve")
        if s.loglog and s.scale == 0:
            st.caption("Scale 0 has no place on a log axis; its distance is shown on the left.")


live()
