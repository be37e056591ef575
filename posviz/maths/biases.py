"""Relative position biases added to attention logits: T5 buckets, Shaw et al.'s clipping, ALiBi, KERPLE.

Every bias here is a function of the offset j - i (key position minus query position) only.
Sources: T5 (Raffel et al. 2020) as coded in transformers' `T5Attention._relative_position_bucket`;
Shaw, Uszkoreit and Vaswani (2018) section 3.2, clip(x, k) = max(-k, min(k, x)); ALiBi (Press et al.
2022, `posviz.maths.relative`); KERPLE (Chi et al. 2022) logarithmic variant -r1 * log(1 + r2 |j - i|).
T5 and Shaw learn one number per bucket or clipped offset; here a seeded N(0, 1) table stands in for it.

Dimension letters: T positions, B buckets (or 2k + 1 clipped offsets).
"""

from __future__ import annotations

import math

import numpy as np

from posviz.maths import _checks
from posviz.maths.relative import alibi_bias, alibi_slopes

KINDS = ("t5", "t5_causal", "shaw", "alibi", "kerple")


def offsets(T: int) -> np.ndarray:
    """The relative position j - i of key j to query i.

    Returns: (T, T) int

    >>> offsets(3).tolist()
    [[0, 1, 2], [-1, 0, 1], [-2, -1, 0]]
    """
    T = _checks.integer("T", T, minimum=1)
    return np.arange(T)[None, :] - np.arange(T)[:, None]


def _relative(relative_position: object) -> np.ndarray:
    rel = np.asarray(relative_position)
    if not np.issubdtype(rel.dtype, np.integer):
        raise TypeError(f"relative_position must hold integers, got dtype {rel.dtype}")
    return rel.astype(np.int64)


def t5_bucket(
    relative_position: np.ndarray, *, bidirectional: bool = True, num_buckets: int = 32, max_distance: int = 128
) -> np.ndarray:
    """T5's bucket of each offset j - i: exact for small |j - i|, log-spaced up to max_distance, then the last.

    bidirectional: half the buckets for j > i (offset +B/2). causal: j > i all go to bucket 0 and n = i - j.
    Then with e = B'/2 (B' the buckets for one side): bucket n for n < e, else
    min(e + int(log(n / e) / log(max_distance / e) * (B' - e)), B' - 1), the log in float32 as in the reference.

    Returns: same shape as relative_position, int

    >>> t5_bucket(np.array([-200, -1, 0, 1, 7, 8, 200])).tolist()
    [15, 1, 0, 17, 23, 24, 31]
    """
    rel = _relative(relative_position)
    buckets = _checks.integer("num_buckets", num_buckets, minimum=2)
    far = _checks.integer("max_distance", max_distance, minimum=1)
    out = np.zeros(rel.shape, dtype=np.int64)
    if bidirectional:
        if buckets < 4 or buckets % 2:
            raise ValueError(f"bidirectional num_buckets must be even and >= 4, got {buckets}")
        buckets //= 2
        out += (rel > 0) * buckets
        n = np.abs(rel)
    else:
        n = -np.minimum(rel, 0)
    exact = buckets // 2
    if far <= exact:
        raise ValueError(f"max_distance must exceed the {exact} exact buckets, got {far}")
    ratio = np.maximum(n, 1).astype(np.float32) / np.float32(exact)
    large = exact + (np.log(ratio) / np.float32(math.log(far / exact)) * np.float32(buckets - exact)).astype(np.int64)
    return out + np.where(n < exact, n, np.minimum(large, buckets - 1))


def t5_last_bucket_start(*, bidirectional: bool = True, num_buckets: int = 32, max_distance: int = 128) -> int:
    """The smallest distance i - j that `t5_bucket` puts in the last bucket of its side (keys before the query; with
    bidirectional buckets, keys after it start their last bucket at the same distance).

    The log-spaced buckets round down, so the last one starts well before max_distance.

    >>> t5_last_bucket_start(), t5_last_bucket_start(bidirectional=False)
    (91, 113)
    """
    far = _checks.integer("max_distance", max_distance, minimum=1)
    n = np.arange(far + 1)
    buckets = t5_bucket(-n, bidirectional=bidirectional, num_buckets=num_buckets, max_distance=far)  # (far + 1,)
    return int(n[buckets == buckets[-1]][0])


def shaw_index(relative_position: np.ndarray, clip: int) -> np.ndarray:
    """Shaw et al.'s clipped offset, shifted to a table row: max(-k, min(k, j - i)) + k.

    Returns: same shape, int in [0, 2k]

    >>> shaw_index(np.array([-5, -1, 0, 3]), 2).tolist()
    [0, 1, 2, 4]
    """
    k = _checks.integer("clip", clip, minimum=1)
    return np.clip(_relative(relative_position), -k, k) + k


def kerple_log(relative_position: np.ndarray, r1: float = 1.0, r2: float = 1.0) -> np.ndarray:
    """KERPLE's logarithmic bias: -r1 * log(1 + r2 * |j - i|), r1, r2 > 0.

    Returns: same shape, float

    >>> kerple_log(np.array([0, 1, -1])).round(4).tolist()
    [-0.0, -0.6931, -0.6931]
    """
    a, b = _checks.positive_real("r1", r1), _checks.positive_real("r2", r2)
    return -a * np.log1p(b * np.abs(_relative(relative_position)))


def stand_in_table(size: int, seed: int = 0) -> np.ndarray:
    """A seeded N(0, 1) stand-in for a learned table of one number per bucket.

    Returns: (B,)

    >>> stand_in_table(32).shape
    (32,)
    """
    size = _checks.integer("size", size, minimum=1)
    return np.random.default_rng(_checks.integer("seed", seed)).standard_normal(size)


def bias(
    kind: str,
    relative_position: np.ndarray,
    *,
    num_buckets: int = 32,
    max_distance: int = 128,
    clip: int = 4,
    heads: int = 8,
    head: int = 1,
    r1: float = 1.0,
    r2: float = 1.0,
    seed: int = 0,
) -> np.ndarray:
    """The bias one head adds to the logit of each offset j - i, for kind in KINDS.

    t5 / t5_causal: table[t5_bucket]; shaw: table[shaw_index]; alibi: -slope_h * |j - i| (the
    symmetric form; causal models mask j > i anyway); kerple: `kerple_log`.

    Returns: same shape as relative_position, float

    >>> bias("shaw", offsets(5)).shape
    (5, 5)
    """
    rel = _relative(relative_position)
    if kind in ("t5", "t5_causal"):
        index = t5_bucket(rel, bidirectional=kind == "t5", num_buckets=num_buckets, max_distance=max_distance)
        return stand_in_table(num_buckets, seed)[index]
    if kind == "shaw":
        return stand_in_table(2 * _checks.integer("clip", clip, minimum=1) + 1, seed)[shaw_index(rel, clip)]
    if kind == "alibi":
        slopes = alibi_slopes(heads)
        head = _checks.integer("head", head, minimum=1)
        if head > slopes.size:
            raise ValueError(f"head must be in 1..{slopes.size}, got {head}")
        return -slopes[head - 1] * np.abs(rel).astype(float)
    if kind == "kerple":
        return kerple_log(rel, r1, r2)
    raise ValueError(f"kind must be one of {KINDS}, got {kind!r}")


def causal_alibi(T: int, heads: int = 8, head: int = 1) -> np.ndarray:
    """ALiBi as a causal model adds it: -slope_h * (i - j) for j <= i, -inf above the diagonal.

    Returns: (T, T)

    >>> causal_alibi(3).shape
    (3, 3)
    """
    return alibi_bias(T, float(alibi_slopes(heads)[_checks.integer("head", head, minimum=1) - 1]), causal=True)


def offset_residual(m: np.ndarray) -> float:
    """max |m[i + 1, j + 1] - m[i, j]|: 0 exactly when a square matrix depends only on j - i.

    Equal infinities (a mask) count as equal; an infinity against a finite value counts as inf.

    >>> offset_residual(bias("kerple", offsets(6)))
    0.0
    """
    m = np.asarray(m, dtype=np.float64)
    if m.ndim != 2 or m.shape[0] != m.shape[1]:
        raise ValueError(f"m must be a square matrix, got shape {m.shape}")
    a, b = m[1:, 1:], m[:-1, :-1]
    same = (a == b) | (np.isnan(a) & np.isnan(b))
    with np.errstate(invalid="ignore"):
        diff = np.abs(a - b)
    diff[same] = 0.0
    diff[np.isnan(diff)] = np.inf
    return float(diff.max(initial=0.0))
