import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st

import posviz
from posviz.drawing import frames
from posviz.drawing.display import number
from posviz.experiments import lessons
from posviz.maths import encodings, generation, grids, properties, relative, variants


def test_step_errors_mark_the_prefill_and_keep_every_error():
    run = generation.demo_generation(T=10, prefill=4, bug="reset")
    frame = frames.step_errors(run.errors, run.prefill)
    assert frame["token"].tolist() == list(range(10))
    assert frame["phase"].tolist() == ["prefill"] * 4 + ["one at a time"] * 6
    np.testing.assert_array_equal(frame["error"], run.errors)


def test_generation_table_puts_given_and_true_positions_side_by_side():
    run = generation.demo_generation(T=8, prefill=3, bug="off_by_one")
    table = frames.generation_table(run.positions, run.errors)
    assert (table["position given"] != table["true position"]).any()
    assert table["true position"].tolist() == list(range(8))
    written = frames.generation_table(run.positions, run.errors, written=True)
    assert written["error"].tolist() == [
        number(e) for e in run.errors
    ]  # as a headline writes it; the chart keeps floats
    assert written.drop(columns="error").equals(table.drop(columns="error"))


def test_frequency_comparison_holds_both_formulas_for_every_pair():
    frame = frames.frequency_comparison(16, 10_000.0)
    assert frame.groupby("formula").size().tolist() == [8, 8]
    paper = frame[frame.formula.str.startswith("paper")]["frequency"].to_numpy()
    t2t = frame[frame.formula.str.startswith("tensor2tensor")]["frequency"].to_numpy()
    np.testing.assert_allclose(paper, encodings.frequencies(16, 10_000.0))
    np.testing.assert_allclose(t2t, variants.t2t_frequencies(16, 10_000.0))


def test_wavelength_frame_is_two_pi_over_each_frequency():
    frame = frames.sinusoid_wavelength_frame(12)
    np.testing.assert_allclose(frame["wavelength"] * encodings.frequencies(12), 2 * np.pi)


@pytest.mark.parametrize(("count", "stride"), [(10, 1), (10, 3), (8192, grids.stride(8192, 2048))])
def test_row_norms_keep_every_stride_th_row_at_its_position(count, stride):
    norms = np.arange(count, dtype=float)
    frame = frames.row_norms(norms, start=100, stride=stride)
    np.testing.assert_array_equal(frame["position"] - 100, frame["norm"])
    assert len(frame) == -(-count // stride)


def test_distance_curve_drops_only_what_a_log_axis_cannot_hold():
    scales, distances = np.array([0.0, 1e-3, 1.0]), np.array([0.0, 0.0, 2.0])
    assert len(frames.distance_curve(scales, distances, log=False)) == 3
    assert frames.distance_curve(scales, distances, log=True)["scale"].tolist() == [1.0]


def test_query_pair_trajectory_stays_on_a_circle_of_the_pair_norm():
    q, _ = relative.fixed_content(16, seed=3)
    points = relative.query_pair_trajectory(q, 40, 2)
    np.testing.assert_allclose(np.hypot(points[:, 0], points[:, 1]), np.hypot(q[4], q[5]))
    np.testing.assert_allclose(points[0], q[4:6])
    frame = frames.trajectory(points)
    assert frame["position"].tolist() == list(range(40))


def test_query_pair_trajectory_refuses_a_pair_past_the_width():
    with pytest.raises(ValueError, match="below d/2 = 4"):
        relative.query_pair_trajectory(np.ones(8), 5, 4)


def test_twin_rows_stack_the_copies_without_then_with_position():
    plain, marked = posviz.twin_experiment(), posviz.twin_experiment(position="ramp")
    rows = lessons.twin_rows(plain, marked)
    np.testing.assert_array_equal(rows[0], rows[1])
    assert not np.allclose(rows[2], rows[3])


def test_sinusoid_squared_norm_frame_sits_at_half_the_width():
    frame = frames.row_norms(properties.squared_norms(posviz.sinusoidal(50, 10)), name="squared norm")
    np.testing.assert_allclose(frame["squared norm"], 5.0)


def test_on_log_axis_lifts_only_values_a_log_axis_cannot_hold():
    assert frames.on_log_axis(0.0) == frames.LOG_FLOOR
    assert frames.on_log_axis(-1.0) == frames.LOG_FLOOR
    assert frames.on_log_axis(3e-7) == 3e-7


@given(
    st.lists(st.lists(st.sampled_from([-1.0, 0.0, 0.5, 2.0, np.nan]), min_size=1, max_size=30), min_size=1, max_size=4)
)
def test_step_corners_draw_the_same_steps_with_fewer_points(columns):
    """A step line (flat until the next x) through the kept rows has every original row's value at its x."""
    x = np.arange(max(len(c) for c in columns))
    series = {f"g{i}": np.resize(np.array(c), len(x)) for i, c in enumerate(columns)}
    full = frames.series_frame(x, series, x_name="x", y_name="y", group="g")
    kept = frames.step_corners(full, y="y", group="g")
    for name, part in full.groupby("g"):
        corners = kept[kept["g"] == name]
        assert corners["x"].iloc[0] == part["x"].iloc[0] and corners["x"].iloc[-1] == part["x"].iloc[-1]
        at = np.searchsorted(corners["x"].to_numpy(), part["x"].to_numpy(), side="right") - 1
        np.testing.assert_array_equal(corners["y"].to_numpy()[at], part["y"].to_numpy())  # NaN equals NaN here
    flat = frames.series_frame(x, {"a": np.ones(len(x))}, x_name="x", y_name="y", group="g")
    assert len(frames.step_corners(flat, y="y", group="g")) == min(2, len(x))


def test_step_corners_name_a_missing_column():
    with pytest.raises(ValueError, match="no column 'bias'"):
        frames.step_corners(pd.DataFrame({"y": [1.0]}), y="bias", group="kind")
