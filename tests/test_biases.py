"""Relative biases (T5, Shaw, ALiBi, KERPLE) and StreamingLLM's attention-sink cache."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from posviz.maths import biases, sinks
from tests.references import t5_bucket_loop


@pytest.mark.parametrize("bidirectional", [True, False])
@pytest.mark.parametrize(("num_buckets", "max_distance"), [(32, 128), (64, 256), (8, 20), (320, 800)])
def test_t5_buckets_match_the_reference_function_written_as_a_loop(bidirectional, num_buckets, max_distance):
    rel = np.arange(-1000, 1001)
    got = biases.t5_bucket(rel, bidirectional=bidirectional, num_buckets=num_buckets, max_distance=max_distance)
    want = [t5_bucket_loop(int(r), bidirectional, num_buckets, max_distance) for r in rel]
    np.testing.assert_array_equal(got, want)


def test_t5_buckets_are_exact_for_small_distances_log_spaced_after_and_saturate_past_max_distance():
    far = np.arange(0, 400)
    causal = biases.t5_bucket(-far, bidirectional=False)  # keys before the query
    np.testing.assert_array_equal(causal[:16], np.arange(16))
    assert (causal[128:] == 31).all()  # everything past max_distance shares the last bucket ...
    assert np.argmax(causal == 31) == math.ceil(16 * 8 ** (15 / 16))  # ... which opens where the log reaches it
    assert (np.diff(causal) >= 0).all() and len(set(causal[16:128].tolist())) == 16  # the 16 log buckets
    assert (biases.t5_bucket(far[1:], bidirectional=False) == 0).all()  # future keys: bucket 0
    both = biases.t5_bucket(np.arange(-400, 401))
    assert set(both[:400].tolist()) <= set(range(16)) and set(both[401:].tolist()) <= set(range(16, 32))
    assert both[0] == 15 and both[-1] == 31


def test_shaw_clips_offsets_beyond_k_to_the_edge_rows():
    np.testing.assert_array_equal(biases.shaw_index(np.arange(-6, 7), 3), [0, 0, 0, 0, 1, 2, 3, 4, 5, 6, 6, 6, 6])


def test_kerple_log_is_minus_r1_log_1_plus_r2_distance():
    assert biases.kerple_log(np.array([3]), 2.0, 0.5)[0] == pytest.approx(-2.0 * np.log(2.5))


@settings(max_examples=40, deadline=None)
@given(
    kind=st.sampled_from(biases.KINDS),
    length=st.integers(1, 40),
    clip=st.integers(1, 10),
    heads=st.integers(1, 16),
    r=st.tuples(st.floats(0.01, 10), st.floats(0.01, 10)),
    seed=st.integers(0, 50),
)
def test_every_relative_bias_depends_only_on_j_minus_i(kind, length, clip, heads, r, seed):
    m = biases.bias(kind, biases.offsets(length), clip=clip, heads=heads, head=heads, r1=r[0], r2=r[1], seed=seed)
    assert biases.offset_residual(m) == 0.0
    shifted = biases.bias(
        kind, biases.offsets(length + 3)[3:, 3:], clip=clip, heads=heads, head=heads, r1=r[0], r2=r[1], seed=seed
    )
    np.testing.assert_array_equal(shifted, m)  # the same offsets further along give the same bias
    assert biases.offset_residual(biases.causal_alibi(length, heads, heads)) == 0.0


def test_offset_residual_sees_a_matrix_that_is_not_relative():
    m = biases.bias("kerple", biases.offsets(5))
    m[2, 3] += 0.25
    assert biases.offset_residual(m) == 0.25
    assert biases.offset_residual(np.add.outer(np.arange(4.0), np.zeros(4))) == 1.0  # depends on i


@pytest.mark.parametrize(
    ("call", "error", "message"),
    [
        (lambda: biases.bias("rotary", biases.offsets(3)), ValueError, "kind must be one of"),
        (lambda: biases.t5_bucket(np.array([1.5])), TypeError, "must hold integers, got dtype float64"),
        (lambda: biases.t5_bucket(np.array([1]), num_buckets=7), ValueError, "even and >= 4, got 7"),
        (lambda: biases.t5_bucket(np.array([1]), max_distance=4), ValueError, "exceed the 8 exact buckets, got 4"),
        (lambda: biases.kerple_log(np.array([1]), -1.0), ValueError, "r1 must be finite and > 0, got -1.0"),
        (lambda: biases.bias("alibi", biases.offsets(3), heads=4, head=5), ValueError, "head must be in 1..4, got 5"),
        (lambda: biases.offset_residual(np.zeros((2, 3))), ValueError, "square matrix, got shape \\(2, 3\\)"),
        (lambda: sinks.kept_tokens(3, 1, 0), ValueError, "window must be >= 1, got 0"),
        (lambda: sinks.demo_streaming(positions="absolute"), ValueError, "positions must be one of"),
    ],
)
def test_bad_input_says_what_was_expected_and_what_arrived(call, error, message):
    with pytest.raises(error, match=message):
        call()


def test_a_sinks_cache_re_indexes_positions_inside_the_cache():
    assert sinks.kept_tokens(9, 4, 4).tolist() == [0, 1, 2, 3, 6, 7, 8, 9]  # positions 0..7
    assert sinks.kept_tokens(2, 4, 4).tolist() == [0, 1, 2]
    result = sinks.demo_streaming(T=20, sinks=4, window=4)
    assert result.query_positions.tolist() == list(range(8)) + [7] * 12
    assert result.cache_sizes.max() == 8


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 99), sink_count=st.integers(0, 4), window=st.integers(1, 5))
def test_keys_cached_before_rotation_equal_a_recompute_over_the_kept_tokens(seed, sink_count, window):
    result = sinks.demo_streaming(seed=seed, T=14, sinks=sink_count, window=window)
    assert result.errors.max() < 1e-12


def test_keeping_original_positions_is_exact_until_the_first_eviction_then_drifts():
    full = 4 + 4  # sinks + window: step 8 is the first to evict a token
    for mode in ("original", "rotated_at_insert"):
        errors = sinks.demo_streaming(T=24, sinks=4, window=4, positions=mode).errors
        assert errors[:full].max() < 1e-12, mode
        assert errors[full:].min() > 1e-4, mode
    # with no sinks and the window moving with the query, original offsets are the cache's offsets
    assert sinks.demo_streaming(sinks=0, window=4, positions="original").errors.max() < 1e-12


@pytest.mark.parametrize("bidirectional", [True, False])
@pytest.mark.parametrize(("num_buckets", "max_distance"), [(32, 128), (64, 256), (8, 20), (320, 800)])
def test_t5_last_bucket_start_is_the_first_distance_in_the_last_bucket(bidirectional, num_buckets, max_distance):
    start = biases.t5_last_bucket_start(bidirectional=bidirectional, num_buckets=num_buckets, max_distance=max_distance)
    last = t5_bucket_loop(-max_distance, bidirectional, num_buckets, max_distance)
    assert t5_bucket_loop(-start, bidirectional, num_buckets, max_distance) == last
    assert t5_bucket_loop(-(start - 1), bidirectional, num_buckets, max_distance) < last
    if bidirectional:  # keys after the query start their last bucket at the same distance
        assert t5_bucket_loop(start, True, num_buckets, max_distance) == t5_bucket_loop(
            max_distance, True, num_buckets, max_distance
        )
        assert t5_bucket_loop(start - 1, True, num_buckets, max_distance) < t5_bucket_loop(
            max_distance, True, num_buckets, max_distance
        )


def test_t5s_default_last_bucket_opens_near_91_not_at_128():
    # 8 exact buckets a side, 8 log-spaced up to 128: the last opens where 8 * 16 ** (7 / 8) rounds up
    assert biases.t5_last_bucket_start() == math.ceil(8 * 16 ** (7 / 8)) == 91
    assert biases.t5_last_bucket_start(bidirectional=False) == math.ceil(16 * 8 ** (15 / 16))


def test_the_first_eviction_is_where_the_cache_stops_holding_every_token():
    r = sinks.demo_streaming(T=20, sinks=3, window=5)
    assert r.first_eviction == 8 and (r.cache_sizes[:8] == np.arange(1, 9)).all() and r.cache_sizes[8] == 8
    assert sinks.demo_streaming(T=8, sinks=3, window=5).first_eviction is None
