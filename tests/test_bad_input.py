"""Bad input to the core: every public entry point raises an error that says what it expected and what arrived."""

import numpy as np
import pytest

import posviz
from posviz.maths import generation, grids, parsing, relative, variants


@pytest.mark.parametrize(
    ("call", "error", "message"),
    [
        # encodings
        (lambda: posviz.sinusoidal(4, 7), ValueError, r"d must be even \(sin/cos pairs\), got 7"),
        (lambda: posviz.sinusoidal(4, 0), ValueError, ">= 1, got 0"),
        (lambda: posviz.sinusoidal(4, -2), ValueError, ">= 1, got -2"),
        (lambda: posviz.sinusoidal(-1, 8), ValueError, "T must be >= 0, got -1"),
        (lambda: posviz.sinusoidal(4.5, 8), ValueError, "whole number, got 4.5"),
        (lambda: posviz.sinusoidal(4.0, 8), TypeError, "whole number"),
        (lambda: posviz.sinusoidal("4", 8), TypeError, "integer, got str"),
        (lambda: posviz.sinusoidal(True, 8), TypeError, "boolean"),
        (lambda: posviz.sinusoidal(4, 8, start=-3), ValueError, "start must be >= 0, got -3"),
        (lambda: posviz.sinusoidal(4, 8, base=0.0), ValueError, "base.*> 0, got 0.0"),
        (lambda: posviz.sinusoidal(4, 8, base=-5), ValueError, "base"),
        (lambda: posviz.sinusoidal(4, 8, base=float("nan")), ValueError, "finite"),
        (lambda: posviz.sinusoidal(4, 8, base=float("inf")), ValueError, "finite"),
        (lambda: posviz.sinusoidal(4, 8, base="big"), TypeError, "real number"),
        (lambda: posviz.learned(4, 8, max_length=0), ValueError, "max_length"),
        (lambda: posviz.rope(np.ones((3, 7))), ValueError, "even.*got 7"),
        (lambda: posviz.rope(np.ones(8)), ValueError, "at least 2 axes"),
        (lambda: posviz.rope(np.full((2, 4), np.nan)), ValueError, "finite"),
        (lambda: posviz.rope(np.ones((2, 4)), start=-1), ValueError, "start"),
        (lambda: posviz.rope([["a", "b"]]), TypeError, "real numbers"),
        (lambda: posviz.ramp(3, 4, scale=float("inf")), ValueError, "finite"),
        # attention
        (lambda: posviz.attention_weights(np.ones((4, 3)), np.ones((5, 2)), np.ones((3, 2))), ValueError, "3 rows"),
        (lambda: posviz.attention_weights(np.ones((4, 3)), np.ones((3, 2)), np.ones((3, 4))), ValueError, "d_k"),
        (lambda: posviz.attention_weights(np.ones(3), np.ones((3, 2)), np.ones((3, 2))), ValueError, "2 axes"),
        (lambda: posviz.self_attention(np.ones((4, 3)), np.eye(3), np.eye(3), np.ones((2, 2))), ValueError, "w_v"),
        (
            lambda: posviz.attention_weights(np.ones((4, 3)), np.ones((3, 3)), np.ones((3, 3)), rotary=True),
            ValueError,
            "even.*got 3",
        ),
        (lambda: posviz.attention_weights(np.full((4, 2), np.inf), np.eye(2), np.eye(2)), ValueError, "finite"),
        (
            lambda: posviz.attention_weights(np.ones((4, 2)), np.eye(2), np.eye(2), rotary=True, start=-1),
            ValueError,
            "start",
        ),
        (lambda: posviz.softmax(np.array([np.nan, 1.0])), ValueError, "NaN"),
        (lambda: posviz.softmax(np.array(3.0)), ValueError, "scalar"),
        (lambda: posviz.softmax(np.array([-np.inf, -np.inf])), ValueError, "-inf everywhere"),
        # lessons
        (lambda: posviz.order_experiment(perm=(0, 0, 1, 2, 3, 4)), ValueError, "exactly once"),
        (lambda: posviz.order_experiment(perm=(0, 1, 2)), ValueError, r"shape \(6,\)"),
        (lambda: posviz.order_experiment(perm=(0.0, 1, 2, 3, 4, 5)), TypeError, "integers"),
        (lambda: posviz.order_experiment(position="spiral"), ValueError, "one of none"),
        (lambda: posviz.order_experiment(d=7, position="rotary"), ValueError, "d must be even .rotary.*got 7"),
        (lambda: posviz.order_experiment(d=7, position="sinusoidal"), ValueError, "d must be even.*got 7"),
        (lambda: posviz.order_experiment(T=0, perm=()), ValueError, "T must be >= 1, got 0"),
        (
            lambda: posviz.order_experiment(T=600, perm=tuple(range(600)), position="learned"),
            ValueError,
            "512 rows",
        ),
        (lambda: posviz.twin_experiment(second=6), ValueError, "below T = 6, got 0 and 6"),
        (lambda: posviz.sentence_experiment("", "dog"), ValueError, "at least one word"),
        (lambda: posviz.sentence_experiment(None, "dog"), TypeError, "str"),
        (lambda: posviz.sentence_experiment().word_rows("cat"), ValueError, "both sentences"),
        # beyond
        (lambda: posviz.rope_rotate_half(np.ones((3, 5))), ValueError, "even.*got 5"),
        (lambda: posviz.alibi_slopes(0), ValueError, "heads must be >= 1"),
        (lambda: posviz.alibi_bias(4, float("nan")), ValueError, "finite"),
        (lambda: relative.fixed_content_scores(np.ones(4), np.ones(6), 3, scheme="rotary"), ValueError, "one width"),
        (lambda: relative.fixed_content_scores(np.ones(4), np.ones(4), 3, scheme="alibi"), ValueError, "scheme"),
        (lambda: posviz.sinusoidal_concat(4, 8, timescales="t5"), ValueError, "timescales"),
        (lambda: variants.buggy_sinusoidal(4, 8, "typo"), ValueError, "bug must be one of"),
        (lambda: generation.demo_generation(T=4, prefill=5), ValueError, "at most the number of tokens 4"),
        (
            lambda: posviz.incremental_generation(np.ones((1, 4, 4)), np.eye(4), np.eye(4), np.eye(4), prefill=1),
            ValueError,
            r"x must be \(T, d\), got shape \(1, 4, 4\)",
        ),
        (lambda: generation.demo_generation(scheme="alibi"), ValueError, "scheme must be one of"),
        (
            lambda: posviz.incremental_generation(np.ones(4), np.eye(4), np.eye(4), np.eye(4), prefill=1),
            ValueError,
            "2 axes",
        ),
        # parsing and the helpers pages call
        (lambda: parsing.parse_permutation("0 0 1", 3), ValueError, "exactly once"),
        (lambda: parsing.parse_permutation(3, 3), TypeError, "typed as text, got int"),
        (lambda: parsing.parse_indices("1 99", 64), ValueError, "from 0 to 63"),
        (lambda: parsing.sentence_words("   "), ValueError, "at least one word"),
        (lambda: relative.query_pair_trajectory(np.ones(6), 4, 3), ValueError, "below d/2 = 3"),
        (lambda: relative.fixed_content(0), ValueError, "d must be >= 1, got 0"),
        (lambda: grids.stride(10, 0), ValueError, "most must be >= 1, got 0"),
    ],
)
def test_bad_input_says_what_was_expected_and_what_arrived(call, error, message):
    with pytest.raises(error, match=message):
        call()
