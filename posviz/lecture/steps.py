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
from dataclasses import dataclass

import numpy as np
import pandas as pd

from posviz.drawing import charts, figures, frames
from posviz.drawing.display import number
from posviz.drawing.figures import Figure
from posviz.experiments import lessons
from posviz.maths import grids, properties, relative, verdicts
from posviz.maths.encodings import offset_matrix, sinusoidal

FIGURE_HEIGHT = 240
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


@dataclass(frozen=True)
class Slide:
    """What one step shows: the claim, the live number and its verdict, the figures."""

    claim: str
    label: str  # what the number measures
    value: float
    ok: bool  # True when the number shows what the step is there to show
    verdict: str  # the badge's words when ok
    figures: tuple[Figure, ...]
    source: str  # where the expected value comes from
    otherwise: str = "not the outcome this step is about at these settings"  # the badge's words when not ok
    tone: str = "shown"  # "shown": the outcome the step shows (green); "state": a fact of the setting (blue);
    # "problem": a mistake to recognise (orange)

    @property
    def shown(self) -> str:
        return number(self.value, grouped=True)


@dataclass(frozen=True)
class Step:
    key: str
    title: str  # short, for the jump list
    slide: Callable[..., Slide]
    controls: tuple[Control, ...] = ()

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
) -> Figure:
    """A labelled matrix figure on a diverging (signed) or [0, 1] weight scale."""
    r, k = m.shape
    frame = charts.matrix_frame(
        m,
        row_labels if row_labels is not None else [str(i) for i in range(r)],
        col_labels if col_labels is not None else [str(j) for j in range(k)],
    )
    scheme = charts.SIGNED_SCHEME if signed else charts.WEIGHT_SCHEME
    domain = domain or (charts.signed_domain(m) if signed else (0.0, 1.0))
    annotate = annotate and charts.prints_values(m.shape, VALUE_COLUMNS)
    shape = dict(title=title, row_title=rows, col_title=cols, scheme=scheme, domain=domain,
                 value_title="value" if signed else "weight", annotate=annotate, angled=k > 8,
                 height=FIGURE_HEIGHT, legend="right")  # fmt: skip
    return Figure(name, charts.token_heatmap, (frame,), shape)


def _grid(
    name: str, m: np.ndarray, title: str, *, rows: str, cols: str, domain: tuple[float, float], square: bool = False
) -> Figure:
    """A matrix figure on quantitative axes; `square` draws it as wide as tall (a similarity's diagonal at 45°)."""
    reduced = grids.block_mean(m, 16_384)
    shape = dict(
        title=title,
        subtitle=reduced.note if reduced.aggregated else None,
        row_title=rows,
        col_title=cols,
        domain=domain,
        height=FIGURE_HEIGHT,
        legend="right",
        **({"square": True} if square else {}),
    )
    return Figure(name, charts.grid_heatmap, (charts.reduced_frame(reduced),), shape, cells=reduced)


def _weights(name: str, w: np.ndarray, words: tuple[str, ...], title: str) -> Figure:
    labels = charts.labelled(words)
    return _heat(name, w, title, rows="query", cols="key", signed=False, row_labels=labels, col_labels=labels)


def _outputs(name: str, m: np.ndarray, title: str, domain: tuple[float, float]) -> Figure:
    places = [f"position {i}" for i in range(m.shape[0])]
    return _heat(name, m, title, rows="", cols="feature", domain=domain, row_labels=places, annotate=False)


def _shuffle_panels(name: str, r: lessons.OrderResult, reference_title: str) -> tuple[Figure, Figure]:
    """The shuffle test's two sides on one colour scale: the reference, and shuffle-then-attend."""
    domain = charts.signed_domain(r.reference, r.out_perm)
    return (
        _outputs(f"{name}-reference", r.reference, reference_title, domain),
        _outputs(f"{name}-shuffled", r.out_perm, "shuffle, then attend", domain),
    )


# ----- lesson 000: attention reads a set --------------------------------------------------------------------------


def shuffle(seed: int = 42) -> Slide:
    r = lessons.order_experiment(seed=seed)
    return Slide(
        "Shuffle the tokens and attention's output rows shuffle the same way: nothing else changes.",
        "max |attn(P X) − P attn(X)|",
        r.max_diff,
        verdicts.machine_zero(r.max_diff),
        "machine zero: attention is order-blind",
        _shuffle_panels("shuffle", r, "attend, then shuffle"),
        "the lesson 'Why attention needs position' prints 4.44e-16",
    )


def twins(second: int = 4) -> Slide:
    r = lessons.twin_experiment(second=second)
    rows = r.out[[r.first, r.second]]
    labels = [f"copy at {r.first}", f"copy at {r.second}"]
    return Slide(
        "Put one token at two positions: without a position signal both copies get exactly the same output.",
        f"max |out[{r.first}] − out[{r.second}]|",
        r.row_diff,
        verdicts.exactly_zero(r.row_diff),
        "exactly equal: the copies cannot be told apart",
        (_heat("twins", rows, "output rows of the two copies", rows="", cols="feature", row_labels=labels),),
        "exactly 0 in the lesson 'Why attention needs position' (seed 42)",
    )


def ramp(scale: float = 0.6) -> Slide:
    r = lessons.order_experiment(position="ramp", scale=scale)
    return Slide(
        "Add a position signal E that differs per position (a ramp) and the shuffle test fails.",
        "max |attn(P X + E) − P attn(X + E)|",
        r.max_diff,
        not verdicts.machine_zero(r.max_diff),
        "order-aware: the outputs differ",
        _shuffle_panels("ramp", r, "attend, then shuffle"),
        "the lesson 'Why attention needs position' prints 3.4998 at scale 0.6",
        "order-blind again: a ramp of size 0 is no position at all",
    )


def pairs(position: str = "sinusoidal") -> Slide:
    r = lessons.pair_move_experiment(position=position)
    moves = pd.DataFrame(
        {
            "what moves": list(figures.PAIR_MOVES),  # the order page's pair part: the same labels
            "max difference": [frames.on_log_axis(r.together), r.tokens_only, r.positions_only],
            "shown": [number(v) for v in (r.together, r.tokens_only, r.positions_only)],
        }
    )
    shape = dict(x="what moves", y="max difference", title=figures.pair_moves_title(f"{position} × 1"),
                 x_title="", y_title="max abs difference", log_y=True, text="shown", height=FIGURE_HEIGHT)  # fmt: skip
    return Slide(
        "Move each token together with its position vector and the outputs only follow the move; move either alone "
        "and they change.",
        "pairs moved together: max |attn(P (X + E)) − P attn(X + E)|",
        r.together,
        verdicts.machine_zero(r.together),
        f"machine zero; tokens only: {number(r.tokens_only)}, positions only: {number(r.positions_only)}",
        (Figure("pairs", charts.bars, (moves,), shape),),
        "≈ 0 moved together, clearly not apart (the 'Why attention needs position' setup, seed 42)",
    )


def forgot() -> Slide:
    r = lessons.order_experiment(forget_reorder=True)
    return Slide(
        "Exercise 1: compare with the output that was never reordered and even a blind model seems to 'see' order.",
        "max |attn(P X) − attn(X)|  (reference not reordered)",
        r.max_diff,
        not verdicts.machine_zero(r.max_diff),
        "a large difference from a bug in the test, not from position",
        _shuffle_panels("forgot", r, "attend (NOT reordered)"),
        "exercise 1 of the lesson 'Why attention needs position'",
        tone="problem",
    )


def offset(scale: float = 0.6) -> Slide:
    r = lessons.order_experiment(position="constant", scale=scale)
    domain = charts.signed_domain(r.out_perm)
    return Slide(
        "Exercise 2: add one vector at every position and attention stays order-blind: a constant is not position.",
        "max |attn(P X + c) − P attn(X + c)|",
        r.max_diff,
        verdicts.machine_zero(r.max_diff),
        "machine zero: still order-blind",
        (
            _heat("offset-rows", r.pos, f"the added rows: all {number(scale)}", rows="position", cols="feature",
                  domain=(-max(abs(scale), 1e-12), max(abs(scale), 1e-12)), annotate=False),
            _outputs("offset-difference", r.difference, "shuffled − reordered (all ≈ 0)", domain),
        ),
        "≈ 0: exercise 2 of the lesson 'Why attention needs position'",
    )  # fmt: skip


def causal() -> Slide:
    r = lessons.order_experiment(causal=True)
    tokens = [f"t{i}" for i in range(r.weights.shape[0])]  # anonymous tokens by position
    return Slide(
        "A causal mask alone carries position: token t averages over t + 1 tokens, so shuffling now changes outputs.",
        "causal mask, no position: max |attn(P X) − P attn(X)|",
        r.max_diff,
        not verdicts.machine_zero(r.max_diff),
        "order-aware without any position vector",
        (_heat("causal-weights", r.weights, "causal attention weights", rows="query", cols="key", signed=False,
               row_labels=tokens, col_labels=tokens),),
        "clearly not 0: the causal-mask caveat of 'A sense of order' (seed 42 setup)",
    )  # fmt: skip


# ----- lesson 002: dog bites man ----------------------------------------------------------------------------------


def sentences_plain() -> Slide:
    r = lessons.sentence_experiment()
    gap = r.permuted_gap(with_position=False)
    return Slide(
        "Without position, 'man bites dog' is 'dog bites man' reordered: one attention matrix is the other, permuted.",
        "max |W₂ − P W₁ Pᵀ|, and 'man' gets the same output in both",
        gap,
        verdicts.machine_zero(gap) and verdicts.machine_zero(r.word_diff("man", with_position=False)),
        f"a pure reordering; 'man' differs by {number(r.word_diff('man', with_position=False))}",
        (
            _weights("plain-1", r.weights1_plain, r.words1, "dog bites man, no position"),
            _weights("plain-2", r.weights2_plain, r.words2, "man bites dog, no position"),
        ),
        "≈ 0 in the lesson 'dog bites man' (seed 2)",
    )


def sentences_position(scale: float = 0.5) -> Slide:
    r = lessons.sentence_experiment(scale=scale)
    diff = r.word_diff("man", with_position=True)
    return Slide(
        "Add position rows before attention and the matrices stop being reorderings: 'man' now means two things.",
        f"'man': max |out₁ − out₂| with position × {number(scale)}",
        diff,
        not verdicts.machine_zero(diff),
        "different: word order now matters",
        (
            _weights("position-1", r.weights1_positioned, r.words1, "dog bites man, with position"),
            _weights("position-2", r.weights2_positioned, r.words2, "man bites dog, with position"),
        ),
        "the lesson 'dog bites man' gives 12.537 at scale 0.5",
        "identical: at scale 0 there is no position",
    )


def magnitude(scale: float = 0.001) -> Slide:
    r = lessons.sentence_experiment()
    distance = r.word_distance("man", scale)
    scales, distances = lessons.magnitude_curve("dog bites man", "man bites dog", "man")
    curve = frames.distance_curve(scales, distances, log=True)
    point = charts.point_frame(scale, frames.on_log_axis(distance), f"{number(scale)} → {number(distance)}")
    shape = dict(x="scale", y="distance", title="'man': distance between its two outputs",
                 x_title="position scale (log)", y_title="max abs difference (log)", log_x=True, log_y=True,
                 points=True, height=FIGURE_HEIGHT + 20)  # fmt: skip
    close = verdicts.numerically_equal(*r.word_outputs("man", scale))
    return Slide(
        "Shrink the position rows and the two outputs of 'man' converge: a tiny signal is nearly invisible.",
        f"'man': max |out₁ − out₂| at scale {number(scale)}",
        distance,
        not close,
        "close, but np.allclose says different" if distance < 1 else "clearly different",
        (Figure("magnitude-curve", charts.lines_marked, (curve, point), shape),),
        "exercise 3 of the lesson 'dog bites man': 0.084318 at 0.001",
        "np.allclose says equal: at this scale position is invisible",
        tone="state",
    )


# ----- lesson 003: sinusoids --------------------------------------------------------------------------------------


def table(d: int = 64) -> Slide:
    pe = sinusoidal(64, d)
    waves = properties.wavelengths(d)
    return Slide(
        "Sinusoids give each position a code: pair i turns around a circle, each pair at its own speed.",
        f"wavelength of the slowest pair ({d // 2 - 1}), in positions per turn",
        float(waves[-1]),
        bool(waves[0] < waves[-1]),
        f"pair 0 turns every {number(waves[0])} positions (2π); each pair slower than the last",
        (_grid("table", pe, f"sinusoidal table: 64 positions × {d} dimensions", rows="position t", cols="dimension",
               domain=(-1.0, 1.0)),),
        "the sinusoid formula with base 10,000",
    )  # fmt: skip


def norms(d: int = 8) -> Slide:
    pe = sinusoidal(64, d)
    squared = properties.squared_norms(pe)
    deviation = properties.norm_deviation(pe)
    frame = frames.row_norms(squared, name="squared norm")
    shape = dict(x="position", y="squared norm", title="‖peₜ‖² of every row: each bar reaches d/2",
                 x_title="position t", y_title="‖peₜ‖²", height=FIGURE_HEIGHT)  # fmt: skip
    level = charts.level_frame(d / 2, f"d/2 = {d // 2}")
    return Slide(
        "Every row has the same length: sin² + cos² = 1 per pair, so ‖peₜ‖² = d/2 at every position.",
        "max |‖peₜ‖² − d/2| over 64 positions",
        deviation,
        verdicts.negligible(deviation),
        f"every row has ‖pe‖² = {d // 2}",
        (Figure("norms", charts.bars_with_reference, (frame, level), shape),),
        "'A sense of order': 4 for every row at d = 8",
    )


def shift(k: int = 3) -> Slide:
    pe = sinusoidal(64, 16)
    residual = properties.offset_residual(pe, k)
    m = offset_matrix(k, 16)
    return Slide(
        f"Moving k = {k} positions is one fixed matrix Mₖ for every row: a rotation of each pair.",
        f"max |pe[t+{k}] − Mₖ pe[t]|  (k = {k})",
        residual,
        verdicts.negligible(residual),
        "one matrix shifts every row",
        (_heat("shift-matrix", m, f"Mₖ, k = {k}: 2 × 2 rotations on the diagonal", rows="", cols="", domain=(-1.0, 1.0),
               annotate=False),
         _grid("shift-similarity", properties.similarity(pe[:32]), "pe · peᵀ: constant along diagonals",
               rows="position t", cols="position u", domain=charts.signed_domain(properties.similarity(pe[:32])),
               square=True)),
        "≈ 0: the offset property of the sinusoid formula",
    )  # fmt: skip


def rotary(shift: int = 100) -> Slide:
    q, k = np.random.default_rng(0).standard_normal((2, 16))
    scores = relative.fixed_content_scores(q, k, 24, scheme="rotary")
    moved = relative.shift_change(q, k, 24, shift, scheme="rotary")
    added = relative.shift_change(q, k, 24, shift, scheme="sinusoidal")
    return Slide(
        "Rotary embeddings rotate queries and keys instead: a score depends only on how far apart they are.",
        f"change in rotary scores when every position moves by {shift}",
        moved,
        verdicts.negligible(moved),
        f"unchanged (added sinusoids change by {number(added)})",
        (_grid("rotary-scores", scores, "rotary score q·k, query i, key j", rows="query position i",
               cols="key position j", domain=charts.signed_domain(scores), square=True),),
        "RoFormer (Su et al.), computed from the formula",
    )  # fmt: skip


def real_model() -> Slide:
    from posviz.models import minilm

    pos = minilm.position_table()
    table_image = figures.learned_table_picture(pos, value_title="value (clipped at p99)")
    image = figures.position_cosine_pictures(pos)[0]  # the learned table's
    return Slide(
        "A real trained model (all-MiniLM-L6-v2) learned its own position code: neighbouring rows point alike.",
        "median cosine of neighbouring position rows",
        pos.neighbour_cosine,
        verdicts.pointing_alike(pos.neighbour_cosine),
        "a smooth code, learned without a formula",
        (table_image, image),
        "the shipped model's weights (not a lesson number)",
    )


def real_sentences(scale: float = 1.0) -> Slide:
    from posviz.drawing import sentence_charts
    from posviz.models import encoder

    pair = encoder.compare_texts("dog bites man", "man bites dog", scale)
    layers = sentence_charts.layer_distance_frame(
        pair.layer_distance, pair.layer_distance_plain, labels=(f"position rows × {number(scale)}", "no position rows")
    )
    shape = dict(
        title="1 − cosine of the two sentences after each layer", y_title="1 − cosine", height=FIGURE_HEIGHT - 30
    )
    return Slide(
        "The whole trained encoder tells 'dog bites man' from 'man bites dog' only through its position rows.",
        f"cosine of the two sentence embeddings, position rows × {number(scale)}",
        pair.cosine,
        not verdicts.same_direction(pair.cosine),
        f"below 1: word order matters; position rows removed: {number(pair.cosine_plain)}",
        (Figure("real-layers", sentence_charts.layer_distances, (layers,), shape),),
        f"the shipped model (int8 weights): within ±{encoder.COSINE_TOLERANCE:g} of the float32 model (tested)",
        "1 up to rounding: without position the encoder reads a bag of words",
    )


def llm_head() -> Slide:
    from posviz.drawing import llm_figures, llmviews

    reading = llmviews.read(llmviews.DEFAULT_TEXT)
    layer, head = 1, 2
    weights = reading.trace.weights[layer, head].astype(np.float64)
    picture = Figure(f"llm-weights-{layer}-{head}", image=grids.reduced(weights, 1, 1),
                     shape=dict(title=f"head {layer}.{head}: causal attention, {reading.T} tokens",
                                scheme=charts.WEIGHT_SCHEME, domain=(0.0, 1.0), value_title="weight",
                                what="key s →, query t ↓"))  # fmt: skip
    value = float(reading.previous[layer, head])
    return Slide(
        f"A modern LLM ({llmviews.MODEL}) adds no position vector: RoPE alone lets head {layer}.{head} read the token "
        "just before.",
        f"head {layer}.{head}: mean weight on the previous token (t−1)",
        value,
        reading.roles[layer, head] == "previous-token",
        "a previous-token head: it attends by relative position",
        (llm_figures.head_profile(reading, layer, head, height=FIGURE_HEIGHT - 30), picture),
        f"the shipped model run live ({llmviews.PRECISION}) on '{llmviews.DEFAULT_TEXT}'",
        f"not a previous-token head on this text ({llmviews.ROLE_RULE})",
    )


def llm_sink() -> Slide:
    from posviz.drawing import llm_figures, llmviews

    reading = llmviews.read(llmviews.DEFAULT_TEXT)
    return Slide(
        "Deeper in the same model, heads put much of their attention on token 0, whatever it is: the attention sink.",
        f"layer {llmviews.SINK_LAYER}: mean weight on token 0 (live)",
        reading.sink_mean,
        reading.has_sink,
        "token 0 draws more than twice the share uniform attention gives it",
        (llm_figures.sink_live(reading, height=FIGURE_HEIGHT - 30),
         llm_figures.sink_model(llmviews.whole_model(), height=FIGURE_HEIGHT - 30)),
        "live on the lecture sentence; the 30-layer map was computed at extraction (tools/extract_smollm2.py)",
        "no more than twice the share uniform attention gives it",
    )  # fmt: skip


STEPS: tuple[Step, ...] = (
    Step("shuffle", "Shuffle test, no position", shuffle,
         (Control("seed", "seed (X and the weights)", 42, options=(42, 0, 1, 7, 2026)),)),
    Step("twins", "Two copies of a token", twins,
         (Control("second", "second copy at position", 4, options=(1, 2, 3, 4, 5)),)),
    Step("ramp", "A ramp breaks it", ramp, (Control("scale", "ramp scale", 0.6, options=(0.0, 0.1, 0.3, 0.6, 1.2)),)),
    Step("pairs", "Move token and position together", pairs,
         (Control("position", "position signal", "sinusoidal", options=("sinusoidal", "ramp", "learned", "random")),)),
    Step("forgot", "Exercise 1: forgot to reorder", forgot),
    Step("offset", "Exercise 2: a constant is not position", offset,
         (Control("scale", "constant added", 0.6, options=(-1.0, 0.0, 0.6, 2.0)),)),
    Step("plain", "dog bites man, no position", sentences_plain),
    Step("position", "dog bites man, with position", sentences_position,
         (Control("scale", "position scale", 0.5, options=(0.0, 0.01, 0.1, 0.5, 1.0)),)),
    Step("magnitude", "How much position is enough", magnitude,
         (Control("scale", "position scale", 0.001, options=(0.0001, 0.001, 0.01, 0.1, 1.0)),)),
    Step("table", "The sinusoid table", table,
         (Control("d", "width d", 64, options=(16, 32, 64, 128), aliases=("width",)),)),
    Step("norms", "Every row has norm² d/2", norms,
         (Control("d", "width d", 8, options=(4, 8, 16, 64), aliases=("width",)),)),
    Step("shift", "A shift by k is one matrix", shift, (Control("k", "offset k", 3, options=(1, 3, 8, 20)),)),
    Step("causal", "The causal mask carries position", causal),
    Step("rotary", "Rotary: only the offset matters", rotary,
         (Control("shift", "move every position by", 100, options=(0, 1, 100, 10_000)),)),
    Step("real", "A real model's learned table", real_model),
    Step("sentences", "A real model: order only through position", real_sentences,
         (Control("scale", "position rows ×", 1.0, options=(0.0, 0.25, 0.5, 1.0)),)),
    Step("llm", "A modern LLM uses RoPE: a previous-token head", llm_head),
    Step("llmsink", "A modern LLM: the attention sink", llm_sink),
)  # fmt: skip


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
