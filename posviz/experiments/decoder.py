"""SmolLM2's experiments: its heads' statistics, the lessons' ablations run in it, and what a page reads of them.

`posviz.models.smollm2` reads the model and runs its shipped layers; this module measures what those layers do:
the weight on token 0 (the sink) and on the token before, each head's role by a stated rule, the energy of each
rotated pair, and the three ablations (order through the mask, permutation equivariance, shift invariance). Numpy
only; the page's frames and charts are `posviz.drawing`'s.

Dimension letters (as in smollm2): T tokens, L live layers (5), M whole-model layers (30), H = 9 query heads,
G = 3 key/value heads, P = 32 rotated pairs, N distances.
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from posviz.experiments import claims
from posviz.maths import _checks, rotary, scaling, verdicts
from posviz.models import llama_gguf, smollm2
from posviz.models.smollm2 import IM_START, MAX_RUN, Rotation, SmolLM2, Trace, check_ids, load, run

# The head statistics (sink, previous, roles) read the queries t >= FIRST_QUERY: query t sees only t + 1 keys, so
# queries 0..3 put at least 1/4 on token 0 or t - 1 by arithmetic (uniform attention gives 1, 1/2, 1/3, 1/4), not
# by the head's habit. The extraction, the claims and the page all use it; a text of at most FIRST_QUERY tokens
# falls back to t >= 1 (first_query).
FIRST_QUERY = 4


def reversal(ids: np.ndarray, keep: int | None = IM_START) -> np.ndarray:
    """The reordering the ablations use: the tokens backwards, a leading `keep` (<|im_start|>, a BOS) kept first.

    >>> reversal(np.array([IM_START, 504, 3575, 9])).tolist()
    [0, 3, 2, 1]
    """
    first = 1 if ids.size and keep is not None and ids[0] == keep else 0
    return np.r_[np.arange(first), np.arange(ids.size - 1, first - 1, -1)].astype(np.int64)


def layer_gaps(a: np.ndarray, b: np.ndarray, *, relative: bool = True) -> np.ndarray:
    """Each layer's max |a - b|, divided by that layer's max |b| when `relative`.

    Returns: (L,) float64 for a, b (L, ...)
    """
    axes = tuple(range(1, a.ndim))
    gap = np.abs(a - b).max(axis=axes).astype(np.float64)
    return gap / np.abs(b).max(axis=axes) if relative else gap


def run_model(ids: object, *, model: SmolLM2 | llama_gguf.Model | None = None, **options: object) -> Trace:
    """smollm2.run, or a llama-family GGUF model's own run (its biases, its frequencies): the same options.

    Returns: Trace with weights (L, H, T, T)
    """
    if isinstance(model, llama_gguf.Model):
        return model.run(ids, **options)
    return run(ids, model=model, **options)


def first_token(model: SmolLM2 | llama_gguf.Model) -> int | None:
    """The id the ablations keep first: a GGUF model's BOS, SmolLM2's <|im_start|>."""
    return model.bos if isinstance(model, llama_gguf.Model) else IM_START


def reordered_gaps(
    ids: np.ndarray,
    perm: np.ndarray,
    *,
    layers: int,
    model: SmolLM2 | llama_gguf.Model,
    rotation: Rotation,
    causal: bool,
) -> tuple[np.ndarray, np.ndarray]:
    """Permutation equivariance, layer by layer: h(PX) against P h(X) (relative) and A(PX) against P A(X) P^T.

    Returns: (hidden gaps (L,), attention-weight gaps (L,))
    """
    plain = run_model(ids, layers=layers, model=model, rotation=rotation, causal=causal)
    moved = run_model(ids[perm], layers=layers, model=model, rotation=rotation, causal=causal)
    weights = plain.weights[:, :, perm][:, :, :, perm]  # (L, H, T, T) reordered as the input was
    return layer_gaps(moved.hidden, plain.hidden[:, perm]), layer_gaps(moved.weights, weights, relative=False)


@dataclass(frozen=True, eq=False)
class Ablation:
    """Each layer's gap (L,) between a run and its reordered or shifted twin: hidden states and rotated queries
    relative to that layer's largest value, attention weights as they are (they are at most 1)."""

    perm: np.ndarray  # (T,) the reordering (reversal)
    k: int  # every position moved by k
    base: Trace  # the plain run, RoPE and the causal mask on: the shift's reference
    order: np.ndarray  # (L,) no rotation, causal mask kept: hidden, reordered
    blind: np.ndarray  # (L,) no rotation, no mask: hidden, reordered (float32 rounding)
    blind_weights: np.ndarray  # (L,) no rotation, no mask: attention weights, reordered
    shift: np.ndarray  # (L,) RoPE and mask, every position + k: attention weights
    shift_hidden: np.ndarray  # (L,) the same: hidden
    shift_q: np.ndarray  # (L,) the same: rotated queries (they move, else the invariance would say nothing)


def ablation_gaps(
    ids: object,
    *,
    k: int,
    layers: int | None = None,
    model: SmolLM2 | llama_gguf.Model | None = None,
    base: Trace | None = None,
) -> Ablation:
    """The lessons' three ablations on `ids`: order through the mask, permutation equivariance without rotation or
    mask, shift invariance under RoPE. `base`, the plain run of the same ids and layers, is reused when given.

    Returns: Ablation with (L,) gaps

    >>> ablation_gaps([1, 504, 3575], k=10, layers=2).order.shape
    (2,)
    """
    model = load() if model is None else model
    ids = check_ids(ids, model.config.vocab, limit=MAX_RUN)
    count = len(model.layers) if layers is None else layers
    base = run_model(ids, layers=count, model=model) if base is None else base
    if not np.array_equal(base.ids, ids) or base.hidden.shape[0] != count or base.rotation != "rope" or not base.causal:
        raise ValueError(f"base must be the plain RoPE run of these ids through {count} layers")
    perm = reversal(ids, first_token(model))
    order, _ = reordered_gaps(ids, perm, layers=count, model=model, rotation="none", causal=True)
    blind, blind_weights = reordered_gaps(ids, perm, layers=count, model=model, rotation="none", causal=False)
    shifted = run_model(ids, layers=count, model=model, start=k)
    return Ablation(
        perm,
        int(k),
        base,
        order,
        blind,
        blind_weights,
        layer_gaps(shifted.weights, base.weights, relative=False),
        layer_gaps(shifted.hidden, base.hidden),
        layer_gaps(shifted.q, base.q),
    )


def by_distance(weights: np.ndarray, *, first: int = 1) -> np.ndarray:
    """Mean attention weight at each distance t - s = 0..T-1 over the queries t >= max(first, distance), so that
    distance 1 is previous_weight(weights, first=first).

    Returns: (..., T) for weights (..., T, T)
    """
    T, first = weights.shape[-1], _queries_from(weights, first)
    diagonals = [np.diagonal(weights, -n, axis1=-2, axis2=-1)[..., max(first - n, 0) :] for n in range(T)]
    return np.stack([d.mean(axis=-1) for d in diagonals], axis=-1)


def _queries_from(weights: np.ndarray, first: int) -> int:
    first = _checks.integer("first", first, minimum=1)
    if weights.shape[-2] <= first:
        raise ValueError(f"need more than first = {first} query positions, got T = {weights.shape[-2]}")
    return first


def first_query(T: int) -> int:
    """The first query the head statistics read for T tokens: FIRST_QUERY, or 1 when T <= FIRST_QUERY.

    >>> first_query(20), first_query(4)
    (4, 1)
    """
    return FIRST_QUERY if _checks.integer("T", T, minimum=1) > FIRST_QUERY else 1


def sink_weight(weights: np.ndarray, *, first: int = 1) -> np.ndarray:
    """Mean weight on token 0 (the sink) over the queries t >= first (query 0 can only read itself).

    Returns: (...) for weights (..., T, T), e.g. (L, H)
    """
    first = _queries_from(weights, first)
    return weights[..., first:, 0].mean(axis=-1)


def previous_weight(weights: np.ndarray, *, first: int = 1) -> np.ndarray:
    """Mean weight on the previous token t - 1 over the queries t >= first.

    Returns: (...) for weights (..., T, T), e.g. (L, H)
    """
    first = _queries_from(weights, first)
    return np.diagonal(weights, -1, axis1=-2, axis2=-1)[..., first - 1 :].mean(axis=-1)


ROLE_THRESHOLD = 0.5  # a head's mean weight on t - 1 (or token 0) past which it has that role


def head_roles(sink: np.ndarray, previous: np.ndarray, *, threshold: float = ROLE_THRESHOLD) -> np.ndarray:
    """The positional-head rule: "previous-token" if the mean weight on t-1 exceeds `threshold`,
    "first-token" if the mean weight on token 0 does, else "other" (previous wins if both).

    Returns: same shape as sink, str
    """
    sink, previous = np.asarray(sink), np.asarray(previous)
    if sink.shape != previous.shape:
        raise ValueError(f"sink and previous must have one shape, got {sink.shape} and {previous.shape}")
    roles = np.where(sink > threshold, "first-token", "other")
    return np.where(previous > threshold, "previous-token", roles)


def pair_energy(x: np.ndarray) -> np.ndarray:
    """Mean over tokens of |x_pair|^2 for each interleaved pair (2i, 2i+1): rotation leaves it unchanged.

    Returns: (..., P) for x (..., T, d_k), e.g. (L, H, P) from Trace.q
    """
    if x.shape[-1] % 2:
        raise ValueError(f"pairs need an even last axis, got {x.shape[-1]}")
    return (np.square(x[..., 0::2]) + np.square(x[..., 1::2])).mean(axis=-2)


# ----- a typed text read by the live layers -----------------------------------------------------------------------

DEFAULT_TEXT = "The quick brown fox jumps over the lazy dog, and then the dog bites the man."
MIN_IDS = 3  # the head statistics need a query t >= 1 (first_query), a reordering two tokens to move
FAST_PAIRS = 8  # the fastest quarter of the 32 pairs: i = 0..7, wavelengths 6 to 78 tokens
LEANS = 1 / 3  # a head leans on the fast pairs with more than a third of its energy there (an even spread: 1/4)
SINK_LAYER = claims.SMOLLM2_SINK_LAYER  # the shipped layer with the largest whole-model sink weight (claim 20's)
ROLE_RULE = (
    f"over the queries t ≥ {FIRST_QUERY} (t ≥ 1 for a text of at most {FIRST_QUERY} tokens), as at "
    f"extraction: previous-token if the mean weight on token t−1 is above {ROLE_THRESHOLD:g}; else first-token if "
    "the mean weight on token 0 is; else other (decoder.head_roles)"
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
    trace: Trace

    @property
    def T(self) -> int:
        return int(self.tokens.ids.size)

    @property
    def first(self) -> int:
        """The first query the head statistics read: FIRST_QUERY, as at extraction, or 1 for a short text."""
        return first_query(self.T)

    @property
    def notes(self) -> tuple[str, ...]:
        """The tokenizer's notes, and a note when the head statistics fall back to the queries t >= 1."""
        if self.first == FIRST_QUERY:
            return self.tokens.notes
        short = (
            f"only {self.T} tokens, so the head statistics read the queries t ≥ {self.first}, not "
            f"t ≥ {FIRST_QUERY} as the whole-model numbers do"
        )
        return (*self.tokens.notes, short)

    @property
    def sink(self) -> np.ndarray:
        """(L, H) mean weight on token 0 over the queries t >= first."""
        return sink_weight(self.trace.weights, first=self.first)

    @property
    def previous(self) -> np.ndarray:
        """(L, H) mean weight on token t - 1 over the queries t >= first."""
        return previous_weight(self.trace.weights, first=self.first)

    @property
    def q_energy(self) -> np.ndarray:
        """(L, H, P) each query head's mean energy per rotated pair."""
        return pair_energy(self.trace.q)

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
        return head_roles(self.sink, self.previous)

    def fast_shares(self, layer: int) -> np.ndarray:
        """(H,) each query head of `layer`'s share of its pair energy in the FAST_PAIRS fastest pairs."""
        return fast_share(pair_energy(self.trace.q[layer]))

    def by_distance(self, layer: int) -> np.ndarray:
        """(H, T) each head of `layer`'s mean weight at each distance t − s over the queries t >= first."""
        return by_distance(self.trace.weights[layer], first=self.first)

    def energy_shares(self, layer: int) -> tuple[np.ndarray, list[str]]:
        """`energy_shares` of `layer`'s query and key heads: ((H + G, P), H + G names)."""
        return energy_shares(self.trace.q[layer], self.trace.k[layer])


def tokens_of(text: str, im_start: bool = True) -> smollm2.Tokens:
    """The ids a text feeds (at most 64 tokens); ValueError when it gives fewer than MIN_IDS ids."""
    tokens = smollm2.tokenize(text, im_start=im_start)
    if tokens.ids.size < MIN_IDS:
        raise ValueError(f"the text gives {tokens.ids.size} token ids; the page needs at least {MIN_IDS}")
    return tokens


def read(text: str, im_start: bool = True) -> Reading:
    """The live layers on `text` (at most 64 tokens); ValueError when it gives fewer than MIN_IDS ids.

    >>> read("dog bites man").trace.weights.shape
    (5, 9, 4, 4)
    """
    tokens = tokens_of(text, im_start)
    return Reading(text, tokens, run(tokens.ids))


def rope_off(reading: Reading) -> np.ndarray:
    """(L, H, T, T) the attention weights of `reading`'s tokens run again with RoPE switched off (every angle 0, the
    causal mask kept).

    >>> rope_off(read("dog bites man")).shape
    (5, 9, 4, 4)
    """
    return _rerun(reading, rotation="none", causal=True)


def previous_rope_off(reading: Reading) -> np.ndarray:
    """(L, H) each head's mean weight on t − 1 when the same tokens run with RoPE switched off (`rope_off`): what a
    previous-token head reads without its rotation.

    >>> previous_rope_off(read("dog bites man")).shape
    (5, 9)
    """
    return previous_weight(rope_off(reading), first=reading.first)


def sink_mask_off(reading: Reading) -> np.ndarray:
    """(L, H) each head's mean weight on token 0 when the same tokens run with the causal mask off (every query sees
    every key; RoPE kept): what the sink is without the mask's order.

    >>> sink_mask_off(read("dog bites man")).shape
    (5, 9)
    """
    return sink_weight(_rerun(reading, rotation="rope", causal=False), first=reading.first)


def _rerun(reading: Reading, *, rotation: Rotation, causal: bool) -> np.ndarray:
    """The attention weights (L, H, T, T) of `reading`'s tokens through its layers again, with one ablation."""
    return run(reading.tokens.ids, layers=reading.trace.weights.shape[0], rotation=rotation, causal=causal).weights


def shown_token(token: str) -> str:
    """A token for a line of text: control characters as \\xNN, a leading space as ␣ (so ' the' reads as one)."""
    plain = "".join(f"\\x{ord(c):02x}" if unicodedata.category(c) in ("Cc", "Cf") else c for c in token)
    return "␣" + plain[1:] if plain.startswith(" ") else plain


def fed_line(tokens: smollm2.Tokens, limit: int | None = None, first: str = "<|im_start|> (id 1)") -> str:
    """Which ids are fed, as one line: the count, with or without <|im_start|>, each token numbered (cut with an
    ellipsis past `limit` characters).

    >>> fed_line(smollm2.tokenize("dog bites man"))
    '4 ids fed, <|im_start|> (id 1) first:  0:<|im_start|> 1:dog 2:␣bites 3:␣man'
    """
    start = f"{first} first" if tokens.im_start else f"no {first.split(' (')[0]}"
    pieces = " ".join(f"{t}:{shown_token(s)}" for t, s in enumerate(tokens.tokens))
    line = f"{tokens.ids.size} ids fed, {start}:  {pieces}"
    return line if limit is None or len(line) <= limit else line[: limit - 1] + "…"


def head(layer: int, h: int) -> str:
    """A head's name, layer.head, both from 0: "1.2"."""
    return f"{layer}.{h}"


def positional_heads(reading: Reading, role: str) -> list[str]:
    """The live heads of `role` by ROLE_RULE, as "layer.head"."""
    return [head(int(i), int(j)) for i, j in np.argwhere(reading.roles == role)]


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
    energy = np.concatenate([pair_energy(q), pair_energy(k)]).astype(np.float64)
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


def strongest_pair(reading: Reading, layer: int, model: SmolLM2 | llama_gguf.Model | None = None) -> StrongPair:
    """The pair with the largest mean energy share (energy_shares over the q and k heads) in `layer`, with its speed
    (a GGUF model's frequencies are its own, scaling applied).

    >>> 0 <= strongest_pair(read("dog bites man"), 1).i < 32
    True
    """
    shares, _ = reading.energy_shares(layer)
    mean = shares.mean(axis=0)  # (P,)
    i = int(mean.argmax())
    model = load() if model is None else model
    config = model.config
    own = isinstance(model, llama_gguf.Model)
    frequency = float((model.inv_freq if own else rotary.frequencies(config.d_k, config.base))[i])  # radians/token
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
    config = load().config
    frequencies = rotary.frequencies(config.d_k, config.base)  # (P,) radians per token
    top = np.asarray(energy).argmax(axis=-1)
    return int(np.sum(frequencies[top] * config.context < 2 * np.pi)), int(top.size)


def shipped_layers() -> tuple[int, int]:
    """(layers shipped and run live, layers of the whole model), as the model's file states them."""
    model = load()
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

    @property
    def fast_shares(self) -> np.ndarray:
        """(M, H) each query head's share of its pair energy in the FAST_PAIRS fastest pairs."""
        return fast_share(self.q_energy)


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
        sink=np.array([r["sink"] for r in layers]),
        previous=np.array([r["previous"] for r in layers]),
        roles=np.array([r["verdict"] for r in layers]),
        q_energy=np.array([r["q_energy"] for r in energy]),
        k_energy=np.array([r["k_energy"] for r in energy]),
        rule=stats["rule"],
        texts=f"{len(stats['texts'])} texts ({names}), {part['tokens']} tokens",
        im_start=bool(part["im_start"]),
        text_count=len(stats["texts"]),
        tokens=int(part["tokens"]),
    )


# ----- ablations: the lessons in a real model ---------------------------------------------------------------------


def order_gap(result: Ablation) -> float:
    """The last layer's reordering gap without rotation, mask kept (relative to its largest |h|)."""
    return float(result.order[-1])


def equivariance_gap(result: Ablation) -> float:
    """The largest reordering gap without rotation or mask, over layers (relative to each layer's largest |h|)."""
    return float(result.blind.max())


def shift_gap(result: Ablation) -> float:
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


def read_ablations(text: str, im_start: bool, k: int) -> Ablation:
    """ablation_gaps on a text's ids (`read`'s rules), keyed by scalars for a cache; its plain run is the only RoPE
    run on the way (no separate `read`)."""
    return ablation_gaps(tokens_of(text, im_start).ids, k=k)


# ----- the sentences of lesson 002's exercise 2 -------------------------------------------------------------------

SENTENCES = (" dog bites man", " man bites dog")  # a leading space: both orders feed the tokens ␣dog ␣bites ␣man


def sentence_cosine(rotation: Rotation = "rope", causal: bool = True) -> tuple[float, float]:
    """The cosine of the two SENTENCES: the mean of the word tokens' states after the last shipped layer,
    <|im_start|> left out; and how many times longer <|im_start|>'s state is than the words' (the sink)."""
    states = []
    for text in SENTENCES:
        tokens = smollm2.tokenize(text)
        states.append(run(tokens.ids, rotation=rotation, causal=causal).hidden[-1])
    return sentence_pair(*states)


# ----- how far rounding the weights moves step 19's 1 − cosine ---------------------------------------------------
# The shipped layers are Q4_1 (32 values a block, 16 levels from the block's min to its max) and no full-precision
# file is here: the next best measure is to round again as coarsely, as noise of one rounding step, and rerun.
ROUNDING_BLOCK, ROUNDING_LEVELS = 32, 16
ROUNDING_DRAWS = 20  # step 19's rerounded copies (about 0.3 s each), at seed 0
ROUNDING_RUNS = {"RoPE + mask": ("rope", True), "RoPE off": ("none", True), "both off": ("none", False)}


def rounding_step(w: np.ndarray) -> np.ndarray:
    """Each value's rounding step in ROUNDING_BLOCK-value blocks along its row: (block max − block min) / 15.

    >>> rounding_step(np.arange(64.0).reshape(1, 64))[0, [0, 31, 32]].tolist()
    [2.066666666666667, 2.066666666666667, 2.066666666666667]
    """
    rows, cols = w.shape
    if cols % ROUNDING_BLOCK:
        raise ValueError(f"expected a row length divisible by {ROUNDING_BLOCK}, got {cols}")
    blocks = w.reshape(rows, cols // ROUNDING_BLOCK, ROUNDING_BLOCK)
    step = (blocks.max(axis=2) - blocks.min(axis=2)) / (ROUNDING_LEVELS - 1)
    return np.repeat(step, ROUNDING_BLOCK, axis=1)


def rerounded(model: SmolLM2, rng: np.random.Generator) -> SmolLM2:
    """`model` with every weight matrix moved by uniform noise of ±half its rounding step (the norms' vectors kept)."""
    from dataclasses import fields, replace

    layers = []
    for layer in model.layers:
        moved = {
            f.name: (w + rng.uniform(-0.5, 0.5, w.shape) * rounding_step(w)).astype(np.float32)
            for f in fields(layer)
            if (w := getattr(layer, f.name)).ndim == 2
        }
        layers.append(replace(layer, **moved))
    return replace(model, layers=tuple(layers))


def rounding_gaps(draws: int = 20, seed: int = 0) -> dict[str, np.ndarray]:
    """1 − cosine of the two SENTENCES for each of step 19's runs (ROUNDING_RUNS) on `draws` rerounded copies of the
    shipped layers: (draws,) each. Takes about 0.4 s a draw."""
    if draws < 1:
        raise ValueError(f"expected at least 1 draw, got {draws}")
    shipped, rng = load(), np.random.default_rng(seed)
    ids = [smollm2.tokenize(t).ids for t in SENTENCES]  # the same tokens for every copy and run
    gaps: dict[str, list[float]] = {name: [] for name in ROUNDING_RUNS}
    for _ in range(draws):
        model = rerounded(shipped, rng)
        for name, (rotation, causal) in ROUNDING_RUNS.items():
            states = [run(i, rotation=rotation, causal=causal, model=model).hidden[-1] for i in ids]
            gaps[name].append(1 - sentence_pair(*states)[0])
    return {name: np.array(v) for name, v in gaps.items()}


@lru_cache(maxsize=1)
def rerounding() -> dict[str, np.ndarray]:
    """`rounding_gaps` at ROUNDING_DRAWS draws, seed 0: once per process (the server computes it at start)."""
    return rounding_gaps(ROUNDING_DRAWS, 0)


def sentence_pair(a: np.ndarray, b: np.ndarray) -> tuple[float, float]:
    """From the two SENTENCES' last states (T, d) each: the cosine of their word means (<|im_start|>, token 0, left
    out) and how many times longer the first one's token-0 state is than its words' (the sink)."""
    from posviz.models.minilm import encoder  # its cosine, imported here: it loads MiniLM's helpers

    a, b = a.astype(np.float64), b.astype(np.float64)
    norms = np.linalg.norm(a, axis=1)
    return encoder.cosine(a[1:].mean(axis=0), b[1:].mean(axis=0)), float(norms[0] / norms[1:].mean())


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
    angles = rotary.angles(T, trace.q.shape[-1], base=smollm2.load().config.base)  # (T, P)
    q = rotary.rotate(trace.q[layer, h].astype(np.float64), -angles)[T - 1]
    g = h // (trace.q.shape[1] // trace.k.shape[1])
    k = rotary.rotate(trace.k[layer, g].astype(np.float64), -angles)[T - 2]
    t = reading.tokens.tokens
    return RealPair(q, k, f"head {head(layer, h)}: query '{shown_token(t[T - 1])}', key '{shown_token(t[T - 2])}'")


@dataclass(frozen=True, eq=False)
class ScaledLogits:
    """A real pair's logit q · R(m) k / sqrt(d_k) against the distance m, unscaled and under a preset."""

    pair: RealPair
    preset: scaling.Preset
    distances: np.ndarray  # (N,) log-spaced out to the extended window
    curves: dict[str, np.ndarray]  # "unscaled (as trained)" and the preset's rope_type, (N,) each

    def at_window(self) -> tuple[float, float]:
        """The unscaled and the scaled curve's logit at the distance nearest the trained window's end."""
        i = int(np.abs(self.distances - ORIGINAL).argmin())
        unscaled, scaled = self.curves.values()
        return float(unscaled[i]), float(scaled[i])


def scaled_logits(pair: RealPair, preset: scaling.Preset, points: int = 700) -> ScaledLogits:
    """The logit of a real pair against the distance out to the extended window, unscaled and scaled (with the
    preset's attention factor a²), on at most `points` log-spaced distances.

    Returns: ScaledLogits with two curves of N <= points values
    """
    distances = np.unique(np.rint(np.geomspace(1, preset.extended, points)).astype(int))  # (N,)
    inv, attention = preset.inv_freq(preset.extended)
    plain = rotary.frequencies(preset.head_dim, preset.rope_theta)
    root = np.sqrt(preset.head_dim)
    curves = {
        "unscaled (as trained)": scaling.rotary_scores(pair.q, pair.k, distances, plain) / root,
        preset.params.rope_type + (" (x a²)" if attention != 1 else ""): scaling.rotary_scores(
            pair.q, pair.k, distances, inv, attention
        )
        / root,
    }
    return ScaledLogits(pair, preset, distances, curves)
