import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import posviz
from posviz.maths import grids, properties


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


def test_a_sinusoid_table_passes_every_property_check():
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


@settings(max_examples=25, deadline=None)
@given(
    length=st.integers(1, 1500),
    half=st.integers(1, 40),
    start=st.integers(0, 500),
    offset=st.integers(1, 1600),
    cells=st.sampled_from([64, 500, 40_000]),
)
def test_chunked_summary_equals_the_whole_table(length, half, start, offset, cells):
    width = 2 * half
    pe = posviz.sinusoidal(length, width, start)
    s = properties.summarize_sinusoid(length, width, start, offset=offset, max_cells=cells, image_shape=(50, 30))
    np.testing.assert_allclose(s.chart.values, grids.block_mean(pe, cells).values, atol=1e-12)
    fr, fc = grids.fit_factors(length, width, 50, 30)
    np.testing.assert_allclose(s.image.values, grids.block_mean_by(pe, fr, fc), atol=1e-12)
    np.testing.assert_allclose(s.squared_norms, properties.squared_norms(pe), atol=1e-12)
    expected = properties.offset_residual(pe, offset) if offset < length else 0.0
    assert s.offset_residual == pytest.approx(expected, abs=1e-12)


def test_block_offset_map_equals_the_dense_matrix():
    pe = posviz.sinusoidal(40, 24, 3, 500.0)
    dense = pe @ posviz.offset_matrix(5, 24, 500.0).T
    np.testing.assert_allclose(properties.apply_offset_map(pe, 5, 500.0), dense, atol=1e-14)


def test_zoom_window_holds_exact_values_and_stays_inside():
    part, r0, c0 = properties.sinusoid_window(1000, 64, 7, 10000.0, 990, 60, size=16)
    assert (r0, c0) == (984, 48) and part.shape == (16, 16)
    np.testing.assert_array_equal(part, posviz.sinusoidal(1000, 64, 7)[984:, 48:])


@settings(max_examples=60, deadline=None)
@given(
    rows=st.integers(1, 9000),
    cols=st.integers(1, 3000),
    width=st.floats(20, 2000),
    height=st.floats(20, 1200),
)
def test_a_draw_plan_never_sends_more_than_the_chart_has_pixels(rows, cols, width, height):
    plan = grids.draw_plan(rows, cols, width, height)
    if plan.kind == "cells":
        assert (plan.row_factor, plan.col_factor) == (1, 1)
        assert min(width / cols, height / rows) >= grids.MIN_CELL_SIDE
        assert rows * cols <= min(grids.MAX_CELL_MARKS, width * height / grids.MIN_CELL_AREA)
    else:
        assert plan.kind == "image"
        assert -(-rows // plan.row_factor) <= height and -(-cols // plan.col_factor) <= width


def test_cells_too_small_to_see_become_a_picture_of_block_means():
    # the order page's maximum: 256 x 256 in a third of the page (263 px wide, 340 px high)
    assert grids.draw_plan(256, 256, 263, 340) == grids.Plan("image", 1, 1)
    # a layouts table of 1024 x 1024 in half the page: 4 x 4 blocks per pixel
    plan = grids.draw_plan(1024, 1024, 400, 300)
    assert plan == grids.Plan("image", 4, 4)
    picture = plan.reduce(np.arange(1024.0 * 1024).reshape(1024, 1024))
    assert picture.values.shape == (256, 256)
    first_block = np.arange(4.0)[:, None] * 1024 + np.arange(4.0)
    assert picture.values[0, 0] == pytest.approx(first_block.mean())
    assert picture.note == "each cell = mean of 4 x 4 values"


def test_cells_large_enough_to_point_at_stay_marks():
    assert grids.draw_plan(6, 8, 263, 340).kind == "cells"
    assert grids.draw_plan(32, 32, 203, 340).kind == "cells"  # 6.3 x 10.6 px each
    assert grids.draw_plan(64, 64, 203, 340).kind == "image"  # 3.2 x 5.3 px each: too small to point at
    assert grids.draw_plan(64, 64, 760, 360).kind == "cells"  # a zoom window across the page: 11.9 x 5.6 px
    assert grids.draw_plan(4, 256, 760, 260).kind == "cells"  # four long rows: 3 x 65 px each
    assert grids.draw_plan(48, 48, 203, 220).kind == "image"  # five of these on a page would cost ~1.5 s


def test_a_draw_plan_caps_the_marks_of_a_huge_chart():
    assert grids.draw_plan(200, 200, 4000, 4000).kind == "image"  # 40,000 cells of 20 px: more than the cap


def test_a_draw_plan_needs_a_chart_of_at_least_one_pixel():
    with pytest.raises(ValueError, match="at least 1 x 1 pixels, got 0 x 300"):
        grids.draw_plan(4, 4, 0, 300)


def test_a_picture_is_averaged_down_to_the_pixels_it_is_shown_with():
    m = np.arange(512.0 * 384).reshape(512, 384)
    fitted = grids.fit_picture(grids.reduced(m, 1, 1), 536, 402)
    assert fitted.values.shape == (512, 384)  # already fits: unchanged
    fitted = grids.fit_picture(grids.block_mean(m, 512 * 384 // 4), 100, 100)
    assert fitted.values.shape[0] <= 100 and fitted.values.shape[1] <= 100
    np.testing.assert_allclose(fitted.values, grids.block_mean_by(m, fitted.row_factor, fitted.col_factor))
    assert fitted.note == f"each cell = mean of {fitted.row_factor} x {fitted.col_factor} values"
