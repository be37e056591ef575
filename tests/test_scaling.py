"""RoPE scaling per rope_type, against transformers' formulas written as loops; RoFormer's decay bound."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from posviz.maths import scaling
from posviz.maths.rotary import frequencies
from posviz.maths.scaling import PRESETS, RopeParameters, inv_freq
from tests.references import roformer_bound_loop, rope_inv_freq_loops, rope_matrices

dims = st.integers(2, 64).map(lambda n: 2 * n)
bases = st.floats(100.0, 1e7)


def test_llama31_keeps_29_pairs_smooths_6_and_divides_29_by_8():
    preset = PRESETS["llama3.1-8b"]
    kept, smoothed, divided = scaling.llama3_masks(frequencies(128, 500_000.0), preset.params)
    assert (kept.sum(), smoothed.sum(), divided.sum()) == (29, 6, 29)
    assert kept[:29].all() and divided[35:].all()
    inv, attention = preset.inv_freq()
    plain = frequencies(128, 500_000.0)
    np.testing.assert_array_equal(inv[kept], plain[kept])
    np.testing.assert_allclose(inv[divided], plain[divided] / 8, rtol=1e-15)
    assert inv.sum() == pytest.approx(5.3860582, abs=5e-8)
    assert attention == 1.0


def test_yarn_correction_range_and_attention_factor_match_the_reference_values():
    assert scaling.yarn_correction_range(128, 10_000.0, 4096) == (20, 46)
    _, attention = inv_freq(RopeParameters("yarn", factor=4.0, original_max_position_embeddings=4096), 128)
    assert attention == pytest.approx(1.138629, abs=5e-7)
    assert attention == pytest.approx(0.1 * math.log(4) + 1)


def test_dynamic_ntk_base_at_twice_the_window_is_30527_74():
    assert scaling.dynamic_base(10_000.0, 128, 2.0, 2048, 4096) == pytest.approx(30527.74, abs=5e-3)
    inv, _ = inv_freq(RopeParameters("dynamic", factor=2.0, max_position_embeddings=2048), 128, seq_len=4096)
    np.testing.assert_allclose(inv, frequencies(128, 30527.7367488067), rtol=1e-12)


def test_dynamic_ntk_is_the_default_inside_the_window():
    params = RopeParameters("dynamic", factor=2.0, max_position_embeddings=2048)
    for seq_len in (None, 1, 2048):
        np.testing.assert_allclose(inv_freq(params, 128, seq_len=seq_len)[0], frequencies(128, 1e4))


def test_roformer_decay_bound_averages_32_5_at_distance_0_for_d_128_and_falls():
    bound = scaling.decay_bound(np.arange(0, 4096, 64), 128)
    assert bound[0] == 32.5
    assert bound[-1] < bound[0] / 3
    for m in (0, 1, 17, 250, 4000):
        assert scaling.decay_bound([m], 128)[0] == pytest.approx(roformer_bound_loop(m, 128), rel=1e-12)


LLAMA3 = {"factor": 8.0, "low_freq_factor": 1.0, "high_freq_factor": 4.0, "original_max_position_embeddings": 8192}
LONG = {
    "factor": 32.0,
    "original_max_position_embeddings": 4096,
    "short_factor": tuple(1.0 + 0.01 * i for i in range(48)),
    "long_factor": tuple(1.0 + 0.5 * i for i in range(48)),
}
CASES = [
    ("default", {}),
    ("linear", {"factor": 2.0}),
    ("dynamic", {"factor": 2.0, "max_position_embeddings": 2048, "seq_len": 5000}),
    ("yarn", {"factor": 4.0, "original_max_position_embeddings": 4096}),
    ("yarn", {"factor": 16.0, "original_max_position_embeddings": 4096, "beta_fast": 16.0, "beta_slow": 2.0}),
    ("yarn", {"factor": 40.0, "original_max_position_embeddings": 4096, "mscale": 1.0, "mscale_all_dim": 0.707}),
    ("llama3", LLAMA3),
    ("longrope", {**LONG, "seq_len": 8000}),
    ("longrope", {**LONG, "seq_len": 100}),
]


@pytest.mark.parametrize(("rope_type", "cfg"), CASES)
@pytest.mark.parametrize(("dim", "base"), [(96, 10_000.0), (96, 500_000.0)])
def test_every_rope_type_matches_the_reference_formulas_written_as_loops(rope_type, cfg, dim, base):
    seq_len = cfg.get("seq_len")
    params = RopeParameters(rope_type, **{k: v for k, v in cfg.items() if k != "seq_len"})
    inv, attention = inv_freq(params, dim, base, seq_len=seq_len)
    want, want_attention = rope_inv_freq_loops(rope_type, dim, base, **cfg)
    np.testing.assert_allclose(inv, want, rtol=1e-12)
    assert attention == pytest.approx(want_attention, rel=1e-12)


@settings(max_examples=40, deadline=None)
@given(dim=dims, base=bases)
def test_linear_and_yarn_with_factor_1_are_the_default(dim, base):
    plain, _ = inv_freq(RopeParameters(), dim, base)
    linear, a = inv_freq(RopeParameters("linear", factor=1.0), dim, base)
    yarn, b = inv_freq(RopeParameters("yarn", factor=1.0, original_max_position_embeddings=4096), dim, base)
    np.testing.assert_array_equal(linear, plain)
    np.testing.assert_allclose(yarn, plain, rtol=1e-15)
    assert a == b == 1.0


@settings(max_examples=40, deadline=None)
@given(dim=dims, base=bases, factor=st.floats(1.0, 64.0), high=st.floats(1.5, 32.0), original=st.integers(64, 1 << 17))
def test_llama3_leaves_pairs_faster_than_original_over_high_freq_factor_untouched(dim, base, factor, high, original):
    params = RopeParameters(
        "llama3", factor=factor, low_freq_factor=1.0, high_freq_factor=high, original_max_position_embeddings=original
    )
    plain = frequencies(dim, base)
    scaled, _ = inv_freq(params, dim, base)
    short = 2 * math.pi / plain < original / high
    np.testing.assert_array_equal(scaled[short], plain[short])
    assert (scaled <= plain * (1 + 1e-12)).all() and (scaled >= plain / factor * (1 - 1e-12)).all()


@settings(max_examples=30, deadline=None)
@given(dim=st.integers(1, 8).map(lambda n: 2 * n), base=bases, seed=st.integers(0, 99), factor=st.floats(1.0, 8.0))
def test_rotary_scores_equal_rotating_the_query_with_the_scaled_frequencies(dim, base, seed, factor):
    rng = np.random.default_rng(seed)
    q, k = rng.standard_normal((2, dim))
    distances = [0, 1, 5, 40]
    plain = scaling.rotary_scores(q, k, distances, frequencies(dim, base))
    linear = scaling.rotary_scores(q, k, distances, inv_freq(RopeParameters("linear", factor=factor), dim, base)[0])
    for m, p, s in zip(distances, plain, linear, strict=True):
        assert p == pytest.approx(rope_matrices(q[None], m, base)[0] @ k, abs=1e-9)  # RoFormer's R_m
        assert s == pytest.approx(_rotate_loop(q, m / factor, dim, base) @ k, abs=1e-9)  # positions / factor


def _rotate_loop(x, position, dim, base):
    out = np.array(x, dtype=float)
    for i in range(dim // 2):
        a = position * base ** (-2 * i / dim)
        out[2 * i] = x[2 * i] * math.cos(a) - x[2 * i + 1] * math.sin(a)
        out[2 * i + 1] = x[2 * i] * math.sin(a) + x[2 * i + 1] * math.cos(a)
    return out


def test_attention_factor_squares_into_the_rotated_logit_and_spares_unrotated_dimensions():
    q, k = np.arange(8.0), np.ones(8)
    inv = np.array([1.0, 0.1])  # 4 of 8 dimensions rotated
    plain = scaling.rotary_scores(q, k, [3], inv)[0]
    scaled = scaling.rotary_scores(q, k, [3], inv, attention_factor=2.0)[0]
    rest = q[4:] @ k[4:]
    assert scaled - rest == pytest.approx(4 * (plain - rest))


def test_partial_rotary_rotates_a_quarter_of_gpt_neox_20b_heads():
    preset = PRESETS["neox-partial"]
    inv, _ = preset.inv_freq()
    assert scaling.rotary_dim(96, 0.25) == 24 and inv.shape == (12,)
    np.testing.assert_allclose(inv, 10_000.0 ** (-np.arange(0, 24, 2) / 24))


def test_presets_name_their_source_and_compute():
    for preset in PRESETS.values():
        assert len(preset.source) > 40 and preset.original <= preset.extended
        inv, attention = preset.inv_freq(preset.extended)
        assert np.isfinite(inv).all() and attention >= 1.0
        for method, divisor in scaling.divisors(preset).items():
            assert divisor.min() >= 1 - 1e-12, method


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: inv_freq(RopeParameters("ntk-by-parts"), 128), "rope_type must be one of"),
        (lambda: inv_freq(RopeParameters("linear"), 128), "needs factor, got None"),
        (lambda: inv_freq(RopeParameters("linear", factor=0.5), 128), "factor must be >= 1.*got 0.5"),
        (lambda: inv_freq(RopeParameters("yarn", factor=4.0), 128), "needs original_max_position_embeddings"),
        (
            lambda: inv_freq(
                RopeParameters(
                    "llama3",
                    factor=8.0,
                    low_freq_factor=4.0,
                    high_freq_factor=1.0,
                    original_max_position_embeddings=8192,
                ),
                128,
            ),
            "high_freq_factor must be greater than low_freq_factor 4.0, got 1.0",
        ),
        (
            lambda: inv_freq(
                RopeParameters(
                    "longrope",
                    short_factor=(1.0,),
                    long_factor=(1.0,),
                    original_max_position_embeddings=4096,
                    factor=2.0,
                ),
                8,
            ),
            "short_factor must hold 4 positive numbers.*got shape \\(1,\\)",
        ),
        (lambda: inv_freq(RopeParameters(), 7), "must be even and >= 2, got 7"),
        (lambda: scaling.rotary_dim(96, 1.5), "partial_rotary_factor must be in \\(0, 1\\], got 1.5"),
        (lambda: scaling.rotary_dim(10, 0.3), "must be even and >= 2, got 3"),
        (lambda: inv_freq(RopeParameters(), 128, -5.0), "base must be finite and > 0, got -5.0"),
        (lambda: scaling.dynamic_base(1e4, 2, 2.0, 2048, 4096), "at least 4"),
        (lambda: scaling.method_parameters("ntk", PRESETS["linear-4k-8k"]), "method must be one of"),
    ],
)
def test_bad_parameters_say_what_was_expected_and_what_arrived(call, message):
    with pytest.raises(ValueError, match=message):
        call()


def test_self_scores_start_at_the_mean_squared_norm_and_decay_faster_with_a_smaller_base():
    m = np.arange(0, 2048, 16)
    small, large = scaling.self_scores(m, 128, 1e4), scaling.self_scores(m, 128, 5e5)
    assert small[0] == pytest.approx(128, rel=0.1) and small[0] == large[0]
    assert np.abs(small[8:]).mean() < np.abs(large[8:]).mean()
