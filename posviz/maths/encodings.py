"""Where a position vector comes from: sinusoids, learned tables, rotary embeddings, stand-ins.

Dimension letters used in the shapes below:
    T  number of positions (sequence length)
    d  width of a position vector (the model width it is added to)
    B  batch, or any leading axes
"""

from __future__ import annotations

import numpy as np

from posviz.maths import _checks

DEFAULT_BASE = 10000.0
LEARNED_MAX_LENGTH = 512


def frequencies(d: int, base: float = DEFAULT_BASE) -> np.ndarray:
    """Angular frequency of each sin/cos pair: omega_i = base ** (-2i / d).

    Returns: (d/2,)

    >>> frequencies(8).shape
    (4,)
    """
    d = _checks.even_width("d", d)
    base = _checks.positive_real("base", base)
    return base ** (-np.arange(0, d, 2) / d)


def angles(T: int, d: int, start: int = 0, base: float = DEFAULT_BASE) -> np.ndarray:
    """Angle of every (position, pair): (start + t) * omega_i.

    Returns: (T, d/2)

    >>> angles(4, 8).shape
    (4, 4)
    """
    T = _checks.integer("T", T)
    start = _checks.integer("start", start)
    positions = np.arange(start, start + T, dtype=np.float64)
    return positions[:, None] * frequencies(d, base)[None, :]


def sinusoidal(T: int, d: int, start: int = 0, base: float = DEFAULT_BASE) -> np.ndarray:
    """Fixed sinusoidal table, interleaved as in Vaswani et al. (2017) section 3.5.

    pe[t, 2i] = sin((start + t) * base ** (-2i / d)), pe[t, 2i + 1] = cos(same angle).

    Returns: (T, d) float64

    >>> sinusoidal(4, 8).shape
    (4, 8)
    """
    theta = angles(T, d, start, base)
    pe = np.empty((theta.shape[0], 2 * theta.shape[1]))
    pe[:, 0::2] = np.sin(theta)
    pe[:, 1::2] = np.cos(theta)
    return pe


def offset_matrix(offset: int, d: int, base: float = DEFAULT_BASE) -> np.ndarray:
    """The linear map M_k with sinusoidal(...)[t + k] = M_k @ sinusoidal(...)[t] for every t.

    Block diagonal: pair i is rotated by k * omega_i, [[cos, sin], [-sin, cos]] on (sin, cos).

    Returns: (d, d)

    >>> offset_matrix(3, 8).shape
    (8, 8)
    """
    offset = _checks.integer("offset", offset, minimum=-(2**62))
    theta = offset * frequencies(d, base)
    m = np.zeros((theta.size * 2, theta.size * 2))
    idx = np.arange(theta.size) * 2
    m[idx, idx] = np.cos(theta)
    m[idx, idx + 1] = np.sin(theta)
    m[idx + 1, idx] = -np.sin(theta)
    m[idx + 1, idx + 1] = np.cos(theta)
    return m


def learned(
    T: int,
    d: int,
    *,
    max_length: int = LEARNED_MAX_LENGTH,
    start: int = 0,
    seed: int = 0,
) -> np.ndarray:
    """Rows start..start+T-1 of a seeded stand-in for a trained position table.

    The full table is (max_length, d) with N(0, 1) entries from numpy's default_rng(seed),
    so a position's row never depends on `T` or `start`. Like a trained table it has no
    row for a position at or past `max_length`: asking for one raises ValueError.

    Returns: (T, d)

    >>> learned(4, 8).shape
    (4, 8)
    """
    T = _checks.integer("T", T)
    d = _checks.integer("d", d, minimum=1)
    max_length = _checks.integer("max_length", max_length, minimum=1)
    start = _checks.integer("start", start)
    seed = _checks.integer("seed", seed)
    if start + T > max_length:
        raise ValueError(
            f"the learned table has {max_length} rows (positions 0..{max_length - 1}); "
            f"positions {start}..{start + T - 1} go past it"
        )
    table = np.random.default_rng(seed).standard_normal((max_length, d))
    return table[start : start + T]


def ramp(T: int, d: int, scale: float = 0.6) -> np.ndarray:
    """Lesson 000's stand-in: every feature of row t equals scale * (t + 1).

    Returns: (T, d)

    >>> ramp(6, 8)[:, 0]
    array([0.6, 1.2, 1.8, 2.4, 3. , 3.6])
    """
    T = _checks.integer("T", T)
    d = _checks.integer("d", d, minimum=1)
    scale = _checks.finite_real("scale", scale)
    steps = scale * np.arange(1, T + 1, dtype=np.float64)
    return np.repeat(steps[:, None], d, axis=1)


def constant(T: int, d: int, scale: float = 0.6) -> np.ndarray:
    """The same vector (every feature = scale) at every position: carries no order.

    Returns: (T, d)

    >>> constant(6, 8).shape
    (6, 8)
    """
    T = _checks.integer("T", T)
    d = _checks.integer("d", d, minimum=1)
    scale = _checks.finite_real("scale", scale)
    return np.full((T, d), scale)


def gaussian(T: int, d: int, scale: float = 0.5, *, rng: np.random.RandomState) -> np.ndarray:
    """Module 09's stand-in: rng.randn(T, d) * scale (draws from `rng`).

    Returns: (T, d)

    >>> gaussian(3, 6, rng=np.random.RandomState(0)).shape
    (3, 6)
    """
    T = _checks.integer("T", T)
    d = _checks.integer("d", d, minimum=1)
    scale = _checks.finite_real("scale", scale)
    return rng.randn(T, d) * scale


def rope(x: np.ndarray, start: int = 0, base: float = DEFAULT_BASE) -> np.ndarray:
    """Rotary position embedding (RoFormer, Su et al. 2021), interleaved-pair convention.

    Pair (x[..., t, 2i], x[..., t, 2i + 1]) is rotated counter-clockwise by the angle
    (start + t) * base ** (-2i / d), as in RoFormer and GPT-J (not GPT-NeoX/Llama's
    rotate-half layout, which pairs dimension i with i + d/2):
        out[2i]     = x[2i] cos - x[2i+1] sin
        out[2i + 1] = x[2i] sin + x[2i+1] cos

    x: (..., T, d) with d even.
    Returns: (..., T, d)

    >>> rope(np.ones((2, 5, 8))).shape
    (2, 5, 8)
    """
    x = _checks.array("x", x, min_ndim=2)
    _checks.even_width("the last axis of x", x.shape[-1], why="rotary embeddings rotate pairs of dimensions")
    theta = angles(x.shape[-2], x.shape[-1], start, base)
    cos, sin = np.cos(theta), np.sin(theta)
    even, odd = x[..., 0::2], x[..., 1::2]
    out = np.empty_like(x)
    out[..., 0::2] = even * cos - odd * sin
    out[..., 1::2] = even * sin + odd * cos
    return out
