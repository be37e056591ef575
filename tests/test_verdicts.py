import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import posviz
from posviz.maths import generation, properties, relative, verdicts


def test_machine_zero_scales_with_magnitude():
    assert verdicts.machine_zero(4.4e-16)
    assert verdicts.machine_zero(-4.4e-16)
    assert not verdicts.machine_zero(1e-12)
    assert verdicts.machine_zero(1e-12, magnitude=1e5)


@given(st.floats(1e-6, 1e6))
def test_a_shuffle_without_position_is_machine_zero_at_any_weight_scale(weight_scale):
    result = posviz.order_experiment(weight_scale=weight_scale)
    assert result.order_blind
    # independently of the verdict: the shuffled run is the reordered one up to a few roundings of its size
    size = max(1.0, float(np.abs(result.out).max()))
    np.testing.assert_allclose(result.out_perm, result.out[result.perm], rtol=0, atol=1e-13 * size)


def test_position_makes_the_shuffle_test_fail():
    assert not posviz.order_experiment(position="ramp").order_blind


def test_negligible_separates_rounding_from_an_effect():
    good = generation.demo_generation(T=24, prefill=6)
    bad = generation.demo_generation(T=24, prefill=6, bug="off_by_one")
    assert verdicts.negligible(good.errors.max())
    assert not verdicts.negligible(bad.errors.max())
    assert not verdicts.negligible(-1.0)


def test_exactly_zero_accepts_only_zero():
    assert verdicts.exactly_zero(0.0) and verdicts.exactly_zero(-0.0)
    assert not verdicts.exactly_zero(np.nextafter(0.0, 1.0))


def test_same_direction_is_a_cosine_of_one_up_to_rounding():
    assert verdicts.same_direction(1.0) and verdicts.same_direction(1 - 2.2e-16) and verdicts.same_direction(1 + 1e-15)
    assert not verdicts.same_direction(1 - 1e-6)
    assert not verdicts.same_direction(0.9048)  # MiniLM on "dog bites man" / "man bites dog"
    assert not verdicts.same_direction(-1.0)


def test_pointing_alike_separates_a_shared_direction_from_chance():
    rng = np.random.default_rng(0)
    a, b = rng.standard_normal((2, 384))
    chance = float(a @ b / np.linalg.norm(a) / np.linalg.norm(b))
    assert not verdicts.pointing_alike(chance)  # a few hundredths in 384 dimensions
    assert verdicts.pointing_alike(0.93) and not verdicts.pointing_alike(0.5) and not verdicts.pointing_alike(-0.9)


def test_numerically_equal_is_allclose():
    a = np.linspace(0, 1, 5)
    assert verdicts.numerically_equal(a, a + 1e-10)
    assert not verdicts.numerically_equal(a, a + 1e-3)


@pytest.mark.parametrize(("scheme", "expected"), [("rotary", True), ("sinusoidal", False)])
def test_only_rotary_scores_depend_only_on_offset(scheme, expected):
    q, k = np.random.default_rng(0).standard_normal((2, 16))
    scores = relative.fixed_content_scores(q, k, 24, scheme=scheme)
    assert verdicts.depends_only_on_offset(scores) is expected


def test_sinusoid_similarity_depends_only_on_offset():
    assert verdicts.depends_only_on_offset(properties.similarity(posviz.sinusoidal(64, 32)))


def test_an_attention_sink_is_more_than_twice_uniform_causal_attention_on_token_0():
    uniform = verdicts.uniform_sink(10, 4)
    assert uniform == pytest.approx(np.mean([1 / 5, 1 / 6, 1 / 7, 1 / 8, 1 / 9, 1 / 10]))
    assert verdicts.attention_sink(2.01 * uniform, 10, first=4)
    assert not verdicts.attention_sink(2 * uniform, 10, first=4)
