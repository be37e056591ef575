"""MiniLM: word order through the whole model

all-MiniLM-L6-v2 turns a sentence into one vector: its 6-layer encoder, then the mean over tokens, then unit length. Two
sentences with the same words in another order get different vectors only because of the learned position rows added
before the first layer. Remove those rows and every layer treats the tokens as a set: the mean of the last layer, and so
the cosine, no longer sees the order.
"""

import streamlit as st

import ui
from posviz.drawing import frames
from posviz.drawing import sentence_charts as sc
from posviz.drawing.display import number
from posviz.maths import verdicts
from posviz.models import minilm
from posviz.models.minilm import encoder

ui.page_setup(__doc__)
SCALES = [round(0.05 * i, 2) for i in range(21)]
P = ui.params(
    *ui.sentence_params(f"{minilm.MAX_TOKENS} tokens"),
    ui.Param(
        "scale",
        1.0,
        "choice",
        options=SCALES,
        widget="select_slider",
        label="scale of the position rows (1 = the trained model, 0 = removed)",
    ),
)
pair = st.cache_data(encoder.compare_texts, max_entries=32, show_spinner="running the model")
curve = st.cache_data(encoder.curve_texts, max_entries=32, show_spinner="running the model at more scales")
# The first view draws every 10th scale (0, 0.5, 1; 0, and 1 when it is the set scale, taken from the numbers above:
# at most two cache entries a pair) and starts the other 18 in the background; a fragment run draws them once the page
# has painted (ui.later).
QUICK = 10

s = ui.sidebar(P, page="sentences", keys=("s1", "s2"))

default1, default2 = P["s1"].default, P["s2"].default
text1, text2 = ui.capped_sentences(s, P)
text1, text2 = ui.guarded(lambda: encoder.readable(text1, text2), lambda: (default1, default2), "These sentences")
result = pair(text1, text2, s.scale)
ui.token_notes(((result.first, "Sentence 1"), (result.second, "Sentence 2")), minilm.MAX_TOKENS)

scale_text = "the model" if s.scale == 1.0 else f"position × {number(s.scale)}"


def quoted(text: str, limit: int = 60) -> str:
    return ui.escape(f"“{text if len(text) <= limit else text[:limit] + '…'}”")


st.markdown(f"**{quoted(text1)}** against **{quoted(text2)}**")  # what is compared, in both modes
a, b, c = st.columns(3)
with a:
    ui.headline(f"cosine, {scale_text}", number(result.cosine), "cosine of the two sentence embeddings")
    same_words = verdicts.same_direction(result.cosine_plain)  # without position rows the model sees only the words
    differ = "below 1: the orders differ" if same_words else "below 1: the words differ too"
    ui.badge(not verdicts.same_direction(result.cosine), differ, "1: no difference")
    int8 = f"8-bit (int8) weights: within ±{encoder.COSINE_TOLERANCE:g} of float32 (tested)"
    st.caption(encoder.FETCHED_NOTE if encoder.float32_fetched() else int8)
with b:
    ui.headline("cosine, no position", number(result.cosine_plain), "the position rows removed (scale 0)")
    gap = 1 - result.cosine_plain  # a rounding-sized gap shows as its size, never as a signed tiny value
    st.caption(
        f"1 - cosine: 0 up to float64 rounding (size {number(abs(gap))})"
        if same_words
        else f"1 - cosine = {number(gap)} (not rounding: the word pieces differ)"
    )
with c:
    ui.headline("cosine, word average", number(result.cosine_average), "mean of the input word embeddings")
    st.caption("a bag of words: 1 for any reordering")

ui.control(P["scale"])
ui.sync_url(P)
curve_box = st.container()  # filled last: the curve (the model run at every scale) is the slow part

layers = frames.layer_distance_frame(
    result.layer_distance, result.layer_distance_plain, labels=(scale_text, "position rows removed")
)
ui.show_chart(
    sc.layer_distances,
    layers,
    name="minilm-layer-distance",
    title="how far apart the two sentences are, layer by layer",
    y_title="1 - cosine",
)
plain_zero = all(verdicts.machine_zero(d) for d in result.layer_distance_plain)
ui.takeaway(
    f"Take from it: with the position rows the sentences end {number(result.layer_distance[-1])} apart after the "
    f"last layer; without them the distance is "
    + (
        "0 (rounding) at every layer: each layer sees the same set of tokens."
        if plain_zero
        else "not 0: the two sentences differ in their words, not only in their order."
    )
)
st.caption("Each layer's state is the mean over tokens after that layer; 0 = the same direction.")
st.text(f"1: {' '.join(result.first.tokens)}\n2: {' '.join(result.second.tokens)}")

st.subheader("What this shows, and what it does not")
ui.takeaway(  # caveats stay in presenter mode: a projected page must not lose what its number does not say
    "- The encoder is **bidirectional**: every token attends to every token, so without position rows each "
    "layer maps a set of tokens to a set of states, and the mean cannot depend on the order. "
    "The cosine of 1 without position is a property of this architecture, not a finding about language.\n"
    "- A **causal** (decoder) model without any position signal still tells orders apart, through its mask: "
    "token t sees only tokens 0..t. See the [causal mask](./causal) page.\n"
    "- A cosine below 1 says the vectors differ, not that the model understood who bit whom."
)
st.caption(
    f"Precision: {encoder.active_encoder().precision}; the numbers computed in float64, the curve in float32. "
    f"On the pairs recorded from the float32 model at extraction the shipped model stays within "
    f"{encoder.COSINE_TOLERANCE:g} of each cosine and {encoder.EMBEDDING_TOLERANCE:g} of each embedding entry (tested)."
)


def draw_curve(whole: bool) -> None:
    known = ((0.0, result.cosine_plain),) + (((1.0, result.cosine),) if s.scale == 1.0 else ())
    scales, cosines = curve(text1, text2, len(SCALES), QUICK, known=known)
    later = ui.later(encoder.curve_texts, text1, text2, len(SCALES), QUICK, rest=True)  # started at the first call
    rest = ((), ())
    if whole:
        if not later.done():  # a busy server, or pushed out of ui.background.KEPT (then run here)
            with st.spinner("running the model at more scales", show_time=True):
                later.result()
        rest = later.result()
    ui.show_chart(
        sc.cosine_against_scale,
        frames.scale_frame(scales, cosines, *rest),
        frames.here_frame(s.scale, result.cosine),
        name="minilm-sentence-cosine",
        title="sentence cosine against the scale" + ("" if whole else f" ({len(scales)} scales; the rest follow)"),
        height=150 if ui.presenter() else 280,  # presenter: under the sentences line, the numbers and the slider
    )
    ui.takeaway(
        "Take from it: at 0 (rows removed) the cosine is 1, the two orders look the same; all of the drop below 1 "
        "comes from the position rows. The dot is the scale set above."
        if same_words
        else "Take from it: these sentences differ in their words, so even at 0 (rows removed) the cosine is below 1; "
        "the position rows move it from there. The dot is the scale set above."
    )


with curve_box:
    ui.quick_then_whole("sentence-curve", (text1, text2), draw_curve)  # the rest of the curve runs during the wait
