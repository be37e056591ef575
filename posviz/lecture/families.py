"""The lecture's recap: the three families of position schemes side by side, each live cell computed from the core.

Family 1, absolute rows added to the input (sinusoidal, learned); family 2, relative (rotary turns q and k, a bias
is added to the scores); family 3, implicit (the causal mask). One measurement runs across every scheme: the
largest change of the scores q·k (with the scheme's position in them) when every position moves by SHIFT, for one
seeded query and key. A relative scheme sees only j - i, so its change is rounding; an absolute one sees i and j
themselves. Each cell names what it was computed from: the formulas at width D, MiniLM's shipped position table at
its own width, ALiBi's head ALIBI_HEAD of ALIBI_HEADS (the Relative biases page's), T5's seeded stand-in buckets.
What each scheme does past its trained length is measured on posviz's matched family (posviz.models.matched),
for the schemes trained there: held-out loss at 4-8 x T_train minus inside the window, the seeds' mean.

    >>> [row.scheme for row in rows()][:2]
    ['sinusoidal rows', 'learned table']
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from posviz.drawing.display import number
from posviz.experiments import longer
from posviz.experiments import matched as ex
from posviz.maths import biases, relative
from posviz.maths.encodings import learned
from posviz.models import matched

SHIFT = 100  # every position moves by this much
T, D = 24, 16  # the positions and the width of the shift measurement (the rotary step's)
COLUMNS = ("family: where it enters", "past the trained length", f"scores, positions +{SHIFT}")
SHOWN_AT = "buys"  # the lecture step that shows the "past the trained length" numbers (its bars, at its defaults)
ALIBI = dict(heads=longer.ALIBI_HEADS, head=longer.ALIBI_HEAD)  # one head, the Relative biases page's default
PAGES = (  # the pages that show the schemes: (title, router url path)
    ("Sinusoids", "sinusoids"),
    ("Learned and rotary", "rotary"),
    ("Relative biases", "biases"),
    ("Causal mask", "causal"),
    ("Longer contexts", "longer"),
    ("MiniLM: a trained encoder", "minilm"),
    ("SmolLM2: a RoPE decoder", "llm"),
    ("What each scheme buys", "matched"),
)


def past_window() -> tuple[int, int]:
    """The positions the recap's "past the trained length" column reads: the matched family's last bin (4-8 x T)."""
    return ex.bins(matched.config().T_train)[-1]


def measured() -> dict[str, ex.BinRow]:
    """The matched family's rise past its window (`past_window`), every trained scheme that reads that far."""
    return ex.rises(ex.family_curves(), matched.config().T_train, *past_window())


@dataclass(frozen=True)
class Row:
    """One scheme: its family, where it enters, what it knows of position, what happens past the end, its change."""

    scheme: str
    family: str  # its number and what it knows of position: absolute, relative, implicit
    enters: str
    past: str  # what happens past the trained length, in words with its live number
    change: float  # max |scores with every position + SHIFT - scores from 0|
    computed: str  # what `change` was computed from, in a few words
    shown_at: str  # the key of the lecture step that shows `change` before the recap
    met_at: str  # the key of the lecture step where the scheme is first met (its family cell names it)
    past_last_at: str = ""  # the key of a step other than SHOWN_AT that shows the past cell's last line, if any


def _content(d: int = D) -> tuple[np.ndarray, np.ndarray]:
    q, k = np.random.default_rng(0).standard_normal((2, d))  # the rotary step's query and key (at d = D)
    return q, k


def _added_change(table: np.ndarray, shift: int) -> float:
    """max |(q + L_i)·(k + L_j) at rows shift.. - the same at rows 0..|, i, j < T, for a (rows, d) table L."""
    q, k = _content(table.shape[1])
    a, b = table[:T], table[shift : shift + T]
    return float(np.abs((q + b) @ (k + b).T - (q + a) @ (k + a).T).max())


def learned_change(shift: int = SHIFT, *, shipped: bool = True) -> float:
    """`_added_change` for MiniLM's shipped position table (512 rows, d = 384), or for the seeded stand-in table of
    posviz.maths.encodings.learned at d = D when `shipped` is False."""
    if not shipped:
        return _added_change(learned(T + shift, D), shift)
    from posviz.models import minilm

    return _added_change(minilm.default_model().position, shift)


def bias_change(kind: str, shift: int = SHIFT) -> float:
    """max |q·k + bias(j - i) at positions shift.. - the same at 0..|: the bias reads only the offset.
    ALiBi is head ALIBI_HEAD of ALIBI_HEADS; T5's table is a seeded N(0, 1) stand-in."""
    q, k = _content()
    positions = np.arange(T)
    scores = []
    for start in (0, shift):
        p = start + positions
        scores.append(q @ k + biases.bias(kind, p[None, :] - p[:, None], **ALIBI))
    return float(np.abs(scores[1] - scores[0]).max())


def mask_change(shift: int = SHIFT) -> float:
    """max |masked q·k at positions shift.. - at 0..| (masked entries as 0): the mask reads only j <= i."""
    q, k = _content()
    masked = []
    for start in (0, shift):
        p = start + np.arange(T)
        masked.append(np.where(p[None, :] <= p[:, None], q @ k, 0.0))
    return float(np.abs(masked[1] - masked[0]).max())


def table_rows() -> int:
    """How many rows MiniLM's learned position table has: the last position it can encode is one less."""
    from posviz.models import minilm

    return int(minilm.default_model().position.shape[0])


def alibi_slope_words() -> str:
    """The ALiBi head's slope as a fraction, "1/32": the head the Relative biases page shows by default, whose
    penalty the recap writes (step 13 says what the slope is)."""
    return f"1/{1 / longer.alibi_slope(**ALIBI):g}"


def minilm_width() -> int:
    """The width d of MiniLM's shipped position rows (the recap's learned-table cell is computed at it)."""
    from posviz.models import minilm

    return int(minilm.default_model().position.shape[1])


def refusal(length: int) -> str | None:
    """MiniLM's embedding layer asked for `length` positions: its error message, or None when it has the rows."""
    from posviz.models import minilm

    model = minilm.default_model()
    try:
        minilm.embed(model, np.zeros(length, dtype=np.int64))
    except ValueError as error:
        return str(error)
    return None


@lru_cache(maxsize=1)
def rows() -> tuple[Row, ...]:
    """The recap's five schemes, every number computed now (the matched family's curves are computed once)."""
    q, k = _content()
    last = table_rows()
    refuses = "refused" if refusal(last + 1) else "ran"
    rise = measured()
    T_train = matched.config().T_train
    width = minilm_width()
    return (
        Row(
            "sinusoidal rows",
            "1: absolute",
            "added to the input",
            f"loss {rise['sinusoid'].written}\na row for any t, from the formula",
            relative.shift_change(q, k, T, SHIFT, scheme="sinusoidal"),
            f"sin/cos formula, d = {D}",
            "rotary",
            "table",
        ),
        Row(
            "learned table",
            "1: absolute",
            "added to the input",
            f"trained here: no row past {T_train - 1}\nMiniLM: {last + 1}+ tokens {refuses}",  # two tables
            learned_change(),
            f"MiniLM's own rows, d = {width}",
            "rotary",
            "real",
            "lastrow",  # MiniLM's refusal is step 17's, not the trained models' step 18
        ),
        Row(
            "rotary (RoPE)",
            "2: relative",
            "rotates query, key (SmolLM2)",
            f"loss {rise['rope'].written}\noffsets past {T_train - 1} unseen (the cause? untested)",  # step 18
            relative.shift_change(q, k, T, SHIFT, scheme="rotary"),
            f"rotation formula, d = {D}",
            "rotary",
            "rotary",
        ),
        Row(
            "bias on the scores",
            "2: relative",
            "added to the scores (ALiBi, T5)",
            f"ALiBi: loss {rise['alibi'].written}\nT5, not trained here: far offsets share a bucket",
            max(bias_change("alibi"), bias_change("t5")),
            f"ALiBi slope {alibi_slope_words()}, T5 stand-in",  # the head's penalty (step 13's word), no head number
            "rotary",
            "rotary",
        ),
        Row(
            "causal mask",
            "3: implicit",
            "masks later keys (SmolLM2 too)",
            f"loss {rise['none'].written}\nno table, no angle to run out of",
            mask_change(),
            f"keys s ≤ t kept, d = {D}",  # what the mask keeps ("mask s ≤ t" read as hiding them)
            "rotary",
            "causal",
        ),
    )


def table_columns(every: tuple[Row, ...], steps: dict[str, int] | None = None) -> dict[str, list[str]]:
    """The recap table's cells by column heading (COLUMNS), one per row of `every`; with `steps` (step key -> its
    number in the lecture), each cell says where it was shown first: the family cell (where the scheme is first met),
    the past column's heading (and a past cell's last line shown on another step), each score cell."""
    where = {key: f" (step {n})" for key, n in (steps or {}).items()}
    return {
        # one column for family and entry: the table fits a 720 px screen in 20 px
        COLUMNS[0]: [f"{r.family}{where.get(r.met_at, '')}\n{r.enters}" for r in every],
        COLUMNS[1] + where.get(SHOWN_AT, ""): [r.past + where.get(r.past_last_at, "") for r in every],
        COLUMNS[2]: [f"max change {number(r.change)}{where.get(r.shown_at, '')}\n{r.computed}" for r in every],
    }


def source() -> str:
    """Where the recap's cells come from, column by column (the step's expected-value line)."""
    return (
        "headlines: step 1's shuffle test with each family's signal added (the ramp, rotary query and key, the mask), "
        "then alone; scores: a seeded query and key from N(0, 1) (step 4's bell curve: mean 0, typical size 1) at "
        f"positions 0-{T - 1} and {SHIFT}-{SHIFT + T - 1}, each cell's source under its number; {past_note()}"
    )


def past_note() -> str:
    """What the "past the trained length" column measured, in one clause (the recap's expected value ends with it):
    the cells write step 18's seeds' ranges; the column's heading names the step."""
    a, b = past_window()
    return (
        f"past: step 18's loss rise, at {a}-{b - 1} minus 0-{matched.config().T_train - 1} bytes, "
        f"{len(matched.seeds())} seeds, small models trained here, not the ALiBi or RoPE papers' results"
    )


def links() -> str:
    """One markdown line linking the pages that show the schemes (router url paths, relative like the pages')."""
    return "Pages: " + " · ".join(f"[{title}](./{path})" for title, path in PAGES)
