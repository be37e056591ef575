"""The "SmolLM2: a RoPE decoder" page's figures and its lecture steps': attention, sink, pair energy, ablations.

Each function returns a `Figure` (a `posviz.drawing` builder, its frames, its shape) from
`posviz.experiments.decoder`'s readings, and the captions say where the numbers come from; the app draws a figure
with `ui.figure`. No model is run here, no streamlit.

Letters: L live layers, M whole-model layers, H query heads, G key/value heads, P rotated pairs, T tokens.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from posviz.drawing import frames, heatmaps, images, layout, lines_bars
from posviz.drawing.colours import METHOD_COLOURS, SERIES_COLORS
from posviz.drawing.display import number
from posviz.drawing.figures import Figure
from posviz.experiments import decoder, whole

DISTANCE = "distance t − s (tokens)"  # the axis of attention against distance, a query's offset to its key


def panel_width(across: float, columns: int, legend: str) -> int:
    """Pixels across each of `columns` picture panels sharing `across` px (with one axis and, at the right, a legend).

    >>> panel_width(1120, 9, "right")  # (1120 - 60 - 90 - 8 * 16) / 9
    93
    """
    beside = layout.LEGEND_WIDTH if legend == "right" else 0
    room = across - layout.AXIS_WIDTH - beside - layout.PANEL_SPACING * (columns - 1)
    return max(40, int(room / columns))


def head_panels(reading: decoder.Reading, layer: int, *, across: float, columns: int, legend: str) -> Figure:
    """Every head's causal attention of one live layer, a picture panel each on the [0, 1] weight scale (one chart).

    >>> r = decoder.read("dog bites man")
    >>> head_panels(r, 1, across=1120, columns=9, legend="right").frames[0].shape
    (27, 7)
    """
    weights = reading.trace.weights[layer].astype(np.float64)  # (H, T, T)
    roles = reading.roles[layer]
    short = {"previous-token": " · t−1", "first-token": " · tok 0", "other": ""}  # a panel's title is ~90 px
    titles = [f"{decoder.head(layer, h)}{short[str(roles[h])]}" for h in range(len(weights))]
    pngs = [images.png(*images.indexed(w, images.WEIGHT_STOPS, (0.0, 1.0), levels=images.PNG_LEVELS)) for w in weights]
    frame = frames.picture_panels_frame(list(weights), titles, pngs, (0.0, 1.0))
    table = pd.concat(
        [
            frames.matrix_frame(w, list(map(str, range(len(w)))), list(map(str, range(len(w)))), head=t)
            for w, t in zip(weights, titles, strict=True)
        ],
        ignore_index=True,
    )
    width = panel_width(across, columns, legend)
    shape = dict(
        row_title="query t",
        col_title="key s",
        width=width,
        height=width,
        columns=columns,
        legend=legend,
        title=f"layer {layer}: each head's causal attention, {reading.T} tokens",
    )
    return Figure(f"llm-heads-{layer}", heatmaps.picture_panels, (frame,), shape, table=table)


def by_distance(reading: decoder.Reading, layer: int, *, height: int = 280, legend: str = "bottom") -> Figure:
    """Each head's mean weight at each relative distance t − s, the positional heads in colour (frame: H x N rows)."""
    frame = frames.by_distance_frame(reading, layer)
    words = dict(title=f"layer {layer}: attention against distance, each head", y_title="mean attention weight")
    shape = dict(
        x="distance", y="weight", color="series", detail="head", x_title=DISTANCE, legend=legend, height=height
    )
    return Figure(f"llm-distance-{layer}", lines_bars.lines, (frame,), {**shape, **words})


def _layer_heads(
    m: np.ndarray, name: str, title: str, *, value_title: str, annotate: bool, height: int, boxed: Sequence[int] = ()
) -> Figure:
    """A (layers, heads) matrix of weights or shares as a heatmap on the fixed [0, 1] scale, so that the live and the
    whole-model maps drawn side by side mean the same by the same colour; the `boxed` layers' cells outlined."""
    frame = frames.matrix_frame(m, [f"layer {i}" for i in range(m.shape[0])], [str(h) for h in range(m.shape[1])])
    frame["boxed"] = frame["row_index"].isin(list(boxed))
    style = heatmaps.CellStyle.weights(  # compact: a phone's 9 heads still write their weights (".38")
        row_title="",
        col_title="head",
        value_title=value_title,
        annotate=annotate,
        legend="right",
        compact=True,
        boxed=bool(boxed),
    )
    return Figure(name, heatmaps.token_heatmap, (frame,), dict(title=title, style=style, height=height))


def sink_live(
    reading: decoder.Reading,
    *,
    height: int = 240,
    value_title: str = "weight on token 0",
    annotate: bool = True,
    boxed: Sequence[int] = (),
) -> Figure:
    """Each live layer's and head's mean weight on token 0, every value written unless `annotate` is False;
    `value_title`: the legend's (a short one leaves the cells room); the `boxed` layers outlined (frame: L x H
    rows)."""
    return _layer_heads(
        reading.sink,
        "llm-sink-live",
        f"live: weight on token 0, {reading.T} tokens",
        value_title=value_title,
        annotate=annotate,
        height=height,
        boxed=boxed,
    )


def sink_mask_off_live(
    reading: decoder.Reading,
    off: np.ndarray,
    *,
    height: int = 240,
    value_title: str = "weight on token 0",
    annotate: bool = False,
    boxed: Sequence[int] = (),
) -> Figure:
    """`sink_live`'s map for the same tokens rerun with the causal mask off (`decoder.sink_mask_off`: every query sees
    every key, RoPE kept), on the same [0, 1] scale, values written only if `annotate`, the `boxed` layers outlined
    (frame: L x H rows)."""
    if off.shape != reading.sink.shape:
        raise ValueError(f"expected the mask-off weights in the live shape {reading.sink.shape}, got {off.shape}")
    return _layer_heads(
        off,
        "llm-sink-mask-off",
        f"mask off: weight on token 0, {reading.T} tokens",
        value_title=value_title,
        annotate=annotate,
        height=height,
        boxed=boxed,
    )


def sink_model(model: decoder.WholeModel, *, height: int = 420) -> Figure:
    """Each of the 30 layers' heads' mean weight on token 0, from extraction (frame: M x H rows)."""
    return _layer_heads(
        model.sink,
        "llm-sink-model",
        "whole model, at extraction: weight on token 0",
        value_title="weight on token 0",
        annotate=False,
        height=height,
    )


def pair_shares(reading: decoder.Reading, layer: int, *, height: int = 300, legend: str = "bottom") -> Figure:
    """Each query and key head's energy per rotated pair as a share of its total, fast pairs (i = 0) on the left."""
    shares, names = reading.energy_shares(layer)
    frame = frames.matrix_frame(shares, names, [str(i) for i in range(shares.shape[1])])
    style = heatmaps.CellStyle.weights(
        row_title="",
        col_title="pair i (dimensions 2i, 2i+1)",
        domain=(0.0, float(shares.max())),
        value_title="share of energy",
        annotate=False,
        legend=legend,
    )
    title = f"layer {layer}: energy per pair (fast i = 0 → slow i = {shares.shape[1] - 1})"
    return Figure(f"llm-pairs-{layer}", heatmaps.token_heatmap, (frame,), dict(title=title, style=style, height=height))


def model_fast_share(model: decoder.WholeModel, *, height: int = 420) -> Figure:
    """Each whole-model query head's share of energy in the fast pairs, from extraction (frame: M x H rows)."""
    title = f"whole model (extraction): q energy, i < {decoder.FAST_PAIRS}"
    return _layer_heads(model.fast_shares, "llm-fast-model", title, value_title="share", annotate=False, height=height)


def ablation_gaps(result: decoder.Ablation, *, height: int = 280) -> Figure:
    """Each live layer's gap for the three ablations, on a log axis (an exact 0 at the 1e-9 floor), layers ticked
    0..L-1; the legend under the plot, where the three long names fit (a right legend cut them at 1280 px)."""
    frame = frames.ablation_frame(result)
    words = dict(
        title="each layer: reordered or shifted against the plain run", x_title="layer", y_title="max |Δ| (log)"
    )
    shape = dict(x="layer", y="shown", color="ablation", log_y=True, points=True, whole_x=True)
    return Figure("llm-ablations", lines_bars.lines, (frame,), {**shape, **words, "legend": "bottom", "height": height})


def scaled_scores(logits: decoder.ScaledLogits, *, height: int = 300, legend: str = "bottom") -> Figure:
    """A real query/key pair's rotary logit against the distance, unscaled and under a rope_scaling preset (log x)."""
    scores = frames.logit_frame(logits)
    point = frames.logit_window_point(scores)
    words = dict(
        title=f"{logits.pair.label}: logit against distance",
        x_title="distance m (tokens, log)",
        y_title="q · R(m) k / √64",
    )
    shape = dict(x="distance", y="score", color="curve", log_x=True, legend=legend, height=height)
    return Figure("llm-scaled-scores", lines_bars.lines_marked, (scores, point), {**shape, **words})


ROPE_RUNS = (("RoPE on", SERIES_COLORS[0]), ("RoPE off", METHOD_COLOURS["unscaled"]))  # the ablation in grey


PROFILE_DISTANCES = 16  # distances 0-15 drawn: past them few queries remain (one at 18 in 19 tokens), bars crowd


def head_profile_rope_off(
    reading: decoder.Reading, off: np.ndarray, layer: int, h: int, *, height: int = 240
) -> Figure:
    """One head's mean weight at each distance, RoPE on beside RoPE off as grouped bars: `off`, the same tokens' weights
    (L, H, T, T) with RoPE off and the mask kept (decoder.rope_off, run once by the caller, who reads t − 1 from it
    too). The lecture's step 20, which claims the head reads t − 1 only with its rotation."""
    without = decoder.by_distance(off[layer, h], first=reading.first)
    runs = {"RoPE on": reading.by_distance(layer)[h, :PROFILE_DISTANCES], "RoPE off": without[:PROFILE_DISTANCES]}
    frame = pd.DataFrame(
        [{DISTANCE: n, "mean weight": float(w), "run": run} for run, curve in runs.items() for n, w in enumerate(curve)]
    )
    title = f"head {decoder.head(layer, h)}: attention against distance, RoPE on and off"
    shape = dict(x=DISTANCE, y="mean weight", group="run", y_title="mean weight", height=height, title=title)
    return Figure(
        f"llm-profile-off-{layer}-{h}", lines_bars.grouped_bars_keyed, (frame,), {**shape, "colours": ROPE_RUNS}
    )


def sink_difference(reading: decoder.Reading, model: decoder.WholeModel) -> str:
    """Why the live and the whole-model sink maps differ, with both means over the live layers' heads: one line."""
    L = reading.sink.shape[0]
    live, extracted = float(reading.sink.mean()), float(model.sink[:L].mean())
    return (
        f"Why the maps differ: a longer text spreads each query over more keys. Layers 0-{L - 1} give token 0 "
        f"{number(live, digits=2)} here (this text, {reading.T} tokens), {number(extracted, digits=2)} at extraction "
        f"({model.text_count} longer texts, {model.tokens:,} tokens)."
    )


def extraction_label(model: decoder.WholeModel) -> str:
    """Where the whole-model numbers come from, for a caption."""
    fed = "with" if model.im_start else "without"
    return (
        f"Whole model (30 layers): computed at extraction by tools/extract_smollm2.py (float64 numpy, the GGUF's "
        f"weights) over {model.texts}, fed {fed} <|im_start|>; not recomputed here."
    )


# ----- the whole model, fetched on request (experiments.whole) ----------------------------------------------------


def next_tokens(run: whole.NextTokens, *, height: int = 220) -> Figure:
    """One run's TOP next tokens and their probabilities, most likely first (frame: K rows).

    >>> import numpy as np
    >>> run = whole.NextTokens("rope", "RoPE", np.arange(2), (" Paris", " the"), np.array([0.77, 0.06]))
    >>> next_tokens(run).frames[0].shape
    (2, 3)
    """
    names = [f"{k + 1} {decoder.shown_token(t)}" for k, t in enumerate(run.tokens)]  # ranked: two texts never merge
    frame = pd.DataFrame({"next token": names, "p": run.p, "shown": [number(p, digits=2) for p in run.p]})
    shape = dict(x="next token", y="p", x_title="", y_title="p(next token)", text="shown", height=height)
    return Figure(f"llm-next-{run.run}", lines_bars.bars, (frame,), dict(title=run.label, **shape))


def sink_whole_live(reading: whole.WholeReading, *, height: int = 420) -> Figure:
    """Each of the whole model's layers' heads' mean weight on token 0 on the typed text, live (frame: M x H rows)."""
    return _layer_heads(
        reading.sink,
        "llm-sink-whole",
        f"all {reading.sink.shape[0]} layers, live: weight on token 0, {reading.tokens.ids.size} tokens",
        value_title="weight on token 0",
        annotate=False,
        height=height,
    )


def pairing_losses(result: whole.Losses, *, height: int = 240) -> Figure:
    """The loss on the named text under each RoPE pairing of the same weights (frame: 3 rows)."""
    frame = pd.DataFrame(
        {
            "pairing": list(result.nats),
            "loss": list(result.nats.values()),
            "shown": [number(v) for v in result.nats.values()],
        }
    )
    title = f"loss on {whole.LOSS_TEXT} ({result.tokens} tokens), all {result.layers} layers"
    shape = dict(x="pairing", y="loss", x_title="RoPE pairing of the q and k rows", y_title="nats a token")
    return Figure("llm-pairings", lines_bars.bars, (frame,), dict(title=title, text="shown", height=height, **shape))
