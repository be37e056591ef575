"""The lecture: the three lessons' argument as an ordered path of one-screen steps.

Each step is a claim in one sentence, one live number with its verdict, at most two figures and at
most two controls. A step computes nothing of its own: it calls the experiments in the core and
hands their arrays to the chart builders as tidy frames. The app draws a `Slide`; a notebook or a
test can read the same slide.

    >>> slide = STEPS[0].slide()
    >>> slide.value < 1e-15, slide.ok, len(slide.figures)
    (True, True, 2)
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from functools import lru_cache, partial

import numpy as np
import pandas as pd

from posviz.drawing import figures, frames, heatmaps, lines_bars
from posviz.drawing.display import aligned, fixed, number, powers
from posviz.drawing.figures import Figure
from posviz.experiments import lessons
from posviz.lecture import families
from posviz.maths import grids, properties, relative, verdicts
from posviz.maths.encodings import offset_matrix, sinusoidal

FIGURE_HEIGHT = 228  # px: with 20 px text every step still fits a 720 px screen (tests/test_browser.py)
CAPTIONED = FIGURE_HEIGHT - 30  # px: figures above a caption's lines (steps 1, 3 and 7 had 725 to 736 px)
VALUE_COLUMNS = 8  # a figure is half of the 1120 px screen or more: 8 columns of printed values fit (twins: 2 x 8)


@dataclass(frozen=True)
class Control:
    """A step's control: the slide function's argument it sets, its label, default and a few values to pick.

    Few values, not a range: a clicker's PageDown on a focused slider would move the slider, not the step.
    """

    name: str
    label: str
    default: object
    options: tuple = ()
    aliases: tuple[str, ...] = ()  # the argument's older names, still read from a link (`width` before `d`)
    names: tuple[tuple[object, str], ...] = ()  # (option, what its button says) where the value is an identifier


HALL_SOURCE = 70  # characters: a projected expected-value line's words (Slide.hall), one line under the headline


@dataclass(frozen=True)
class Slide:
    """What one step shows: the claim, the live number and its verdict, the figures."""

    claim: str
    label: str  # what the number measures
    value: float
    ok: bool  # True when the number shows what the step is there to show
    verdict: str  # the badge's words when ok
    figures: tuple[Figure, ...]
    source: str  # where the expected value comes from, in full: the desk page's line and the speaker view's
    otherwise: str = "not the outcome this step is about at these settings"  # the badge's words when not ok
    tone: str = "shown"  # "shown": the outcome the step shows (green); "state": a fact of the setting (blue);
    # "problem": a mistake to recognise (orange)
    caption: str = ""  # one markdown line under the figures, in both modes: what the chart needs read with it, or links
    also: tuple[tuple[str, float], ...] = ()  # more numbers the claim rests on, (label, value): drawn as large as the
    # headline beside it, never inside the badge (a hall reads the headline's type, not a badge's)
    hall: str = ""  # the source in a hall's words, one line of at most HALL_SOURCE characters naming no lesson,
    # exercise or file: presenter mode's expected-value line (the full `source` goes to the speaker view)

    @property
    def projected_source(self) -> str:
        """The expected-value line presenter mode projects: `hall`, or `source` when a slide has no hall words."""
        return self.hall or self.source

    @property
    def shown(self) -> str:
        return number(self.value, grouped=True)

    @property
    def numbers(self) -> tuple[tuple[str, str], ...]:
        """Every number the slide draws large, (label, text): the headline first, then `also`."""
        return ((self.label, self.shown), *((label, number(v, grouped=True)) for label, v in self.also))


@dataclass(frozen=True)
class Step:
    key: str
    title: str  # short, for the jump list
    slide: Callable[..., Slide]
    controls: tuple[Control, ...] = ()
    slow: Callable[[], object] | None = None  # work the slide waits for, cached per process: the app runs it in the
    # background first, with `slow_note` beside a spinner (the server warms it at start)
    slow_note: str = ""

    def url_key(self, control: Control) -> str:
        """The control's URL key, unique across steps: "ramp_scale"."""
        return f"{self.key}_{control.name}"

    def url_aliases(self, control: Control) -> tuple[str, ...]:
        """The control's older URL keys, which still open and are rewritten to `url_key`: ("table_width",)."""
        return tuple(f"{self.key}_{alias}" for alias in control.aliases)

    def defaults(self) -> dict[str, object]:
        return {c.name: c.default for c in self.controls}


def _heat(
    name: str,
    m: np.ndarray,
    title: str,
    *,
    rows: str,
    cols: str,
    signed: bool = True,
    domain: tuple[float, float] | None = None,
    row_labels: list[str] | None = None,
    col_labels: list[str] | None = None,
    annotate: bool = True,
    causal: bool = False,
    label_limit: int | None = None,
    height: int = FIGURE_HEIGHT,
    angled: bool | None = None,
    note: str | None = None,
    compact: bool = False,
) -> Figure:
    """A labelled matrix figure on a diverging (signed, on `domain`, default symmetric about 0) or [0, 1] weight
    scale; `causal`: masked keys drawn grey; `label_limit`: px a row label may take (default 120); `angled`: column
    labels tilted (default: past 8 columns); `note`: a line across the middle (a panel whose every cell is 0 reads as
    a chart that failed to draw without one). A square matrix (queries by keys, a shift matrix) is drawn square."""
    r, k = m.shape
    frame = frames.matrix_frame(
        m,
        row_labels if row_labels is not None else [str(i) for i in range(r)],
        col_labels if col_labels is not None else [str(j) for j in range(k)],
    )
    if causal:
        frame = frames.masked_frame(frame)
    square = r == k  # drawn FIGURE_HEIGHT wide: 20 px values fit 4 columns of it, a wide figure VALUE_COLUMNS
    annotate = annotate and heatmaps.prints_values(m.shape, 4 if square else VALUE_COLUMNS)
    choices = dict(
        row_title=rows,
        col_title=cols,
        annotate=annotate,
        angled=k > 8 if angled is None else angled,
        legend="right",
        masked=causal,
        compact=compact,  # a phone's narrow cells still write values, shorter (`heatmaps.CellStyle`)
    )
    if label_limit is not None:
        choices["row_label_limit"] = label_limit
    style = heatmaps.CellStyle.signed(m, domain=domain, **choices) if signed else heatmaps.CellStyle.weights(**choices)
    shape = dict(title=title, style=style, height=height, square=square)
    if note is not None:
        shape["note"] = note
    return Figure(name, heatmaps.token_heatmap, (frame,), shape)


def _gap(value: float) -> str:
    """1 − cosine for display: a rounding-sized value as "0 up to rounding", never as a signed tiny number."""
    return "0 up to rounding" if verdicts.machine_zero(value) else number(value)


def _powers(value: float) -> str:
    """A sentence explaining the e-notation of `value`'s headline (step 1, where it is first shown): "" if none."""
    said = powers(number(value, grouped=True))
    # here: the app's arithmetic (steps 15 and 19 meet models' stored numbers, kept to about 7 digits)
    rounding = ": zero up to float rounding (a float: a number kept to about 16 digits here)" * verdicts.machine_zero(
        value
    )
    return f" {said}{rounding}." if said else ""


def _grid(
    name: str,
    m: np.ndarray,
    title: str,
    *,
    rows: str,
    cols: str,
    domain: tuple[float, float],
    square: bool = False,
    start: int = 0,
    height: int = FIGURE_HEIGHT,
    most: int = 16_384,
    value_title: str = "value",
    note: str | None = None,
) -> Figure:
    """A matrix figure on quantitative axes, rows and columns numbered from `start`; `square` draws it as wide as
    tall (a similarity's diagonal at 45°); past `most` values, block means; `value_title` titles the colours; `note`:
    words across the middle (`_flat`'s, where a blank map would read as a chart that failed to draw)."""
    reduced = grids.block_mean(m, most).shifted(start, start)
    shape = dict(
        title=title,
        subtitle=reduced.note if reduced.aggregated else None,
        row_title=rows,
        col_title=cols,
        domain=domain,
        height=height,
        legend="right",
        **({"square": True} if square else {}),
        **({} if value_title == "value" else {"value_title": value_title}),
        **({} if note is None else {"note": note}),
    )
    return Figure(name, heatmaps.grid_heatmap, (frames.reduced_frame(reduced),), shape, cells=reduced)


def _weights(
    name: str,
    w: np.ndarray,
    labels: list[str],
    title: str,
    *,
    causal: bool = False,
    height: int = FIGURE_HEIGHT,
    rows: str = "query",
    cols: str = "key",
) -> Figure:
    """Attention weights on the [0, 1] scale, a query a row and a key a column, both labelled (axes titled `rows`,
    `cols`)."""
    return _heat(
        name,
        w,
        title,
        rows=rows,
        cols=cols,
        signed=False,
        row_labels=labels,
        col_labels=labels,
        causal=causal,
        height=height,
    )


def _outputs(
    name: str,
    m: np.ndarray,
    title: str,
    domain: tuple[float, float],
    places: list[str] | None = None,
    note: str | None = None,
) -> Figure:
    # "position 5, E = 3.6" in 20 px type; "position 5, E = 1.8 (from 2)" wider
    limit = None if places is None else 200 if max(map(len, places)) <= 20 else 280
    places = places or [f"position {i}" for i in range(m.shape[0])]
    return _heat(
        name,
        m,
        title,
        rows="",
        cols="dimension",
        domain=domain,
        row_labels=places,
        annotate=False,
        label_limit=limit,
        note=note,
    )


def _flat(largest: float, rounding: Callable[[float], bool] = verdicts.machine_zero) -> str | None:
    """The words across a difference map whose largest cell is `largest`, in two lines (a phone's narrow plot): None
    unless every cell is 0 up to `rounding` (step 13's verdict allows the rounding of angles near 10,000)."""
    if largest == 0:
        return "every cell exactly 0"
    return f"every cell within\n{number(largest)} of 0" if rounding(largest) else None


def _ramp_places(pos: np.ndarray, order: np.ndarray | None = None) -> list[str]:
    """Row labels that say which ramp row each output row was computed with: "position 0, E = 0.6" (every dimension
    of row t gets the same value, E = scale (t + 1)), all to the same decimals ("E = 3.0" under "E = 2.4" lined up).
    `order`: the rows' origins when the outputs were shuffled after attending (row t came from position order[t],
    with that position's E: the ramp moved with its token), said in the label ("(from 3)").

    >>> _ramp_places(np.array([[2.4], [3.0], [0.0]]))
    ['position 0, E = 2.4', 'position 1, E = 3.0', 'position 2, E = 0.0']
    >>> _ramp_places(np.array([[2.4], [3.0], [0.0]]), np.array([2, 0, 1]))
    ['position 0, E = 0.0 (from 2)', 'position 1, E = 2.4 (from 0)', 'position 2, E = 3.0 (from 1)']
    """
    values = [float(row[0]) for row in pos]
    origins = range(len(values)) if order is None else [int(i) for i in order]
    written = aligned([values[i] for i in origins])
    came = (lambda i: "") if order is None else (lambda i: f" (from {i})")  # where E was added, when it moved
    return [f"position {t}, E = {e}{came(i)}" for t, (e, i) in enumerate(zip(written, origins, strict=True))]


def _shuffle_panels(
    name: str,
    r: lessons.OrderResult,
    reference_title: str,
    places: tuple[list[str], list[str]] | None = None,
    shuffled_title: str = "shuffle, then attend",
) -> tuple[Figure, Figure]:
    """The shuffle test's two sides on one colour scale: the reference, and shuffle-then-attend; `places`: each
    side's row labels (default "position t")."""
    domain = heatmaps.signed_domain(r.reference, r.out_perm)
    first, second = places or (None, None)
    return (
        _outputs(f"{name}-reference", r.reference, reference_title, domain, first),
        _outputs(f"{name}-shuffled", r.out_perm, shuffled_title, domain, second),
    )


def _shuffle_slide(
    r: lessons.OrderResult,
    name: str,
    reference_title: str,
    *,
    blind: bool,
    places: tuple[list[str], list[str]] | None = None,
    shuffled_title: str = "shuffle, then attend",
    **words: str,
) -> Slide:
    """A slide of one shuffle test: its number is r.max_diff, shown when it is 0 up to rounding exactly if the step is
    there to show attention `blind` to order; its figures the test's two sides (rows labelled `places`). `words`:
    the slide's texts; with a caption the panels are CAPTIONED tall, so that its lines still fit 720 px."""
    shown = verdicts.machine_zero(r.max_diff) == blind
    panels = _shuffle_panels(name, r, reference_title, places, shuffled_title)
    if words.get("caption"):
        panels = tuple(replace(f, shape={**f.shape, "height": CAPTIONED}) for f in panels)
    return Slide(value=r.max_diff, ok=shown, figures=panels, **words)


# ----- lesson 000: attention reads a set --------------------------------------------------------------------------


def shuffle(seed: int = 42) -> Slide:
    r = lessons.order_experiment(seed=seed)
    return _shuffle_slide(
        r,
        "shuffle",
        "attend, then shuffle",
        blind=True,
        claim="Shuffle the token rows X (P X) and attention's outputs attn(X) shuffle the same way.",  # one line
        label="max |attn(P X) − P attn(X)|",
        verdict="0 up to rounding: order-blind (outputs only reshuffled)",  # the term in words, where it is met
        source="max |…|: the largest difference; the lesson 'Why attention needs position' prints 4.44e-16 (seed "
        "42), the number the headline rounds to 4.4e-16",
        hall="max |…|: largest difference; notes (seed 42): 4.44e-16, to 3 digits",  # as the desk's line
        caption="P X: X's rows in a new order. A token: a word or word piece, here a row of X, a vector (its "
        "numbers: dimensions). attn(X): attention, as in transformers (today's language models): "
        "each output row is a mean of all rows, each first times a random matrix (a grid of numbers), "
        "weighted by how well they match. A seed: a fixed start for random numbers. The course "
        f"notes: this lecture's written lessons.{_powers(r.max_diff)}",  # the shuffle's order: the speaker notes
    )


# The three ways position gets in, framed where the first appears (step 3) and met in this order
FAMILIES = (
    "1 absolute, rows added to the input (here); 2 relative, attention reads how far apart two tokens "
    "are (step 13); 3 implicit, each token reads only itself and the tokens before it (step 14)"
)

RAMP_SCALE = 0.6  # the lesson's ramp, E = 0.6 (t + 1): step 3's default; steps 2 and 4 reuse it


def twins(second: int = 4) -> Slide:
    r = lessons.twin_experiment(second=second)
    ramped = lessons.twin_experiment(second=second, position="ramp", scale=RAMP_SCALE)  # the next step's signal
    labels = [f"copy at {r.first}", f"copy at {r.second}"]
    rows, parted = (t.out[[t.first, t.second]] for t in (r, ramped))
    domain = heatmaps.signed_domain(rows, parted)  # one colour scale: the two panels compare cell by cell
    widest = int(np.argmax(np.abs(parted[0] - parted[1])))  # where the ramp's gap is (a phone's cells hide values)
    return Slide(
        "One token at two positions gets exactly the same output twice; add a position row (a row per position t, "
        f"here the ramp E = {number(RAMP_SCALE)}(t + 1)) and the two copies part.",
        "the copies' largest gap",  # steps 7-9's out₁, out₂ are sentences: no positions written as subscripts here
        r.row_diff,
        verdicts.exactly_zero(r.row_diff),
        "identical: cannot be told apart",  # one line in a column beside the ramp's headline
        (
            _heat(
                "twins",
                rows,
                "the two copies' outputs",
                rows="",
                cols="dimension",
                row_labels=labels,
                domain=domain,
                height=FIGURE_HEIGHT - 26,  # the caption's second line
                compact=True,  # "−5.1" on a phone: the caption's values and the identical rows can be read there
            ),
            _heat(
                "twins-ramp",
                parted,
                "with the ramp added",  # the second headline's words; E is in the claim
                rows="",
                cols="dimension",
                row_labels=labels,
                domain=domain,
                height=FIGURE_HEIGHT - 26,
                compact=True,
            ),
        ),
        "exactly 0 in the lesson 'Why attention needs position' (seed 42); with the ramp, dimension "
        f"{widest}: {fixed(parted[0, widest])} against {fixed(parted[1, widest])}",
        # the ramp's gap as the two values it is the difference of, in hall type (a phone's cells round them)
        hall=f"0 in the course notes too; ramp: {fixed(parted[0, widest])}\u00a0vs\u00a0{fixed(parted[1, widest])} "
        f"(dimension {widest})",
        also=(("with the ramp added", ramped.row_diff),),
        caption=f"The gap: the largest difference between the copies' output rows over their {r.out.shape[1]} "
        f"dimensions (the charts' columns). The ramp's row t holds {number(RAMP_SCALE)}(t + 1) in every dimension; "
        f"with it the gap is dimension {widest}'s, its two values written above (on a phone, narrow cells round to "
        "one decimal).",
    )


def ramp(scale: float = RAMP_SCALE) -> Slide:
    r = lessons.order_experiment(position="ramp", scale=scale)
    return _shuffle_slide(
        r,
        "ramp",
        f"add E = {number(scale)}(t + 1), attend, shuffle",  # E's formula, its values beside the rows
        blind=False,
        # each output row's E as it was computed: left, the E of the position its token came from (it moved with
        # its row); right, its own slot's (added after the shuffle)
        places=(_ramp_places(r.pos, r.perm), _ramp_places(r.pos)),
        shuffled_title="shuffle, add E, attend",
        claim="Add step 2's ramp E (its position rows) to X and the shuffle test's two sides differ: family 1, "
        "absolute rows added to the input.",
        label="max |attn(P X + E) − P attn(X + E)|",
        verdict="position broke the order-blindness: what we want",
        source="the lesson 'Why attention needs position' prints 3.4998 at scale 0.6",
        hall="the course notes print 3.4998 at scale 0.6",
        otherwise="order-blind again: a ramp of size 0 is no position at all",
        caption=f"Three families, the ways position gets in: {FAMILIES}. Each row's E: in 'add E, attend, shuffle', "
        "the one its token brought; in 'shuffle, add E, attend', its slot's.",
    )


def pairs(position: str = "ramp") -> Slide:
    scale = RAMP_SCALE if position == "ramp" else 1.0  # the ramp at step 3's size: "tokens only" is step 3's test
    r = lessons.pair_move_experiment(position=position, scale=scale)
    moves = figures.pair_moves(
        r.together,
        r.tokens_only,
        r.positions_only,
        figures.pair_signal(position, scale),  # steps 2-3's words for the ramp
        height=FIGURE_HEIGHT - 10,  # the caption's three lines under it
    )
    return Slide(
        "Move each token together with its position row and the outputs only follow the move; move tokens only or "
        "positions only and they change.",
        "token + position",  # the bars' words
        r.together,
        verdicts.machine_zero(r.together),
        "0 up to rounding",
        (moves,),
        "≈ 0 moved together, clearly not apart (the 'Why attention needs position' setup, seed 42)",
        hall="the course notes' setup (seed 42)",
        also=(
            ("tokens only" + (" (step 3)" if position == "ramp" else ""), r.tokens_only),
            ("positions only", r.positions_only),  # the bars' words
        ),
        caption="P reorders the rows. Token + position: attn(P X + P E) against P attn(X + E); tokens only: attn(P X "
        "+ E) against P attn(X + E), step 3's test; positions only: attn(X + P E) against attn(X + E). The signals: "
        "sinusoidal rows (sin and cos waves: step 10); learned, a table fitted to data (a real model's: step 15), here "
        "a random stand-in (one fixed table with a last row, as a learned one has); random, drawn afresh from a bell "
        "curve (mean 0, typical size 1: most values near 0). Log axis: equal steps up multiply by equal factors.",
    )


def forgot() -> Slide:
    r = lessons.order_experiment(forget_reorder=True)
    return _shuffle_slide(
        r,
        "forgot",
        "attend (NOT reordered)",
        blind=False,
        claim="A buggy test: compare with the output that was never reordered and even a blind model seems to 'see' "
        "order.",
        label="max |attn(P X) − attn(X)|  (reference not reordered)",
        verdict="a large difference from a bug in the test, not from position",
        source="the mistake in exercise 1 of the lesson 'Why attention needs position'",
        hall="a classic slip, from the course notes",
        tone="problem",
        caption="Step 4's 'positions only' rightly compares with attn(X + E) as it was: no token moved there. Here "
        "the tokens moved, so the reference must move with them: P attn(X), step 1's test.",
    )


def offset(scale: float = 0.6) -> Slide:
    r = lessons.order_experiment(position="constant", scale=scale)
    domain = heatmaps.signed_domain(r.out_perm)
    return Slide(
        "Add one and the same vector c at every position and the shuffle test still finds no order: a constant is not "
        "position.",
        "max |attn(P X + c) − P attn(X + c)|",
        r.max_diff,
        verdicts.machine_zero(r.max_diff),
        "0 up to rounding: still order-blind",
        (
            _heat(
                "offset-rows",
                r.pos,
                f"the added rows: all {number(scale)}",
                rows="",
                cols="dimension",
                row_labels=[f"position {t}" for t in range(r.pos.shape[0])],  # as the difference beside it
                domain=(-max(abs(scale), 1e-12), max(abs(scale), 1e-12)),
                annotate=False,
            ),
            _outputs(
                "offset-difference",
                r.difference,
                "the two sides' difference: all ≈ 0",
                domain,
                # the flat map is the result: said across it (a phone opens on this panel)
                note=_flat(r.max_diff),
            ),
        ),
        "≈ 0: exercise 2 of the lesson 'Why attention needs position'",
        "the two sides differ: not the lesson's constant",
        hall="≈ 0, as the course notes predict",
    )


def causal() -> Slide:
    r = lessons.order_experiment(causal=True)
    places = [str(i) for i in range(r.weights.shape[0])]  # anonymous tokens by position, as the difference's rows
    return Slide(
        "Family 3, implicit: a causal mask, which lets row t mix only tokens 0 to t, carries order by itself.",
        "causal mask, no position: max |attn(P X) − P attn(X)|",
        r.max_diff,
        not verdicts.machine_zero(r.max_diff),
        "order-aware without any position rows",
        (
            _weights(
                "causal-weights",
                r.weights,
                places,
                "causal attention weights (grey: masked)",
                causal=True,
                rows="query position t",  # step 13's names
                cols="key position s",
            ),
            _heat(  # the shuffle test's difference, where step 1's was 0 everywhere: its largest cell is the number
                "causal-difference",
                r.difference,
                f"attn(P X) − P attn(X): up to {number(r.max_diff)}",
                rows="",
                cols="dimension",
                row_labels=[f"position {i}" for i in range(r.difference.shape[0])],
                annotate=False,  # 8 columns of signed values ran into each other; the title holds the largest
            ),
        ),
        "clearly not 0: the causal-mask caveat of the lesson 'A sense of order' (seed 42 setup)",
        hall="not 0, as the course notes warn (seed 42)",
        caption="A decoder, a model writing left to right, masks so: no token reads the tokens after it.",
    )


# ----- lesson 002: dog bites man ----------------------------------------------------------------------------------


def sentences_plain() -> Slide:
    r = lessons.sentence_experiment()
    gap = r.permuted_gap(with_position=False)
    return Slide(
        "Without position, 'man bites dog' is 'dog bites man' reordered: its attention matrix W₂ is W₁ reordered.",
        "max |W₂ − P W₁ Pᵀ|",
        gap,
        verdicts.machine_zero(gap) and verdicts.machine_zero(r.word_diff("man", with_position=False)),
        "a pure reordering",
        (
            *(  # under CAPTIONED: the caption's four lines under them fit 720 px (733 px at CAPTIONED)
                _weights(name, w, frames.labelled(words), title, height=CAPTIONED - 14)
                for name, w, words, title in (
                    ("plain-1", r.weights1_plain, r.words1, "W₁: dog bites man, no position"),
                    ("plain-2", r.weights2_plain, r.words2, "W₂: man bites dog, no position"),
                )
            ),
        ),
        "≈ 0 in the lesson 'dog bites man' (seed 2)",
        hall="random word vectors and matrices (seed 2): ≈ 0 in the course notes too",
        also=(("'man': max |out₁ − out₂|", r.word_diff("man", with_position=False)),),
        caption="W₁, W₂: attention matrices; out₁, out₂: the output of 'man' in each sentence; P W₁ Pᵀ: W₁ with its "
        "rows (P) and its columns (Pᵀ: P's rows as columns) in the new order. Each token has a query vector (what it "
        "looks for) and a key vector (what it offers): a row is one token's query, a column a key, a cell how well "
        "they match: their score (query · key, the sum of their entries' products) made a weight, positive, each row "
        "summing to 1 (softmax).",
    )


def sentences_position(scale: float = 0.5) -> Slide:
    r = lessons.sentence_experiment(scale=scale)
    diff = r.word_diff("man", with_position=True)
    return Slide(
        "Add a random position row to each token before attention and the matrices stop being reorderings: 'man' "
        "now gets two different outputs.",
        f"'man': max |out₁ − out₂| with position × {number(scale)}",
        diff,
        not verdicts.machine_zero(diff),
        "different: word order now matters",
        (
            _weights(
                "position-1", r.weights1_positioned, frames.labelled(r.words1), "W₁: dog bites man, with position"
            ),
            _weights(
                "position-2", r.weights2_positioned, frames.labelled(r.words2), "W₂: man bites dog, with position"
            ),
        ),
        "the lesson 'dog bites man' gives 12.537 at scale 0.5",
        "identical: at scale 0 there is no position",
        hall="the course notes give 12.537 at scale 0.5",
    )


def magnitude(scale: float = 0.001) -> Slide:
    r = lessons.sentence_experiment()
    distance = r.word_distance("man", scale)
    scales, distances = lessons.magnitude_curve("dog bites man", "man bites dog", "man")
    curve = figures.distance_curve(scales, distances, scale, distance, log=True)  # the magnitude page's, log-log
    outs = r.word_outputs("man", scale)
    close, tolerance = verdicts.numerically_equal(*outs), verdicts.equal_tolerance(outs[1])
    if scale > 0:  # the tolerance drawn where the curve is read against it (a log axis has no scale 0 to mark)
        level = frames.level_frame(
            tolerance, f"tolerance at {number(scale)}: {number(tolerance)}", f"tolerance: {number(tolerance)}"
        )  # the scale is the marker's own label; on a phone the long label ran under its line
        curve = replace(curve, builder=lines_bars.lines_marked_level, frames=(*curve.frames, level))
    curve = replace(curve, name="magnitude-curve", shape={**curve.shape, "height": FIGURE_HEIGHT - 30})  # + caption
    return Slide(
        "Shrink the position rows and the distance between the two outputs of 'man' shrinks with them (in "
        "proportion near 0): 0 up to rounding only at scale 0, no position (step 7).",
        f"'man': max |out₁ − out₂| at scale {number(scale)}",
        distance,
        not close,
        "small, but over the tolerance: not equal" if distance < 1 else "clearly different",
        (curve,),
        "exercise 3 of the lesson 'dog bites man': 0.084318 at 0.001",
        "equal within the tolerance: at this scale position is invisible",
        hall="course notes: 0.084318 at scale 0.001",
        tone="state",
        also=(("the tolerance, at most", tolerance),),
        # e-notation, as step 1 taught it and every headline writes it (a superscript's digits were 9 px in a hall)
        caption="The tolerance: the largest difference still counted as equal, 1e-5 × the size of each value compared "
        "(+ 1e-8), value by value; float rounding is near 1e-16.",
    )


# ----- lesson 003: sinusoids --------------------------------------------------------------------------------------


WIDTH = 8  # the sinusoid steps' width d: the lesson's D = 8 (four pairs), so ‖pe‖² = 4 on every step of the stretch
WIDTHS = (4, 8, 16, 32, 64)  # steps 10 and 11 offer the same widths (each step's older options among them)


def _wavelengths(d: int, *, height: int) -> Figure:
    """Each pair's wavelength 2π·10000^(2i/d) as a bar by pair i on a log axis, its value written over it (with more
    than four pairs, the slowest's only): the slowest is the step's number, which the 64-position table is far too
    short to show. Pair 0's value goes above its short bar on a phone too (written upright inside, it was cut)."""
    waves = properties.wavelengths(d)
    every = len(waves) <= 4
    shown = [number(float(w), grouped=True) if every or i == len(waves) - 1 else "" for i, w in enumerate(waves)]
    shape = dict(
        title=f"one turn every 2π·10000^(2i/{d}) positions",
        x_title="pair i (dimensions 2i, 2i + 1)",
        y_title="positions per turn (log)",
        y_format="~s",
        height=height,
    )
    by_pair = {str(i): float(w) for i, w in enumerate(waves)}
    outside = [i == 0 for i in range(len(waves))]
    return figures.log_bars("table-wavelengths", by_pair, shown, ("pair", "wavelength"), outside, **shape)


def table(d: int = WIDTH) -> Slide:
    pe = sinusoidal(64, d)
    waves = properties.wavelengths(d)
    shuffled = lessons.order_experiment(position="sinusoidal", d=d).max_diff  # step 1's test with these rows added
    return Slide(
        "Sinusoid position rows break the shuffle test too: pair i (dimensions 2i, 2i + 1) turns around a circle, its "
        "wavelength (positions before it repeats) growing with i.",
        "wavelength, pair 0 (2π)",  # pair 0 first, then the slowest: read left to right as i grows
        float(waves[0]),
        bool(waves[0] < waves[-1]),
        "grows with i",  # under the row: pair 0's and the slowest pair's wavelengths
        (
            _grid(
                "table",
                pe,
                f"row t, pair i: sin, cos of t / 10000^(2i/{d})",
                rows="position t",
                cols="dimension (2i: sin, 2i + 1: cos)",
                domain=(-1.0, 1.0),
                height=FIGURE_HEIGHT - 50,  # the caption's line under it still fits 720 px
            ),
            _wavelengths(d, height=FIGURE_HEIGHT - 50),
        ),
        "the sinusoid formula with base 10000",
        hall=f"the sinusoid formula; its base: the 10000 in t / 10000^(2i/d), d = {d}",  # d: the control's, 13 px
        also=((f"wavelength, pair {d // 2 - 1}", float(waves[-1])), ("shuffle test, rows added", shuffled)),
        caption="Step 1's shuffle test breaks as with step 3's ramp: these too are added absolute rows (family 1), but "
        f"no value leaves ±1 however long the input. Each pair's wavelength is 10000^(2/{d}) = "
        f"{number(float(waves[1] / waves[0]))}× the last's.",
    )


def norms(d: int = WIDTH) -> Slide:
    pe = sinusoidal(64, d)
    squared = properties.squared_norms(pe)
    deviation = properties.norm_deviation(pe)
    bars = figures.row_norms(squared, d, bars=True)  # the sinusoids page's, as bars with the lecture's words
    words = dict(title="‖peₜ‖² of every row: each bar reaches d/2", x_title="position t", y_title="‖peₜ‖²")
    bars = replace(bars, name="norms", shape={**bars.shape, **words, "height": FIGURE_HEIGHT - 60})  # and a caption
    return Slide(
        "Every row peₜ (position t's row) has the same length: sin² + cos² = 1 per pair, so its squared length "
        "‖peₜ‖² = d/2 (d: the width, its number of dimensions).",
        "max |‖peₜ‖² − d/2| over 64 positions",
        deviation,
        verdicts.negligible(deviation),
        "every row the same",  # its value, d/2, is the second headline
        (bars,),
        "the lesson 'A sense of order': 4 for every row at d = 8",
        hall="the course notes: 4 for every row at d = 8",
        also=(("‖peₜ‖², the longest row", float(squared.max())),),  # d/2 up to rounding: the lesson's 4 at d = 8
        caption="Step 1's shuffle test is broken by rows that tell positions apart: here no row is louder than "
        "another, so it is where each row points that does, not its size.",
    )


def shift(k: int = 3) -> Slide:
    pe = sinusoidal(64, WIDTH)
    residual = properties.offset_residual(pe, k)
    m = offset_matrix(k, WIDTH)
    return Slide(
        f"Moving k = {k} positions is one fixed matrix Mₖ for every row: a rotation of each pair.",
        f"max |row (t + {k}) − Mₖ row t|  (k = {k})",  # in words: a subscript's "+3" read as a speck from the back
        residual,
        verdicts.negligible(residual),
        "one matrix shifts every row",
        (
            _heat(
                "shift-matrix",
                m,
                f"Mₖ, k = {k}, d = {WIDTH}: 2 × 2 rotations on the diagonal",
                # Mₖ peₜ = peₜ₊ₖ: a row per output dimension (in words: subscripts in axis type read as specks)
                rows=f"dimension of row (t + {k})",
                cols="dimension of row t",
                domain=(-1.0, 1.0),
                annotate=False,
                height=CAPTIONED,  # the caption's three lines fit 720 px
            ),
            _grid(
                "shift-similarity",
                properties.similarity(pe[:32]),
                "row t · row s: constant along diagonals",  # pe · peᵀ in words (a small ᵀ read as a quote)
                rows="position t",
                cols="position s",  # step 13's key position s: one letter for the offset t − s
                domain=heatmaps.signed_domain(properties.similarity(pe[:32])),
                square=True,
                height=CAPTIONED,
            ),
        ),
        "≈ 0: the offset property of the sinusoid formula (the claim above)",
        hall="≈ 0: the formula's offset property (rows k apart: one matrix)",
        caption="Rows k apart relate by one Mₖ wherever they sit, so attention can read distance t − s (what step 1's "
        "shuffle test changes), not only where each row sits. Mₖ peₜ: Mₖ times row t, each pair turned by its "
        "own fixed angle. In 'row t · row s', pe · peᵀ (pe: the table, row t peₜ), cell (t, s) is peₜ · peₛ, one "
        "value along each diagonal (where t − s is the same). Added to the tokens, though, they still change a score "
        "when every position moves: step 13 shows it, and that rotating query and key instead does not.",
    )


def _moved_too(shift: int) -> tuple[tuple[str, float], ...]:
    """Step 13's second headlines: the largest score change at +`shift` of the other schemes the recap's column shows
    (the biases and the mask together, then added sinusoids, then MiniLM's table where it has rows that far)."""
    q, k = np.random.default_rng(0).standard_normal((2, families.D))
    bias = max(families.bias_change("alibi", shift), families.bias_change("t5", shift), families.mask_change(shift))
    numbers = [
        ("ALiBi, T5, mask", bias),
        ("added sinusoids", relative.shift_change(q, k, 24, shift, scheme="sinusoidal")),
    ]
    if shift + families.T <= families.table_rows():
        numbers.append(("MiniLM (step 15)", families.learned_change(shift)))  # d = 384: a real model's, as it is
    return tuple(numbers)


def rotary(shift: int = 100) -> Slide:
    q, k = np.random.default_rng(0).standard_normal((2, families.D))
    changes = {  # each score at positions shift..shift + 23 minus the same query and key's score at 0..23
        scheme: relative.fixed_content_scores(q, k, 24, scheme=scheme, start=shift)
        - relative.fixed_content_scores(q, k, 24, scheme=scheme)
        for scheme in ("rotary", "sinusoidal")
    }
    moved = float(np.abs(changes["rotary"]).max())  # relative.shift_change's number, from the map already computed
    domain = heatmaps.signed_domain(*changes.values())  # one colour scale: the two maps compare cell by cell
    past = "" if shift + families.T <= families.table_rows() else " MiniLM's table has no rows that far."
    return Slide(
        "Family 2, relative: rotary (RoPE) turns each query and key vector by its position, so a score sees only "
        "the offset t − s: move every position and no RoPE score changes.",
        f"RoPE, +{shift}",  # the largest change of any score when every position moves by `shift`
        moved,
        verdicts.negligible(moved),
        "RoPE: ≈ 0",  # under RoPE's number, named: a bare "unchanged" read as all four's verdict (longer words wrapped)
        tuple(
            _grid(
                name,
                changes[scheme],
                title,
                rows="query position t",
                cols="key position s",
                domain=domain,
                square=True,
                height=FIGURE_HEIGHT - 66,  # the caption's three lines fit 720 px
                value_title="change",
                note=_flat(float(np.abs(changes[scheme]).max()), rounding=verdicts.negligible),
            )
            for name, scheme, title in (
                ("rotary-moved", "rotary", f"RoPE, d = {families.D}: each score's change at +{shift}"),
                ("sinusoids-moved", "sinusoidal", f"added sinusoids, d = {families.D}: each score's change"),
            )
        ),
        f"each: the largest change of any score at +{shift}; RoPE's formula as its paper, RoFormer (Su et al.), "
        "gives it, computed here",
        hall=f"each: the largest score change at +{shift}; ALiBi, T5: bias by offset",
        also=_moved_too(shift),
        caption="RoPE: rotary position embedding (an embedding: the vector a token or a position gets; here an "
        f"angle per position; d = {families.D}). ALiBi (attention with linear biases) and T5 (a Google model's "
        "scheme) add a bias to the scores (a number added to each) instead: ALiBi a penalty −slope × |t − s| (slope "
        f"{families.alibi_slope_words()} here), "
        "T5 a learned bias for each bucket (a range of t − s), here a random stand-in. The mask: step 14's, hiding "
        "each query's later keys. Learned, trained: fitted to data; MiniLM: a real model (step 15, "
        f"d\u00a0=\u00a0{families.minilm_width()}).{past}",
    )


def real_model() -> Slide:
    from posviz.models import minilm

    pos = minilm.position_table()
    table_image = figures.learned_table_picture(
        pos, value_title="value (the largest 1% of values share the end colours)"
    )
    rows, width = pos.table.shape  # the raw table reads as noise: its title says the right map is where it is read
    table_image = replace(table_image, shape={**table_image.shape, "title": f"the table: {rows} rows × d = {width}"})
    cosine = _grid(  # a chart with axes, square and as tall as the step allows; every value drawn (no block means)
        "real-cosine",
        pos.cosine,
        "its rows compared: cosine",
        rows="position t",
        cols="position s",  # step 13's key position s: one letter for the offset t − s
        domain=(-1.0, 1.0),
        square=True,
        height=FIGURE_HEIGHT + 20,  # 30 more pushed the step to 727 px (the fit test)
        most=pos.cosine.size,
        value_title="cosine",
    )
    return Slide(
        f"A real encoder (a model reading whole texts), MiniLM, is family 1: a learned table of {pos.table.shape[0]} "
        "absolute rows added to the input; neighbours point alike.",
        "median (middle) cosine of neighbouring rows (1: same direction, 0: right angles)",
        pos.neighbour_cosine,
        verdicts.pointing_alike(pos.neighbour_cosine),
        "a smooth code, learned without a formula",
        (table_image, cosine),
        f"the model's own parameters (its learned numbers; published as {minilm.NAME}), its position table stored as "
        "published (32 binary digits, bits, per number: about 7 decimal digits), read on this server",
        hall="the model's own parameters (its learned numbers): its position table",
    )


def last_row(T: int = 640) -> Slide:
    from posviz.drawing import lecture_charts
    from posviz.models import minilm

    pos = minilm.position_table()
    rows = pos.table.shape[0]
    refusal = families.refusal(T)  # the real embedding layer asked for T positions
    missing = max(0, T - rows)
    curve = pd.DataFrame({"position": np.arange(min(T, rows)), "norm": pos.norms[: min(T, rows)]})
    # the band's words name its positions, not their count: on a phone they sit left of the band, over rows that exist
    gap = frames.gap_frame(min(T, rows), T, f"no row: {rows}-{T - 1}" if missing else "")
    spike = _spike(pos.norms)  # a caption line: the chart is that much shorter
    shape = dict(
        title=f"‖row t‖ of MiniLM's table, for an input of {T} tokens",
        y_title="‖row t‖",
        height=CAPTIONED - 42 if spike else FIGURE_HEIGHT,  # the caption's three lines
    )
    return Slide(
        f"A learned table ends at its last row: MiniLM has no row for position {rows} or past it, so a longer input "
        "cannot be encoded.",
        f"positions of a {T}-token input with no row in MiniLM's table",
        float(missing),
        refusal is not None,
        f"MiniLM refuses a {T}-token input: its table has {rows} rows (the model stops with an error)",
        (
            Figure(
                "lastrow-norms",
                lecture_charts.table_end,
                (curve, gap, _spike_marks(pos.norms, T, named=bool(spike))),
                shape,
            ),
        ),
        f"the model's own table: {rows} rows, positions 0 to {rows - 1}",
        f"all {T} positions have a row: a {T}-token input fits",
        tone="problem",
        hall=f"the model's own table: {rows} rows (0 to {rows - 1})",
        caption=spike,
    )


def _spike_marks(norms: np.ndarray, T: int, *, named: bool) -> pd.DataFrame:
    """The rows step 17's caption names, marked on its chart with their lengths: row 0 (its line runs off the top)
    and the spike at the training window's last row; no rows when the caption names none (named: _spike's caption
    is not empty)."""
    window = _window()
    rows = ([0] if int(np.argmax(norms)) == 0 else []) + [window - 1] + _tail(norms)[-1:] if named else []
    return pd.DataFrame(
        {
            "position": rows,
            "norm": norms[rows],
            "label": [f"t = {t}: {number(_digits(float(norms[t]), 3))}" for t in rows],
            "end": [t == norms.size - 1 for t in rows],  # its label stands left of it, off the band
        }
    ).query("position < @T")


def _tail(norms: np.ndarray) -> list[int]:
    """The table's last 8 rows that stand out (over 1.3× the median of the rows past the training window): the
    chart's second feature, said with no cause this step can show."""
    window = _window()
    return [t for t in range(norms.size - 8, norms.size) if norms[t] > 1.3 * np.median(norms[window:])]


@lru_cache(maxsize=1)
def _window() -> int:
    """The training window MiniLM's tokenizer file cuts and pads to (128): its card's training length."""
    import json

    from posviz.models.minilm import text

    return int(json.loads((text.DATA / "tokenizer.json").read_text())["truncation"]["max_length"])


def _spike(norms: np.ndarray) -> str:
    """Step 17's caption: what the spike in the norms is, when the data shows it (row W - 1 the longest of rows 1 to
    2W and over 1.3× their median, W the window its tokenizer file cuts and pads to, the card's training length: "The
    sequence length was limited to 128 tokens"), else nothing; before it, that row 0 (where the tokenizer puts
    [CLS]) is the longest, when it is."""
    window = _window()
    near = norms[1 : 2 * window]
    if int(np.argmax(near)) + 1 != window - 1 or near.max() < 1.3 * np.median(near):
        return ""
    first = (  # its length written: the line runs off the chart's top
        "Row 0, where every input's first token sits (the marker [CLS], put before the text), is the longest "
        f"({number(_digits(float(norms[0]), 3))}). "
    ) * (int(np.argmax(norms)) == 0)
    tail = _tail(norms)
    # said, with no cause claimed: neither the card nor the training description gives one
    end = f" Rows {_span(tail)} are long too, for a reason its description does not give." if len(tail) > 1 else ""
    end = f" Row {tail[0]} is long too, for a reason its description does not give." if len(tail) == 1 else end
    return (
        f"{first}The spike at t = {window - 1}: MiniLM's final training cut its texts after that position (its "
        "published description), so the rows past it were last trained earlier; asked directly, as here, the model "
        f"reads up to {norms.size} tokens and refuses more (software using it cuts a longer text first).{end}"
    )


SCHEME_NAMES = {
    "none": "the causal mask alone",
    "learned": "a learned table",
    "sinusoid": "added sinusoids",
    "rope": "RoPE",
    "alibi": "ALiBi",
}
# step 17's short names of the schemes: its buttons, bars, line ends and headlines (never an identifier like "rope")
SCHEME_LABELS = {"none": "mask only", "learned": "learned", "sinusoid": "sinusoids", "rope": "RoPE", "alibi": "ALiBi"}
BUYS_SCHEMES = ("alibi", "rope", "sinusoid", "none")  # step 17's choice of the headline's scheme
BUYS_NAMES = tuple((k, SCHEME_LABELS[k]) for k in BUYS_SCHEMES)  # what its buttons say
MATCHED_NOTE = "the matched models' held-out loss: computed once per server, from its start (1-3 minutes on two cores)"


def _matched_curves() -> dict[str, np.ndarray]:
    """The matched family's held-out curves, computed once per process (the server starts them at launch)."""
    from posviz.experiments import matched

    return matched.family_curves()


MATCHED_HEIGHT = FIGURE_HEIGHT - 85  # px: step 18's two plots (were 128), above its three-line caption (158: past 720)
MATCHED_STROKE = 3.0  # px: step 18's loss lines, seen from a hall's back row (Vega draws 2)


def buys(scheme: str = "alibi", reach: int = 8) -> Slide:
    from posviz.drawing import lecture_charts
    from posviz.drawing.colours import SCHEME_COLOURS, TEXT_COLOUR
    from posviz.experiments import matched as ex
    from posviz.models import matched

    T = matched.config().T_train
    spans = {b // T: (a, b) for a, b in ex.bins(T)[1:]}  # reach k x T_train: the bin [k/2 T, k T)
    if reach not in spans:
        raise ValueError(f"reach must be one of {', '.join(map(str, spans))} (x T_train), got {reach}")
    a, b = spans[reach]
    curves = _matched_curves()
    rise = ex.rises(curves, T, a, b)
    mine, other = rise[scheme], rise["alibi" if scheme == "rope" else "rope"]
    extremes = ex.extremes(rise)
    least, most = (" or ".join(SCHEME_NAMES[k] for k in group) for group in extremes)
    # every scheme the claim names, in headline type: the chosen one, its comparison, then the claim's others
    named = [rise[k] for group in extremes for k in group if k not in (scheme, other.scheme)]
    # the matched page's chart, each line named at its end, without the learned table's: its lines stop at 127, and
    # its name, drawn in the column past the others, sat far from them (the bars say it has no row past 127)
    beyond = {run: c for run, c in curves.items() if not run.startswith("learned")}
    curve = figures.heldout_by_position(beyond, T)
    # "held-out" is defined in the caption only; mask only's two seeds' lines lie one on the other (0.001 apart)
    title = "loss on unseen text, a line per seed (some overlap)"  # the x axis names the position
    shape = {**curve.shape, "title": title, "height": MATCHED_HEIGHT, "stroke": MATCHED_STROKE}
    shape["reference_colour"] = TEXT_COLOUR  # the window's end: not the learned table's orange
    labels = {**SCHEME_LABELS, "learned": f"learned (to {T - 1})"}  # "RoPE", as the claim writes it
    shape["colours"] = tuple((labels[k], c) for k, c in shape["colours"])
    shape["front"] = tuple(labels[k] for k in shape.get("front", ()) if k != "learned")  # its lines: not drawn
    lines, window = curve.frames
    lines = lines.assign(scheme=lines.scheme.map(labels))
    window = window.assign(label="")  # the axis names the dashed line: its words in the plot crossed ALiBi's lines
    gap = float(lines.loss.max()) * 22 / shape["height"]  # a 20 px name's height in the y axis's units (from 0)
    ends = frames.line_ends(lines, key="scheme", x="position", y="loss", gap=gap)
    # the names' room past the lines' end, to a round 200 ("sinusoids" the longest): the last tick sits inside
    ends = ends.assign(room=float(np.ceil(lines.position.max() * 1.45 / 200) * 200))
    # the trained length and the bars' windows' edges, 128, 512, 1024 (none in the names' room; 0 sat on 128)
    shape["x_ticks"] = tuple(float(k * T) for k in (1, 4, 8) if k * T <= lines.position.max() + 1 + T / 2)
    shape["x_title"] = f"position t (dashed: the trained length, {T})"
    shape["y_ticks"] = tuple(lecture_charts.round_ticks(float(lines.loss.max()), most=4))  # 0, 2, 4: labels apart
    curve = Figure(curve.name, lecture_charts.lines_labelled, (lines, window, ends), shape)
    no_row = f"no row past {T - 1}"  # the learned table
    bars = pd.DataFrame(
        {
            "category": [labels[k] for k in matched.SCHEMES],
            "value": [rise[k].mean if k in rise else 0.0 for k in matched.SCHEMES],
            "low": [rise[k].low if k in rise else 0.0 for k in matched.SCHEMES],
            "high": [rise[k].high if k in rise else 0.0 for k in matched.SCHEMES],
            # the seeds' range (the mean is the bar and the headline): drawn only, a range was a line of a few px
            "shown": [rise[k].written if k in rise else no_row for k in matched.SCHEMES],
            "chosen": [k == scheme for k in matched.SCHEMES],
        }
    ).assign(text_at=lambda f: f[["value", "high"]].max(axis=1))
    span = (min(0.0, float(bars.low.min())) * 1.2, float(bars.text_at.max()) * 1.9)  # room for a range "+2.31..+2.74"
    shape = dict(
        colours=tuple((labels[k], c) for k, c in SCHEME_COLOURS.items()),
        title=f"loss at {a}-{b - 1} minus 0-{T - 1}: seeds' range",
        x_title="nats per byte",
        span=span,
        ticks=lecture_charts.spread_ticks(float(bars.low.min()), float(bars.high.max())),
        height=MATCHED_HEIGHT,
    )
    windows = f"{ex.WINDOWS} stretch{'es' if ex.WINDOWS > 1 else ''}"  # "windows": undefined for a first year
    # why RoPE rises most, said only when it does: the usual explanation, which this experiment does not test
    why = (
        " RoPE's usual explanation, untested here: scores see only offsets (step 13); none past T_train occurred "
        "in training."
    ) * ("rope" in extremes[1])
    apart = mine.high < other.low or other.high < mine.low
    # a rise is not a level: a scheme the claim says rose least that was already the worst inside the window
    inside: dict[str, list[float]] = {}  # each scheme's seeds' mean loss inside the trained window
    for run, c in curves.items():
        inside.setdefault(run.rsplit("-seed", 1)[0], []).append(float(c[:T].mean()))
    levels = {k: float(np.mean(inside[k])) for k in rise}
    worst = [k for k in extremes[0] if levels[k] == max(levels.values())]
    # said in hall type in place of the loss's words (the caption defines loss too)
    level = "; ".join(f"{SCHEME_LABELS[k]} starts highest at 0-{T - 1}: a rise is not a level" for k in worst)
    pair = f"{SCHEME_LABELS[scheme]}, {SCHEME_LABELS[other.scheme]}"  # the two headlines, in their order
    # one number of decimals for the headlines side by side (0.23 beside 0.259 read as a ranking): the most any of
    # their bars needs (3 where 2 would print a scheme's two seeds alike)
    places = max(r.places for r in (mine, other, *named))
    return Slide(
        f"Small models trained here on {T}-byte texts, alike but for position: at {a}-{b - 1} bytes, loss "
        f"rose least with {least} and most with {most}.",
        f"{SCHEME_LABELS[scheme]}: loss rise",  # at the claim's a-b (the bars' title too)
        round(mine.mean, places),
        apart,
        f"{pair}: seeds' ranges apart",  # which two headlines' ranges: the bars write them
        (curve, Figure("buys-rise", lecture_charts.spread_bars, (bars,), shape)),
        # a phone shows this line, not the hall's: the rise-is-not-a-level caveat goes first here too
        (f"{level}; " if level else "")
        # the badge's two ranges in words too: a phone's bar labels are small
        + f"seeds' ranges: {SCHEME_LABELS[scheme]} {mine.seeds_range}, {SCHEME_LABELS[other.scheme]} "
        f"{other.seeds_range}; computed on this server: the small models trained here, alike but for position",
        f"{pair}: seeds' ranges overlap",
        tone="state",
        hall=level or f"loss: how badly the next byte is guessed; {len(matched.seeds())} runs (seeds) a scheme",
        also=tuple((f"{SCHEME_LABELS[r.scheme]}: loss rise", round(r.mean, places)) for r in (other, *named)),
        caption=f"Decoders (step 14), each token a byte (about a character), {len(matched.seeds())} seeds a scheme "
        f"(headlines: means; mask only: no rows, rotation or bias; learned: {T} rows), T_train = {T} bytes, "
        f"the longest sequence trained on; unseen (held-out): text never trained on ({windows} of {ex.FACTOR * T:,} "
        "bytes). Loss: how badly the next byte is guessed, in nats (natural-log units) per byte; not the ALiBi or "
        f"RoPE papers' results.{why}",
    )


SENTENCES = ("dog bites man", "man bites dog")
REFERENCES = (("the same sentence", "dog bites man"), ("reordered", "man bites dog"),
              ("a paraphrase", "a man was bitten by a dog"), ("unrelated", "the stock market fell today"))  # fmt: skip


FETCHED_WORDS = "the published 32-bit weights (fetched): the recorded cosines to 1e-6 (tested)"  # FETCHED_NOTE


def _digits(value: float, digits: int = 2) -> float:
    """`value` to `digits` significant digits: a third headline column holds "2.5e-5", not "2.4549e-5" (it wrapped),
    and a model's number is read aloud as "0.42", not "0.42228" (five digits carried no meaning)."""
    return float(f"{value:.{digits}g}")


def real_sentences(scale: float = 1.0) -> Slide:
    from posviz.drawing import lecture_charts, sentence_charts
    from posviz.models import minilm
    from posviz.models.minilm import encoder

    pair = encoder.compare_texts(*SENTENCES, scale)
    said = "the model" if scale == 1.0 else f"position × {number(scale)}"  # the sentences page's words
    layers = frames.layer_distance_frame(
        pair.layer_distance, pair.layer_distance_plain, labels=(said, "position rows removed")
    )
    model = encoder.active_encoder()
    kept = 5 if encoder.float32_fetched() else 2  # digits: the 8-bit copy's cosines are within ±0.002 of the model's
    shipped_note = (  # minilm.PRECISION in a hall's words: int8, float32 are format names
        "a copy with its parameters stored in 8 bits (binary digits: 256 levels each): cosines within "
        f"±{encoder.COSINE_TOLERANCE:g} of the published 32-bit model's (tested)"
    )
    first = encoder.embed_sentence(model, minilm.tokenize(SENTENCES[0]).ids, scale)
    cosines = [
        encoder.cosine(first, encoder.embed_sentence(model, minilm.tokenize(text).ids, scale)) for _, text in REFERENCES
    ]
    references = pd.DataFrame(
        {
            "compared with": [f"{name}\n'{text}'" for name, text in REFERENCES],
            "cosine": cosines,
            "shown": [number(_digits(c, kept)) for c in cosines],  # as the headlines
        }
    )
    height = FIGURE_HEIGHT - 80  # its caption's line fits 720 px (two lines fitted at - 104)
    return Slide(
        "MiniLM tells 'dog bites man' from 'man bites dog' only through its position rows, yet finds the two more "
        "alike than a paraphrase.",
        f"cosine, {said}",  # one line: two-line labels pushed the step past 720 px
        _digits(pair.cosine, kept),
        not verdicts.same_direction(pair.cosine),
        "order matters",
        (
            Figure(
                "real-references",
                lecture_charts.across_bars,
                (references,),
                dict(
                    category="compared with",
                    value="cosine",
                    text="shown",
                    title=f"cosine with '{SENTENCES[0]}'",
                    x_title=f"cosine, {said}",
                    height=height + 50,
                    ticks=(0.0, 0.25, 0.5, 0.75, 1.0),  # a cosine ends at 1: the room past it holds the values
                ),
            ),
            Figure(
                "real-layers",
                sentence_charts.layer_distances,
                (layers,),
                dict(title="the two sentences apart, layer by layer", y_title="1 − cosine", height=height),
            ),
        ),
        FETCHED_WORDS if encoder.float32_fetched() else shipped_note,
        "1 up to rounding: without position the encoder reads a bag of words",
        # which copy of the model ran, in hall type (the caption says what a layer is)
        hall="the published 32-bit model (fetched)"
        if encoder.float32_fetched()
        else f"parameters at 8 bits (binary digits): ±{encoder.COSINE_TOLERANCE:g} of the unrounded cosines",
        # the 0-layer gap's reason (each token's row rescaled alone) is the speaker note's: beyond a first year, and
        # its 2.5e-5 sat in caption type with the chart drawing it as 0
        caption="A layer: attention over all tokens, then a small network on each token alone (times a matrix, "
        "each number bent by a fixed curve, times another; MiniLM has 6 layers); a sentence's vector: the mean of its "
        "tokens' outputs. A paraphrase: the same meaning in other words.",
        also=(
            ("cosine, no position rows", _digits(pair.cosine_plain, kept)),
            ("a paraphrase", _digits(cosines[2], kept)),
        ),
    )


SMOLLM2_RUNS = {  # step 19's SmolLM2 runs: (rotation, causal) for decoder.sentence_cosine / whole.sentence_cosine
    "SmolLM2": ("rope", True),
    "SmolLM2, RoPE off": ("none", True),
    "and mask off": ("none", False),
}
# smollm2.PRECISION_WORDS in a hall's words (no "float32")
HALL_PRECISION = (
    "parameters rounded to 4 or 8 bits, 16 or 256 levels, to save space; arithmetic in 32-bit floats, about 7 digits"
)
SMOLLM2_BARS = {  # step 19's bar label for each run: what it keeps, one short line (two-line labels ran together)
    "SmolLM2": "RoPE + mask",
    "SmolLM2, RoPE off": "mask only",
    "and mask off": "both off",
}


def _carriers(model: float, mask_only: float, held: tuple[int, int] | None = None) -> str:
    """What carries the order in step 19's claim, read from the measured cosines (RoPE on, RoPE off); `held`: in how
    many of how many re-roundings of the parameters the comparison holds (said with it)."""
    if verdicts.same_direction(mask_only):
        return "RoPE (family 2) and its causal mask (family 3) move the two sentences apart together."
    told = "its causal mask (family 3) alone moves the two sentences apart"
    often = "" if held is None else f" (in {held[0]} of {held[1]} re-roundings)"
    if model < mask_only:
        return f"{told}, RoPE (family 2) a little further{often}."
    return f"{told}, further than with RoPE (family 2) on{often}."


def _gap_or_zero(cosine: float) -> float:
    """1 − cosine to three digits, or 0 where the cosine is 1 up to rounding (step 19's headlines, as its bars)."""
    return 0.0 if verdicts.same_direction(cosine) else _digits(1 - cosine, 3)


def _past(ticks: list[float], end: float) -> tuple[float, ...]:
    """Round ticks over the bars (at most 3: at 390 px "0.000 0.001 … 0.006" ran into each other) and one step past
    the longest where the axis reaches it: 0, 0.002, 0.004 around 0.00388 and 0.00303, which 0, 0.002 left unticked.

    >>> _past([0.0, 0.002], 0.0062), _past([0.0, 0.002], 0.0035), _past([0.0], 1.0)
    ((0.0, 0.002, 0.004), (0.0, 0.002), (0.0,))
    """
    if len(ticks) > 1 and ticks[-1] + (ticks[1] - ticks[0]) <= end:
        ticks = [*ticks, round(ticks[-1] + ticks[1] - ticks[0], 12)]
    return tuple(ticks)


def _apart(cosines: dict[str, float], layers: str) -> Figure:
    """Step 19's bars: 1 − cosine of each SmolLM2 run on a linear axis from 0, each value written at its bar's end
    as its headline writes it (a cosine of 1 up to rounding: 0, with no bar; the axis title says so)."""
    from posviz.drawing import lecture_charts

    gaps = {run: 0.0 if verdicts.same_direction(c) else 1 - c for run, c in cosines.items()}
    end = max(gaps.values()) * 1.6  # room for the values past the longest bar
    bars = pd.DataFrame(
        {
            "run": [SMOLLM2_BARS[run] for run in cosines],
            "1 − cosine": list(gaps.values()),
            # as headlined: the headlines' one rule (_gap_or_zero); the axis title says what its 0 is
            "shown": [number(_gap_or_zero(c)) for c in cosines.values()],
        }
    )
    shape = dict(
        category="run",
        value="1 − cosine",
        text="shown",
        title=f"1 − cosine of the two orders ({layers})",  # half a row beside the re-roundings
        x_title="1 − cosine (0: the same vector, up to rounding)",
        height=FIGURE_HEIGHT - 110,  # three headlines above it, a three-line claim and a four-line caption
        span=(0.0, end),
        ticks=_past(lecture_charts.round_ticks(max(gaps.values()), most=3), end),
        two_lines=False,  # SMOLLM2_BARS: one line each
    )
    return Figure("decoder-cosines", lecture_charts.across_bars, (bars,), shape)


def decoder() -> Slide:
    from posviz.experiments.decoder import sentence_cosine, shipped_layers

    fetched = whole_cosines()  # all 30 layers, when `posviz models fetch smollm2` has run
    smol = fetched or {run: sentence_cosine(rotation, causal=c) for run, (rotation, c) in SMOLLM2_RUNS.items()}
    model, sink = smol["SmolLM2"]
    mask_only, neither = smol["SmolLM2, RoPE off"][0], smol["and mask off"][0]
    layers, of = shipped_layers()
    # how far rounding the parameters moves the claim's comparison: the shipped layers rounded again, as coarsely;
    # in how many re-roundings the claim's order holds (RoPE further apart when the model's cosine is the lower)
    redrawn = _rerounding() if fetched is None else None
    held = None
    if redrawn is not None:
        on, off = redrawn["RoPE + mask"], redrawn["RoPE off"]
        held = (int(np.sum((on > off) == (model < mask_only))), len(off))
    rounded = (
        f" A re-rounding: its parameters rounded again as coarsely as stored ({len(redrawn['RoPE off'])} in all: a "
        "dot each in 'RoPE + mask minus mask only'; the ring: as stored, as the headlines)."
        if redrawn is not None
        else ""
    )
    if fetched is None:
        source, after, used = (
            f"SmolLM2's first {layers} layers, run now on this server: {HALL_PRECISION}",
            f"SmolLM2's first {layers} of its {of} layers (only part of the model: the whole model's numbers differ)",
            f"{layers} of {of} layers",
        )
    else:
        source = f"the fetched whole SmolLM2, run now on this server: {HALL_PRECISION}"
        after = f"all {of} layers"
        used = f"all {of} layers"
    return Slide(
        "SmolLM2, a small LLM (large language model), has no position rows: " + _carriers(model, mask_only, held),
        "SmolLM2: 1 − cosine",  # the bars' measure (their title names the layers): short, so a phone's three align
        _gap_or_zero(model),  # three digits: the claim's "a little further" rests on the second
        not verdicts.same_direction(model),
        "above 0: the orders differ",
        (_apart({run: cosine for run, (cosine, _) in smol.items()}, used),)
        + ((_rerounded(redrawn, (1 - model) - (1 - mask_only)),) if redrawn is not None else ()),
        source,
        "0 up to rounding: the decoder does not see the order here",
        hall=f"run now on this server, {used}; parameters in 4 or 8 bits",  # the caveat, in hall type
        caption="RoPE off: no query or key turned; mask off: every token reads all. Parameters in 4 or 8 bits: "
        "rounded to 16 or 256 levels. "
        f"Each sentence's vector ({' and '.join(repr(t) for t in SENTENCES)}): the mean of its three word "
        f"tokens' states (a layer's output vectors) "
        f"after {after}, without <|im_start|>, the marker token each chat message starts with (step 21 shows "
        f"attention leans on it).{rounded}",
        also=(
            ("RoPE off, mask only", _gap_or_zero(mask_only)),
            # the baseline the claim's "alone" rests on, as its bar writes it: rounding is 0, never a signed tiny value
            ("both off", _gap_or_zero(neither)),
        ),
    )


def _rerounded(redrawn: dict[str, np.ndarray], stored: float) -> Figure:
    """Step 19's re-roundings drawn: each one's 1 − cosine with RoPE and the mask minus with the mask only, a dot
    each in rank order, the count above 0 written (the claim's "in 16 of 20"; 4 go the other way, seen), and the
    stored model's own difference (`stored`: the headlines' two gaps subtracted) as a ring among them."""
    from posviz.drawing import lecture_charts

    gaps = redrawn["RoPE + mask"] - redrawn["RoPE off"]
    above = int(np.sum(gaps > 0))
    values = np.append(gaps, stored)
    order = np.argsort(-values, kind="stable")
    dots = pd.DataFrame(
        {
            "value": values[order],
            "rank": np.arange(values.size),
            "above": values[order] > 0,
            "stored": order == gaps.size,  # the ring: the model as shipped, not a re-rounding
            "label": f"{above} of {gaps.size} above 0",
            "below": f"{gaps.size - above} below",
        }
    )
    shape = dict(
        title=f"RoPE + mask minus mask only, {gaps.size} re-roundings",
        x_title="difference in 1 − cosine",
        height=FIGURE_HEIGHT - 110,  # as the bars beside it
    )
    return Figure("decoder-rerounded", lecture_charts.ranked_dots, (dots,), shape)


def _rerounding() -> dict[str, np.ndarray]:
    """Step 19's runs on its shipped layers rounded again as coarsely (`decoder.rerounding`: once per process)."""
    from posviz.experiments import decoder

    return decoder.rerounding()


REROUNDING_NOTE = "SmolLM2 rounded again 20 times: computed once per server, from its start (about 10 s on two cores)"


def whole_cosines() -> dict[str, tuple[float, float]] | None:
    """Step 19's SmolLM2 runs through the fetched whole file (`whole.sentence_cosine`: all 30 layers), by
    SMOLLM2_RUNS label, or None when it is absent."""
    from posviz.experiments import whole

    path = whole.whole_path()
    return None if path is None else _whole_cosines(str(path))


@lru_cache(maxsize=1)
def _whole_cosines(path: str) -> dict[str, tuple[float, float]]:
    """Run once per process and file: six 30-layer runs of four tokens."""
    from posviz.experiments import whole

    return {run: whole.sentence_cosine(rotation, causal=c) for run, (rotation, c) in SMOLLM2_RUNS.items()}


def _retitled(fig: Figure, title: str) -> Figure:
    """The figure with the lecture's title ("layer 1, head 2", where a page writes the head as "1.2")."""
    return replace(fig, shape={**fig.shape, "title": title})


LLM_MAP = 205  # px: step 20's map of 19 tokens, square, 10.8 px a cell, above its two-line caption (280 without)


def _heads(found: list[str]) -> str:
    """Heads named "1.2" by `decoder.positional_heads` in words: "layer 1 head 2, layer 2 head 1" (a "1.2" read as a
    decimal)."""
    return ", ".join("layer {} head {}".format(*name.split(".")) for name in found) or "none"


def llm_head() -> Slide:
    from posviz.drawing import llm_figures
    from posviz.experiments import decoder
    from posviz.models import smollm2

    reading = decoder.read(decoder.DEFAULT_TEXT)
    layer, head = 1, 2
    weights = reading.trace.weights[layer, head].astype(np.float64)
    said_tokens = [t.strip() for t in reading.tokens.tokens]  # labelled quotes a punctuation token: "10 ','"
    picture = _heat(  # a square chart, each row its token (every other label where a row is under 20 px)
        f"llm-weights-{layer}-{head}",
        weights,
        f"layer {layer}, head {head}: causal attention, {reading.T} tokens",
        rows="query t (reading)",  # no longer than the map: a longer title made the chart taller
        cols="key s (read)",
        signed=False,
        row_labels=frames.labelled(said_tokens),
        col_labels=[str(s) for s in range(reading.T)],  # numbers: the rows name each number's token
        causal=True,
        height=LLM_MAP,
        angled=False,
    )
    value = float(reading.previous[layer, head])
    rope_off = decoder.rope_off(reading)  # the same tokens, every angle 0, the mask kept: run once for both uses
    off = float(decoder.previous_weight(rope_off, first=reading.first)[layer, head])  # decoder.previous_rope_off
    without = "it still does (the mask alone)" if off > decoder.ROLE_THRESHOLD else "it does not"
    even = verdicts.uniform_sink(reading.T, reading.first)  # an even split gives t − 1 what it gives token 0
    fetched = whole_reading()  # all 30 layers run on this sentence, when `posviz models fetch smollm2` has run
    counted = reading if fetched is None else fetched
    found = decoder.positional_heads(counted, "previous-token")
    layers, heads = counted.roles.shape
    of = decoder.shipped_layers()[1]  # the whole model's layers, as the shipped file states them
    where = f"the first {layers} layers (of {of})" if fetched is None else f"all {layers} layers"
    return Slide(
        f"{smollm2.NAME.split('-')[0]} adds no position rows, but RoPE (family 2) lets head {head} of layer {layer} "
        f"(one of a layer's {reading.trace.weights.shape[1]} attention matrices) read the previous token, and with "
        f"RoPE off {without}.",
        f"layer {layer}, head {head}, on t−1",
        _digits(value),  # two digits, as the RoPE-off and even-split numbers beside it
        reading.roles[layer, head] == "previous-token",
        f"reads t−1 (over {decoder.ROLE_THRESHOLD:g})",  # the previous-token rule, short: a wider badge wrapped
        (
            _retitled(
                llm_figures.head_profile_rope_off(reading, rope_off, layer, head, height=FIGURE_HEIGHT - 90),
                f"layer {layer}, head {head}: distances 0-{min(llm_figures.PROFILE_DISTANCES, reading.T) - 1} "
                f"(of 0-{reading.T - 1})",  # the rest: few queries each
            ),
            picture,
        ),
        "layers and heads counted from 0; run now on the lecture sentence (the caption writes it out); previous-token "
        f"heads in {where}: {_heads(found)}",
        f"not a previous-token head on this text ({decoder.ROLE_RULE})",
        hall="layers and heads counted from 0; run now on the lecture sentence",
        also=(("RoPE off, on t−1", _digits(off)), ("an even split, on t−1", _digits(even))),  # not 1/19: the caption
        caption=f"On t−1 and each bar: the mean weight that far back over the queries t ≥ {reading.first} that reach "
        "it (earlier ones see too few keys); an even split gives each key a query sees 1/(t + 1). The "
        f"lecture sentence, tokens t = 0 to {reading.T - 1} (the map "
        f"names some): {reading.tokens.tokens[0]} {''.join(reading.tokens.tokens[1:]).strip()}",  # as typed
    )


def _span(indices: list[int]) -> str:
    """Sorted indices in words: "3-4" for a run, "1, 3" otherwise (step 21's layers).

    >>> _span([3, 4]), _span([2, 3, 4]), _span([1, 3]), _span([4])
    ('3-4', '2-4', '1, 3', '4')
    """
    if len(indices) > 1 and indices == list(range(indices[0], indices[-1] + 1)):
        return f"{indices[0]}-{indices[-1]}"
    return ", ".join(map(str, indices))


MAP_HEIGHT = FIGURE_HEIGHT - 66  # step 21's two layer-by-head maps: a three-line caption fits under them
SINK_WORDS = "attention sink: a key that takes weight whatever the query"  # step 21's term, ending its source line


def llm_sink() -> Slide:
    from posviz.drawing import llm_figures
    from posviz.experiments import decoder

    reading = decoder.read(decoder.DEFAULT_TEXT)
    off = decoder.sink_mask_off(reading)  # (L, H): the same tokens and layers, every query sees every key, RoPE kept
    even = verdicts.uniform_sink(reading.T, reading.first)
    spread = 1 / reading.T  # an even split with the mask off: every query sees all T keys
    # the layers whose every head is a sink by the rule (verdicts.attention_sink): where the map's weight is (not
    # "many heads", which read as spread over all layers, while layers 0-1 are near 0); none: the sink layer alone
    sink = partial(verdicts.attention_sink, T=reading.T, first=reading.first)
    whole = [i for i, heads in enumerate(reading.sink) if all(sink(float(w)) for w in heads)]
    named = whole or [decoder.SINK_LAYER]
    # the claim's weakest case is its headline: "every head" rests on the lowest head masked and on the highest
    # with the mask off (a layer's mean said neither; a phone's cells are too narrow to carry it, colour alone less)
    low, high = float(reading.sink[named].min()), float(off[named].max())
    many = f"layer{'s' * (len(named) > 1)} {_span(named)}"
    without, cause = (  # the claim's cause follows the measured rerun: an even split's share or more is no sink undone
        (
            "but not with the mask off",
            "this attention sink depends on the mask (family 3), position's implicit carrier",
        )
        if high < spread
        else ("and still with the mask off", "the mask does not make this attention sink")
    )
    who = (
        f"Every head of {many} puts over twice an even split's weight"
        if whole
        else "Some heads put over twice an even split's weight"  # no layer wholly: the maps' cells say which
    )
    layers, of = reading.trace.weights.shape[0], decoder.shipped_layers()[1]  # run here; the whole model's
    # both maps on one [0, 1] colour scale (they compare cell by cell), each head's weight written in both (the
    # claim is about every head of its layers, masked and not), in cells widened by legends titled "weight" (the
    # caption says of what: "weight on token 0" took a third of a map)
    masked = _retitled(
        llm_figures.sink_live(reading, height=MAP_HEIGHT, value_title="weight", boxed=named),
        f"causal mask on: layers 0-{layers - 1} (of {of}), {reading.T} tokens",
    )
    maskless = _retitled(
        llm_figures.sink_mask_off_live(
            reading, off, height=MAP_HEIGHT, value_title="weight", annotate=True, boxed=named
        ),
        "mask off (RoPE kept): the same heads",
    )
    return Slide(
        f"{who} on token 0, the one key every query sees under the causal mask, {without}: {cause}.",
        f"lowest, {many}",  # masked: the left map's; the maps' legend says weight on token 0
        _digits(low),  # two digits, as the three numbers beside it
        sink(low),  # the rule, on the claim's weakest head
        "over 2× even",  # the rule's words: a ratio of the rounded headlines (0.28 / 0.098) read as 2.9, not 2.8
        (masked, maskless),
        f"run now on the lecture sentence, {reading.T} tokens, through SmolLM2's layers 0-{layers - 1} with the "
        f"causal mask and again without it; all {of} layers: the app's SmolLM2 page. An {SINK_WORDS}",
        "at most 2× an even split",
        hall=SINK_WORDS,  # the claim's term defined in hall type, not in the caption
        also=(  # each weight beside its even split, two digits where the comparison needs no more
            ("an even split", _digits(even)),
            # its scope as the lowest's (other layers reach 0.06), short: "layers" is the label beside it
            # to the map's two decimals: 0.014 could not be found among its cells' 0.01
            (f"highest, {_span(named)}, mask off", round(high, 2)),
            ("even, mask off", _digits(spread)),
        ),
        caption=f"A cell: one head's weight on token 0, averaged over the queries t ≥ {reading.first}; "
        f"headlines: the outlined cells ({many}): the lowest with the mask on, the highest with it off. "
        f"An even split: a query's weight spread equally over the keys it sees: under the mask 1/(t + 1) on token 0, "
        f"averaged as the cells are; mask off, every query sees all {reading.T} tokens, 1/{reading.T} each. "
        f"Token 0 is {reading.tokens.tokens[0]} (step 19).",
    )


def whole_reading() -> object | None:
    """The fetched whole SmolLM2 on the lecture sentence (`whole.read`: all 30 layers), or None when it is absent."""
    from posviz.experiments import whole

    path = whole.whole_path()
    return None if path is None else _whole_reading(str(path))


@lru_cache(maxsize=1)
def _whole_reading(path: str) -> object:
    """Read once per process and file: three 30-layer runs of the sentence (a few seconds on two cores)."""
    from posviz.experiments import decoder, whole

    return whole.read(decoder.DEFAULT_TEXT)


def recap() -> Slide:
    from posviz.drawing import lecture_charts

    every = families.rows()
    numbered = {s.key: i + 1 for i, s in enumerate(STEPS)}  # each cell names the step that showed its number
    table = frames.cells_frame([r.scheme for r in every], families.table_columns(every, numbered))
    relative_change = max(r.change for r in every if not r.family.startswith("1"))
    absolute = {r.scheme: r.change for r in every if r.family.startswith("1")}
    # step 1's shuffle test, recomputed where the lecture started, then with each family's signal in turn: step 3's
    # ramp, rotary query and key (family 2: the table shows it blind to a shift, not to order), step 14's mask
    blind, ramped, rotated, masked = (
        lessons.order_experiment(**kw).max_diff
        for kw in ({}, dict(position="ramp", scale=RAMP_SCALE), dict(position="rotary"), dict(causal=True))
    )
    return Slide(
        "Back to step 1: attention alone is order-blind, and three families break that: absolute rows added to the "
        "input, relative (rotary, score biases), implicit (a causal mask).",
        # each family's signal first, step 1 alone last as their reference: the verdict, under the first number,
        # is the families' (a badge "order-blind" under step 1's number read as the recap's verdict)
        "ramp (step 3)",  # four short labels: one line each in a row of four
        ramped,
        verdicts.machine_zero(blind)
        and not any(verdicts.machine_zero(v) for v in (ramped, rotated, masked))
        and verdicts.negligible(relative_change)
        and all(not verdicts.negligible(v) for v in absolute.values()),
        "3 break it",  # the three families; not "each": "step 1 alone" stands in the same row (longer words wrapped)
        (Figure("recap-table", lecture_charts.text_table, (table,), dict(title="", height=FIGURE_HEIGHT)),),
        families.source(),
        "not the outcome this step is about: see the table",
        hall="step 1's test per family; rotary: a shift keeps t − s, a shuffle not",  # why it breaks
        # why rotary breaks step 1's test yet was "unchanged" at step 13, and what the +100 column's 0 means (named: a
        # phone stacks the table into cards, with no last column)
        caption="Rotary in step 1's test: a shuffle changes the offsets t − s, so outputs move; step 13 moved every "
        f"position together, which keeps each offset. Its '{families.COLUMNS[2]}' cells at 0 or ≈ 0 (rotary, biases, "
        "mask): only the offset counts (not order-blind). " + families.links(),
        also=(("rotary, shuffled", rotated), ("mask (step 14)", masked), ("step 1 alone", blind)),
    )


STEPS: tuple[Step, ...] = (
    Step("shuffle", "Shuffle test, no position", shuffle,
         (Control("seed", "seed (X and the random matrices)", 42, options=(42, 0, 1, 7, 2026)),)),
    Step("twins", "Two copies of a token", twins,
         (Control("second", "second copy at position", 4, options=(1, 2, 3, 4, 5)),)),
    Step("ramp", "A ramp breaks it", ramp, (Control("scale", "ramp scale", 0.6, options=(0.0, 0.1, 0.3, 0.6, 1.2)),)),
    Step("pairs", "Move token and position together", pairs,
         (Control("position", "position signal", "ramp", options=("ramp", "sinusoidal", "learned", "random")),)),
    Step("forgot", "A buggy test: forgot to reorder", forgot),
    Step("offset", "A constant at every position?", offset,
         (Control("scale", "constant added", 0.6, options=(-1.0, 0.0, 0.6, 2.0)),)),
    Step("plain", "dog bites man, no position", sentences_plain),
    Step("position", "dog bites man, with position", sentences_position,
         (Control("scale", "position scale", 0.5, options=(0.0, 0.01, 0.1, 0.5, 1.0)),)),
    Step("magnitude", "How much position is enough", magnitude,
         (Control("scale", "position scale", 0.001, options=(0.0001, 0.001, 0.01, 0.1, 1.0)),)),
    Step("table", "The sinusoid table", table,
         (Control("d", "width d (dimensions)", WIDTH, options=WIDTHS, aliases=("width",)),)),
    Step("norms", "Every row the same length", norms,
         (Control("d", "width d (dimensions)", WIDTH, options=WIDTHS, aliases=("width",)),)),
    Step("shift", "A shift by k is one matrix", shift, (Control("k", "offset k", 3, options=(1, 3, 8, 20)),)),
    Step("rotary", "Rotary: only the offset matters", rotary,
         (Control("shift", "move every position by", 100, options=(0, 1, 100, 10_000)),)),
    Step("causal", "The causal mask carries position", causal),
    Step("real", "A real model's learned table", real_model),
    Step("sentences", "A real model: order only through position", real_sentences,
         (Control("scale", "position rows ×", 1.0, options=(0.0, 0.25, 0.5, 1.0)),)),
    Step("lastrow", "A learned table's last row", last_row,
         (Control("T", "input length T (tokens)", 640, options=(256, 512, 513, 640, 1024)),)),
    Step("buys", "What each scheme buys past its trained length", buys,
         (Control("scheme", "first number (and its badge)", "alibi", options=BUYS_SCHEMES, names=BUYS_NAMES),
          Control("reach", "read up to × the trained length", 8, options=(2, 4, 8))),
         slow=_matched_curves, slow_note=MATCHED_NOTE),
    Step("decoder", "A real decoder: no position rows", decoder, slow=_rerounding, slow_note=REROUNDING_NOTE),
    Step("llm", "A modern LLM uses RoPE: a previous-token head", llm_head),
    Step("llmsink", "A modern LLM: the attention sink", llm_sink),
    Step("recap", "Recap: three families of position", recap, slow=_matched_curves, slow_note=MATCHED_NOTE),
)  # fmt: skip


# The steps whose two figures exist to be compared (one against the other, cell by cell or side by side): on a phone
# the app shows them one at a time with a toggle rather than stacked, the second below the first screen.
COMPARED = frozenset({"shuffle", "twins", "ramp", "forgot", "offset", "plain", "position", "rotary", "real", "llmsink"})
# The panel a phone shows first where the second makes the step's point: the constant's zero difference (6),
# MiniLM's cosine map (15); the rest open on the first (step 2's: its headline, 0, is the first panel's).
PHONE_FIRST = {"offset": 2, "real": 2}


def slide(index: int, **values: object) -> Slide:
    """Step `index` (0-based) drawn with its controls (by argument name) at `values`, the rest at defaults."""
    if not 0 <= index < len(STEPS):
        raise ValueError(f"step must be from 1 to {len(STEPS)}, got {index + 1}")
    step = STEPS[index]
    known = step.defaults()
    unknown = set(values) - set(known)
    if unknown:
        raise ValueError(f"step {index + 1} takes {sorted(known) or 'no controls'}, got {sorted(unknown)}")
    return step.slide(**{**known, **values})
