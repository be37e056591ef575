"""Rotary position embedding (RoFormer, Su et al. 2021): the one home of its angles and its rotation.

Every RoPE in posviz goes through `rotate`: the pages' formulas (`rope`), rotate-half RoPE, the scaled
frequencies' scores (scaling.rotary_scores) and SmolLM2's forward pass. One set of names:
    base   the frequency base (10,000 in RoFormer; a model file's `rope_theta` or `rope.freq_base`)
    start  the position of the first row (positions start, start + 1, ...)

The convention, as lucidrains' rotary-embedding-torch states it, is a flag:
    interleaved=True   pairs (2i, 2i + 1): RoFormer, GPT-J, the GGUF rows of llama.cpp
    interleaved=False  rotate-half, pairs (i, i + d/2): GPT-NeoX, Hugging Face's Llama
Both turn pair i counter-clockwise by its angle (start + t) * theta_i, theta_i = base ** (-2i / d):
    (a, b) -> (a cos - b sin, a sin + b cos)

Dimension letters:
    T  positions      d  the rotated width (even)      P = d/2 pairs      B  any leading axes
"""

from __future__ import annotations

import numpy as np

from posviz.maths import _checks

DEFAULT_BASE = 10000.0


def frequencies(d: int, base: float = DEFAULT_BASE) -> np.ndarray:
    """Angular frequency (inverse frequency) of each pair: theta_i = base ** (-2i / d), i = 0..d/2-1.

    Returns: (P,)

    >>> frequencies(8).shape
    (4,)
    """
    d = _checks.even_width("d", d)
    base = _checks.positive_real("base", base)
    return base ** (-np.arange(0, d, 2) / d)


def angles(T: int, d: int, start: int = 0, base: float = DEFAULT_BASE) -> np.ndarray:
    """Angle of every (position, pair): (start + t) * theta_i, float64.

    Returns: (T, P)

    >>> angles(4, 8).shape
    (4, 4)
    """
    T = _checks.integer("T", T)
    start = _checks.integer("start", start)
    positions = np.arange(start, start + T, dtype=np.float64)
    return positions[:, None] * frequencies(d, base)[None, :]


def rotate(x: np.ndarray, theta: np.ndarray, *, interleaved: bool = True) -> np.ndarray:
    """Turn every pair of x's last axis by its angle: (a, b) -> (a cos - b sin, a sin + b cos), in x's dtype.

    interleaved=True pairs (2i, 2i + 1); interleaved=False pairs (i, i + d/2) (rotate-half). No checks of x's
    values (a model's forward pass calls it); `rope` checks first. A negative angle turns back.

    x: (..., T, d), theta: (T, P). Returns: same shape and dtype as x

    >>> rotate(np.ones((2, 5, 8), np.float32), angles(5, 8)).dtype
    dtype('float32')
    """
    if x.shape[-1] % 2 or theta.shape != (x.shape[-2], x.shape[-1] // 2):
        raise ValueError(f"theta must have shape (T, d/2) = {(x.shape[-2], x.shape[-1] // 2)}, got {theta.shape}")
    cos, sin = np.cos(theta).astype(x.dtype), np.sin(theta).astype(x.dtype)
    if not interleaved:
        a, b = np.split(x, 2, axis=-1)
        return np.concatenate([a * cos - b * sin, a * sin + b * cos], axis=-1)
    a, b = x[..., 0::2], x[..., 1::2]
    out = np.empty_like(x)
    out[..., 0::2] = a * cos - b * sin
    out[..., 1::2] = a * sin + b * cos
    return out


def rope(x: np.ndarray, start: int = 0, base: float = DEFAULT_BASE, *, interleaved: bool = True) -> np.ndarray:
    """RoPE on rows at positions start, start + 1, ...: `rotate` by `angles`, interleaved pairs by default.

    x: (..., T, d) with d even, checked (finite reals, as float64).
    Returns: (..., T, d)

    >>> rope(np.ones((2, 5, 8))).shape
    (2, 5, 8)
    """
    x = _checks.array("x", x, min_ndim=2)
    _checks.even_width("the last axis of x", x.shape[-1], why="RoPE rotates pairs of dimensions")
    return rotate(x, angles(x.shape[-2], x.shape[-1], start, base), interleaved=interleaved)
