"""What each scheme buys: matched small models

Ten small byte-level decoders trained here, identical in text, bytes, architecture, initialisation, optimiser,
steps and training window, differing only in where position comes in: nothing (the causal mask only), a learned
table, added sinusoids, RoPE, ALiBi; two seeds each. Everything below is computed from their shipped weights by
this server: what they measure, not what the papers found.
"""

import numpy as np
import streamlit as st

import ui
from posviz.drawing import figures, frames
from posviz.drawing.display import number
from posviz.experiments import matched as ex
from posviz.models import matched

ui.page_setup(__doc__)
PARTS = {
    "long": "train short, test long",
    "scaling": "RoPE scaling at inference",
    "probe": "what a model without position knows",
    "attention": "attention past the window",
    "magnitude": "the position signal scaled",
}
TEXT = "The interpreter reads the file line by line; each statement runs in order. " * 6
P = ui.params(
    ui.part_param(PARTS),
    ui.Param("scheme", "rope", "choice", options=matched.SCHEMES, label="model's scheme"),
    ui.Param("seed", 0, "choice", options=tuple(matched.seeds()), label="seed"),
    ui.Param("text", TEXT, "text", max_len=1000, label="text (UTF-8 bytes, up to 1000)"),
    ui.Param("layer", 0, "int", 0, matched.config().layers - 1, label="layer"),
)
keys = {
    "long": (),
    "scaling": (),
    "probe": (),
    "attention": ("text", "layer"),
    "magnitude": ("scheme", "seed"),
}
s = ui.sidebar(P, page="matched", keys=keys)
cfg, recipe = matched.config(), matched.provenance()["recipe"]
T = cfg.T_train
FIRST = "computed once per server from the shipped weights (about a minute on two cores; later visits are instant)"


if s.part == "long":
    curves = ui.result_of(ui.later(ex.family_curves), f"held-out loss of all ten models: {FIRST}")
    rows = ex.window_table(curves)
    last = {r.scheme: r for r in rows if r.start == rows[-1].start}
    inside = {r.scheme: r for r in rows if r.start == 0}
    a, b = st.columns(2)
    with a:
        best = min((r for r in last.values() if np.isfinite(r.mean)), key=lambda r: r.mean)
        ui.headline(f"lowest loss at positions {best.start}-{best.stop - 1} ({best.stop // T} x T_train)", best.scheme)
    with b:
        gaps = {k: last[k].mean - inside[k].mean for k in last if np.isfinite(last[k].mean)}
        ui.takeaway(
            "Loss past the window minus inside it (nats per byte, seed mean): "
            + ", ".join(f"{k} {v:+.2f}" for k, v in gaps.items())
            + f". The learned table has {T} rows, so its lines stop at {T}. Gaps within the seeds' spread (table "
            "below) are noise."
        )
    ui.figure(figures.heldout_by_position(curves, T), height=ui.fit(300, 230))
    table = frames.bin_table_frame(rows, ex.bins(T), matched.SCHEMES)
    st.dataframe(table, hide_index=True)
    st.caption(
        f"Mean held-out loss per position bin, seed mean (lowest..highest of {len(matched.seeds())} seeds), on "
        f"{ex.WINDOWS} held-out windows of {ex.FACTOR * T} bytes from pydoc_data topics the models never saw."
    )
elif s.part == "scaling":
    curves = ui.result_of(ui.later(ex.family_scaled), f"the RoPE models with each scaling method: {FIRST}")
    ui.figure(figures.scaled_by_position(curves, T), height=ui.fit(320, 260))
    past = {k: float(v[4 * T :].mean()) for k, v in curves.items()}
    methods = ["unscaled", *ex.SCALING]
    ui.takeaway(
        f"Mean loss at positions {4 * T}-{8 * T - 1}, seed mean: "
        + ", ".join(f"{m} {np.mean([v for k, v in past.items() if k.startswith(m + '-')]):.3f}" for m in methods)
        + f". Each method is applied at inference for a window of {T} extended {ex.FACTOR} times, without the "
        "fine-tuning the methods' papers use."
    )
elif s.part == "probe":
    r2 = ui.result_of(ui.later(ex.family_probe), f"the position probes: {FIRST}")
    ui.figure(figures.probe_by_layer(r2), height=ui.fit(300, 250))
    none = np.mean([v[-1] for k, v in r2.items() if k.startswith("none-")])
    ui.takeaway(
        f"R² 1: position read exactly; 0: no better than guessing the mean position. The model with no position "
        f"signal reaches R² {none:.3f} after its last layer: the causal mask (the lecture's third family) is the only "
        "way it can know where a token is, by what it sees before it."
    )
elif s.part == "attention":
    ids = matched.encode(s.text)
    if ids.size < 2:
        st.info("Type at least 2 bytes of text; showing the default text.")
        ids = matched.encode(TEXT)
    first = {}
    for scheme in matched.SCHEMES:
        if scheme == "learned" and ids.size > T:
            continue
        first[f"{scheme}-seed0"] = ex.attention_reading(scheme, 0, ids, s.layer).first
    ui.figure(figures.attention_on_first(first, T, layer=s.layer), height=ui.fit(300, 250))
    ui.takeaway(
        f"{ids.size} bytes. Weight each query puts on byte 0, mean of layer {s.layer}'s heads, seed 0"
        + (f"; the learned table is left out past {T} bytes." if ids.size > T else ".")
    )
else:
    scales = np.linspace(0.0, 1.0, 6)
    losses = ex.magnitude_losses(s.scheme, s.seed, scales)
    cos = ex.sentence_cosine(s.scheme, s.seed, "dog bites man", "man bites dog", scales)
    a, b = st.columns(2)
    with a:
        ui.headline("held-out loss: position off → on", f"{number(losses[0])} → {number(losses[-1])}")
    with b:
        ui.headline('"dog bites man" vs "man bites dog": cosine at 0 → 1', f"{number(cos[0])} → {number(cos[-1])}")
    left, right = st.columns(2)
    with left:
        title = f"{s.scheme}-seed{s.seed}: held-out loss inside the window"
        ui.figure(
            figures.scale_line(scales, losses, name="magnitude-loss", title=title, y_title="nats per byte"),
            height=ui.fit(260, 220),
        )
    with right:
        title = "cosine of the two sentences' mean outputs"
        ui.figure(
            figures.scale_line(scales, cos, name="magnitude-cosine", title=title, y_title="cosine"),
            height=ui.fit(260, 220),
        )
    ui.takeaway(
        "Scale 0 removes the position signal (the added rows, RoPE's angles or ALiBi's slopes); a decoder's causal "
        "mask still tells the two sentences apart, so their cosine is below 1 even at 0."
    )
st.caption(
    f"Models: {len(matched.names())} byte-level decoders, {cfg.layers} layers, d = {cfg.d}, {cfg.heads} heads, "
    f"trained {recipe['optimiser']['steps']} steps of {recipe['tokens_per_step']:,} bytes on a {T}-byte window "
    "(tools/train_matched.py). Text: the Python documentation's pydoc_data topics, PSF licence."
)
