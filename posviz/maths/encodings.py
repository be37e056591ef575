"""Where a position vector comes from: sinusoids, learned tables, rotary embeddings, stand-ins.

RoPE's angles and rotation live in `posviz.maths.rotary` (frequencies, angles, rope are re-exported here).

Dimension letters used in the shapes below:
    T  number of positions (sequence length)
    d  width of a position vector (the model width it is added to)
    B  batch, or any leading axes
"""

from __future__ import annotations

import numpy as np

from posviz.maths import _checks
from posviz.maths.rotary import DEFAULT_BASE, angles, frequencies, rope  # noqa: F401 (re-exported)

LEARNED_MAX_LENGTH = 512


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
