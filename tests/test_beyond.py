"""Rotate-half RoPE, ALiBi, layouts, timescales, the mistakes, and incremental generation."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import posviz
from posviz.maths import generation, properties, relative, variants
from tests.references import rope_matrices

widths = st.integers(1, 24).map(lambda n: 2 * n)


@settings(max_examples=30, deadline=None)
@given(width=widths, length=st.integers(1, 10), start=st.integers(0, 5000), seed=st.integers(0, 99))
def test_rotate_half_and_interleaved_rope_agree_after_the_permutation(width, length, start, seed):
    x = np.random.default_rng(seed).standard_normal((length, width))
    p = posviz.half_permutation(width)
    np.testing.assert_allclose(posviz.rope_rotate_half(x[:, p], start), posviz.rope(x, start)[:, p], atol=1e-12)


def test_rotate_half_matches_the_gpt_neox_formula():
    x = np.random.default_rng(1).standard_normal((5, 8))
    half = 4
    theta = (3 + np.arange(5))[:, None] * 10000.0 ** (-np.arange(0, 8, 2) / 8)
    cos, sin = np.concatenate([np.cos(theta)] * 2, axis=1), np.concatenate([np.sin(theta)] * 2, axis=1)
    rotated = np.concatenate([-x[:, half:], x[:, :half]], axis=1)
    np.testing.assert_allclose(posviz.rope_rotate_half(x, 3), x * cos + rotated * sin, atol=1e-12)
    # and the interleaved version is still RoFormer's rotation matrices
    np.testing.assert_allclose(posviz.rope(x, 3), rope_matrices(x, 3), atol=1e-12)


def test_alibi_slopes_for_8_heads_are_halvings():
    assert posviz.alibi_slopes(8).tolist() == [1 / 2**h for h in range(1, 9)]


@pytest.mark.parametrize("heads", [1, 2, 3, 5, 6, 12, 16, 24])
def test_alibi_slopes_follow_the_papers_rule(heads):
    def reference(n):
        def power(n):
            start = 2 ** (-(2 ** -(math.log2(n) - 3)))
            return [start * start**i for i in range(n)]

        if math.log2(n).is_integer():
            return power(n)
        closest = 2 ** math.floor(math.log2(n))
        return power(closest) + reference(2 * closest)[0::2][: n - closest]

    np.testing.assert_allclose(posviz.alibi_slopes(heads), reference(heads), rtol=1e-12)


def test_alibi_bias_is_linear_in_distance_and_masked_ahead():
    bias = posviz.alibi_bias(5, 0.25)
    assert bias[4, 0] == -1.0 and bias[2, 2] == 0.0 and np.isneginf(bias[0, 1])
    sym = posviz.alibi_bias(5, 0.25, causal=False)
    np.testing.assert_array_equal(sym, sym.T)


@settings(max_examples=20, deadline=None)
@given(width=widths, seed=st.integers(0, 99), shift=st.integers(1, 10_000))
def test_shifting_positions_leaves_rotary_scores_and_changes_added_sinusoid_scores(width, seed, shift):
    rng = np.random.default_rng(seed)
    q, k = rng.standard_normal(width), rng.standard_normal(width)
    assert relative.shift_change(q, k, 12, shift, scheme="rotary") < 1e-9
    assert relative.shift_change(q, k, 12, shift, scheme="sinusoidal") > 1e-6
    scores = relative.fixed_content_scores(q, k, 12, scheme="rotary")
    assert properties.diagonal_spread(scores) < 1e-9


def test_concat_layout_is_the_interleaved_table_permuted_exactly():
    for width in (2, 8, 512):
        pe, concat = posviz.sinusoidal(50, width, 7), posviz.sinusoidal_concat(50, width, 7)
        assert np.array_equal(pe[:, posviz.half_permutation(width)], concat)


def test_tensor2tensor_timescales_are_the_one_real_difference():
    assert posviz.t2t_frequencies(512)[-1] == pytest.approx(1e-4, rel=1e-12)
    assert posviz.frequencies(512)[-1] == pytest.approx(1.0366e-4, rel=1e-4)
    report = variants.compare_layouts(32, 512)
    assert report.table_gap == 0.0 and report.rope_gap == 0.0 and report.timescale_gap > 1e-3


@pytest.mark.parametrize(
    ("bug", "norms", "first_row", "offset_map"),
    [
        ("none", True, True, True),
        ("2i exponent", False, True, False),
        ("multiply", True, True, False),
        ("odd width", False, True, None),
        ("concat read as interleaved", True, False, False),
    ],
)
def test_each_mistake_breaks_a_check_that_the_correct_table_keeps(bug, norms, first_row, offset_map):
    checks = properties.check_table(variants.buggy_sinusoidal(64, 16, bug))
    assert (checks.norm_deviation < 1e-9) == norms
    assert (max(checks.first_row) < 1e-12) == first_row
    if offset_map is None:
        assert checks.offset_residual is None
    else:
        assert (checks.offset_residual < 1e-9) == offset_map


@settings(max_examples=20, deadline=None)
@given(
    seed=st.integers(0, 99),
    length=st.integers(2, 20),
    half=st.integers(1, 6),
    scheme=st.sampled_from(generation.SCHEMES),
    data=st.data(),
)
def test_incremental_generation_equals_full_recompute(seed, length, half, scheme, data):
    prefill = data.draw(st.integers(1, length))
    result = generation.demo_generation(seed=seed, T=length, d=2 * half, prefill=prefill, scheme=scheme)
    assert result.errors.max() < 1e-12
    assert result.positions.tolist() == list(range(length))


@pytest.mark.parametrize("scheme", generation.SCHEMES)
@pytest.mark.parametrize("bug", ["reset", "off_by_one"])
def test_start_bugs_break_generation_after_the_prompt_only(scheme, bug):
    result = generation.demo_generation(T=12, prefill=4, scheme=scheme, bug=bug)
    assert result.errors[:4].max() < 1e-12
    assert result.errors[4:].max() > 1e-3


def test_uniform_scores_under_a_causal_mask_give_running_means():
    from posviz.experiments import lessons

    demo = lessons.uniform_causal(3, 7, 5)
    assert demo.gap < 1e-12
    np.testing.assert_allclose(demo.weights[3, :4], 0.25)


def test_causal_mask_makes_identical_tokens_differ():
    assert posviz.twin_experiment(causal=True).row_diff > 1e-3
