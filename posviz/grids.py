"""Shrinking big matrices for drawing: block means and windows, saying what was done.

Shapes: R rows, K columns of the full matrix; r, k of the reduced one.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from posviz import _checks


@dataclass(frozen=True)
class Reduced:
    """A matrix reduced for display: each cell is the mean of a row_factor x col_factor block."""

    values: np.ndarray  # (r, k)
    row_factor: int
    col_factor: int
    row_starts: np.ndarray  # (r,) first full-matrix row of each block
    col_starts: np.ndarray  # (k,) first full-matrix column of each block

    @property
    def aggregated(self) -> bool:
        return self.row_factor > 1 or self.col_factor > 1

    def shifted(self, rows: int, cols: int) -> Reduced:
        """The same blocks, numbered from (rows, cols) instead of (0, 0)."""
        return Reduced(self.values, self.row_factor, self.col_factor, self.row_starts + rows, self.col_starts + cols)

    @property
    def note(self) -> str:
        if not self.aggregated:
            return "every value shown"
        return f"each cell = mean of {self.row_factor} x {self.col_factor} values"


def block_factors(rows: int, cols: int, max_cells: int) -> tuple[int, int]:
    """Smallest block sizes (fr, fc), grown on the longer reduced side, with ceil(R/fr)*ceil(K/fc) <= max_cells.

    >>> block_factors(8192, 2048, 40_000)
    (64, 8)
    """
    rows, cols = _checks.integer("rows", rows), _checks.integer("cols", cols)
    max_cells = _checks.integer("max_cells", max_cells, minimum=1)
    fr = fc = 1
    while math.ceil(rows / fr) * math.ceil(cols / fc) > max_cells:
        if math.ceil(rows / fr) >= math.ceil(cols / fc):
            fr *= 2
        else:
            fc *= 2
    return fr, fc


def fit_factors(rows: int, cols: int, max_rows: int, max_cols: int) -> tuple[int, int]:
    """Smallest power-of-two block sizes with ceil(R/fr) <= max_rows and ceil(K/fc) <= max_cols.

    >>> fit_factors(8192, 2048, 768, 1024)
    (16, 2)
    """
    fr = fc = 1
    while math.ceil(rows / fr) > max_rows:
        fr *= 2
    while math.ceil(cols / fc) > max_cols:
        fc *= 2
    return fr, fc


def block_mean_by(m: np.ndarray, fr: int, fc: int) -> np.ndarray:
    """Means of fr x fc blocks of m; edge blocks may be partial.

    Returns: (ceil(R/fr), ceil(K/fc))
    """
    rows, cols = m.shape
    if (fr, fc) == (1, 1):
        return np.array(m, dtype=np.float64)
    r, k = math.ceil(rows / fr), math.ceil(cols / fc)
    if rows % fr == 0 and cols % fc == 0:
        return m.reshape(r, fr, k, fc).mean(axis=(1, 3))
    padded = np.full((r * fr, k * fc), np.nan)
    padded[:rows, :cols] = m
    return np.nanmean(padded.reshape(r, fr, k, fc), axis=(1, 3))


def block_mean(m: np.ndarray, max_cells: int = 40_000) -> Reduced:
    """Average m over blocks so that at most `max_cells` cells remain (edge blocks may be partial).

    Returns: Reduced with values (r, k)

    >>> block_mean(np.ones((8192, 2048))).values.shape
    (128, 256)
    """
    m = _checks.array("m", m, min_ndim=2)
    if m.ndim != 2:
        raise ValueError(f"m must be a 2-D matrix, got shape {m.shape}")
    fr, fc = block_factors(*m.shape, max_cells)
    return reduced(block_mean_by(m, fr, fc), fr, fc)


def reduced(values: np.ndarray, fr: int, fc: int) -> Reduced:
    """Wrap block means computed with factors (fr, fc) as a Reduced."""
    return Reduced(values, fr, fc, np.arange(values.shape[0]) * fr, np.arange(values.shape[1]) * fc)


def stride(count: int, most: int) -> int:
    """How many rows to step so that about `most` of `count` rows are drawn: max(1, count // most).

    >>> stride(8192, 2048), stride(100, 2048)
    (4, 1)
    """
    return max(1, _checks.integer("count", count) // _checks.integer("most", most, minimum=1))
