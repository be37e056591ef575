import subprocess
import sys

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import posviz
from posviz.experiments import lessons
from posviz.experiments.lessons import reordering, sentence_distance_curve


def test_every_claim_passes_numbered_without_gaps():
    registry = posviz.claims()
    assert [c.number for c in registry] == list(range(1, len(registry) + 1))
    assert [c.number for c in registry if c.lesson] == list(range(1, 12))  # the lessons' eleven
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


def test_without_position_the_shuffle_and_the_twin_differences_are_zero():
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
    np.testing.assert_allclose(result.weights2_plain, result.weights1_plain[np.ix_(p, p)], atol=1e-12)
    assert not np.allclose(result.weights2_positioned, result.weights1_positioned[np.ix_(p, p)])


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
    np.testing.assert_allclose(result.output_at(0.5, 1), result.out1_positioned)
    np.testing.assert_allclose(result.output_at(0.0, 2), result.out2_plain)


def test_verify_command_prints_every_claim_and_exits_zero():
    run = subprocess.run([sys.executable, "-m", "posviz", "verify"], capture_output=True, text=True, check=False)
    assert run.returncode == 0, run.stderr
    total = len(posviz.claims())
    assert f"{total} of {total} claims pass" in run.stdout
    assert "FAIL" not in run.stdout


def test_shuffle_is_a_seeded_permutation():
    p = lessons.shuffled(50, 7)
    assert sorted(p.tolist()) == list(range(50))
    np.testing.assert_array_equal(p, lessons.shuffled(50, 7))
    assert not np.array_equal(p, lessons.shuffled(50, 8))


def test_magnitude_steps_hold_the_lesson_scales_in_order():
    steps = lessons.magnitude_steps()
    assert steps == sorted(steps) and len(set(steps)) == len(steps)
    assert {0.0, 0.001, 0.5, 1.0} <= set(steps)


def test_the_lesson_permutation_stands_at_length_6_and_a_seeded_shuffle_elsewhere():
    assert lessons.lesson_or_shuffled(6, 123) == lessons.LESSON_PERM
    assert lessons.lesson_or_shuffled(9, 4) == tuple(lessons.shuffled(9, 4).tolist())


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 10_000), length=st.integers(2, 9), data=st.data())
def test_moving_token_and_position_together_only_reorders_the_outputs(seed, length, data):
    perm = data.draw(st.permutations(range(length)))
    r = lessons.pair_move_experiment(seed=seed, T=length, d=8, perm=tuple(perm), position="sinusoidal")
    assert r.together < 1e-12
    if list(perm) != sorted(perm):
        assert r.tokens_only > 1e-9 and r.positions_only > 1e-9


def test_pair_move_needs_an_additive_position_signal():
    with pytest.raises(ValueError, match="additive.*got 'rotary'"):
        lessons.pair_move_experiment(position="rotary")


def test_whole_sentences_aligned_by_word_agree_without_position_and_differ_with_it():
    r = lessons.sentence_experiment()
    out1, out2 = r.aligned_outputs(0.0)
    np.testing.assert_allclose(out1, out2, atol=1e-12)
    assert r.sentence_distance(0.5) == pytest.approx(max(r.word_distance(w, 0.5) for w in r.common_words()))
    assert lessons.sentence_experiment("a b c", "a b d").aligned_outputs(0.5) is None


# ----- the order page's parts (posviz.experiments.shuffles) -----


def test_the_shuffle_test_runs_the_same_tokens_without_and_with_the_signal():
    from posviz.experiments import shuffles

    test = shuffles.shuffle_test(
        seed=42, T=6, d=8, weight_scale=0.5, perm=lessons.LESSON_PERM, position="ramp", scale=0.6
    )
    np.testing.assert_allclose(test.bare.x, test.signal.x)
    assert test.bare.max_diff <= 1e-15 and test.signal.max_diff == pytest.approx(3.499757764020842, abs=1e-9)
    assert test.bare_verdict == (True, "order-blind: 0 up to rounding", "")
    assert test.signal_verdict == (True, "order-aware: the position signal tells places apart", "")
    assert test.setting == "P (a permutation: row i of the shuffled input is row P[i]) = 3 0 5 1 4 2"


def test_only_the_tests_own_bug_makes_the_shuffle_verdict_a_problem():
    from posviz.experiments import shuffles

    forgot = shuffles.shuffle_test(
        seed=42,
        T=6,
        d=8,
        weight_scale=0.5,
        perm=lessons.LESSON_PERM,
        position="ramp",
        scale=0.6,
        causal=True,
        forget_reorder=True,
    )
    assert forgot.bare_verdict[0] is False and "bug in the test" in forgot.bare_verdict[2]
    assert forgot.setting.endswith("·  causal  ·  reference NOT reordered")
    long = shuffles.shuffle_test(seed=0, T=40, d=8, weight_scale=0.5, perm=tuple(range(40)), position="none", scale=0)
    assert long.setting.endswith(" 31 …") and long.bare_verdict == (True, "order-blind: 0 up to rounding", "")


def test_exercise_2_puts_its_constant_offset_in_the_chosen_signals_place():
    from posviz.experiments import shuffles

    assert shuffles.chosen_signal("sinusoidal", 1.5) == ("sinusoidal", 1.5)
    assert shuffles.chosen_signal("sinusoidal", 1.5, offset=True) == shuffles.EXERCISE_OFFSET == ("constant", 0.6)


def test_twin_copies_past_the_last_token_move_to_it():
    from posviz.experiments import shuffles
    from posviz.maths import verdicts

    twins = shuffles.twin_test(seed=42, T=5, d=8, weight_scale=0.5, first=2, second=250, position="ramp", scale=0.6)
    assert (twins.first, twins.second) == (2, 4)
    # rounding, not always an exact 0: the copies sit in different rows of the products, which BLAS may sum in
    # different orders (1.3e-15 with numpy 2.4.6 here, with one BLAS thread as with two)
    assert verdicts.machine_zero(twins.plain.row_diff) and twins.marked.row_diff > 0.1
    np.testing.assert_allclose(twins.rows, lessons.twin_rows(twins.plain, twins.marked))


@pytest.mark.parametrize(
    ("position", "scale", "ran"),
    [
        ("rotary", 0.6, ("sinusoidal", 0.6)),
        ("none", 0.0, ("sinusoidal", 1.0)),
        ("ramp", 0.0, ("ramp", 1.0)),
        ("learned", 2.0, ("learned", 2.0)),
    ],
)
def test_the_pair_move_runs_an_additive_signal_in_place_of_one_that_adds_nothing(position, scale, ran):
    from posviz.experiments import shuffles

    pairs = shuffles.pair_moves(
        seed=42, T=6, d=8, weight_scale=0.5, perm=lessons.LESSON_PERM, position=position, scale=scale
    )
    assert (pairs.position, pairs.scale) == ran
    direct = lessons.pair_move_experiment(position=ran[0], scale=ran[1])
    assert pairs.moves == direct and pairs.moves.together <= 1e-15


# ----- spot the bug (posviz.experiments.mistakes) -----


def test_the_correct_table_passes_every_check_and_each_table_mistake_fails_one():
    from posviz.experiments import mistakes

    for mistake in mistakes.MISTAKES.values():
        assert mistake.answer[0].isupper() and mistake.hint in mistake.answer
        assert (mistake.table_bug is None) != (mistake.start_bug is None)
        if mistake.table_bug is None:
            continue
        spot = mistakes.spot_table(32, 16, mistake.table_bug)
        assert all(c.correct_passes for c in spot.checks)
        assert all(c.buggy_passes for c in spot.checks) == (mistake.name == "none")
        assert spot.narrower == (mistake.name == "odd width")
        np.testing.assert_allclose(spot.difference, spot.correct[:, : spot.broken.shape[1]] - spot.broken)


def test_an_odd_width_has_no_pairs_for_the_offset_check():
    from posviz.experiments import mistakes

    offset = mistakes.spot_table(16, 8, "odd width").checks[2]
    assert offset.measured == "no pairs" and offset.correct_passes and not offset.buggy_passes


@pytest.mark.parametrize("bug", ["reset", "off_by_one"])
def test_a_start_mistake_drifts_after_the_prompt_and_the_true_start_does_not(bug):
    from posviz.experiments import mistakes
    from posviz.maths import verdicts

    spot = mistakes.spot_start(bug)
    assert verdicts.negligible(spot.correct.max_error) and not verdicts.negligible(spot.broken.max_error)
    assert spot.broken.max_error == float(spot.broken.errors.max())
    assert np.abs(spot.broken.errors[: spot.broken.prefill]).max() < 1e-12  # the prompt itself is right
