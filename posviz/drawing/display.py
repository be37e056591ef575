"""How numbers read on screen: one rule for every page, full precision left to tooltips, CSV and `verify`.

Values get 5 significant digits; a value below 1e-6 in size is rounding noise next to the O(1)
quantities posviz computes, so it is written in scientific notation with 2 digits, and exact zero
as 0.
"""

from __future__ import annotations

import math

import numpy as np

from posviz.maths import verdicts

SMALL = 1e-6


def number(value: float, digits: int = 5, *, grouped: bool = False) -> str:
    """`value` for display: 5 significant digits, scientific notation for machine-zero sizes.

    `grouped` separates thousands with commas (a headline: 47,117 rather than 47117).

    >>> number(12.53665770012299), number(3.499757764020842), number(4.440892098500626e-16), number(0.0)
    ('12.537', '3.4998', '4.4e-16', '0')
    >>> number(0.08431805329627551), number(2.375007464381647), number(float("nan"))
    ('0.084318', '2.375', 'nan')
    >>> number(47117.25), number(47117.25, grouped=True), number(1.0132789e-06)
    ('47117', '47,117', '1.0133e-6')
    """
    value = float(value)
    if value == 0.0:
        return "0"
    if not math.isfinite(value):
        return str(value)
    text = f"{value:.1e}" if abs(value) < SMALL else f"{value:{',' if grouped else ''}.{digits}g}"
    return text.replace("e-0", "e-").replace("e+0", "e+")  # one exponent style: 6.9e-7 beside 1.0133e-6


def aligned(values: list[float]) -> list[str]:
    """Each value to the most decimals `number` gives any of them, so a column reads evenly ("3.0" under "2.4").

    >>> aligned([2.4, 3.0, 0.0]), aligned([0.234, 2.5])
    (['2.4', '3.0', '0.0'], ['0.234', '2.500'])
    """
    shown = [number(v) for v in values]
    places = max((len(v.split(".")[1]) for v in shown if "." in v and "e" not in v), default=0)
    return [f"{float(v):.{places}f}" for v in values]


def fixed(value: float, places: int = 2) -> str:
    """`value` to `places` decimals as a chart's Vega format writes it: a minus sign ("−"), not a hyphen.

    >>> fixed(-5.0512), fixed(2.73), fixed(-0.04, 1)
    ('−5.05', '2.73', '−0.0')
    """
    return f"{value:.{places}f}".replace("-", "\u2212")


SUPERSCRIPTS = str.maketrans("0123456789-+", "⁰¹²³⁴⁵⁶⁷⁸⁹⁻⁺")


def powers(text: str) -> str:
    """A number `number` wrote in e-notation, as a power of ten in words a first-year student reads: "" otherwise.

    >>> powers("4.4e-16"), powers("1.0133e-6"), powers("3.4998")
    ('4.4e-16 = 4.4 × 10⁻¹⁶', '1.0133e-6 = 1.0133 × 10⁻⁶', '')
    """
    mantissa, e, exponent = text.partition("e")
    if not e:
        return ""
    return f"{text} = {mantissa} × 10{str(int(exponent)).translate(SUPERSCRIPTS)}"


def zero_note(values: np.ndarray) -> str:
    r"""What to write inside a panel whose values are all zero, so a blank chart does not read as a broken one.

    "all zeros" if every value is exactly 0, "all zeros" and "up to rounding" on two lines if the largest is
    machine zero (`verdicts.machine_zero`: at most 64 float64 epsilons), else "" (nothing to say).

    >>> zero_note(np.zeros((2, 3))), zero_note(np.full(2, 4e-16)), zero_note(np.ones(2))
    ('all zeros', 'all zeros\nup to rounding', '')
    """
    top = float(np.abs(np.asarray(values, dtype=float)).max(initial=0.0))
    if verdicts.exactly_zero(top):
        return "all zeros"
    return "all zeros\nup to rounding" if verdicts.machine_zero(top) else ""
