"""Incremental generation with a key/value cache, against a full causal recompute at every step.

Dimension letters: T tokens, d model width (x's last axis), d_k a head's width (w_q, w_k, w_v are (d, d_k)),
p prefill length.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from posviz.maths import _checks
from posviz.maths.attention import self_attention, softmax
from posviz.maths.encodings import sinusoidal
from posviz.maths.rotary import DEFAULT_BASE, rope

SCHEMES = ("rotary", "sinusoidal")
BUGS = ("none", "reset", "off_by_one")


@dataclass(frozen=True)
class GenerationResult:
    """Outputs of the cached run and of full recomputes, one row per token."""

    full: np.ndarray  # (T, d) row t: causal attention over tokens 0..t, recomputed from scratch
    cached: np.ndarray  # (T, d) row t: prefill rows, then one new token at a time with the cache
    positions: np.ndarray  # (T,) the position each token was given in the cached run
    prefill: int

    @property
    def errors(self) -> np.ndarray:
        """max abs(cached[t] - full[t]) for every token: (T,)"""
        return np.abs(self.cached - self.full).max(axis=-1)

    @property
    def max_error(self) -> float:
        """The largest error over every token and feature."""
        return float(self.errors.max())


def _position_of(t: int, bug: str) -> int:
    return {"none": t, "reset": 0, "off_by_one": t + 1}[bug]


def incremental_generation(
    x: np.ndarray,
    w_q: np.ndarray,
    w_k: np.ndarray,
    w_v: np.ndarray,
    *,
    prefill: int,
    scheme: str = "rotary",
    bug: str = "none",
    base: float = DEFAULT_BASE,
) -> GenerationResult:
    """Prefill `prefill` tokens in one pass, then add the rest one at a time with `start` = their position.

    scheme "rotary" rotates queries and keys; "sinusoidal" adds the position row to the input.
    bug "reset" gives every new token position 0; "off_by_one" gives token t position t + 1.

    x: (T, d). Returns: GenerationResult with (T, d_k) outputs

    >>> rng = np.random.default_rng(0); x, w = rng.standard_normal((6, 4)), rng.standard_normal((3, 4, 4))
    >>> float(incremental_generation(x, *w, prefill=2).errors.max()) < 1e-12
    True
    """
    x = _checks.array("x", x, min_ndim=2)
    if x.ndim != 2:
        raise ValueError(f"x must be (T, d), got shape {x.shape}")
    T, d = x.shape
    prefill = _checks.integer("prefill", prefill, minimum=1)
    if prefill > T:
        raise ValueError(f"prefill must be at most the number of tokens {T}, got {prefill}")
    if scheme not in SCHEMES or bug not in BUGS:
        raise ValueError(f"scheme must be one of {SCHEMES} and bug one of {BUGS}, got {scheme!r}, {bug!r}")
    rotary = scheme == "rotary"
    additive = np.zeros_like(x) if rotary else sinusoidal(T, d, base=base)
    full = self_attention(x + additive, w_q, w_k, w_v, causal=True, rotary=rotary, base=base)

    head = x[:prefill] + additive[:prefill]
    cached = [self_attention(head, w_q, w_k, w_v, causal=True, rotary=rotary, base=base)]
    keys, values = head @ w_k, head @ w_v
    keys = rope(keys, 0, base) if rotary else keys
    positions = list(range(prefill))
    for t in range(prefill, T):
        pos = _position_of(t, bug)
        token = x[t : t + 1] + (0.0 if rotary else sinusoidal(1, d, start=pos, base=base))
        q, k = token @ w_q, token @ w_k
        if rotary:
            q, k = rope(q, pos, base), rope(k, pos, base)
        keys, values = np.vstack([keys, k]), np.vstack([values, token @ w_v])
        weights = softmax(q @ keys.T / np.sqrt(q.shape[-1]))
        cached.append(weights @ values)
        positions.append(pos)
    return GenerationResult(full=full, cached=np.vstack(cached), positions=np.array(positions), prefill=prefill)


def seeded_inputs(seed: int, T: int, d: int) -> tuple[np.ndarray, ...]:
    """Tokens x ~ N(0, 1) and weights w_q, w_k, w_v ~ N(0, 1/d), drawn in that order from one seeded generator.

    Returns: x (T, d), w_q, w_k, w_v (d, d)

    >>> [a.shape for a in seeded_inputs(0, 5, 4)]
    [(5, 4), (4, 4), (4, 4), (4, 4)]
    """
    rng = np.random.default_rng(_checks.integer("seed", seed))
    T = _checks.integer("T", T, minimum=1)
    d = _checks.integer("d", d, minimum=1)
    x = rng.standard_normal((T, d))
    w_q, w_k, w_v = rng.standard_normal((3, d, d)) / np.sqrt(d)
    return x, w_q, w_k, w_v


def demo_generation(
    *, seed: int = 0, T: int = 16, d: int = 8, prefill: int = 4, scheme: str = "rotary", bug: str = "none"
) -> GenerationResult:
    """incremental_generation on seeded N(0, 1) tokens and N(0, 1/d) weights (drawn x, then w_q, w_k, w_v).

    >>> bool(demo_generation(bug="reset").errors.max() > 1e-3)
    True
    """
    x, w_q, w_k, w_v = seeded_inputs(seed, T, d)
    return incremental_generation(x, w_q, w_k, w_v, prefill=prefill, scheme=scheme, bug=bug)
