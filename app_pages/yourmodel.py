"""Your model: a GGUF file of your own

Point posviz at a folder of GGUF files and this page reads the one you pick: its position scheme from the header
(what `posviz inspect` reports), and, for the llama family (llama, mistral, qwen2), its first layers run live in
numpy on the text you type, with the SmolLM2 page's measures: each head's attention, the positional heads, the
sink, the energy of each rotated pair and the lessons' ablations.
"""

import streamlit as st

import ui
from posviz.drawing import frames, llm_figures, model_report
from posviz.drawing.display import number
from posviz.experiments import decoder, your_model
from posviz.models import llama_gguf, smollm2

ui.page_setup(__doc__)
folder = ui.guarded(llama_gguf.models_folder, lambda: None, "The models folder", "showing the file posviz ships")
shipped = folder is None
if shipped:  # the hosted demo: the file posviz ships stands in, and the page says how to read your own
    how = (
        f"No models folder is named here, so this page reads the file posviz ships ({smollm2.NAME}'s first "
        f"layers). To read your own GGUF files, run posviz locally with {llama_gguf.MODELS_DIR} naming their folder"
    )
    if not ui.presenter():  # presenting, the file's caption below says it in a few words
        ui.intro(f"{how}:")
        st.code(f"{llama_gguf.MODELS_DIR}=~/models streamlit run streamlit_app.py\nposviz inspect ~/models/MODEL.gguf")
    folder = smollm2.DATA
names = llama_gguf.listed(folder)
if not names:
    ui.note(f"No .gguf file directly in {folder} ({llama_gguf.MODELS_DIR}).")
    st.stop()

PARTS = {
    "report": "the file's position scheme",
    "heads": "each head's attention",
    "distance": "attention against distance",
    "sink": "the attention sink",
    "pairs": "RoPE frequency usage",
    "ablations": "ablations",
}
P = ui.params(
    ui.part_param(PARTS),
    ui.Param("model", names[0], "choice", options=tuple(names), label="model file", widget="selectbox"),
    ui.Param("text", your_model.DEFAULT_TEXT, "text", max_len=600, label="text (up to 64 tokens)"),
    ui.Param("bos", True, "bool", label="feed the BOS token first"),
    ui.Param("layer", 0, "int", 0, 255, widget="number", label="layer"),
    ui.Param("k", 1000, "int", 0, 100_000, widget="number", label="shift every position by k"),
)
opened = st.cache_resource(your_model.opened, max_entries=1, show_spinner="Reading the file's first layers…")
read = st.cache_resource(your_model.read, max_entries=8, show_spinner="Running the first layers…")
ablate = st.cache_resource(your_model.ablations, max_entries=8, show_spinner="Running the ablations…")
text_keys = ("model", "text", "bos")
keys = {
    "report": ("model",),
    "heads": (*text_keys, "layer"),
    "distance": (*text_keys, "layer"),
    "sink": text_keys,
    "pairs": (*text_keys, "layer"),
    "ablations": (*text_keys, "k"),
}
s = ui.sidebar(P, page="yourmodel", keys=keys)
path = str(llama_gguf.resolve(folder, s.model))  # a choice among the listed names, resolved inside the folder again
found = ui.guarded(lambda: opened(path, your_model.stamp(path)), lambda: None, s.model, "showing nothing")
if found is None:
    st.stop()
report, model = found.report, found.model
ran = (
    (model.budget.short if ui.presenter() else f"{model.budget.reason}.")
    if model
    else f"its report only: {found.problem}."
)
mine = f" (posviz's own; {llama_gguf.MODELS_DIR} names yours)" if shipped and ui.presenter() else ""
st.caption(ui.escape(f"{s.model}{mine} · {report.scheme.architecture} · {ran}"))  # names from the operator's folder

if s.part == "report" or model is None or model.tokenizer is None:
    if s.part != "report" and model is not None:
        ui.note(f"{s.model}: {model.tokenizer_note}; showing its report.")
    never = report.never_turn.size if report.view else None
    ui.headline(
        f"pairs that never turn within {report.window:,} tokens" if report.view else "rotated pairs",
        f"{never} of {report.view.plain.size}" if report.view else "not computed",
    )
    for line in model_report.summary(report)[1 if ui.presenter() and report.view else 0 :]:  # the first: the headline
        ui.takeaway(line)
    for fig, caption in zip(model_report.report_figures(report), model_report.captions(report), strict=True):
        ui.figure(fig, height=ui.fit(None, 210))
        st.caption(caption)
    if not ui.presenter():
        ui.html_table(model_report.facts_frame(report))
    if model is not None:
        st.caption(f"Tokenizer: {model.tokenizer_note}.")
    st.stop()

layers = len(model.layers)
layer = min(s.layer, layers - 1)
if layer != s.layer:
    ui.note(f"layer {s.layer}: this file runs layers 0-{layers - 1}; showing layer {layer}.")
reading = ui.guarded(
    lambda: read(path, your_model.stamp(path), s.text, s.bos),
    lambda: read(path, your_model.stamp(path), your_model.DEFAULT_TEXT, False),
    "The text",
    "reading the default sentence without BOS",
)
for line in reading.notes:
    ui.note(f"The text: {line}.")
st.text(decoder.fed_line(reading.tokens, limit=150 if ui.presenter() else None, first=found.bos_name))

if s.part == "heads":
    live = decoder.positional_heads(reading, "previous-token")
    strongest = int(reading.previous[layer].argmax())
    a, b = st.columns(2)
    with a:
        ui.headline("previous-token heads (layer.head)", your_model.head_list(live))
    with b:
        ui.headline(
            f"layer {layer}: most weight on t−1, head {decoder.head(layer, strongest)}",
            number(reading.previous[layer, strongest]),
        )
    columns = your_model.head_columns(model.config.heads, ui.presenter())
    ui.figure(
        llm_figures.head_panels(reading, layer, across=ui.container_width(), columns=columns, legend=ui.legend_side())
    )
    st.caption(f"Rule: {decoder.ROLE_RULE}.")
    if not ui.presenter():
        ui.html_table(frames.head_table(reading, layer))
        st.caption(f"{your_model.fast_pairs_note(model)}.")
elif s.part == "distance":
    strongest = int(reading.previous[layer].argmax())
    ui.headline(
        f"head {decoder.head(layer, strongest)}: mean weight at distance 1 (on t−1)",
        number(reading.previous[layer, strongest]),
    )
    ui.figure(llm_figures.by_distance(reading, layer, height=ui.fit(300, 210), legend=ui.legend_side()))
    st.caption(f"Rule: {decoder.ROLE_RULE}.")
elif s.part == "sink":
    top = your_model.sink_layer(reading)
    ui.headline(f"mean weight on token 0, layer {top} (the most of the {layers} run)", number(reading.sink[top].mean()))
    ui.badge(your_model.has_sink(reading, top), "a sink: token 0 takes the weight", "no sink in these layers")
    ui.figure(llm_figures.sink_live(reading, height=ui.fit(min(60 + 22 * layers, 700), 180)))
    st.caption("A cell per head: its mean weight on token 0 (1 = all of it). Turn BOS off: does token 0 still take it?")
elif s.part == "pairs":
    live = decoder.leaning_heads(reading.q_energy)
    top = decoder.strongest_pair(reading, layer, model)
    ui.headline(f"layer {layer}: strongest pair {top.i}, share of energy", number(top.share))
    ui.figure(llm_figures.pair_shares(reading, layer, height=ui.fit(300, 200), legend=ui.legend_side()))
    ui.takeaway(
        f"Pair {top.i} turns once every {top.wavelength:,.0f} tokens: {number(top.context_turns)} of a turn over the "
        f"{top.context:,}-token context, {number(top.text_degrees)}° over this text. Heads leaning on the fast pairs: "
        f"{your_model.head_list(live)} (a head {decoder.LEAN_RULE})."
    )
else:
    result = ablate(path, your_model.stamp(path), s.text, s.bos, s.k)
    ui.ablations(result)
    st.caption(decoder.ABLATION_NOTE.replace("<|im_start|>", "BOS"))
