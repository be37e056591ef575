"""The pieces a transformer layer is built from, shared by the real models: norms, int8 storage, heads, attention.

A new model (an encoder, or a decoder with its own position scheme) takes these and adds only what is its own.

Dimension letters: T tokens, d width, H query heads, G key/value heads (G divides H), d_k a head's width,
R rows and C columns of a stored matrix, B any leading axes.
"""

from __future__ import annotations

import numpy as np

from posviz.maths.attention import softmax_rows


def layer_norm(x: np.ndarray, weight: np.ndarray, bias: np.ndarray, eps: float) -> np.ndarray:
    """(x - mean) / sqrt(var + eps) * weight + bias over the last axis (biased variance, as torch), in x's dtype.

    Returns: same shape as x, (..., d)

    >>> layer_norm(np.ones((2, 3)), np.ones(3), np.zeros(3), 1e-12).shape
    (2, 3)
    """
    mean = x.mean(axis=-1, keepdims=True)
    var = ((x - mean) ** 2).mean(axis=-1, keepdims=True)
    return (x - mean) / np.sqrt(var + eps) * weight + bias


def rms_norm(x: np.ndarray, g: np.ndarray, eps: float) -> np.ndarray:
    """x / sqrt(mean(x^2) + eps) * g over the last axis (Llama's RMSNorm), eps as float32.

    Returns: same shape as x, (..., d)

    >>> rms_norm(np.ones((2, 3), np.float32), np.ones(3, np.float32), 1e-5).shape
    (2, 3)
    """
    return x / np.sqrt(np.mean(np.square(x), axis=-1, keepdims=True) + np.float32(eps)) * g


def dequantize_int8(q: np.ndarray, scale: np.ndarray, dtype: type = np.float64) -> np.ndarray:
    """int8 times its scale: one scale per row (scale (R,)) or per C / G columns of a row (scale (R, G)).

    Returns: (R, C) in `dtype`

    >>> dequantize_int8(np.ones((2, 4), np.int8), np.array([[0.5, 1.0], [2.0, 4.0]])).shape
    (2, 4)
    """
    scale = np.asarray(scale, dtype=dtype)
    rows, cols = q.shape
    groups = scale.reshape(rows, -1)  # (R, G)
    if cols % groups.shape[1]:
        raise ValueError(f"expected a number of scales per row that divides {cols}, got {groups.shape[1]}")
    return (q.reshape(rows, groups.shape[1], -1).astype(dtype) * groups[..., None]).reshape(rows, cols)


def split_heads(x: np.ndarray, heads: int) -> np.ndarray:
    """The heads side by side, split apart: (..., T, heads d_k) -> (..., heads, T, d_k).

    >>> split_heads(np.ones((5, 12)), 3).shape
    (3, 5, 4)
    """
    if x.shape[-1] % heads:
        raise ValueError(f"the last axis must split into {heads} heads, got width {x.shape[-1]}")
    return x.reshape(*x.shape[:-1], heads, -1).swapaxes(-2, -3)


def merge_heads(x: np.ndarray) -> np.ndarray:
    """The heads put back side by side: (..., H, T, d_k) -> (..., T, H d_k); the inverse of split_heads.

    >>> merge_heads(np.ones((3, 5, 4))).shape
    (5, 12)
    """
    return x.swapaxes(-2, -3).reshape(*x.shape[:-3], x.shape[-2], -1)


def attention_weights(q: np.ndarray, k: np.ndarray, *, causal: bool, bias: np.ndarray | None = None) -> np.ndarray:
    """softmax(q k^T / sqrt(d_k) + bias) in q's dtype, each group of H / G query heads reading one key head; with
    `causal`, query t sees keys 0..t only.

    q: (..., H, T, d_k), k: (..., G, T, d_k), bias: broadcast to (..., H, T, T) (ALiBi's, T5's). Returns: (..., H, T, T)

    >>> attention_weights(np.ones((4, 3, 8)), np.ones((2, 3, 8)), causal=True).shape
    (4, 3, 3)
    """
    group = q.shape[-3] // k.shape[-3]
    keys = np.repeat(k, group, axis=-3) if group > 1 else k
    scores = q @ keys.swapaxes(-1, -2)  # (..., H, T, T), then scaled, biased and masked in place (no more copies)
    scores /= np.sqrt(np.asarray(q.shape[-1], dtype=q.dtype))
    if bias is not None:
        scores += np.asarray(bias, dtype=q.dtype)
    if causal:
        np.copyto(scores, -np.inf, where=~np.tri(q.shape[-2], dtype=bool))
    return softmax_rows(scores)


def attend(weights: np.ndarray, v: np.ndarray) -> np.ndarray:
    """The weights' mix of values, G value heads shared by groups of H / G query heads, heads side by side.

    weights: (..., H, T, T), v: (..., G, T, d_k). Returns: (..., T, H d_k)

    >>> attend(np.ones((4, 3, 3)), np.ones((2, 3, 8))).shape
    (3, 32)
    """
    group = weights.shape[-3] // v.shape[-3]
    return merge_heads(weights @ (np.repeat(v, group, axis=-3) if group > 1 else v))


def gelu_tanh(x: np.ndarray) -> np.ndarray:
    """GELU in GPT-2's tanh form: 0.5 x (1 + tanh(sqrt(2 / pi) (x + 0.044715 x^3))), in x's dtype.

    >>> gelu_tanh(np.zeros((2, 3), np.float32)).dtype
    dtype('float32')
    """
    c = np.asarray(np.sqrt(2.0 / np.pi), dtype=x.dtype)
    return np.asarray(0.5, x.dtype) * x * (1 + np.tanh(c * (x + np.asarray(0.044715, x.dtype) * x**3)))
