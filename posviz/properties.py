"""Checks of the sinusoidal table's properties, as numbers a page can show as badges.

Shapes: T positions, d width.
"""

from __future__ import annotations

import numpy as np

from posviz import _checks
from posviz.encodings import DEFAULT_BASE, frequencies, offset_matrix, sinusoidal


def wavelengths(width: int, base: float = DEFAULT_BASE) -> np.ndarray:
    """Positions per full turn of each sin/cos pair: 2 pi / omega_i, from 2 pi up to below 2 pi * base.

    Returns: (d/2,)

    >>> wavelengths(8).shape
    (4,)
    """
    return 2 * np.pi / frequencies(width, base)


def squared_norms(pe: np.ndarray) -> np.ndarray:
    """Squared norm of every row (d/2 for a sinusoidal table).

    Returns: (T,)
    """
    pe = _checks.array("pe", pe, min_ndim=2)
    return (pe**2).sum(axis=-1)


def norm_deviation(pe: np.ndarray) -> float:
    """max |squared row norm - d/2| over every row: 0 up to rounding for a sinusoidal table."""
    pe = _checks.array("pe", pe, min_ndim=2)
    return float(np.abs(squared_norms(pe) - pe.shape[-1] / 2).max(initial=0.0))


def first_row_errors(width: int, base: float = DEFAULT_BASE) -> tuple[float, float]:
    """At position 0: (max |sin|, max |cos - 1|); both 0 for a correct table.

    >>> first_row_errors(8)
    (0.0, 0.0)
    """
    row = sinusoidal(1, width, base=base)[0]
    return float(np.abs(row[0::2]).max()), float(np.abs(row[1::2] - 1).max())


def offset_residual(pe: np.ndarray, offset: int, base: float = DEFAULT_BASE) -> float:
    """max |pe[t + k] - M_k pe[t]| over the table: 0 up to rounding when one matrix moves every row by k."""
    pe = _checks.array("pe", pe, min_ndim=2)
    offset = _checks.integer("offset", offset, minimum=1)
    if offset >= pe.shape[0]:
        raise ValueError(f"offset must be below the table length {pe.shape[0]}, got {offset}")
    m = offset_matrix(offset, pe.shape[1], base)
    return float(np.abs(pe[offset:] - pe[:-offset] @ m.T).max())


def similarity(pe: np.ndarray) -> np.ndarray:
    """Dot products between all positions: pe pe^T.

    Returns: (T, T)
    """
    pe = _checks.array("pe", pe, min_ndim=2)
    return pe @ pe.T


def diagonal_spread(m: np.ndarray) -> float:
    """Largest (max - min) along any diagonal of a square matrix: 0 when it depends only on i - j."""
    m = _checks.array("m", m, min_ndim=2)
    n = m.shape[0]
    return max((float(np.ptp(np.diagonal(m, k))) for k in range(-n + 1, n)), default=0.0)
