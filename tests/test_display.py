"""The one number format every page uses: 5 significant digits, scientific notation at machine-zero sizes."""

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from posviz.drawing.display import number, zero_note
from posviz.maths import verdicts


@pytest.mark.parametrize(
    ("value", "shown"),
    [
        (12.53665770012299, "12.537"),  # the overview once showed all 16 digits, magnitude 12.53666, attention 12.5367
        (3.499757764020842, "3.4998"),
        (4.440892098500626e-16, "4.4e-16"),
        (0.0, "0"),
        (-0.0, "0"),
        (0.08431805329627551, "0.084318"),
        (35, "35"),
        (1.0366e-4, "0.00010366"),
        (-2.5e-7, "-2.5e-7"),
    ],
)
def test_number_writes_the_lessons_values_one_way(value, shown):
    assert number(value) == shown


@given(st.floats(allow_nan=False, allow_infinity=False, min_value=-1e12, max_value=1e12))
def test_number_keeps_five_significant_digits_and_reads_back_close(value):
    text = number(value)
    if value == 0:
        assert text == "0"
        return
    back = float(text)
    if abs(value) < 1e-6:
        assert "e-" in text and back == pytest.approx(value, rel=0.06)  # rounding noise: 2 digits are enough
    else:
        assert back == pytest.approx(value, rel=1e-4)
        mantissa = text.lstrip("-").split("e")[0].replace(".", "").lstrip("0")
        assert len(mantissa) <= 5


def test_number_passes_nan_and_infinity_through():
    assert number(float("nan")) == "nan" and number(math.inf) == "inf"


def test_zero_note_tells_exact_zero_from_rounding_from_a_real_value():
    assert zero_note(np.zeros((3, 3))) == "all zeros"
    assert zero_note(np.array([4.4e-16, -1e-16])) == "all zeros\nup to rounding"
    assert zero_note(np.array([0.0, 1e-6])) == ""


@pytest.mark.parametrize("value", [47117.25, -1234.5, 12.537, 4.4e-16, 0.0, 1.5e7])
def test_grouping_only_adds_thousands_separators(value):
    assert number(value, grouped=True).replace(",", "") == number(value)


@given(st.floats(min_value=0.0, max_value=1e-12))
def test_zero_note_says_up_to_rounding_exactly_where_the_machine_zero_verdict_does(top):
    note = zero_note(np.array([-top, top / 2]))
    if top == 0.0:
        assert note == "all zeros"
    else:
        assert (note == "all zeros\nup to rounding") == verdicts.machine_zero(top)
        assert note in ("all zeros\nup to rounding", "")
