"""Named verdicts: the questions a page asks of a measured number, answered in one place.

A page asks "is this machine zero?" or "do these scores depend only on the offset?" and gets a bool;
the tolerances live here, each with the reason it has.
"""

from __future__ import annotations

import numpy as np

from posviz.maths.properties import diagonal_spread

EPS = float(np.finfo(np.float64).eps)
ROUNDING = 1e-9  # the lessons' tolerance: far above accumulated rounding, far below any real effect
# A float32 model's rounding through a few layers: float32 (eps 1.2e-7) sums of up to a few thousand products, layer
# after layer; SmolLM2's 5 shipped layers measure 1e-7 to 1e-6, a real effect there is 0.1 or more.
FLOAT32_ROUNDING = 1e-5
# An attention sink draws more than twice what uniform causal attention gives token 0: a habit, not arithmetic.
SINK_FACTOR = 2.0


def machine_zero(difference: float, magnitude: float = 1.0) -> bool:
    """True if `difference` is rounding noise: at most 64 float64 epsilons of `magnitude` (or of 1).

    |difference| <= 64 eps max(1, |magnitude|)

    >>> machine_zero(4.4e-16), machine_zero(1e-6)
    (True, False)
    """
    return bool(abs(difference) <= 64 * EPS * max(1.0, abs(magnitude)))


def negligible(deviation: float) -> bool:
    """True if a measured deviation (a residual, a drift, a spread) is rounding, not an effect: below 1e-9.

    Looser than machine_zero, for numbers that accumulate rounding over long sums or fits.

    >>> negligible(3e-13), negligible(0.08)
    (True, False)
    """
    return bool(abs(deviation) < ROUNDING)


def exactly_zero(deviation: float) -> bool:
    """True if a deviation is 0.0 to the last bit (a permutation of the same numbers, sin(0), cos(0) - 1).

    For numbers that are copies, not results of arithmetic: a table looked up by offset (a relative bias)
    repeats the same value along a diagonal bit for bit, and anything else is a real difference.

    >>> exactly_zero(0.0), exactly_zero(5e-324)
    (True, False)
    """
    return bool(deviation == 0.0)


def same_direction(cosine: float) -> bool:
    """True if a cosine is 1 up to rounding: the two vectors point the same way (1 - cosine negligible).

    A model run in float64 whose two inputs differ in nothing it can see gives 1 - cosine of about 1e-16 (sums
    of a few thousand products); a real difference between two sentences moves it by 1e-3 or more.

    >>> same_direction(1 - 2.2e-16), same_direction(0.9048)
    (True, False)
    """
    return negligible(1.0 - cosine)


def pointing_alike(cosine: float) -> bool:
    """True if two vectors clearly point the same way: their cosine is above 0.5 (an angle under 60 degrees).

    Unrelated directions in a model's width (384 in MiniLM) have cosines of a few hundredths; above 0.5
    is a shared direction no chance alignment gives, though far from the 1 of equal vectors.

    >>> pointing_alike(0.93), pointing_alike(0.04)
    (True, False)
    """
    return bool(cosine > 0.5)


def numerically_equal(a: np.ndarray, b: np.ndarray) -> bool:
    """np.allclose(a, b) with numpy's defaults: |a - b| <= 1e-8 + 1e-5 |b| everywhere.

    >>> numerically_equal(np.ones(3), np.ones(3) + 1e-12)
    True
    """
    return bool(np.allclose(a, b))


def equal_tolerance(b: np.ndarray) -> float:
    """The largest difference numerically_equal still calls equal anywhere in `b`: 1e-8 + 1e-5 max |b| (np.allclose's
    per-element rule, at its largest element).

    >>> round(equal_tolerance(np.array([1.0, -6.0])), 12)
    6.001e-05
    """
    return float(1e-8 + 1e-5 * np.abs(np.asarray(b, dtype=float)).max())


def depends_only_on_offset(matrix: np.ndarray) -> bool:
    """True if matrix[i, j] is constant along every diagonal, so it is a function of j - i alone.

    The spread along diagonals (properties.diagonal_spread) is negligible.

    >>> depends_only_on_offset(np.add.outer(np.arange(4), -np.arange(4)))
    True
    """
    return negligible(diagonal_spread(matrix))


def float32_zero(deviation: float) -> bool:
    """True if a deviation of a float32 model's run (relative to the values compared, or an attention weight) is
    float32 rounding over a few layers: at most FLOAT32_ROUNDING, 1e-5.

    >>> float32_zero(6e-7), float32_zero(0.78)
    (True, False)
    """
    return bool(abs(deviation) <= FLOAT32_ROUNDING)


def uniform_sink(T: int, first: int) -> float:
    """What uniform causal attention gives token 0, averaged over the queries t = first..T-1: mean of 1 / (t + 1).

    >>> round(uniform_sink(4, 1), 4)  # (1/2 + 1/3 + 1/4) / 3
    0.3611
    """
    if not 0 <= first < T:
        raise ValueError(f"need 0 <= first < T, got first = {first}, T = {T}")
    return float(np.mean(1.0 / (np.arange(first, T) + 1)))


def attention_sink(weight: float, T: int, *, first: int) -> bool:
    """True if the mean weight on token 0 over the queries t >= first is more than SINK_FACTOR (2) times what
    uniform causal attention gives it (uniform_sink): token 0 draws attention by habit, not by arithmetic.

    >>> attention_sink(0.42, 19, first=4), attention_sink(0.1, 19, first=4)
    (True, False)
    """
    return bool(weight > SINK_FACTOR * uniform_sink(T, first))
