import subprocess
import sys

import numpy as np
import pytest

import posviz
from posviz import lessons
from posviz.lessons import reordering, sentence_distance_curve


def test_every_claim_of_the_lessons_and_the_real_model_passes():
    registry = posviz.claims()
    assert [c.number for c in registry] == list(range(1, len(registry) + 1))
    assert [c.number for c in registry if c.lesson == "real model"] == [12]
    failing = [(c.number, [(k.label, k.reproduced) for k in c.checks]) for c in registry if not c.passed]
    assert failing == []


@pytest.mark.parametrize(
    ("number", "label", "expected"),
    [
        (3, "max diff", 3.499757764020842),
        (4, "max diff", 2.375007464381647),
        (6, "max row diff", 2.317846753813984),
        (8, '"man" max diff', 12.53665770012299),
        (9, '"man" max diff', 0.08431805329627551),
        (11, "max diff", 1.650825107237093),
    ],
)
def test_reproduced_numbers_match_the_lessons(number, label, expected):
    check = next(k for c in posviz.claims() if c.number == number for k in c.checks if k.label == label)
    assert check.reproduced == pytest.approx(expected, abs=1e-9)


def test_machine_zero_and_exact_zero_claims():
    assert posviz.order_experiment().max_diff <= 1e-15
    assert posviz.order_experiment(position="constant").max_diff <= 1e-15
    assert posviz.twin_experiment().row_diff == 0.0


def test_a_check_can_fail():
    check = posviz.Check("x", 1.0, 1.1)
    assert not check.passed
    assert not posviz.Check("x", 0.0, 2e-15, "at_most", 1e-15).passed
    assert not posviz.Check("x", True, False, "equal").passed


def test_lesson_000_draw_order_is_x_then_weights():
    rng = np.random.RandomState(42)
    x = rng.randn(1, 6, 8)[0]
    result = posviz.order_experiment()
    np.testing.assert_array_equal(result.x, x)


def test_forgetting_to_reorder_compares_against_the_unshuffled_output():
    result = posviz.order_experiment(forget_reorder=True)
    np.testing.assert_array_equal(result.reference, result.out)


def test_sentences_without_position_are_row_permutations_of_each_other():
    result = posviz.sentence_experiment()
    p = reordering(result.words1, result.words2)
    np.testing.assert_allclose(result.weights2, result.weights1[np.ix_(p, p)], atol=1e-12)
    assert not np.allclose(result.weights2p, result.weights1p[np.ix_(p, p)])


def test_reordering_handles_repeated_words_and_non_permutations():
    assert reordering(("a", "b", "a"), ("a", "a", "b")).tolist() == [0, 2, 1]
    assert reordering(("a", "b"), ("a", "c")) is None


def test_distance_shrinks_about_linearly_with_the_scale():
    result = posviz.sentence_experiment()
    d = sentence_distance_curve(result, "man", np.array([0.0, 0.001, 0.5]))
    assert d[0] <= 1e-15
    assert d[1] == pytest.approx(0.0843180532962755, abs=1e-9)
    assert d[2] == pytest.approx(12.53665770012299, abs=1e-9)


def test_output_at_reproduces_the_experiment():
    result = posviz.sentence_experiment(scale=0.5)
    np.testing.assert_allclose(result.output_at(0.5, 1), result.out1p)
    np.testing.assert_allclose(result.output_at(0.0, 2), result.out2)


@pytest.mark.parametrize(
    ("call", "error", "message"),
    [
        (lambda: posviz.order_experiment(perm=(0, 0, 1, 2, 3, 4)), ValueError, "exactly once"),
        (lambda: posviz.order_experiment(perm=(0, 1, 2)), ValueError, r"shape \(6,\)"),
        (lambda: posviz.order_experiment(perm=(0.0, 1, 2, 3, 4, 5)), TypeError, "integers"),
        (lambda: posviz.order_experiment(position="spiral"), ValueError, "one of none"),
        (lambda: posviz.order_experiment(width=7, position="rotary"), ValueError, "even"),
        (lambda: posviz.order_experiment(width=7, position="sinusoidal"), ValueError, "even"),
        (lambda: posviz.order_experiment(length=0, perm=()), ValueError, "length must be >= 1"),
        (
            lambda: posviz.order_experiment(length=600, perm=tuple(range(600)), position="learned"),
            ValueError,
            "512 rows",
        ),
        (lambda: posviz.twin_experiment(second=6), ValueError, "below the length 6"),
        (lambda: posviz.sentence_experiment("", "dog"), ValueError, "at least one word"),
        (lambda: posviz.sentence_experiment(None, "dog"), TypeError, "str"),
        (lambda: posviz.sentence_experiment().word_rows("cat"), ValueError, "both sentences"),
    ],
)
def test_bad_input_says_what_was_expected_and_what_arrived(call, error, message):
    with pytest.raises(error, match=message):
        call()


def test_verify_command_prints_every_claim_and_exits_zero():
    run = subprocess.run([sys.executable, "-m", "posviz", "verify"], capture_output=True, text=True, check=False)
    assert run.returncode == 0, run.stderr
    n = len(posviz.claims())
    assert f"{n} of {n} claims pass" in run.stdout
    assert "FAIL" not in run.stdout


def test_typed_permutations_are_read_and_checked():
    assert lessons.parse_permutation("3 0 5 1 4 2", 6).tolist() == [3, 0, 5, 1, 4, 2]
    assert lessons.parse_permutation("1,0", 2).tolist() == [1, 0]
    for bad in ("3 0 5 1 4", "0 0 1 2 3 4", "a b", "-1 0 1 2 3 4", "0 1 2 3 4 6", "1.5 0"):
        with pytest.raises(ValueError):
            lessons.parse_permutation(bad, 6)


def test_shuffle_is_a_seeded_permutation():
    p = lessons.shuffled(50, 7)
    assert sorted(p.tolist()) == list(range(50))
    np.testing.assert_array_equal(p, lessons.shuffled(50, 7))
    assert not np.array_equal(p, lessons.shuffled(50, 8))


def test_indices_are_read_and_bounded():
    assert lessons.parse_indices("0 1 1 8", 64) == [0, 1, 8]
    for bad in ("", "64", "1 2 3 4 5 6 7", "x", "-1"):
        with pytest.raises(ValueError):
            lessons.parse_indices(bad, 64)


def test_machine_zero_scales_with_magnitude():
    assert lessons.machine_zero(4.4e-16)
    assert not lessons.machine_zero(1e-12)
    assert lessons.machine_zero(1e-12, magnitude=1e5)


def test_magnitude_steps_hold_the_lesson_scales_in_order():
    steps = lessons.magnitude_steps()
    assert steps == sorted(steps) and len(set(steps)) == len(steps)
    assert {0.0, 0.001, 0.5, 1.0} <= set(steps)
