"""Scaled dot-product self-attention, one head, in numpy.

Dimension letters used in the shapes below:
    B    batch, or any leading axes (optional)
    T    tokens (the sequence length)
    d    model width (x's last axis, the lessons' d_model)
    d_k  a head's query/key width (columns of w_q and w_k)
    d_v  a head's value width (columns of w_v)
"""

from __future__ import annotations

import numpy as np

from posviz.maths import _checks
from posviz.maths.rotary import DEFAULT_BASE, rope


def softmax_rows(scores: np.ndarray) -> np.ndarray:
    """Stable softmax over the last axis, exp(s - max) / sum(exp(s - max)), in the scores' own dtype; -inf gets
    weight exactly 0. No input checks: for callers whose scores are finite or masked by construction (a model's
    forward pass); `softmax` checks first.

    Returns: same shape and dtype as scores

    >>> softmax_rows(np.zeros((2, 3), dtype=np.float32)).dtype
    dtype('float32')
    """
    e = scores - scores.max(axis=-1, keepdims=True)
    np.exp(e, out=e)  # in place: one (..., T) array the size of scores, not three
    e /= e.sum(axis=-1, keepdims=True)
    return e


def softmax(x: np.ndarray, axis: int = -1) -> np.ndarray:
    """Numerically stable softmax: exp(x - max) / sum(exp(x - max)) along `axis`, in float64, after checking x.

    Entries equal to -inf get weight exactly 0 (a masked key).

    Returns: same shape as x

    >>> softmax(np.zeros((2, 3))).shape
    (2, 3)
    """
    x = np.asarray(x, dtype=np.float64)
    if x.ndim == 0:
        raise ValueError("softmax needs at least one axis, got a scalar")
    if np.isnan(x).any() or np.isposinf(x).any():
        raise ValueError("softmax input must not contain NaN or +inf")
    if np.isneginf(x).all(axis=axis).any():
        raise ValueError("softmax input has a slice that is -inf everywhere (nothing to attend to)")
    return np.moveaxis(softmax_rows(np.moveaxis(x, axis, -1)), -1, axis)


def causal_mask(T: int) -> np.ndarray:
    """True where query i may see key j, that is j <= i (lower triangle with the diagonal).

    Returns: (T, T) bool

    >>> causal_mask(3).astype(int)
    array([[1, 0, 0],
           [1, 1, 0],
           [1, 1, 1]])
    """
    T = _checks.integer("T", T)
    return np.tril(np.ones((T, T), dtype=bool))


def _projections(
    x: np.ndarray, w_q: np.ndarray, w_k: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    x = _checks.array("x", x, min_ndim=2)
    w_q = _checks.array("w_q", w_q, min_ndim=2)
    w_k = _checks.array("w_k", w_k, min_ndim=2)
    if w_q.ndim != 2 or w_k.ndim != 2:
        raise ValueError(f"w_q and w_k must be 2-D (d, d_k), got shapes {w_q.shape} and {w_k.shape}")
    if w_q.shape[0] != x.shape[-1] or w_k.shape[0] != x.shape[-1]:
        raise ValueError(
            f"w_q and w_k must have {x.shape[-1]} rows to match x's last axis (d), "
            f"got shapes {w_q.shape} and {w_k.shape}"
        )
    if w_q.shape[1] != w_k.shape[1]:
        raise ValueError(f"w_q and w_k must have the same number of columns (d_k), got {w_q.shape} and {w_k.shape}")
    return x, w_q, w_k, x @ w_q, x @ w_k


def attention_weights(
    x: np.ndarray,
    w_q: np.ndarray,
    w_k: np.ndarray,
    *,
    causal: bool = False,
    rotary: bool = False,
    start: int = 0,
    base: float = DEFAULT_BASE,
) -> np.ndarray:
    """Attention weights softmax(q k^T / sqrt(d_k)) with q = x w_q, k = x w_k.

    `causal` hides keys after the query (weight exactly 0 above the diagonal); `rotary`
    rotates q and k with `rope` at positions start, start + 1, ... before the dot product.

    x: (B, T, d) or (T, d); w_q, w_k: (d, d_k).
    Returns: (B, T, T) or (T, T); every row sums to 1.

    >>> attention_weights(np.ones((2, 5, 4)), np.eye(4), np.eye(4)).shape
    (2, 5, 5)
    """
    x, _, _, q, k = _projections(x, w_q, w_k)
    if rotary:
        q, k = rope(q, start, base), rope(k, start, base)
    scores = q @ np.swapaxes(k, -1, -2) / np.sqrt(q.shape[-1])  # (B, T, T)
    if causal:
        scores = np.where(causal_mask(x.shape[-2]), scores, -np.inf)
    return softmax(scores, axis=-1)


def self_attention(
    x: np.ndarray,
    w_q: np.ndarray,
    w_k: np.ndarray,
    w_v: np.ndarray,
    **options: bool | int | float,
) -> np.ndarray:
    """One attention head: attention_weights(x, w_q, w_k, **options) @ (x w_v).

    x: (B, T, d) or (T, d); w_q, w_k: (d, d_k); w_v: (d, d_v). `options` are attention_weights' keywords (causal,
    rotary, start, base), declared there once.
    Returns: (B, T, d_v) or (T, d_v)

    >>> self_attention(np.ones((5, 4)), np.eye(4), np.eye(4), np.ones((4, 3))).shape
    (5, 3)
    """
    weights = attention_weights(x, w_q, w_k, **options)
    w_v = _checks.array("w_v", w_v, min_ndim=2)
    x = np.asarray(x, dtype=np.float64)
    if w_v.ndim != 2 or w_v.shape[0] != x.shape[-1]:
        raise ValueError(f"w_v must be 2-D with {x.shape[-1]} rows (d, d_v), got shape {w_v.shape}")
    return weights @ (x @ w_v)


def prefix_mean(v: np.ndarray) -> np.ndarray:
    """Row t is the mean of rows 0..t: what causal attention returns when every score is equal.

    Returns: same shape as v (..., T, d)

    >>> prefix_mean(np.array([[2.0], [4.0], [6.0]])).ravel().tolist()
    [2.0, 3.0, 4.0]
    """
    v = _checks.array("v", v, min_ndim=2)
    counts = np.arange(1, v.shape[-2] + 1)[:, None]
    return np.cumsum(v, axis=-2) / counts
