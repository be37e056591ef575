import numpy as np
import pytest

from posviz.drawing import frames
from posviz.experiments import longer
from posviz.maths import biases, scaling, sinks


def test_llama3_changes_the_35_pairs_it_does_not_keep():
    """Llama 3.1 keeps 29 of its 64 pairs unchanged (the issue's reference value), so it changes 35."""
    view = longer.scaled(scaling.PRESETS["llama3.1-8b"])
    assert view.changed == 35
    assert view.attention == 1.0


@pytest.mark.parametrize(("key", "changed"), [("linear-4k-8k", 64), ("neox-partial", 0)])
def test_linear_slows_every_pair_and_an_unscaled_head_none(key, changed):
    assert longer.scaled(scaling.PRESETS[key]).changed == changed


def test_pairs_that_never_turn_are_those_slower_than_the_training_window():
    preset = scaling.PRESETS["yarn-reference"]
    view = longer.scaled(preset)
    by_loop = sum(2 * np.pi * 10_000 ** (2 * i / 128) > preset.original for i in range(64))
    assert view.never_turn == by_loop


def test_divisor_frame_holds_each_method_per_pair():
    preset = scaling.PRESETS["llama3.1-8b"]
    frame = frames.divisor_frame(preset)
    assert set(frame["method"]) == set(scaling.METHODS)
    linear = frame[frame["method"] == "linear"]
    np.testing.assert_allclose(linear["divisor"], 8.0)
    assert linear["pair"].tolist() == list(range(64))


def test_wavelength_frame_draws_an_unscaled_head_once():
    assert set(frames.scaled_wavelength_frame(longer.scaled(scaling.PRESETS["neox-partial"]))["rope"]) == {"unscaled"}
    frame = frames.scaled_wavelength_frame(longer.scaled(scaling.PRESETS["linear-4k-8k"]))
    scaled, plain = frame[frame["rope"] == "linear"], frame[frame["rope"] == "unscaled"]
    np.testing.assert_allclose(scaled["wavelength"].to_numpy(), 2 * plain["wavelength"].to_numpy())


def test_window_levels_label_both_windows_and_an_unextended_one_once():
    assert frames.window_levels(scaling.PRESETS["llama3.1-8b"])["label"].tolist() == [
        "original 8,192",
        "extended 131,072",
    ]
    assert len(frames.window_levels(scaling.PRESETS["neox-partial"])) == 1


def test_scores_start_at_q_dot_q_and_the_marker_sits_on_the_scaled_curve_at_the_window():
    view = longer.scaled(scaling.PRESETS["yarn-reference"])
    scores = frames.score_frame(view, seed=3, points=200)
    q = np.random.default_rng(3).standard_normal(128)
    unscaled = scores[scores["curve"] == "unscaled"]
    assert unscaled["score"].iloc[0] == pytest.approx(q @ q)
    scaled = scores[scores["curve"] != "unscaled"]
    assert scaled["score"].iloc[0] == pytest.approx(view.attention**2 * (q @ q))
    point = frames.score_window_point(view, scores).iloc[0]
    assert point["x"] >= view.preset.original
    assert point["y"] == pytest.approx(scaling.rotary_scores(q, q, [int(point["x"])], view.inv, view.attention)[0])


def test_decay_bound_starts_at_half_of_pairs_plus_one_and_measured_at_mean_norm():
    decay = longer.decay(4096, 128, seed=0, points=100)
    assert decay.bound_at_zero == pytest.approx(32.5)
    q = np.random.default_rng(0).standard_normal((256, 128))
    assert decay.measured_at_zero == pytest.approx((q**2).sum(axis=1).mean())
    assert set(frames.decay_frames(decay)[0]["curve"]) == {"base 10,000", "base 500,000"}
    assert frames.decay_frames(decay)[0]["distance"].max() == 4096


def test_bias_frame_matches_the_matrices_along_their_first_row():
    shape = dict(clip=3, heads=8, head=2, r1=0.5, r2=2.0, seed=7)
    frame = frames.bias_frame(10, **shape)
    matrices = longer.bias_matrices(11, **shape)
    for kind, name in longer.BIAS_NAMES.items():
        line = frame[frame["kind"] == name]
        ahead = line[line["offset"] >= 0]["bias"].to_numpy()
        np.testing.assert_array_equal(ahead, matrices[kind][0])  # row 0 holds offsets 0..10
        assert biases.offset_residual(matrices[kind]) == 0


def test_the_reindexed_sink_cache_is_exact_and_original_positions_are_not():
    ways = {w: sinks.demo_streaming(T=16, positions=w) for w in ("cache", "original")}
    assert longer.sink_exact(ways["cache"])
    assert not longer.sink_exact(ways["original"])
    frame = frames.sink_errors_frame(ways)
    # named like the headlines' metric; the re-indexed cache's bars are all at 0, and its entry says so
    assert set(frame["way"]) == {"error, re-indexed cache (rounding only: at 0)", "error, text positions"}
    np.testing.assert_array_equal(frame[frame["way"] == "error, text positions"]["error"], ways["original"].errors)


@pytest.mark.parametrize("bug", ["original", "rotated_at_insert"])
def test_a_sink_comparison_runs_the_cache_and_the_bug_on_the_same_tokens(bug):
    r = longer.sink_comparison(seed=3, T=20, d=8, sinks=2, window=5, bug=bug)
    assert list(r.ways) == ["cache", bug] and r.exact
    direct = {w: sinks.demo_streaming(seed=3, T=20, d=8, sinks=2, window=5, positions=w) for w in ("cache", bug)}
    np.testing.assert_array_equal(r.buggy.errors, direct[bug].errors)
    assert r.errors == (float(direct["cache"].errors.max()), float(direct[bug].errors.max()))
    assert r.errors[1] > 1e-6 and not r.bug_name.startswith("bug: ")
