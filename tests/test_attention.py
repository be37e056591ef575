import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

import posviz
from tests.references import attention_loops


def _head(seed, length, width, d_k=None, d_v=None, batch=None):
    rng = np.random.default_rng(seed)
    shape = (length, width) if batch is None else (batch, length, width)
    x = rng.standard_normal(shape)
    w_q, w_k = rng.standard_normal((2, width, d_k or width))
    w_v = rng.standard_normal((width, d_v or width))
    return x, w_q, w_k, w_v


@settings(max_examples=40, deadline=None)
@given(
    seed=st.integers(0, 999),
    length=st.integers(1, 9),
    width=st.integers(1, 9),
    d_k=st.integers(1, 7),
    d_v=st.integers(1, 7),
    causal=st.booleans(),
)
def test_attention_matches_scalar_loops(seed, length, width, d_k, d_v, causal):
    x, w_q, w_k, w_v = _head(seed, length, width, d_k, d_v)
    weights, out = attention_loops(x, w_q, w_k, w_v, causal=causal)
    np.testing.assert_allclose(posviz.attention_weights(x, w_q, w_k, causal=causal), weights, atol=1e-12)
    np.testing.assert_allclose(posviz.self_attention(x, w_q, w_k, w_v, causal=causal), out, atol=1e-10)


@settings(max_examples=30, deadline=None)
@given(
    seed=st.integers(0, 999),
    batch=st.integers(1, 3),
    length=st.integers(1, 12),
    causal=st.booleans(),
    rotary=st.booleans(),
)
def test_attention_rows_sum_to_one(seed, batch, length, causal, rotary):
    x, w_q, w_k, _ = _head(seed, length, 6, batch=batch)
    weights = posviz.attention_weights(x * 5, w_q, w_k, causal=causal, rotary=rotary)
    assert weights.shape == (batch, length, length)
    np.testing.assert_allclose(weights.sum(-1), 1.0, rtol=1e-12)
    assert (weights >= 0).all()


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 999), length=st.integers(1, 16), width=st.integers(1, 12), data=st.data())
def test_without_position_attention_is_permutation_equivariant(seed, length, width, data):
    perm = np.array(data.draw(st.permutations(range(length))))
    x, w_q, w_k, w_v = _head(seed, length, width, batch=2)
    out = posviz.self_attention(x, w_q, w_k, w_v)
    np.testing.assert_allclose(posviz.self_attention(x[:, perm], w_q, w_k, w_v), out[:, perm], atol=1e-12)


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 999), kind=st.sampled_from(["ramp", "random", "sinusoidal", "learned", "rotary"]))
def test_any_per_position_signal_breaks_equivariance(seed, kind):
    result = posviz.order_experiment(
        seed=seed, T=6, d=8, weight_scale=1.0, perm=(1, 2, 3, 4, 5, 0), position=kind, scale=1.0
    )
    assert result.max_diff > 1e-6


def test_batched_equals_one_sequence_at_a_time():
    x, w_q, w_k, w_v = _head(1, 5, 4, batch=3)
    out = posviz.self_attention(x, w_q, w_k, w_v, rotary=True, start=2)
    for b in range(3):
        np.testing.assert_allclose(out[b], posviz.self_attention(x[b], w_q, w_k, w_v, rotary=True, start=2))


def test_rotary_rotates_queries_and_keys():
    x, w_q, w_k, _ = _head(2, 7, 6)
    q, k = posviz.rope(x @ w_q, 3), posviz.rope(x @ w_k, 3)
    expected = posviz.softmax(q @ k.T / np.sqrt(6))
    np.testing.assert_allclose(posviz.attention_weights(x, w_q, w_k, rotary=True, start=3), expected)


def test_causal_mask_zeroes_the_upper_triangle():
    x, w_q, w_k, _ = _head(3, 8, 5, batch=2)
    weights = posviz.attention_weights(x, w_q, w_k, causal=True)
    assert (weights[:, np.triu_indices(8, 1)[0], np.triu_indices(8, 1)[1]] == 0).all()
    assert weights[0, 0, 0] == 1.0


def test_softmax_is_stable_for_large_scores():
    out = posviz.softmax(np.array([1000.0, 1000.0, -1000.0]))
    np.testing.assert_allclose(out, [0.5, 0.5, 0.0])


def test_softmax_rows_keeps_the_dtype_and_agrees_with_the_checked_softmax():
    from posviz.maths.attention import softmax_rows

    scores = np.random.default_rng(0).normal(size=(3, 4, 5)).astype(np.float32) * 30
    scores[..., 3:] = -np.inf
    rows = softmax_rows(scores)
    assert rows.dtype == np.float32 and (rows[..., 3:] == 0).all()
    np.testing.assert_allclose(rows, posviz.softmax(scores), rtol=1e-5, atol=1e-7)
    finite = scores[..., :3].astype(np.float64)
    np.testing.assert_allclose(
        posviz.softmax(finite, axis=0), np.moveaxis(softmax_rows(np.moveaxis(finite, 0, -1)), -1, 0)
    )
