import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import posviz
from posviz import grids, properties


@settings(max_examples=40, deadline=None)
@given(rows=st.integers(1, 9000), cols=st.integers(1, 3000), cap=st.integers(1, 50_000))
def test_block_factors_respect_the_cap(rows, cols, cap):
    fr, fc = grids.block_factors(rows, cols, cap)
    assert -(-rows // fr) * -(-cols // fc) <= cap


def test_block_mean_keeps_the_overall_mean_when_blocks_divide():
    m = np.random.default_rng(0).standard_normal((64, 32))
    reduced = grids.block_mean(m, 128)
    assert reduced.values.size <= 128
    assert reduced.values.mean() == pytest.approx(m.mean())


def test_block_mean_handles_partial_edge_blocks():
    reduced = grids.block_mean(np.arange(15.0).reshape(5, 3), max_cells=6)
    assert reduced.values.shape[0] * reduced.values.shape[1] <= 6
    assert np.isfinite(reduced.values).all()


def test_small_matrices_are_not_aggregated():
    reduced = grids.block_mean(np.eye(4))
    assert not reduced.aggregated and reduced.note == "every value shown"
    np.testing.assert_array_equal(reduced.values, np.eye(4))


def test_window_is_clipped_to_the_matrix():
    part, r0, c0 = grids.window(np.arange(100).reshape(10, 10), 8, 9, 4, 4)
    assert part.shape == (4, 4) and (r0, c0) == (6, 6)


def test_sinusoid_properties():
    pe = posviz.sinusoidal(200, 64)
    assert properties.norm_deviation(pe) < 1e-12
    assert properties.offset_residual(pe, 7) < 1e-9
    assert properties.diagonal_spread(properties.similarity(pe[:50])) < 1e-9
    assert properties.first_row_errors(64) == (0.0, 0.0)
    w = properties.wavelengths(64)
    assert w[0] == pytest.approx(2 * np.pi) and np.all(np.diff(w) > 0)


def test_property_checks_detect_a_broken_table():
    pe = posviz.sinusoidal(50, 16)
    pe[10, 3] += 0.1
    assert properties.norm_deviation(pe) > 0.01
    assert properties.offset_residual(pe, 1) > 0.01
    assert properties.diagonal_spread(properties.similarity(pe)) > 0.01
