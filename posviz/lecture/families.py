"""The lecture's recap: the three families of position schemes side by side, each live cell computed from the core.

Family 1, absolute rows added to the input (sinusoidal, learned); family 2, relative (rotary turns q and k, a bias
is added to the scores); family 3, implicit (the causal mask). One measurement runs across every scheme: the
largest change of the scores q·k (with the scheme's position in them) when every position moves by SHIFT.
A relative scheme sees only j - i, so its change is rounding; an absolute one sees i and j themselves.

    >>> [row.scheme for row in rows()][:2]
    ['sinusoidal rows', 'learned table']
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from posviz.drawing.display import number
from posviz.maths import biases, relative
from posviz.maths.encodings import learned, sinusoidal

SHIFT = 100  # every position moves by this much
T, D = 24, 16  # the positions and the width of the shift measurement (the rotary step's)
PAST = 600  # a position past MiniLM's 512 rows, asked of each scheme
COLUMNS = ("family", "enters", "past the trained length", f"scores, every position +{SHIFT}")
PAGES = (  # the pages that show the schemes: (title, router url path)
    ("Sinusoids", "sinusoids"),
    ("Learned and rotary", "rotary"),
    ("Relative biases", "biases"),
    ("Causal mask", "causal"),
    ("Longer contexts", "longer"),
    ("MiniLM: a trained encoder", "minilm"),
    ("SmolLM2: a RoPE decoder", "llm"),
)


@dataclass(frozen=True)
class Row:
    """One scheme: its family, where it enters, what it knows of position, what happens past the end, its change."""

    scheme: str
    family: str  # its number and what it knows of position: absolute, relative, implicit
    enters: str
    past: str  # what happens past the trained length, in words with its live number
    change: float  # max |scores with every position + SHIFT - scores from 0|


def _content() -> tuple[np.ndarray, np.ndarray]:
    q, k = np.random.default_rng(0).standard_normal((2, D))  # the rotary step's query and key
    return q, k


def learned_change(shift: int = SHIFT) -> float:
    """max |(q + L_i)·(k + L_j) moved by `shift` - the same from 0| for the seeded stand-in table L (512 rows)."""
    q, k = _content()
    a, b = learned(T, D), learned(T, D, start=shift)
    return float(np.abs((q + b) @ (k + b).T - (q + a) @ (k + a).T).max())


def bias_change(kind: str, shift: int = SHIFT) -> float:
    """max |q·k + bias(j - i) at positions shift.. - the same at 0..|: the bias reads only the offset."""
    q, k = _content()
    positions = np.arange(T)
    scores = []
    for start in (0, shift):
        p = start + positions
        scores.append(q @ k + biases.bias(kind, p[None, :] - p[:, None]))
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
    """The recap's five schemes, every number computed now."""
    q, k = _content()
    norm = float((sinusoidal(1, 8, start=PAST) ** 2).sum())
    last = table_rows()
    refuses = "lookup refused" if refusal(last + 1) else "lookup ran"
    bucket = biases.t5_bucket(np.arange(0, 4 * PAST))
    first_last = int(np.argmax(bucket == bucket.max()))  # the first offset that falls in T5's last bucket
    alibi = float(biases.bias("alibi", np.array([PAST]))[0])
    return (
        Row(
            "sinusoidal rows",
            "1: absolute",
            "added to the input",
            f"a row for any t from the formula\n(t = {PAST}: ‖pe‖² = {number(norm)} at d = 8)",
            relative.shift_change(q, k, T, SHIFT, scheme="sinusoidal"),
        ),
        Row(
            "learned table",
            "1: absolute",
            "added to the input",
            f"no row past {last - 1}\n({last} rows: {refuses})",
            learned_change(),
        ),
        Row(
            "rotary (RoPE)",
            "2: relative",
            "rotates q and k",
            "any angle computes;\nfar offsets: angles never trained",
            relative.shift_change(q, k, T, SHIFT, scheme="rotary"),
        ),
        Row(
            "bias on the scores",
            "2: relative",
            "added to the scores\n(ALiBi, T5)",
            f"ALiBi keeps falling ({number(alibi)} at {PAST});\nT5: offsets ≥ {first_last} share one bucket",
            max(bias_change("alibi"), bias_change("t5")),
        ),
        Row(
            "causal mask",
            "3: implicit\n(order, not distance)",
            "masks the scores\n(keys after the query)",
            "nothing to run out of:\nno table, no angle",
            mask_change(),
        ),
    )


def table_columns(every: tuple[Row, ...]) -> dict[str, list[str]]:
    """The recap table's cells by column heading (COLUMNS), one per row of `every`."""
    return {
        COLUMNS[0]: [r.family for r in every],
        COLUMNS[1]: [r.enters for r in every],
        COLUMNS[2]: [r.past for r in every],
        COLUMNS[3]: [f"max change {number(r.change)}" for r in every],
    }


def links() -> str:
    """One markdown line linking the pages that show the schemes (router url paths, relative like the pages')."""
    return "Pages: " + " · ".join(f"[{title}](./{path})" for title, path in PAGES)
