"""Spot the bug: mistakes found in real position-encoding code, how to recognise each, and the checks that catch it.

A table mistake writes the sinusoid table wrong (`posviz.maths.variants.BUGS`): the sinusoid page's three checks
run on the correct table and on the buggy one. A start mistake gives the tokens of cached generation the wrong
position (`posviz.maths.generation.BUGS`): the cached run is compared with a full recompute.
Shapes use T (positions), d (the width).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from posviz.maths import generation, variants
from posviz.maths.verdicts import machine_zero, negligible


class Mistake(NamedTuple):
    """A mistake: its name, what it is, how to recognise it, and the code it breaks (a table bug or a start bug)."""

    name: str
    what: str
    hint: str
    table_bug: str | None = None  # a key of variants.BUGS
    start_bug: str | None = None  # a key of generation.BUGS

    @property
    def answer(self) -> str:
        """What the mistake is, then how to recognise it: one paragraph."""
        return f"{self.what[:1].upper()}{self.what[1:]}. {self.hint}"


_GENERATION = "incremental generation with rotary embeddings"
MISTAKES = {
    m.name: m
    for m in (
        Mistake("none", variants.BUGS["none"], "The reference: every check passes.", table_bug="none"),
        Mistake(
            "2i exponent",
            variants.BUGS["2i exponent"],
            "Recognise it: sine and cosine of a pair run at different speeds, so rows stop having norm d/2.",
            table_bug="2i exponent",
        ),
        Mistake(
            "multiply",
            variants.BUGS["multiply"],
            "Recognise it: the right half of the heatmap is noise instead "
            "of slow, smooth columns; norms still pass, the wavelengths are wrong.",
            table_bug="multiply",
        ),
        Mistake(
            "odd width",
            variants.BUGS["odd width"],
            "Recognise it: one column has no partner; the squared norms wobble around (d-1)/2.",
            table_bug="odd width",
        ),
        Mistake(
            "concat read as interleaved",
            variants.BUGS["concat read as interleaved"],
            "Recognise it: position 0 is not (0, 1, 0, 1, …) and no single rotation moves a row to the next.",
            table_bug="concat read as interleaved",
        ),
        Mistake(
            "start reset to 0",
            _GENERATION,
            "Recognise it: generation with a cache stops matching a full recompute right after the prompt.",
            start_bug="reset",
        ),
        Mistake(
            "off-by-one start",
            _GENERATION,
            "Recognise it: the same drift, smaller; every new token sits one position too late.",
            start_bug="off_by_one",
        ),
    )
}


class Check(NamedTuple):
    """One check of the sinusoid page, run on the correct table and on the buggy one."""

    label: str  # what it measures on the buggy table
    measured: float | str  # the buggy table's number; "no pairs" where the check needs sin/cos pairs it lacks
    correct_passes: bool
    buggy_passes: bool


@dataclass(frozen=True)
class TableSpot:
    """A table mistake beside the correct table: both tables and the three checks on each."""

    correct: np.ndarray  # (T, d)
    broken: np.ndarray  # (T, d), or (T, d - 1) for an odd width
    checks: tuple[Check, ...]

    @property
    def difference(self) -> np.ndarray:
        """correct - broken over the columns both have: (T, d) or (T, d - 1)"""
        return variants.table_difference(self.correct, self.broken)

    @property
    def narrower(self) -> bool:
        """True if the buggy table lacks a column of the correct one (the difference covers the columns it has)."""
        return self.broken.shape[1] < self.correct.shape[1]


def spot_table(T: int, d: int, bug: str) -> TableSpot:
    """The correct table and the one with `bug` (a key of variants.BUGS), each through the norm, position-0 and
    one-step offset checks, which ask the verdicts module.

    >>> [c.buggy_passes for c in spot_table(16, 8, "2i exponent").checks]
    [False, True, False]
    """
    (correct, good), (broken, bad) = variants.table_with_checks(T, d, "none"), variants.table_with_checks(T, d, bug)
    pairs = bad.offset_residual is not None
    checks = (
        Check(
            "buggy table: max |‖pe_t‖² − d/2|",
            bad.norm_deviation,
            negligible(good.norm_deviation),
            negligible(bad.norm_deviation),
        ),
        Check(
            "buggy table: max |pe_0 − (0, 1, 0, 1, …)|",
            max(bad.first_row),
            machine_zero(max(good.first_row)),
            machine_zero(max(bad.first_row)),
        ),
        Check(
            "buggy table: max |pe[t+1] − M₁ pe[t]|",
            bad.offset_residual if pairs else "no pairs",
            negligible(good.offset_residual or 0.0),
            pairs and negligible(bad.offset_residual),
        ),
    )
    return TableSpot(correct, broken, checks)


@dataclass(frozen=True)
class StartSpot:
    """A start mistake beside the correct start: cached generation against a full recompute, both ways."""

    correct: generation.GenerationResult
    broken: generation.GenerationResult


def spot_start(bug: str, T: int = 24, prefill: int = 6) -> StartSpot:
    """`demo_generation` with the true start and with `bug` (a key of generation.BUGS), T tokens after `prefill`.

    >>> spot = spot_start("off_by_one"); negligible(spot.correct.max_error), negligible(spot.broken.max_error)
    (True, False)
    """
    return StartSpot(
        generation.demo_generation(T=T, prefill=prefill), generation.demo_generation(T=T, prefill=prefill, bug=bug)
    )
