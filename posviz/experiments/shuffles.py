"""The order page's three experiments, one call a part: the shuffle test, two copies of one token, and moving
tokens together with their positions, each run without a position signal and with the one chosen.

Lesson 000's exercise 2 (a constant offset) takes the chosen signal's place in every part; lesson 003's pair move
needs a signal that is added to the tokens, and says which one stands in when the chosen one adds nothing.
Shapes use T (tokens), d (the model width).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from posviz.experiments.lessons import (
    OrderResult,
    PairMoveResult,
    TwinResult,
    order_experiment,
    pair_move_experiment,
    twin_experiment,
    twin_rows,
)
from posviz.maths import verdicts

EXERCISE_OFFSET = ("constant", 0.6)  # lesson 000, exercise 2: the same vector added at every position
SHOWN_PERM = 32  # the entries of P a caption writes out
# What each position signal E adds, in plain words ({scale}: its scale)
SIGNAL_WORDS = {
    "none": "nothing is added (E = 0)",
    "constant": "the same {scale} in every feature of every row, so every position looks alike",
    "ramp": "every feature of row t is {scale} × (t + 1), a value that climbs with the position",
    "random": "each row a fixed draw of N(0, 1) numbers times {scale}",
    "sinusoidal": "each row the paper's sines and cosines of its position times {scale}",
    "learned": "each row a seeded stand-in for a trained table's row times {scale}",
    "rotary": "nothing is added; queries and keys are rotated by their position",
}


def signal_words(position: str, scale: float) -> str:
    """What the signal E adds, in a sentence: "E = ramp × 0.6: every feature of row t is 0.6 × (t + 1), ...".

    >>> signal_words("constant", 0.6)
    'E = constant × 0.6: the same 0.6 in every feature of every row, so every position looks alike.'
    """
    if position not in SIGNAL_WORDS:
        raise ValueError(f"position must be one of {', '.join(SIGNAL_WORDS)}, got {position!r}")
    return f"E = {position} × {scale:g}: " + SIGNAL_WORDS[position].format(scale=f"{scale:g}") + "."


def chosen_signal(position: str, scale: float, *, offset: bool = False) -> tuple[str, float]:
    """The position signal a part runs: (position, scale), or exercise 2's constant 0.6 in its place when `offset`.

    >>> chosen_signal("ramp", 0.3), chosen_signal("ramp", 0.3, offset=True)
    (('ramp', 0.3), ('constant', 0.6))
    """
    return EXERCISE_OFFSET if offset else (position, scale)


@dataclass(frozen=True)
class ShuffleTest:
    """Lesson 000's shuffle test without a position signal (E = 0), then with one."""

    bare: OrderResult
    signal: OrderResult
    causal: bool
    forget_reorder: bool

    @property
    def outputs(self) -> tuple[np.ndarray, ...]:
        """The four matrices the page draws on one colour scale: (T, d) each."""
        return self.signal.out, self.signal.out_perm, self.bare.out, self.bare.out_perm

    @property
    def bare_verdict(self) -> tuple[bool, str, str]:
        """(ok, yes, no) of the run without position: see `verdict`."""
        return self.verdict(self.bare, "the causal mask gives order")

    @property
    def signal_verdict(self) -> tuple[bool, str, str]:
        """(ok, yes, no) of the run with the signal: see `verdict`."""
        return self.verdict(
            self.signal, "mask and signal give order" if self.causal else "the position signal tells places apart"
        )

    def verdict(self, run: OrderResult, why: str) -> tuple[bool, str, str]:
        """(ok, yes, no) in words: order-blind, or order-aware and `why`; not ok only for a difference that the test's
        own bug makes (the reference not reordered, exercise 1)."""
        if self.forget_reorder and not run.order_blind:
            return False, "", "differs only because the reference was not reordered: a bug in the test"
        return True, "order-blind: 0 up to rounding" if run.order_blind else f"order-aware: {why}", ""

    @property
    def setting(self) -> str:
        """The permutation (its first SHOWN_PERM entries) and the switches that change the test, in a line."""
        perm = self.signal.perm
        shown = " ".join(map(str, perm[:SHOWN_PERM])) + (" …" if len(perm) > SHOWN_PERM else "")
        switches = ("  ·  causal" if self.causal else "") + (
            "  ·  reference NOT reordered" if self.forget_reorder else ""
        )
        return f"P (a permutation: row i of the shuffled input is row P[i]) = {shown}{switches}"

    def takeaway(self, signal: str) -> str:
        """What the four panels show at these settings, in a line (`signal`: the signal's name, "ramp × 0.6")."""
        if self.forget_reorder:
            return "The reference was never reordered, so both differences come from the test's bug, not position."
        if not self.bare.order_blind:
            return (
                "With the causal mask even E = 0 leaves a difference: the mask alone tells the first token from the "
                "last."
            )
        if self.signal.order_blind:
            return (
                f"Both differences are blank: {signal} does not tell positions apart, so attention stays order-blind."
            )
        return (
            f"The first difference is blank and the last is not: with {signal} the two middle panels differ, because "
            "E stays in place while the tokens move."
        )


def shuffle_test(
    *,
    seed: int,
    T: int,
    d: int,
    weight_scale: float,
    perm: tuple[int, ...],
    position: str,
    scale: float,
    causal: bool = False,
    forget_reorder: bool = False,
) -> ShuffleTest:
    """`order_experiment` without position and with `position` x `scale`, on the same tokens and weights.

    >>> test = shuffle_test(seed=42, T=6, d=8, weight_scale=0.5, perm=(3, 0, 5, 1, 4, 2), position="ramp", scale=0.6)
    >>> test.bare.order_blind, test.signal.order_blind, test.signal.out.shape
    (True, False, (6, 8))
    """
    common = dict(
        seed=seed, T=T, d=d, weight_scale=weight_scale, perm=perm, causal=causal, forget_reorder=forget_reorder
    )
    bare = order_experiment(**common)
    return ShuffleTest(bare, order_experiment(**common, position=position, scale=scale), causal, forget_reorder)


@dataclass(frozen=True)
class TwinTest:
    """Lesson 000's identical tokens without a position signal, then with one."""

    plain: TwinResult
    marked: TwinResult

    @property
    def first(self) -> int:
        return self.plain.first

    @property
    def second(self) -> int:
        return self.plain.second

    @property
    def rows(self) -> np.ndarray:
        """The copies' output rows: first, second without position, then with. Returns: (4, d)"""
        return twin_rows(self.plain, self.marked)

    def takeaway(self, signal: str) -> str:
        """What the four rows show, in a line (`signal`: the signal's name, "ramp × 0.6")."""
        plain = "equal" if verdicts.exactly_zero(self.plain.row_diff) else "different (the mask tells them apart)"
        marked = "are equal too" if verdicts.negligible(self.marked.row_diff) else "differ"
        return f"Without position the two copies' rows are {plain}; with {signal} they {marked}."


def twin_test(
    *,
    seed: int,
    T: int,
    d: int,
    weight_scale: float,
    first: int,
    second: int,
    position: str,
    scale: float,
    causal: bool = False,
) -> TwinTest:
    """`twin_experiment` without position and with `position` x `scale`; a copy placed past the last token is put
    at the last (T - 1), and `first`, `second` of the result say where the copies are.

    >>> test = twin_test(seed=42, T=6, d=8, weight_scale=0.5, first=0, second=9, position="ramp", scale=0.6)
    >>> test.second, test.plain.row_diff, test.marked.row_diff > 0.1
    (5, 0.0, True)
    """
    common = dict(
        seed=seed,
        T=T,
        d=d,
        weight_scale=weight_scale,
        first=min(first, T - 1),
        second=min(second, T - 1),
        causal=causal,
    )
    return TwinTest(twin_experiment(**common), twin_experiment(**common, position=position, scale=scale))


@dataclass(frozen=True)
class PairMoves:
    """Lesson 003's three reorderings, with the additive signal they ran with."""

    moves: PairMoveResult
    position: str
    scale: float


def pair_moves(
    *, seed: int, T: int, d: int, weight_scale: float, perm: tuple[int, ...], position: str, scale: float
) -> PairMoves:
    """`pair_move_experiment` with the chosen signal, or one that stands in where it adds nothing to the tokens:
    sinusoids for none and rotary, scale 1 for scale 0.

    >>> r = pair_moves(seed=42, T=6, d=8, weight_scale=0.5, perm=(3, 0, 5, 1, 4, 2), position="rotary", scale=0.0)
    >>> r.position, r.scale, r.moves.together < 1e-15
    ('sinusoidal', 1.0, True)
    """
    position = position if position not in ("none", "rotary") else "sinusoidal"
    scale = scale or 1.0
    moves = pair_move_experiment(
        seed=seed, T=T, d=d, weight_scale=weight_scale, perm=perm, position=position, scale=scale
    )
    return PairMoves(moves, position, scale)
