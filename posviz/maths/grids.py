"""Shrinking big matrices for drawing: block means and windows, saying what was done.

Shapes: R rows, K columns of the full matrix; r, k of the reduced one.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from posviz.maths import _checks


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


# A heatmap cell drawn as a mark must be at least MIN_CELL_SIDE pixels each way and MIN_CELL_AREA in area
# (6 x 6 on average: a cell one can point at); a chart sends at most MAX_CELL_MARKS of them. Anything finer is
# a picture of at most one value per pixel. Measured in Chromium, a rect mark costs ~0.1 ms of first paint.
MIN_CELL_SIDE = 2.0
MIN_CELL_AREA = 36.0
MAX_CELL_MARKS = 16_384


@dataclass(frozen=True)
class Plan:
    """How a matrix is drawn in a chart of given pixels: every value as a mark, or a picture of block means.

    kind "cells": one mark per value (factors 1). kind "image": a PNG whose pixels are means of
    row_factor x col_factor blocks, so that the picture has no more pixels than the chart.
    """

    kind: str
    row_factor: int = 1
    col_factor: int = 1

    def reduce(self, m: np.ndarray) -> Reduced:
        """`m` as this plan draws it: block means of row_factor x col_factor values."""
        return reduced(block_mean_by(m, self.row_factor, self.col_factor), self.row_factor, self.col_factor)


def draw_plan(
    rows: int,
    cols: int,
    width_px: float,
    height_px: float,
    *,
    min_side: float = MIN_CELL_SIDE,
    min_area: float = MIN_CELL_AREA,
    max_marks: int = MAX_CELL_MARKS,
) -> Plan:
    """Marks when each of the R x K cells gets >= min_side px each way and >= min_area px^2, at most max_marks;
    else an image of power-of-two block means with ceil(R/fr) <= height_px and ceil(K/fc) <= width_px.

    The marks a chart sends then follow from its pixels: at most width_px * height_px / min_area.

    >>> draw_plan(6, 8, 263, 340)
    Plan(kind='cells', row_factor=1, col_factor=1)
    >>> draw_plan(64, 64, 203, 340)
    Plan(kind='image', row_factor=1, col_factor=1)
    >>> draw_plan(1024, 1024, 400, 300)
    Plan(kind='image', row_factor=4, col_factor=4)
    """
    rows, cols = _checks.integer("rows", rows, minimum=1), _checks.integer("cols", cols, minimum=1)
    width_px, height_px = _checks.finite_real("width_px", width_px), _checks.finite_real("height_px", height_px)
    if width_px < 1 or height_px < 1:
        raise ValueError(f"a chart needs at least 1 x 1 pixels, got {width_px:g} x {height_px:g}")
    cell_w, cell_h = width_px / cols, height_px / rows
    if min(cell_w, cell_h) >= min_side and cell_w * cell_h >= min_area and rows * cols <= max_marks:
        return Plan("cells")
    return Plan("image", *fit_factors(rows, cols, max(1, int(height_px)), max(1, int(width_px))))


def fit_picture(picture: Reduced, max_rows: int, max_cols: int) -> Reduced:
    """`picture` averaged further over power-of-two blocks until it has at most max_rows x max_cols values:
    a picture needs no more pixels than it is shown with. Factors multiply (means of means at partial edges).

    Returns: Reduced with values (r', k')

    >>> fit_picture(reduced(np.ones((512, 512)), 1, 1), 400, 400).values.shape
    (256, 256)
    """
    fr, fc = fit_factors(*picture.values.shape, max(1, int(max_rows)), max(1, int(max_cols)))
    if (fr, fc) == (1, 1):
        return picture
    values = block_mean_by(picture.values, fr, fc)
    return Reduced(
        values, picture.row_factor * fr, picture.col_factor * fc, picture.row_starts[::fr], picture.col_starts[::fc]
    )


def stride(count: int, most: int) -> int:
    """How many rows to step so that about `most` of `count` rows are drawn: max(1, count // most).

    >>> stride(8192, 2048), stride(100, 2048)
    (4, 1)
    """
    return max(1, _checks.integer("count", count) // _checks.integer("most", most, minimum=1))
