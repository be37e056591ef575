import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import posviz
from tests.references import rope_matrices, sinusoid_loops

widths = st.integers(1, 32).map(lambda n: 2 * n)
bases = st.sampled_from([10.0, 100.0, 10000.0, 500000.0])


@settings(max_examples=40, deadline=None)
@given(length=st.integers(0, 40), width=widths, start=st.integers(0, 5000), base=bases)
def test_sinusoidal_matches_scalar_loops(length, width, start, base):
    pe = posviz.sinusoidal(length, width, start=start, base=base)
    assert pe.shape == (length, width) and pe.dtype == np.float64
    np.testing.assert_allclose(pe, sinusoid_loops(length, width, start, base), atol=1e-9)


def test_sinusoidal_formula_spelled_out():
    pe = posviz.sinusoidal(50, 16, start=7, base=1000.0)
    t, i = 12, 3
    angle = (7 + t) * 1000.0 ** (-2 * i / 16)
    assert pe[t, 2 * i] == pytest.approx(math.sin(angle), abs=1e-12)
    assert pe[t, 2 * i + 1] == pytest.approx(math.cos(angle), abs=1e-12)


@settings(max_examples=30, deadline=None)
@given(length=st.integers(1, 60), width=widths, start=st.integers(0, 10**6))
def test_sinusoid_values_in_unit_range_and_row_norm_is_half_width(length, width, start):
    pe = posviz.sinusoidal(length, width, start=start)
    assert np.abs(pe).max() <= 1.0
    np.testing.assert_allclose((pe**2).sum(axis=1), width / 2, rtol=1e-12)


def test_first_row_sines_zero_cosines_one():
    pe = posviz.sinusoidal(4, 8)
    np.testing.assert_array_equal(pe[0, 0::2], 0.0)
    np.testing.assert_array_equal(pe[0, 1::2], 1.0)


@settings(max_examples=30, deadline=None)
@given(length=st.integers(1, 30), width=widths, start=st.integers(0, 300))
def test_start_gives_rows_of_a_longer_table(length, width, start):
    long = posviz.sinusoidal(start + length, width)
    np.testing.assert_allclose(posviz.sinusoidal(length, width, start=start), long[start:], atol=1e-12)


@settings(max_examples=30, deadline=None)
@given(width=widths, offset=st.integers(1, 50), base=bases)
def test_offset_is_one_linear_map_for_every_position(width, offset, base):
    pe = posviz.sinusoidal(80, width, base=base)
    m = posviz.offset_matrix(offset, width, base)
    np.testing.assert_allclose(pe[offset:], pe[:-offset] @ m.T, atol=1e-9)


def test_similarity_depends_only_on_offset():
    pe = posviz.sinusoidal(64, 32)
    sim = pe @ pe.T
    for k in range(-10, 11):
        diag = np.diagonal(sim, offset=k)
        np.testing.assert_allclose(diag, diag[0], atol=1e-9)


def test_learned_rows_do_not_depend_on_length_or_start():
    full = posviz.learned(100, 12, seed=3)
    np.testing.assert_array_equal(posviz.learned(10, 12, start=40, seed=3), full[40:50])
    assert not np.array_equal(posviz.learned(10, 12, seed=4), full[:10])


def test_learned_table_refuses_positions_past_its_length():
    posviz.learned(8, 4, max_length=16, start=8)  # the last rows: allowed
    with pytest.raises(ValueError, match="16 rows"):
        posviz.learned(8, 4, max_length=16, start=9)
    with pytest.raises(ValueError, match="512"):
        posviz.learned(513, 4)


def test_ramp_and_constant_match_the_lesson_stand_ins():
    np.testing.assert_array_equal(posviz.ramp(6, 8)[:, 3], [0.6 * (t + 1) for t in range(6)])
    np.testing.assert_array_equal(posviz.constant(6, 8), np.full((6, 8), 0.6))


def test_gaussian_draws_from_the_given_stream():
    a = posviz.gaussian(3, 6, 0.5, rng=np.random.RandomState(2))
    np.testing.assert_array_equal(a, np.random.RandomState(2).randn(3, 6) * 0.5)


@settings(max_examples=30, deadline=None)
@given(length=st.integers(1, 12), width=widths, start=st.integers(0, 1000), base=bases, seed=st.integers(0, 99))
def test_rope_matches_rotation_matrices(length, width, start, base, seed):
    x = np.random.default_rng(seed).standard_normal((length, width))
    np.testing.assert_allclose(posviz.rope(x, start, base), rope_matrices(x, start, base), atol=1e-9)


@settings(max_examples=30, deadline=None)
@given(width=widths, seed=st.integers(0, 99), start=st.integers(0, 10**5))
def test_rope_keeps_norms(width, seed, start):
    x = np.random.default_rng(seed).standard_normal((3, 7, width))
    np.testing.assert_allclose(np.linalg.norm(posviz.rope(x, start), axis=-1), np.linalg.norm(x, axis=-1), rtol=1e-12)


@settings(max_examples=30, deadline=None)
@given(width=widths, seed=st.integers(0, 99), shift=st.integers(1, 1000))
def test_rope_scores_depend_only_on_offset(width, seed, shift):
    rng = np.random.default_rng(seed)
    q, k = rng.standard_normal(width), rng.standard_normal(width)
    length = 12
    rq = posviz.rope(np.tile(q, (length, 1)))
    rk = posviz.rope(np.tile(k, (length, 1)))
    scores = rq @ rk.T
    for offset in range(-5, 6):
        diag = np.diagonal(scores, offset)
        np.testing.assert_allclose(diag, diag[0], atol=1e-9)
    shifted = posviz.rope(np.tile(q, (length, 1)), shift) @ posviz.rope(np.tile(k, (length, 1)), shift).T
    np.testing.assert_allclose(shifted, scores, atol=1e-9)


def test_rope_at_position_zero_is_identity():
    x = np.random.default_rng(0).standard_normal((1, 10))
    np.testing.assert_array_equal(posviz.rope(x), x)
