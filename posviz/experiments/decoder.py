"""SmolLM2's experiments: its heads' statistics, the lessons' ablations run in it, and what a page reads of them.

`posviz.models.smollm2` reads the model and runs its shipped layers; this module measures what those layers do:
the weight on token 0 (the sink) and on the token before, each head's role by a stated rule, the energy of each
rotated pair, and the three ablations (order through the mask, permutation equivariance, shift invariance). Numpy
only; the page's frames and charts are `posviz.drawing`'s.

Dimension letters (as in smollm2): T tokens, L live layers (5), M whole-model layers (30), H = 9 query heads,
G = 3 key/value heads, P = 32 rotated pairs, N distances.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from posviz.maths import _checks
from posviz.models.smollm2 import IM_START, MAX_RUN, Rotation, SmolLM2, Trace, check_ids, load, run

# The head statistics (sink, previous, roles) read the queries t >= FIRST_QUERY: query t sees only t + 1 keys, so
# queries 0..3 put at least 1/4 on token 0 or t - 1 by arithmetic (uniform attention gives 1, 1/2, 1/3, 1/4), not
# by the head's habit. The extraction, the claims and the page all use it; a text of at most FIRST_QUERY tokens
# falls back to t >= 1 (first_query).
FIRST_QUERY = 4


def reversal(ids: np.ndarray) -> np.ndarray:
    """The reordering the ablations use: the tokens backwards, a leading <|im_start|> kept first.

    >>> reversal(np.array([IM_START, 504, 3575, 9])).tolist()
    [0, 3, 2, 1]
    """
    first = 1 if ids.size and ids[0] == IM_START else 0
    return np.r_[np.arange(first), np.arange(ids.size - 1, first - 1, -1)].astype(np.int64)


def layer_gaps(a: np.ndarray, b: np.ndarray, *, relative: bool = True) -> np.ndarray:
    """Each layer's max |a - b|, divided by that layer's max |b| when `relative`.

    Returns: (L,) float64 for a, b (L, ...)
    """
    axes = tuple(range(1, a.ndim))
    gap = np.abs(a - b).max(axis=axes).astype(np.float64)
    return gap / np.abs(b).max(axis=axes) if relative else gap


def reordered_gaps(
    ids: np.ndarray, perm: np.ndarray, *, layers: int, model: SmolLM2, rotation: Rotation, causal: bool
) -> tuple[np.ndarray, np.ndarray]:
    """Permutation equivariance, layer by layer: h(PX) against P h(X) (relative) and A(PX) against P A(X) P^T.

    Returns: (hidden gaps (L,), attention-weight gaps (L,))
    """
    plain = run(ids, layers=layers, model=model, rotation=rotation, causal=causal)
    moved = run(ids[perm], layers=layers, model=model, rotation=rotation, causal=causal)
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
    ids: object, *, k: int, layers: int | None = None, model: SmolLM2 | None = None, base: Trace | None = None
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
    base = run(ids, layers=count, model=model) if base is None else base
    if not np.array_equal(base.ids, ids) or base.hidden.shape[0] != count or base.rotation != "rope" or not base.causal:
        raise ValueError(f"base must be the plain RoPE run of these ids through {count} layers")
    perm = reversal(ids)
    order, _ = reordered_gaps(ids, perm, layers=count, model=model, rotation="none", causal=True)
    blind, blind_weights = reordered_gaps(ids, perm, layers=count, model=model, rotation="none", causal=False)
    shifted = run(ids, layers=count, model=model, offset=k)
    return Ablation(
        perm, int(k), base, order, blind, blind_weights, layer_gaps(shifted.weights, base.weights, relative=False),
        layer_gaps(shifted.hidden, base.hidden), layer_gaps(shifted.q, base.q),
    )  # fmt: skip


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


def head_roles(sink: np.ndarray, previous: np.ndarray, *, threshold: float = 0.5) -> np.ndarray:
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
