"""The registry of verified claims: expected value, reproduced value, verdict.

Claims 1-11 come from the three lessons. The lessons print only some of their numbers (4.44e-16,
0.0, 3.4998 and the allclose verdicts: `Check.printed`); the other expected values are what the
lessons' code gives with its seeds and draw order (measured with numpy 2.4). Every reproduced value
is computed here, live, by the experiments in `posviz.experiments.lessons`. Claims 12 on come
from the methods' papers and reference code (named in each claim's `source`), reproduced by
`posviz.maths.scaling` from the formulas. Claim 16 is the real model's (posviz.models.encoder), against the float32
model's values recorded at extraction.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

import numpy as np

from posviz.experiments.lessons import order_experiment, sentence_experiment, twin_experiment
from posviz.maths.encodings import sinusoidal
from posviz.maths.scaling import (
    PRESETS,
    decay_bound,
    default_inv_freq,
    dynamic_base,
    llama3_masks,
    yarn_correction_range,
)

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
    printed: bool = False  # the lesson prints this value (else it is what the lesson's code gives)

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
    """A numbered claim, its checks, and the app page that shows it.

    lesson: the lesson it comes from ("000", ...), or "" for a claim from a paper or reference code,
    which then names it in `source`.
    """

    number: int
    lesson: str
    statement: str
    checks: tuple[Check, ...]
    page: str  # the page (and its part, "order?part=twins") that shows the claim live
    source: str = ""
    expected_source: str = ""  # where the expected values come from, when neither a lesson nor a formula

    @property
    def origin(self) -> str:
        """Where the claim comes from: "lesson 000", or the paper / reference code."""
        return self.source or f"lesson {self.lesson}"

    def expected_from(self, check: Check) -> str:
        """Where one expected value comes from: printed in the lesson, the lesson's code, or a formula."""
        if self.expected_source:
            return self.expected_source
        if not self.lesson:
            return "reference formula or code"
        return f"printed in lesson {self.lesson}" if check.printed else f"lesson {self.lesson}'s code"

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
            Check("max diff", 4.440892098500626e-16, plain.max_diff, "at_most", 1e-15, printed=True),
        ),
        one(
            2,
            "Identical tokens at positions 0 and 4, no position: their output rows are equal",
            Check("max row diff", 0.0, twins.row_diff, "equal", printed=True),
            "order?part=twins",
        ),
        one(
            3,
            "Ramp 0.6*(t+1) added: shuffled vs reordered outputs differ",
            Check("max diff", 3.499757764020842, ramp.max_diff, printed=True),
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
            "order?part=twins",
        ),
        Claim(
            11,
            "000",
            "Lesson 003's caveat (a causal mask carries order) applied to lesson 000's setup, no position: "
            "the permutation claim fails",
            (Check("max diff", 1.650825107237093, causal.max_diff),),
            "causal",
            "lesson 000's code with a causal mask (lesson 003's caveat)",
        ),
    ]


def _lesson_002() -> list[Claim]:
    half = sentence_experiment(scale=0.5)
    tiny = sentence_experiment(scale=0.001)
    return [
        Claim(
            7,
            "002",
            '"man" in "dog bites man" vs "man bites dog", no position: identical',
            (
                Check("allclose", True, half.word_allclose("man", with_position=False), "equal", printed=True),
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
                Check("allclose", False, half.word_allclose("man", with_position=True), "equal", printed=True),
                Check("mean allclose", False, half.means_allclose(with_position=True), "equal", printed=True),
            ),
            "attention",
        ),
        Claim(
            9,
            "002",
            "Exercise 3: positions scaled 0.001 instead: close, but not allclose",
            (
                Check('"man" max diff', 0.08431805329627551, tiny.word_diff("man", with_position=True)),
                Check("allclose", False, tiny.word_allclose("man", with_position=True), "equal"),
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


def _longer_contexts() -> list[Claim]:
    llama = PRESETS["llama3.1-8b"]
    inv, _ = llama.inv_freq()
    kept, smoothed, divided = (int(m.sum()) for m in llama3_masks(default_inv_freq(128, 500_000.0), llama.params))
    low, high = yarn_correction_range(128, 10_000.0, 4096)
    _, yarn_attention = PRESETS["yarn-reference"].inv_freq()
    code = "transformers modeling_rope_utils.py"

    def one(n: int, statement: str, checks: tuple[Check, ...], source: str, page: str = "longer") -> Claim:
        return Claim(n, "", statement, checks, page, source)

    return [
        one(
            12,
            "Llama 3.1 8B (theta 500000, d 128, llama3: factor 8, low 1, high 4, original 8192): 29 pairs kept, "
            "6 smoothed, 29 divided by 8",
            (
                Check("pairs kept", 29, kept, "equal"),
                Check("pairs smoothed", 6, smoothed, "equal"),
                Check("pairs divided", 29, divided, "equal"),
                Check("sum of inv_freq", 5.3860582, float(inv.sum()), tolerance=5e-8),
            ),
            f"{code}, _compute_llama3_parameters",
        ),
        one(
            13,
            "YaRN, d 128, theta 10000, original 4096: correction range (20, 46); attention factor at factor 4",
            (
                Check("low pair", 20, low, "equal"),
                Check("high pair", 46, high, "equal"),
                Check("attention factor", 1.138629, yarn_attention, tolerance=5e-7),
            ),
            f"YaRN (Peng et al. 2023); {code}, _compute_yarn_parameters",
        ),
        one(
            14,
            "Dynamic NTK, d 128, theta 10000, factor 2, max 2048: at length 4096 the base is 30527.74",
            (Check("base", 30527.74, dynamic_base(10_000.0, 128, 2.0, 2048, 4096), tolerance=5e-3),),
            f"{code}, _compute_dynamic_ntk_parameters",
        ),
        one(
            15,
            "RoPE's long-term decay bound (1/(d/2)) sum_j |S_j| is (d/2 + 1)/2 at distance 0: 32.5 for d 128",
            (Check("bound at distance 0", 32.5, float(decay_bound([0], 128)[0]), tolerance=1e-12),),
            "RoFormer (Su et al. 2021), section 3.4.3",
            "longer?part=decay",
        ),
    ]


def _real_model() -> list[Claim]:
    from posviz.models import encoder  # loads the shipped model (23 MB) only when the registry is built

    record = encoder.provenance()
    first, second = "dog bites man", "man bites dog"
    pair = encoder.compare_texts(first, second)
    return [
        Claim(
            16,
            "",
            f'Real model all-MiniLM-L6-v2 (int8 weights): "{first}" vs "{second}", sentence-embedding cosine '
            "below 1 with position, 1 with the position rows removed",
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
            f"real model {record['model']}, PyPI wheel sha256 {record['wheel_sha256'][:12]}…",
            expected_source="the float32 model at extraction",
        )
    ]


def claims(*, real_model: bool = True) -> list[Claim]:
    """Every verified claim: the three lessons', numbered as in the project's issue, then the papers' and
    reference code's (12-15) and the real model's (16), reproduced now. real_model=False leaves out the claims
    that run the real model (real_model_claims()), so that a page can show the rest before it has loaded."""
    registry = _lesson_000() + _lesson_002() + _lesson_003() + _longer_contexts()
    return sorted(registry + (_real_model() if real_model else []), key=lambda c: c.number)


def real_model_claims() -> list[Claim]:
    """The claims that run the real model (claim 16), reproduced now."""
    return _real_model()


def _fmt(value: float | bool) -> str:
    return str(value) if isinstance(value, bool | int) else repr(float(value))


def claim_rows(
    registry: list[Claim] | None = None, *, fmt: Callable[[float], str] | None = None
) -> list[dict[str, object]]:
    """The registry as table rows: one row a check, with its claim's number, lesson and page.

    Values are written at full precision (`verify`), or with `fmt` for floats (the app: `display.number`).
    """

    def shown(value: float | bool) -> str:
        return _fmt(value) if fmt is None or isinstance(value, bool | int) else fmt(value)

    rows = []
    for claim in claims() if registry is None else registry:
        for check in claim.checks:
            rows.append(
                {
                    "claim": claim.number,
                    "lesson": claim.lesson,
                    "source": claim.origin,
                    "statement": claim.statement,
                    "check": check.label,
                    "expected": shown(check.expected),
                    "expected from": claim.expected_from(check),
                    "reproduced": shown(check.reproduced),
                    "tolerance": check.tolerance_text,
                    "pass": check.passed,
                    "page": claim.page,
                }
            )
    return rows
