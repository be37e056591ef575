"""The lecture's figures on steps 3-16: what each draws is what its claim and number are about."""

import pytest

from posviz import lecture
from posviz.drawing.display import number
from posviz.maths.encodings import ramp

KEYS = [s.key for s in lecture.STEPS]


def at(key: str, **values: object) -> lecture.Slide:
    return lecture.slide(KEYS.index(key), **values)


@pytest.mark.parametrize("scale", [0.1, 0.6, 1.2])
def test_the_ramp_step_draws_e_beside_each_row_of_both_panels(scale):
    shown = at("ramp", scale=scale)
    e = ramp(6, 8, scale)[:, 0]  # every feature of row t: scale (t + 1)
    for fig in shown.figures:
        rows = list(dict.fromkeys(fig.frames[0]["row"]))
        assert rows == [f"position {t}, E = {number(v)}" for t, v in enumerate(e)], (fig.name, rows)
    assert f"E = {number(scale)}(t + 1)" in shown.caption
