"""Other layouts of the sinusoidal table, and the classic mistakes in writing it.

Dimension letters: T positions, d width.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from posviz.maths import _checks
from posviz.maths.encodings import sinusoidal
from posviz.maths.relative import half_permutation, rope_rotate_half
from posviz.maths.rotary import DEFAULT_BASE, frequencies, rope

if TYPE_CHECKING:
    from posviz.maths.properties import TableChecks

TIMESCALES = ("paper", "tensor2tensor")
BUGS = {
    "none": "the paper's formula, interleaved sin/cos",
    "2i exponent": "the cosine at dimension 2i+1 uses exponent (2i+1)/d instead of its pair's 2i/d",
    "multiply": "positions multiplied by base^(2i/d) instead of divided",
    "odd width": "an odd width: the last sine has no cosine partner",
    "concat read as interleaved": "a [sin | cos] table fed to code that expects interleaved pairs",
}


def t2t_frequencies(d: int, base: float = DEFAULT_BASE) -> np.ndarray:
    """tensor2tensor's frequencies: geometric from 1 down to exactly 1/base over d/2 steps.

    omega_i = base ** (-i / (d/2 - 1)); the paper's are base ** (-2i / d), whose slowest is
    base ** (-(d - 2) / d) (1.0366e-4 for d = 512), not 1/base.

    Returns: (d/2,)

    >>> float(t2t_frequencies(512)[-1])
    0.0001
    """
    d = _checks.even_width("d", d)
    base = _checks.positive_real("base", base)
    half = d // 2
    return base ** (-np.arange(half) / max(half - 1, 1))


def sinusoidal_concat(
    T: int, d: int, start: int = 0, base: float = DEFAULT_BASE, *, timescales: str = "paper"
) -> np.ndarray:
    """The [sin | cos] layout of tensor2tensor and the TensorFlow tutorial: all sines, then all cosines.

    timescales "paper" uses the paper's frequencies (then it is the interleaved table with its columns
    permuted by relative.half_permutation); "tensor2tensor" uses t2t_frequencies.

    Returns: (T, d)

    >>> sinusoidal_concat(4, 8).shape
    (4, 8)
    """
    if timescales not in TIMESCALES:
        raise ValueError(f"timescales must be one of {TIMESCALES}, got {timescales!r}")
    T = _checks.integer("T", T)
    start = _checks.integer("start", start)
    omega = frequencies(d, base) if timescales == "paper" else t2t_frequencies(d, base)
    theta = np.arange(start, start + T, dtype=np.float64)[:, None] * omega[None, :]
    return np.concatenate([np.sin(theta), np.cos(theta)], axis=1)


def buggy_sinusoidal(T: int, d: int, bug: str, base: float = DEFAULT_BASE) -> np.ndarray:
    """The sinusoidal table as a common mistake writes it (see BUGS); "none" is the correct table.

    "odd width" builds d + 1 columns the paper's way and drops the last cosine.

    Returns: (T, d), or (T, d - 1) for "odd width"
    """
    if bug not in BUGS:
        raise ValueError(f"bug must be one of {', '.join(BUGS)}; got {bug!r}")
    T = _checks.integer("T", T)
    d = _checks.even_width("d", d)
    pos = np.arange(T, dtype=np.float64)[:, None]
    if bug == "none":
        return sinusoidal(T, d, base=base)
    if bug == "2i exponent":
        exponent = np.arange(d) / d  # j / d for every column j, the pair's 2i / d only for sines
        pe = pos / base**exponent
        pe[:, 0::2], pe[:, 1::2] = np.sin(pe[:, 0::2]), np.cos(pe[:, 1::2])
        return pe
    if bug == "multiply":
        theta = pos * base ** (np.arange(0, d, 2) / d)
        pe = np.empty((T, d))
        pe[:, 0::2], pe[:, 1::2] = np.sin(theta), np.cos(theta)
        return pe
    if bug == "odd width":
        return sinusoidal(T, d, base=base)[:, :-1]
    return sinusoidal_concat(T, d, base=base)  # read by interleaved code: pairs are wrong


@dataclass(frozen=True)
class LayoutComparison:
    """The layouts side by side, and the numbers that say how they differ."""

    interleaved: np.ndarray  # (T, d) the paper's table
    concat: np.ndarray  # (T, d) [sin | cos] with the paper's frequencies
    concat_t2t: np.ndarray  # (T, d) [sin | cos] with tensor2tensor's frequencies
    table_gap: float  # max |interleaved[:, p] - concat|: 0 exactly
    rope_gap: float  # max |rope_rotate_half(x[:, p]) - rope(x)[:, p]| on random x: 0 exactly
    timescale_gap: float  # max |concat_t2t - concat|: a real difference
    slowest_paper: float
    slowest_t2t: float


def compare_layouts(T: int, d: int, base: float = DEFAULT_BASE, seed: int = 0) -> LayoutComparison:
    """Build each layout and measure: equal up to a fixed permutation, except tensor2tensor's timescales.

    >>> compare_layouts(16, 8).table_gap
    0.0
    """
    interleaved = sinusoidal(T, d, base=base)
    concat = sinusoidal_concat(T, d, base=base)
    concat_t2t = sinusoidal_concat(T, d, base=base, timescales="tensor2tensor")
    x = np.random.default_rng(_checks.integer("seed", seed)).standard_normal((T, d))
    p = half_permutation(d)
    return LayoutComparison(
        interleaved=interleaved,
        concat=concat,
        concat_t2t=concat_t2t,
        table_gap=float(np.abs(interleaved[:, p] - concat).max(initial=0.0)),
        rope_gap=float(np.abs(rope_rotate_half(x[:, p], 0, base) - rope(x, 0, base)[:, p]).max(initial=0.0)),
        timescale_gap=float(np.abs(concat_t2t - concat).max(initial=0.0)),
        slowest_paper=float(frequencies(d, base)[-1]),
        slowest_t2t=float(t2t_frequencies(d, base)[-1]),
    )


def table_with_checks(T: int, d: int, bug: str, base: float = DEFAULT_BASE) -> tuple[np.ndarray, TableChecks]:
    """buggy_sinusoidal(...) and properties.check_table of it (offset 1), keyed by scalars for caching.

    >>> table_with_checks(16, 8, "none")[1].norm_deviation
    0.0
    """
    from posviz.maths.properties import check_table

    table = buggy_sinusoidal(T, d, bug, base)
    return table, check_table(table, base, offset=1)


def table_difference(correct: np.ndarray, broken: np.ndarray) -> np.ndarray:
    """correct - broken over the columns both tables have (an odd-width table lacks the correct one's last column).

    correct: (T, d), broken: (T, d') with d' <= d
    Returns: (T, d')

    >>> table_difference(np.ones((3, 4)), np.ones((3, 3))).shape
    (3, 3)
    """
    if correct.shape[0] != broken.shape[0] or broken.shape[1] > correct.shape[1]:
        raise ValueError(
            f"expected a broken table with the same rows and no more columns, got {correct.shape} and {broken.shape}"
        )
    return correct[:, : broken.shape[1]] - broken
