"""Relative position schemes: rotate-half RoPE, ALiBi, and query-key scores for fixed content.

Dimension letters:
    T  positions      d  the width of q and k (a head's d_k; even for RoPE)      H  heads
"""

from __future__ import annotations

import math

import numpy as np

from posviz.maths import _checks
from posviz.maths.encodings import sinusoidal
from posviz.maths.rotary import DEFAULT_BASE, rope


def half_permutation(d: int) -> np.ndarray:
    """Dimension order that turns interleaved pairs (2i, 2i+1) into halves (i, i + d/2): evens, then odds.

    It maps both layouts of the literature: rope_rotate_half(x[..., p]) == rope(x)[..., p] and
    sinusoidal(...)[:, p] == variants.sinusoidal_concat(...) (paper timescales), for p = half_permutation(d).

    >>> half_permutation(6).tolist()
    [0, 2, 4, 1, 3, 5]
    """
    d = _checks.even_width("d", d, why="RoPE rotates pairs of dimensions")
    return np.concatenate([np.arange(0, d, 2), np.arange(1, d, 2)])


def rope_rotate_half(x: np.ndarray, start: int = 0, base: float = DEFAULT_BASE) -> np.ndarray:
    """RoPE in the rotate-half layout of GPT-NeoX and Llama: dimension i pairs with i + d/2.

    rotary.rope(x, start, base, interleaved=False):
    out[i] = x[i] cos - x[i + d/2] sin,  out[i + d/2] = x[i + d/2] cos + x[i] sin,
    with angle (start + t) * base ** (-2i / d) for i < d/2.

    x: (..., T, d), d even.
    Returns: (..., T, d)

    >>> rope_rotate_half(np.ones((5, 8))).shape
    (5, 8)
    """
    return rope(x, start, base, interleaved=False)


def alibi_slopes(heads: int) -> np.ndarray:
    """ALiBi head slopes (Press et al. 2022): 2 ** (-8h / n) for h = 1..n when n is a power of two.

    Otherwise the paper's rule: the slopes of the largest power of two below n, then every other
    slope of twice that many.

    Returns: (H,)

    >>> alibi_slopes(8).tolist()
    [0.5, 0.25, 0.125, 0.0625, 0.03125, 0.015625, 0.0078125, 0.00390625]
    """
    heads = _checks.integer("heads", heads, minimum=1)

    def power_of_two(n: int) -> list[float]:
        return [2.0 ** (-8.0 * h / n) for h in range(1, n + 1)]

    if heads & (heads - 1) == 0:
        return np.array(power_of_two(heads))
    lower = 2 ** math.floor(math.log2(heads))
    return np.array(power_of_two(lower) + power_of_two(2 * lower)[0::2][: heads - lower])


def alibi_bias(T: int, slope: float, *, causal: bool = True) -> np.ndarray:
    """The bias ALiBi adds to attention scores: -slope * (i - j), for keys j at or before query i.

    With causal=False the symmetric form -slope * |i - j|; with causal=True keys after the query
    get -inf (they are masked anyway).

    Returns: (T, T)

    >>> alibi_bias(3, 0.5).tolist()
    [[-0.0, -inf, -inf], [-0.5, -0.0, -inf], [-1.0, -0.5, -0.0]]
    """
    T = _checks.integer("T", T, minimum=1)
    slope = _checks.finite_real("slope", slope)
    offset = np.arange(T)[:, None] - np.arange(T)[None, :]  # i - j
    if not causal:
        return -slope * np.abs(offset)
    return np.where(offset >= 0, -slope * offset, -np.inf)


def fixed_content_scores(
    q: np.ndarray, k: np.ndarray, T: int, *, scheme: str, start: int = 0, base: float = DEFAULT_BASE
) -> np.ndarray:
    """Score q . k between the same query content at position i and key content at position j.

    scheme "rotary": rope(q)_i . rope(k)_j, a function of j - i only;
    "sinusoidal": (q + pe_i) . (k + pe_j), which also depends on i and j themselves.
    Positions are start, start + 1, ....

    Returns: (T, T), entry [i, j]
    """
    q = _checks.array("q", q)
    k = _checks.array("k", k)
    if q.shape != k.shape or q.ndim != 1:
        raise ValueError(f"q and k must be vectors of one width, got shapes {q.shape} and {k.shape}")
    T = _checks.integer("T", T, minimum=1)
    if scheme == "rotary":
        rq = rope(np.tile(q, (T, 1)), start, base)
        rk = rope(np.tile(k, (T, 1)), start, base)
        return rq @ rk.T
    if scheme == "sinusoidal":
        pe = sinusoidal(T, q.size, start, base)
        return (q + pe) @ (k + pe).T
    raise ValueError(f"scheme must be 'rotary' or 'sinusoidal', got {scheme!r}")


def shift_change(q: np.ndarray, k: np.ndarray, T: int, shift: int, *, scheme: str, base: float = DEFAULT_BASE) -> float:
    """max |scores with every position moved by `shift` - scores from position 0|: 0 for rotary.

    >>> q = k = np.ones(8); shift_change(q, k, 6, 100, scheme="rotary") < 1e-9
    True
    """
    moved = fixed_content_scores(q, k, T, scheme=scheme, start=shift, base=base)
    return float(np.abs(moved - fixed_content_scores(q, k, T, scheme=scheme, base=base)).max())


def fixed_content(d: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """One query vector and one key vector, N(0, 1) from default_rng(seed), in that order.

    Returns: (d,), (d,)

    >>> fixed_content(8)[0].shape
    (8,)
    """
    d = _checks.integer("d", d, minimum=1)
    rng = np.random.default_rng(_checks.integer("seed", seed))
    return rng.standard_normal(d), rng.standard_normal(d)


def query_pair_trajectory(q: np.ndarray, T: int, pair: int, base: float = DEFAULT_BASE) -> np.ndarray:
    """Dimensions (2i, 2i+1) of rope(q) at positions 0..T-1: one pair turning on a circle as its position grows.

    Returns: (T, 2)

    >>> query_pair_trajectory(np.ones(8), 5, 1).shape
    (5, 2)
    """
    q = _checks.array("q", q)
    T = _checks.integer("T", T, minimum=1)
    pair = _checks.integer("pair", pair)
    if q.ndim != 1 or pair >= q.size // 2:
        raise ValueError(f"pair must be below d/2 = {q.size // 2} for a query vector of width {q.size}, got {pair}")
    return rope(np.tile(q, (T, 1)), 0, base)[:, 2 * pair : 2 * pair + 2]
