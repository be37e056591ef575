"""Attention sinks (StreamingLLM, Xiao et al. 2024, section 3.2): a rolling cache that keeps the first tokens.

The cache holds the first `sinks` tokens and the most recent ones; RoPE positions are given by the place
inside the cache (cache [0, 1, 2, 3, 6, 7, 8] plus new token 9 gets positions 0..7), so keys are cached
before rotation and rotated again at every step. Keeping each token's original position, or rotating a
key once when it enters the cache, gives a different result: `errors` measures how far.

Dimension letters: T tokens, d model width (x's last axis), d_k a head's width (w_q, w_k, w_v are (d, d_k)),
n tokens in the cache.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from posviz.maths import _checks
from posviz.maths.attention import self_attention, softmax
from posviz.maths.generation import seeded_inputs
from posviz.maths.rotary import DEFAULT_BASE, rope

POSITION_MODES = ("cache", "original", "rotated_at_insert")


def kept_tokens(t: int, sinks: int, window: int) -> np.ndarray:
    """Tokens the query t attends to: the first `sinks` and the `window` most recent (t included).

    Returns: (n,) int, increasing

    >>> kept_tokens(9, 4, 4).tolist()
    [0, 1, 2, 3, 6, 7, 8, 9]
    """
    t = _checks.integer("t", t)
    sinks = _checks.integer("sinks", sinks)
    window = _checks.integer("window", window, minimum=1)
    first = np.arange(min(sinks, t + 1))
    return np.concatenate([first, np.arange(max(sinks, t - window + 1), t + 1)])


@dataclass(frozen=True)
class StreamingResult:
    """One output row per token from the streaming cache, and from a recompute over the kept tokens."""

    reference: np.ndarray  # (T, d) row t: causal attention over kept_tokens(t) at positions 0..n-1, from scratch
    cached: np.ndarray  # (T, d) row t: the step's output with the rolling cache
    query_positions: np.ndarray  # (T,) the position the new token's query was rotated to
    cache_sizes: np.ndarray  # (T,) n, tokens attended at each step

    @property
    def errors(self) -> np.ndarray:
        """max abs(cached[t] - reference[t]) for every token: (T,)"""
        return np.abs(self.cached - self.reference).max(axis=-1)

    @property
    def first_eviction(self) -> int | None:
        """The first token whose step finds a token evicted from the cache (None if none is within the T tokens).

        Until then the cache holds every token, so its index is the token's position and every way agrees.
        """
        evicted = np.flatnonzero(self.cache_sizes < np.arange(1, self.cache_sizes.size + 1))
        return int(evicted[0]) if evicted.size else None


def streaming_generation(
    x: np.ndarray,
    w_q: np.ndarray,
    w_k: np.ndarray,
    w_v: np.ndarray,
    *,
    sinks: int,
    window: int,
    positions: str = "cache",
    base: float = DEFAULT_BASE,
) -> StreamingResult:
    """Generate one token at a time with a sinks + recent-window cache and rotary positions.

    positions "cache": keys cached unrotated, rotated each step to their index in the cache, the query
    at n - 1 (StreamingLLM); "original": every token keeps its position in the text (query at t);
    "rotated_at_insert": a key is rotated once, to its cache index on arrival, and cached rotated.

    x: (T, d). Returns: StreamingResult with (T, d_k) outputs

    >>> rng = np.random.default_rng(0); x, w = rng.standard_normal((12, 4)), rng.standard_normal((3, 4, 4))
    >>> float(streaming_generation(x, *w, sinks=2, window=3).errors.max()) < 1e-12
    True
    """
    x = _checks.array("x", x, min_ndim=2)
    if x.ndim != 2:
        raise ValueError(f"x must be (T, d), got shape {x.shape}")
    if positions not in POSITION_MODES:
        raise ValueError(f"positions must be one of {POSITION_MODES}, got {positions!r}")
    sinks = _checks.integer("sinks", sinks)
    window = _checks.integer("window", window, minimum=1)
    tokens: list[int] = []
    keys: dict[int, np.ndarray] = {}  # token -> key as cached (unrotated, or rotated on arrival)
    values: dict[int, np.ndarray] = {}
    rows, refs, query_at, sizes = [], [], [], []
    for t in range(x.shape[0]):
        kept = kept_tokens(t, sinks, window)
        tokens = [j for j in tokens if j in set(kept.tolist())] + [t]
        n = len(tokens)
        raw_k, values[t] = x[t] @ w_k, x[t] @ w_v
        keys[t] = rope(raw_k[None], n - 1, base)[0] if positions == "rotated_at_insert" else raw_k
        pos = t if positions == "original" else n - 1
        q = rope((x[t] @ w_q)[None], pos, base)[0]
        stored = np.stack([keys[j] for j in tokens])  # (n, d)
        if positions == "cache":
            stored = np.vstack([rope(stored[i : i + 1], i, base) for i in range(n)])
        elif positions == "original":
            stored = np.vstack([rope(stored[i : i + 1], j, base) for i, j in enumerate(tokens)])
        weights = softmax(q @ stored.T / np.sqrt(q.shape[-1]))
        rows.append(weights @ np.stack([values[j] for j in tokens]))
        refs.append(self_attention(x[kept], w_q, w_k, w_v, causal=True, rotary=True, base=base)[-1])
        query_at.append(pos)
        sizes.append(n)
    return StreamingResult(np.vstack(refs), np.vstack(rows), np.array(query_at), np.array(sizes))


def demo_streaming(
    *, seed: int = 0, T: int = 24, d: int = 8, sinks: int = 4, window: int = 4, positions: str = "cache"
) -> StreamingResult:
    """streaming_generation on seeded N(0, 1) tokens and N(0, 1/d) weights (drawn x, then w_q, w_k, w_v).

    >>> bool(demo_streaming(positions="original").errors.max() > 1e-6)
    True
    """
    d = _checks.even_width("d", d, why="RoPE rotates pairs of dimensions")
    x, w_q, w_k, w_v = seeded_inputs(seed, T, d)
    return streaming_generation(x, w_q, w_k, w_v, sinks=sinks, window=window, positions=positions)
