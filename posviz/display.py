"""How numbers read on screen: one rule for every page, full precision left to tooltips, CSV and `verify`.

Values get 5 significant digits; a value below 1e-6 in size is rounding noise next to the O(1)
quantities posviz computes, so it is written in scientific notation with 2 digits, and exact zero
as 0.
"""

from __future__ import annotations

import math

SMALL = 1e-6


def number(value: float, digits: int = 5) -> str:
    """`value` for display: 5 significant digits, scientific notation for machine-zero sizes.

    >>> number(12.53665770012299), number(3.499757764020842), number(4.440892098500626e-16), number(0.0)
    ('12.537', '3.4998', '4.4e-16', '0')
    >>> number(0.08431805329627551), number(2.375007464381647), number(float("nan"))
    ('0.084318', '2.375', 'nan')
    """
    value = float(value)
    if value == 0.0:
        return "0"
    if not math.isfinite(value):
        return str(value)
    if abs(value) < SMALL:
        return f"{value:.1e}".replace("e-0", "e-").replace("e+0", "e+")
    return f"{value:.{digits}g}"
