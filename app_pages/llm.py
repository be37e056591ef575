"""SmolLM2: a RoPE decoder (SmolLM2-135M-Instruct)

Every language model a student meets today encodes position with RoPE. This page runs the first 5 of the 30 layers
of a real one, SmolLM2-135M-Instruct, on the text you type: its own tokens, its own query and key vectors, rotated
as it rotates them (interleaved pairs, base 100000). Nothing is added to the token vectors: position enters only
through the rotation and the causal mask. What it shows about the other 25 layers was measured at extraction;
with the whole file fetched (`posviz models fetch smollm2`), the last part runs all 30 layers live.
"""

import streamlit as st

import ui
from posviz.drawing import frames, llm_figures
from posviz.drawing.display import number
from posviz.experiments import decoder
from posviz.experiments import whole as full  # the fetched whole model ("whole" names the extraction's statistics here)
from posviz.models import smollm2

ui.page_setup(__doc__)
# Six parts, so that a first visit draws one chart, not eleven.
PARTS = {
    "heads": "each head's attention",
    "distance": "attention against distance",
    "sink": "the attention sink",
    "pairs": "RoPE frequency usage",
    "ablations": "ablations",
    "longer": "longer contexts",
    "full": "whole model",
}
P = ui.params(
    ui.part_param(PARTS),
    ui.Param("text", decoder.DEFAULT_TEXT, "text", max_len=600, label="text (up to 64 tokens)"),
    ui.Param("im_start", True, "bool", label="feed <|im_start|> first (the chat template's first token)"),
    ui.Param("layer", 1, "int", 0, 4, label="live layer (0-4)"),
    ui.Param("head", 2, "int", 0, 8, label="query head (0-8)"),
    ui.Param("k", 1000, "int", 0, 100_000, widget="number", label="shift every position by k"),
    ui.preset_param(decoder.SCALINGS, "yarn", "rope_scaling preset"),
    ui.Param("losses", False, "bool", label="also the loss on a named text, each RoPE pairing (slow)"),
)
read = st.cache_resource(decoder.read, max_entries=16, show_spinner="Running SmolLM2's first 5 layers…")
ablate = st.cache_resource(decoder.read_ablations, max_entries=16, show_spinner="Running the ablations…")
read_full = st.cache_resource(full.read, max_entries=8, show_spinner="Running all 30 layers three times…")

text_keys = ("text", "im_start")
keys = {
    "heads": (*text_keys, "layer"),
    "distance": (*text_keys, "layer"),
    "sink": text_keys,
    "pairs": (*text_keys, "layer"),
    "ablations": (*text_keys, "k"),
    "longer": (*text_keys, "layer", "head", "preset"),
    "full": (*text_keys, "losses"),
}
s = ui.sidebar(P, page="llm", keys=keys)

reading = ui.guarded(
    lambda: read(s.text, s.im_start),
    lambda: read(decoder.DEFAULT_TEXT, s.im_start),
    "The text",
    "reading the default sentence",
)
for line in reading.notes:
    ui.note(f"The text: {line}.")
live_layers, model_layers = decoder.shipped_layers()
st.caption(
    f"{smollm2.NAME}, layers 0-{live_layers - 1} of {model_layers}, run live in numpy · {smollm2.PRECISION} "
    f"(Q4/Q8: 4 or 8 bits a weight) · from {'its published GGUF file' if ui.presenter() else smollm2.PUBLISHED}"
)
st.text(decoder.fed_line(reading.tokens, limit=150 if ui.presenter() else None))

if s.part == "heads":
    live = decoder.positional_heads(reading, "previous-token")
    strongest = int(reading.previous[s.layer].argmax())
    a, b = st.columns(2)
    with a:
        ui.headline("previous-token heads, live (layer.head)", ", ".join(live) or "none")
    with b:
        ui.headline(
            f"layer {s.layer}: most weight on t−1, head {decoder.head(s.layer, strongest)}",
            number(reading.previous[s.layer, strongest]),
        )
    ui.badge(bool(live), "a real head attends by relative position", "no previous-token head on this text", state=True)
    columns = 9 if ui.presenter() else 3
    ui.figure(
        llm_figures.head_panels(reading, s.layer, across=ui.container_width(), columns=columns, legend=ui.legend_side())
    )
    ui.takeaway(
        "Take from it: a panel per head, query t down, key across, only keys up to t (causal); a bright line just "
        "below the diagonal is a head reading the token before, wherever it is: position, not the word."
    )
    st.caption(f"Rule: {decoder.ROLE_RULE}.")
    if not ui.presenter():
        ui.html_table(frames.head_table(reading, s.layer))
        st.caption(f"{decoder.FAST_NOTE}.")
elif s.part == "distance":
    strongest = int(reading.previous[s.layer].argmax())
    ui.headline(
        f"head {decoder.head(s.layer, strongest)}: mean weight at distance 1 (on t−1)",
        number(reading.previous[s.layer, strongest]),
    )
    ui.figure(llm_figures.by_distance(reading, s.layer, height=ui.fit(300, 210), legend=ui.legend_side()))
    ui.takeaway(
        "Take from it: a head that peaks at distance 1 reads the previous token wherever it is; a head with no peak "
        "does not pick its keys by distance."
    )
    st.caption(f"Rule: {decoder.ROLE_RULE}.")
    ui.html_table(frames.head_table(reading, s.layer))
    st.caption(f"{decoder.FAST_NOTE}.")
elif s.part == "sink":
    whole = decoder.whole_model(s.im_start)
    first = whole.first_sink_layer
    a, b = st.columns(2)
    with a:
        ui.headline(f"live: mean weight on token 0, layer {decoder.SINK_LAYER}", number(reading.sink_mean))
    with b:
        ui.headline("whole model: first layer with a first-token head", "none" if first is None else str(first))
    ui.intro(
        "StreamingLLM (Xiao et al. 2023) found that deep layers park attention on the first token, whatever it is: "
        "a softmax must put its weight somewhere. Turn <|im_start|> off: token 0 still takes the weight."
    )
    st.caption(llm_figures.sink_difference(reading, whole))  # above the maps: on a 720-px screen it stays in view
    left, right = st.columns(2)
    with left:
        ui.figure(llm_figures.sink_live(reading, height=ui.fit(240, 200)), in_columns=2)
    with right:
        ui.figure(llm_figures.sink_model(whole, height=ui.fit(420, 205)), in_columns=2)
    ui.takeaway(
        "Take from it: a cell per head, its mean weight on token 0 (1 = all of it), both maps on one 0-1 scale: "
        f"live, layers 0-{live_layers - 1} on this text; right, all {model_layers} layers on the extraction's texts."
    )
    st.caption(f"{llm_figures.extraction_label(whole)} Rule there: {whole.rule}.")
elif s.part == "pairs":
    whole = decoder.whole_model(s.im_start)
    live, model = decoder.leaning_heads(reading.q_energy), decoder.leaning_heads(whole.q_energy)
    a, b = st.columns(2)
    with a:
        ui.headline("live heads leaning on fast pairs", ", ".join(live) or "none")
    with b:
        ui.headline("whole model: heads leaning on fast pairs", f"{len(model)} of {whole.roles.size}")
    st.caption(
        f"Rule: a head {decoder.LEAN_RULE}. Barbero et al. 2024 (Round and Round We Go!) found the fastest "
        "pairs carry positional heads and the slowest carry content."
    )
    left, right = st.columns([3, 2])
    with left:
        ui.figure(
            llm_figures.pair_shares(reading, s.layer, height=ui.fit(300, 170), legend=ui.legend_side()), in_columns=2
        )
    with right:
        ui.figure(llm_figures.model_fast_share(whole, height=ui.fit(380, 190)), in_columns=2)
    top = decoder.strongest_pair(reading, s.layer)
    slow, heads = decoder.slow_top_pairs(whole.q_energy)
    ui.takeaway(
        f"Take from it: in layer {s.layer} pair {top.i} holds {number(top.share)} of the energy (an even spread: "
        f"{number(1 / 32)}). It turns once every {top.wavelength:,.0f} tokens: {number(top.context_turns)} of a turn "
        f"over the {top.context:,}-token context it was trained on, {number(top.text_degrees)}° over this text. "
        "Nearly unrotated, its part of q · k hardly changes with distance: it matches content, not position. "
        f"Whole model: {slow} of {heads} query heads hold the most energy in a pair that turns less than once there."
    )
    st.caption(
        f"{llm_figures.extraction_label(whole)} The pair energies were measured with <|im_start|> fed. "
        f"Whole-model heads leaning: {', '.join(model) or 'none'}."
    )
elif s.part == "ablations":
    result = ablate(reading.text, s.im_start, s.k)
    ui.ablations(result)
    ui.takeaway(
        "Take from it: a line near the floor (float32 rounding, about 1e-6) means the ablation changed nothing; "
        "a line far above it means it did."
    )
    st.caption(decoder.ABLATION_NOTE)
elif s.part == "full" and full.whole_path() is None:  # without the file (the hosted demo)
    ui.headline("all 30 layers: not on this server", "fetch the file")
    st.markdown(full.absent_note(where=False))
    st.code(smollm2.FETCH_COMMAND, language="bash")
    st.caption("Then start the app again on the same machine: this part runs every layer on the text you type.")
elif s.part == "full":
    result = ui.guarded(
        lambda: read_full(s.text, s.im_start),
        lambda: read_full(decoder.DEFAULT_TEXT, s.im_start),
        "The text",
        "reading the default sentence",
    )
    runs = list(result.runs.values())
    ui.headline(
        "top next token: RoPE → no rotation → positions shuffled",
        " → ".join(f"{decoder.shown_token(r.tokens[0])} {number(r.p[0], digits=2)}" for r in runs),
    )
    for column, run in zip(st.columns(len(runs)), runs, strict=True):
        with column:
            ui.figure(llm_figures.next_tokens(run, height=ui.fit(220, 160)), in_columns=len(runs))
    ui.takeaway(
        "Take from it: the same ids through the same weights; only the angles RoPE turns q and k by change. "
        "Without them the causal mask is all the order the model gets; shuffled, each token is turned as if it "
        "stood elsewhere."
    )
    st.caption(
        f"Shuffled positions (token t → position): {', '.join(map(str, result.positions))}. All "
        f"{result.sink.shape[0]} layers, final norm and tied head, float32, three runs in {result.seconds:.1f} s."
    )
    first = result.first_sink_layer
    ui.headline("live: first layer with a first-token head", "none" if first is None else str(first))
    ui.figure(llm_figures.sink_whole_live(result, height=ui.fit(420, 300)))
    ui.takeaway(
        "Take from it: a cell per head, its mean weight on token 0 over this text (1 = all of it), every layer run "
        "now; a bright row is a layer whose heads park their attention on the first token, whatever it is."
    )
    st.caption(f"Rule: {decoder.ROLE_RULE}. {full.memory_line(full.model())}.")
    if s.losses:
        losses = ui.result_of(ui.later(full.losses), "all 30 layers over the named text, once per pairing (slow)")
        nats = list(losses.nats.values())
        ui.headline("loss, nats a token: interleaved → rotate-half → no rotation", " → ".join(number(v) for v in nats))
        ui.figure(llm_figures.pairing_losses(losses, height=ui.fit(260, 200)))
        ui.takeaway(
            "Take from it: the same weights, q and k rows paired as the file lays them out (2i, 2i+1), paired as "
            f"rotate-half (i, i+32), and not turned at all; lower is better: {number(nats[0])} as trained, "
            f"{number(nats[1])} with the wrong pairing, {number(nats[2])} without rotation."
        )
        recorded = smollm2.recorded("provenance")["whole_model_checks"]["loss"]["loss_nats"]
        same = "the text measured at extraction" if losses.same_text else "NOT the text measured at extraction"
        st.caption(
            f"Recorded at extraction (float64): {', '.join(map(str, recorded.values()))}; here in float32 on "
            f"{same} (this Python's documentation), {losses.seconds:.1f} s."
        )
else:
    pair = decoder.real_pair(reading, s.layer, s.head)
    preset = decoder.SCALINGS[s.preset]
    logits = decoder.scaled_logits(pair, preset)
    fig = llm_figures.scaled_scores(logits, height=ui.fit(300, 200), legend=ui.legend_side())
    scaled = logits.at_window()
    ui.headline(
        f"{preset.label}: logit of {pair.label} at distance {decoder.ORIGINAL:,}, unscaled → {preset.params.rope_type}",
        f"{number(scaled[0])} → {number(scaled[1])}",
    )
    ui.figure(fig)
    ui.takeaway(
        f"Take from it: the unscaled line is what this model computes; the {preset.params.rope_type} line is what "
        "the formula would make of the same vectors, not what a model retrained with it would do."
    )
    st.caption(
        f"What the {s.preset} formula does to this model's vectors without retraining: SmolLM2 was trained on "
        f"{decoder.ORIGINAL:,} tokens and never with rope_scaling. {preset.source}. The query and key are rotated "
        "back to position 0, then turned by each distance (formulas: the Longer contexts page)."
    )
