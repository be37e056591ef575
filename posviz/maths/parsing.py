"""Reading what a visitor types: a sentence into words, a typed permutation, a list of indices.

Each reader returns clean values or raises a ValueError (TypeError for a wrong type) that says
what was expected and what arrived.
"""

from __future__ import annotations

import numpy as np

from posviz.maths import _checks


def sentence_words(text: str) -> tuple[str, ...]:
    """Lower-cased whitespace-separated words of `text`.

    >>> sentence_words("Dog bites  man")
    ('dog', 'bites', 'man')
    """
    if not isinstance(text, str):
        raise TypeError(f"a sentence must be a str, got {type(text).__name__}")
    words = tuple(text.lower().split())
    if not words:
        raise ValueError("a sentence needs at least one word, got an empty string")
    return words


def parse_permutation(text: str, T: int) -> np.ndarray:
    """Read a typed permutation such as "3 0 5 1 4 2" or "3,0,5,1,4,2" of 0..T-1.

    >>> parse_permutation("3, 0 5 1 4 2", 6).tolist()
    [3, 0, 5, 1, 4, 2]
    """
    if not isinstance(text, str):
        raise TypeError(f"a permutation must be typed as text, got {type(text).__name__}")
    parts = text.replace(",", " ").split()
    if not all(p.isdigit() and len(p) <= 6 for p in parts):
        raise ValueError(f"a permutation is whole numbers 0..{T - 1} separated by spaces or commas")
    return _checks.permutation(np.array([int(p) for p in parts], dtype=np.intp), T)


def parse_indices(text: str, limit: int, max_count: int = 6) -> list[int]:
    """Read up to `max_count` distinct indices below `limit`, typed as "0 1 8" or "0,1,8".

    >>> parse_indices("0, 1 8", 64)
    [0, 1, 8]
    """
    if not isinstance(text, str):
        raise TypeError(f"indices must be typed as text, got {type(text).__name__}")
    parts = text.replace(",", " ").split()
    if not parts or not all(p.isdigit() and len(p) <= 6 for p in parts):
        raise ValueError(f"expected whole numbers from 0 to {limit - 1} separated by spaces, got {text[:40]!r}")
    values = list(dict.fromkeys(int(p) for p in parts))
    if len(values) > max_count or max(values) >= limit:
        raise ValueError(f"expected at most {max_count} numbers, each from 0 to {limit - 1}, got {values[:8]}")
    return values
