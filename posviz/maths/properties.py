"""Checks of the sinusoidal table's properties, as numbers a page can show as badges.

Shapes: T positions, d width.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from posviz.maths import _checks, grids
from posviz.maths.encodings import sinusoidal
from posviz.maths.rotary import DEFAULT_BASE, frequencies


def wavelengths(d: int, base: float = DEFAULT_BASE) -> np.ndarray:
    """Positions per full turn of each sin/cos pair: 2 pi / omega_i, from 2 pi up to below 2 pi * base.

    Returns: (d/2,)

    >>> wavelengths(8).shape
    (4,)
    """
    return 2 * np.pi / frequencies(d, base)


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


def first_row_errors(d: int, base: float = DEFAULT_BASE) -> tuple[float, float]:
    """At position 0: (max |sin|, max |cos - 1|); both 0 for a correct table.

    >>> first_row_errors(8)
    (0.0, 0.0)
    """
    row = sinusoidal(1, d, base=base)[0]
    return float(np.abs(row[0::2]).max()), float(np.abs(row[1::2] - 1).max())


def apply_offset_map(pe: np.ndarray, offset: int, base: float = DEFAULT_BASE) -> np.ndarray:
    """pe @ offset_matrix(offset, d, base).T, using its 2x2 block structure: O(T d), not O(T d^2).

    Returns: (T, d)
    """
    theta = _checks.integer("offset", offset, minimum=-(2**62)) * frequencies(pe.shape[-1], base)
    cos, sin = np.cos(theta), np.sin(theta)
    s, c = pe[..., 0::2], pe[..., 1::2]
    out = np.empty_like(pe)
    out[..., 0::2] = cos * s + sin * c
    out[..., 1::2] = -sin * s + cos * c
    return out


def offset_residual(pe: np.ndarray, offset: int, base: float = DEFAULT_BASE) -> float:
    """max |pe[t + k] - M_k pe[t]| over the table: 0 up to rounding when one matrix moves every row by k."""
    pe = _checks.array("pe", pe, min_ndim=2)
    offset = _checks.integer("offset", offset, minimum=1)
    if offset >= pe.shape[0]:
        raise ValueError(f"offset must be below the table length {pe.shape[0]}, got {offset}")
    return float(np.abs(pe[offset:] - apply_offset_map(pe[:-offset], offset, base)).max())


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


def sinusoid_window(
    T: int, d: int, start: int, base: float, row0: int, col0: int, size: int = 128
) -> tuple[np.ndarray, int, int]:
    """Exact values of an at most size x size window of sinusoidal(T, d, start, base).

    The window is moved inside the table if it would run past an edge; its origin is returned.
    Returns: ((r, k), row0, col0)

    >>> sinusoid_window(8192, 2048, 0, 10000.0, 8190, 0)[0].shape
    (128, 128)
    """
    T = _checks.integer("T", T, minimum=1)
    d = _checks.even_width("d", d)
    size = _checks.integer("size", size, minimum=1)
    row0 = min(_checks.integer("row0", row0), max(T - size, 0))
    col0 = min(_checks.integer("col0", col0), max(d - size, 0))
    rows = sinusoidal(min(size, T - row0), d, start + row0, base)
    return rows[:, col0 : col0 + size], row0, col0


CHUNK_ROWS = 512


@dataclass(frozen=True)
class TableSummary:
    """What the sinusoid page draws of a table, computed in row chunks so memory stays bounded."""

    chart: grids.Reduced  # block means with at most `max_cells` cells
    image: grids.Reduced  # block means at image resolution
    squared_norms: np.ndarray  # (T,)
    norm_deviation: float
    offset: int
    offset_residual: float  # max |pe[t+k] - M_k pe[t]| over every t with t + k < T


def summarize_sinusoid(
    T: int,
    d: int,
    start: int = 0,
    base: float = DEFAULT_BASE,
    *,
    offset: int = 1,
    max_cells: int = 40_000,
    image_shape: tuple[int, int] = (768, 1024),
) -> TableSummary:
    """Block means, row norms and the offset-map residual of sinusoidal(T, d, start, base).

    Never holds more than about CHUNK_ROWS rows of the table at once (plus the outputs).

    >>> summarize_sinusoid(8192, 2048, offset=3).chart.values.shape
    (128, 256)
    """
    T = _checks.integer("T", T, minimum=1)
    d = _checks.even_width("d", d)
    offset = _checks.integer("offset", offset, minimum=1)
    fr, fc = grids.block_factors(T, d, max_cells)
    ir, ic = grids.fit_factors(T, d, *image_shape)
    step = max(fr, ir) * max(1, CHUNK_ROWS // max(fr, ir))
    charts, images, norms, residual = [], [], [], 0.0
    for r0 in range(0, T, step):
        rows = min(step, T - r0)
        pe = sinusoidal(rows, d, start + r0, base)
        charts.append(grids.block_mean_by(pe, fr, fc))
        images.append(grids.block_mean_by(pe, ir, ic))
        norms.append((pe**2).sum(axis=-1))
        shifted = min(rows, T - offset - r0)  # rows t of this chunk that have a row t + offset
        if shifted > 0:
            inside = max(0, rows - offset)  # rows t + offset that this chunk already holds
            extra = sinusoidal(shifted - inside, d, start + r0 + offset + inside, base)
            ahead = np.vstack([pe[offset : offset + inside], extra])
            residual = max(residual, float(np.abs(ahead - apply_offset_map(pe[:shifted], offset, base)).max()))
    norms = np.concatenate(norms)
    return TableSummary(
        chart=grids.reduced(np.vstack(charts), fr, fc),
        image=grids.reduced(np.vstack(images), ir, ic),
        squared_norms=norms,
        norm_deviation=float(np.abs(norms - d / 2).max()),
        offset=offset,
        offset_residual=residual,
    )


@dataclass(frozen=True)
class TableChecks:
    """The sinusoid page's three checks applied to any table, correct or not."""

    norm_deviation: float  # max |row squared norm - d/2|
    first_row: tuple[float, float]  # row 0: max |even columns|, max |odd columns - 1|
    offset_residual: float | None  # max |pe[t+k] - M_k pe[t]|; None when d is odd (no pairs)


def check_table(pe: np.ndarray, base: float = DEFAULT_BASE, offset: int = 1) -> TableChecks:
    """Run the norm, position-0 and offset-map checks on a (T, d) table.

    >>> check_table(sinusoidal(16, 8)).offset_residual < 1e-12
    True
    """
    pe = _checks.array("pe", pe, min_ndim=2)
    first = (float(np.abs(pe[0, 0::2]).max()), float(np.abs(pe[0, 1::2] - 1).max(initial=0.0)))
    residual = None
    if pe.shape[1] % 2 == 0 and pe.shape[0] > offset:
        residual = offset_residual(pe, offset, base)
    return TableChecks(norm_deviation(pe), first, residual)
