import pytest

from posviz.maths import parsing


def test_sentences_are_lower_cased_words_split_on_white_space():
    assert parsing.sentence_words("  Dog\tbites  MAN ") == ("dog", "bites", "man")


def test_typed_permutations_are_read_and_checked():
    assert parsing.parse_permutation("3 0 5 1 4 2", 6).tolist() == [3, 0, 5, 1, 4, 2]
    assert parsing.parse_permutation("1,0", 2).tolist() == [1, 0]
    for bad in ("3 0 5 1 4", "0 0 1 2 3 4", "a b", "-1 0 1 2 3 4", "0 1 2 3 4 6", "1.5 0"):
        with pytest.raises(ValueError):
            parsing.parse_permutation(bad, 6)


def test_indices_are_read_and_bounded():
    assert parsing.parse_indices("0 1 1 8", 64) == [0, 1, 8]
    for bad in ("", "64", "1 2 3 4 5 6 7", "x", "-1"):
        with pytest.raises(ValueError):
            parsing.parse_indices(bad, 64)
