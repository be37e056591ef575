"""The lessons' experiments, parametrised: the shuffle test, identical tokens, two sentences, the
position scale, and equal scores under a causal mask.

Each experiment reproduces its lesson's seed and random draw order at the defaults and
returns the numbers and the arrays the app draws. Shapes use T (tokens), d (the model width, d_model).
The claims registry is posviz.experiments.claims; reading typed input is posviz.maths.parsing.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

import numpy as np

from posviz.maths import _checks
from posviz.maths.attention import attention_weights, prefix_mean, self_attention
from posviz.maths.encodings import constant, gaussian, learned, ramp, sinusoidal
from posviz.maths.parsing import sentence_words
from posviz.maths.verdicts import machine_zero, numerically_equal

LESSON_PERM = (3, 0, 5, 1, 4, 2)
SENTENCE_POSITIONS = ("random", "ramp", "constant", "sinusoidal", "learned")
POSITION_KINDS = ("none", "constant", "ramp", "random", "sinusoidal", "learned", "rotary")
DEFAULT_SCALES = {
    "none": 0.0,
    "constant": 0.6,
    "ramp": 0.6,
    "random": 0.5,
    "sinusoidal": 1.0,
    "learned": 1.0,
    "rotary": 1.0,
}


def position_signal(kind: str, T: int, d: int, scale: float, *, seed: int = 0) -> np.ndarray:
    """The additive position rows of one kind, times `scale` ("none" and "rotary" add zeros).

    "random" draws N(0, 1) rows from RandomState(seed); "learned" takes the seeded table.

    Returns: (T, d)

    >>> position_signal("ramp", 6, 8, 0.6).shape
    (6, 8)
    """
    if kind not in POSITION_KINDS:
        raise ValueError(f"position kind must be one of {', '.join(POSITION_KINDS)}; got {kind!r}")
    scale = _checks.finite_real("scale", scale)
    if kind == "constant":
        return constant(T, d, scale)
    if kind == "ramp":
        return ramp(T, d, scale)
    if kind == "random":
        return gaussian(T, d, scale, rng=np.random.RandomState(seed))
    if kind == "sinusoidal":
        return scale * sinusoidal(T, _checks.even_width("d", d))
    if kind == "learned":
        return scale * learned(T, d, seed=seed)
    return np.zeros((_checks.integer("T", T), _checks.integer("d", d, minimum=1)))


@dataclass(frozen=True)
class OrderResult:
    """Lesson 000's shuffle test: attend-then-shuffle against shuffle-then-attend."""

    x: np.ndarray  # (T, d) token content
    pos: np.ndarray  # (T, d) additive position rows (zeros for none/rotary)
    perm: np.ndarray  # (T,)
    out: np.ndarray  # (T, d) attn(X + pos)
    out_perm: np.ndarray  # (T, d) attn(X[perm] + pos)
    reference: np.ndarray  # (T, d) out[perm], or out itself when the reorder is forgotten
    weights: np.ndarray  # (T, T) attention weights of X + pos
    w: tuple[np.ndarray, np.ndarray, np.ndarray] = field(repr=False, default=())  # w_q, w_k, w_v: (d, d) each

    @property
    def difference(self) -> np.ndarray:
        """out_perm - reference: (T, d)"""
        return self.out_perm - self.reference

    @property
    def max_diff(self) -> float:
        return float(np.abs(self.difference).max(initial=0.0))

    @property
    def order_blind(self) -> bool:
        """True if max_diff is machine zero against the size of the outputs: attention ignored the order."""
        return machine_zero(self.max_diff, float(np.abs(self.out).max(initial=0.0)))


def _weights(rng: np.random.RandomState, d: int, scale: float) -> tuple[np.ndarray, ...]:
    return tuple(rng.randn(d, d) * scale for _ in range(3))


def order_experiment(
    *,
    seed: int = 42,
    T: int = 6,
    d: int = 8,
    weight_scale: float = 0.5,
    perm: tuple[int, ...] | np.ndarray = LESSON_PERM,
    position: str = "none",
    scale: float | None = None,
    causal: bool = False,
    forget_reorder: bool = False,
) -> OrderResult:
    """Shuffle the tokens (positions stay in their slots) and compare with the shuffled output.

    Draw order (lesson 000): X = randn(1, T, d), then w_q, w_k, w_v = randn(d, d) * weight_scale.
    `scale` defaults to DEFAULT_SCALES[position]; `forget_reorder` is the lesson's exercise 1.

    >>> order_experiment().max_diff < 1e-15
    True
    """
    seed = _checks.integer("seed", seed)
    T = _checks.integer("T", T, minimum=1)
    d = _checks.integer("d", d, minimum=1)
    weight_scale = _checks.finite_real("weight_scale", weight_scale)
    perm = _checks.permutation(perm, T)
    scale = DEFAULT_SCALES.get(position, 0.0) if scale is None else scale
    pos = position_signal(position, T, d, scale, seed=seed)
    if position == "rotary":
        _checks.even_width("d", d, why="rotary embeddings rotate pairs of dimensions")
    rng = np.random.RandomState(seed)
    x = rng.randn(1, T, d)[0]
    w_q, w_k, w_v = _weights(rng, d, weight_scale)
    opts = {"causal": causal, "rotary": position == "rotary"}
    out = self_attention(x + pos, w_q, w_k, w_v, **opts)
    out_perm = self_attention(x[perm] + pos, w_q, w_k, w_v, **opts)
    return OrderResult(
        x=x,
        pos=pos,
        perm=perm,
        out=out,
        out_perm=out_perm,
        reference=out if forget_reorder else out[perm],
        weights=attention_weights(x + pos, w_q, w_k, **opts),
        w=(w_q, w_k, w_v),
    )


@dataclass(frozen=True)
class TwinResult:
    """Lesson 000's identical-tokens test: one token vector at two positions."""

    out: np.ndarray  # (T, d)
    first: int
    second: int

    @property
    def row_diff(self) -> float:
        """max abs(out[first] - out[second])"""
        return float(np.abs(self.out[self.first] - self.out[self.second]).max())


def twin_rows(plain: TwinResult, marked: TwinResult) -> np.ndarray:
    """The two copies' output rows without position, then with: first, second, first, second.

    Returns: (4, d)

    >>> twin_rows(twin_experiment(), twin_experiment(position="ramp")).shape
    (4, 8)
    """
    return np.vstack([plain.out[[plain.first, plain.second]], marked.out[[marked.first, marked.second]]])


def twin_experiment(
    *,
    seed: int = 42,
    T: int = 6,
    d: int = 8,
    weight_scale: float = 0.5,
    first: int = 0,
    second: int = 4,
    position: str = "none",
    scale: float | None = None,
    causal: bool = False,
) -> TwinResult:
    """Put one token vector at `first` and `second`, attend, compare the two output rows.

    Draw order (lesson 000): w_q, w_k, w_v = randn(d, d) * weight_scale, then X = randn(1, T, d),
    then the token randn(d).

    >>> twin_experiment().row_diff
    0.0
    """
    seed = _checks.integer("seed", seed)
    T = _checks.integer("T", T, minimum=1)
    d = _checks.integer("d", d, minimum=1)
    weight_scale = _checks.finite_real("weight_scale", weight_scale)
    first = _checks.integer("first", first)
    second = _checks.integer("second", second)
    if first >= T or second >= T:
        raise ValueError(f"positions must be below T = {T}, got {first} and {second}")
    scale = DEFAULT_SCALES.get(position, 0.0) if scale is None else scale
    pos = position_signal(position, T, d, scale, seed=seed)
    rng = np.random.RandomState(seed)
    w_q, w_k, w_v = _weights(rng, d, weight_scale)
    x = rng.randn(1, T, d)[0]
    token = rng.randn(d)
    x[first] = token
    x[second] = token
    out = self_attention(x + pos, w_q, w_k, w_v, causal=causal, rotary=position == "rotary")
    return TwinResult(out=out, first=first, second=second)


@dataclass(frozen=True)
class SentenceResult:
    """Module 09: two sentences through one head, with and without position rows."""

    words1: tuple[str, ...]
    words2: tuple[str, ...]
    raw_pos: np.ndarray  # (T_max, d) unscaled N(0, 1) position draw
    scale: float
    out1_plain: np.ndarray  # (T1, d) no position
    out2_plain: np.ndarray  # (T2, d)
    out1_positioned: np.ndarray  # (T1, d) with scale * raw_pos
    out2_positioned: np.ndarray  # (T2, d)
    weights1_plain: np.ndarray  # (T1, T1) no position
    weights2_plain: np.ndarray  # (T2, T2)
    weights1_positioned: np.ndarray  # (T1, T1) with position
    weights2_positioned: np.ndarray  # (T2, T2)
    vectors: dict[str, np.ndarray] = field(repr=False)
    w: tuple[np.ndarray, np.ndarray, np.ndarray] = field(repr=False)

    def outputs(self, *, with_position: bool) -> tuple[np.ndarray, np.ndarray]:
        """Both sentences' outputs, without or with the position rows: (T1, d), (T2, d)."""
        if with_position:
            return self.out1_positioned, self.out2_positioned
        return self.out1_plain, self.out2_plain

    def weights(self, *, with_position: bool) -> tuple[np.ndarray, np.ndarray]:
        """Both sentences' attention weights, without or with the position rows: (T1, T1), (T2, T2)."""
        if with_position:
            return self.weights1_positioned, self.weights2_positioned
        return self.weights1_plain, self.weights2_plain

    def word_rows(self, word: str) -> tuple[int, int]:
        """First position of `word` in each sentence."""
        if word not in self.words1 or word not in self.words2:
            raise ValueError(f"{word!r} must appear in both sentences")
        return self.words1.index(word), self.words2.index(word)

    def word_diff(self, word: str, *, with_position: bool) -> float:
        """max abs difference of `word`'s output rows between the sentences."""
        i, j = self.word_rows(word)
        a, b = self.outputs(with_position=with_position)
        return float(np.abs(a[i] - b[j]).max())

    def unmatched_words(self) -> tuple[tuple[str, ...], tuple[str, ...]]:
        """The words (with repeats) sentence 1 has beyond sentence 2's, and sentence 2's beyond sentence 1's: both
        empty exactly when sentence 2 reorders sentence 1.

        >>> sentence_experiment("the dog bit the man", "a man bit the dog").unmatched_words()
        (('the',), ('a',))
        """
        one, two = Counter(self.words1), Counter(self.words2)
        return tuple((one - two).elements()), tuple((two - one).elements())

    def common_words(self) -> list[str]:
        """Words of sentence 1 that also appear in sentence 2, in sentence-1 order."""
        return [w for w in dict.fromkeys(self.words1) if w in self.words2]

    def permuted_gap(self, *, with_position: bool) -> float | None:
        """max |W2 - P W1 P^T| when sentence 2 reorders sentence 1's words; None if it does not."""
        p = reordering(self.words1, self.words2)
        if p is None:
            return None
        w1, w2 = self.weights(with_position=with_position)
        return float(np.abs(w2 - w1[np.ix_(p, p)]).max())

    def means_allclose(self, *, with_position: bool) -> bool:
        """np.allclose of the two sentences' mean output vectors."""
        a, b = self.outputs(with_position=with_position)
        return numerically_equal(a.mean(axis=0), b.mean(axis=0))

    def word_allclose(self, word: str, *, with_position: bool) -> bool:
        """np.allclose of `word`'s output rows in the two sentences."""
        i, j = self.word_rows(word)
        a, b = self.outputs(with_position=with_position)
        return numerically_equal(a[i], b[j])

    def word_outputs(self, word: str, scale: float) -> tuple[np.ndarray, np.ndarray]:
        """`word`'s output rows in sentence 1 and sentence 2 with the position draw times `scale`: 2 x (d,)."""
        i, j = self.word_rows(word)
        return self.output_at(scale, 1)[i], self.output_at(scale, 2)[j]

    def word_distance(self, word: str, scale: float) -> float:
        """max abs difference of `word`'s two output rows at position scale `scale`."""
        a, b = self.word_outputs(word, scale)
        return float(np.abs(a - b).max())

    def aligned_outputs(self, scale: float) -> tuple[np.ndarray, np.ndarray] | None:
        """Both sentences' outputs at position scale `scale`, sentence 2's rows put in sentence 1's word order.

        None when sentence 2 is not a reordering of sentence 1's words. Returns: (T, d), (T, d)
        """
        p = reordering(self.words1, self.words2)
        if p is None:
            return None
        order = np.argsort(p)  # row r of the result: the row of sentence 2 that holds sentence 1's word r
        return self.output_at(scale, 1), self.output_at(scale, 2)[order]

    def sentence_distance(self, scale: float) -> float | None:
        """max |out1 - out2 aligned by word| over every word and feature, at position scale `scale`."""
        aligned = self.aligned_outputs(scale)
        return None if aligned is None else float(np.abs(aligned[0] - aligned[1]).max())

    def output_at(self, scale: float, which: int) -> np.ndarray:
        """Sentence `which` (1 or 2) attended with the position draw times `scale`: (T, d)."""
        words = self.words1 if which == 1 else self.words2
        x = np.array([self.vectors[w] for w in words])
        return self_attention(x + scale * self.raw_pos[: len(words)], *self.w)


def sentence_experiment(
    sentence1: str = "dog bites man",
    sentence2: str = "man bites dog",
    *,
    seed: int = 2,
    d: int = 6,
    scale: float = 0.5,
    position: str = "random",
) -> SentenceResult:
    """Run two sentences through one self-attention head, without and with position.

    Draw order (module 09): one randn(d) per distinct word in order of first appearance
    (sentence 1, then 2), then w_q, w_k, w_v = randn(d, d), then raw positions
    randn(T_max, d); the position rows are scale * raw positions. Another additive `position`
    kind (ramp, constant, sinusoidal, learned) replaces the raw draw by its unit-scale rows.

    >>> sentence_experiment().word_diff("man", with_position=False) < 1e-12
    True
    """
    words1, words2 = sentence_words(sentence1), sentence_words(sentence2)
    seed = _checks.integer("seed", seed)
    d = _checks.integer("d", d, minimum=1)
    scale = _checks.finite_real("scale", scale)
    rng = np.random.RandomState(seed)
    vectors = {w: rng.randn(d) for w in dict.fromkeys(words1 + words2)}
    w = tuple(rng.randn(d, d) for _ in range(3))
    longest = max(len(words1), len(words2))
    if position not in SENTENCE_POSITIONS:
        raise ValueError(f"position must be one of {', '.join(SENTENCE_POSITIONS)}; got {position!r}")
    raw_pos = rng.randn(longest, d) if position == "random" else position_signal(position, longest, d, 1.0)
    x1 = np.array([vectors[t] for t in words1])
    x2 = np.array([vectors[t] for t in words2])
    p1, p2 = scale * raw_pos[: len(words1)], scale * raw_pos[: len(words2)]
    return SentenceResult(
        words1=words1,
        words2=words2,
        raw_pos=raw_pos,
        scale=scale,
        out1_plain=self_attention(x1, *w),
        out2_plain=self_attention(x2, *w),
        out1_positioned=self_attention(x1 + p1, *w),
        out2_positioned=self_attention(x2 + p2, *w),
        weights1_plain=attention_weights(x1, w[0], w[1]),
        weights2_plain=attention_weights(x2, w[0], w[1]),
        weights1_positioned=attention_weights(x1 + p1, w[0], w[1]),
        weights2_positioned=attention_weights(x2 + p2, w[0], w[1]),
        vectors=vectors,
        w=w,
    )


def reordering(words1: tuple[str, ...], words2: tuple[str, ...]) -> np.ndarray | None:
    """A permutation p with words2[i] == words1[p[i]], or None if words2 is no reordering of words1.

    >>> reordering(("dog", "bites", "man"), ("man", "bites", "dog")).tolist()
    [2, 1, 0]
    """
    if sorted(words1) != sorted(words2):
        return None
    free: dict[str, list[int]] = {}
    for i, w in enumerate(words1):
        free.setdefault(w, []).append(i)
    return np.array([free[w].pop(0) for w in words2], dtype=np.intp)


def magnitude_steps() -> list[float]:
    """Position scales a slider offers: 0, a 1-2-5 series from 1e-6 to 0.05, then 0.1 to 1 in steps of 0.05.

    >>> steps = magnitude_steps(); steps[0], 0.001 in steps, 0.5 in steps, steps[-1]
    (0.0, True, True, 1.0)
    """
    fine = [round(m * 10.0**e, 12) for e in range(-6, -1) for m in (1, 2, 5)]
    coarse = [round(0.05 * i, 2) for i in range(2, 21)]
    return [0.0, *fine, *coarse]


def curve_scales(points: int = 61) -> np.ndarray:
    """Scales at which to draw the distance curve: 0, then `points` log-spaced from 1e-6 to 1.

    Returns: (points + 1,)
    """
    return np.concatenate([[0.0], np.geomspace(1e-6, 1.0, _checks.integer("points", points, minimum=2))])


def sentence_distance_curve(result: SentenceResult, word: str, scales: np.ndarray) -> np.ndarray:
    """max abs difference of `word`'s output rows between the sentences at each scale.

    Returns: (S,) for S scales
    """
    return np.array([result.word_distance(word, float(s)) for s in scales])


def magnitude_curve(sentence1: str, sentence2: str, word: str, points: int = 61) -> tuple[np.ndarray, np.ndarray]:
    """(scales, distances) for the module-09 setup of two sentences, from scale 0 up to 1.

    Returns: ((points + 1,), (points + 1,))
    """
    scales = curve_scales(points)
    return scales, sentence_distance_curve(sentence_experiment(sentence1, sentence2), word, scales)


@dataclass(frozen=True)
class PairMoveResult:
    """Lesson 003's distinction: move (token, position) pairs together, or give the tokens other positions."""

    together: float  # max |attn(X[p] + pos[p]) - attn(X + pos)[p]|: machine zero
    tokens_only: float  # max |attn(X[p] + pos) - attn(X + pos)[p]|: tokens move, positions stay (lesson 000)
    positions_only: float  # max |attn(X + pos[p]) - attn(X + pos)|: same token order, other positions


def pair_move_experiment(
    *,
    seed: int = 42,
    T: int = 6,
    d: int = 8,
    weight_scale: float = 0.5,
    perm: tuple[int, ...] | np.ndarray = LESSON_PERM,
    position: str = "sinusoidal",
    scale: float = 1.0,
) -> PairMoveResult:
    """Three reorderings of lesson 000's setup with an additive position signal (lesson 003's warning).

    Moving each token together with its position vector keeps every (token, position) pair, so the
    outputs just follow the reordering; moving the tokens alone, or the positions alone, changes them.

    >>> r = pair_move_experiment(); r.together < 1e-15, r.tokens_only > 0.1, r.positions_only > 0.1
    (True, True, True)
    """
    if position in ("none", "rotary"):
        raise ValueError(f"position must be an additive signal (not none or rotary), got {position!r}")
    base = order_experiment(seed=seed, T=T, d=d, weight_scale=weight_scale, perm=perm, position=position, scale=scale)
    p = base.perm
    together = self_attention(base.x[p] + base.pos[p], *base.w)
    moved_positions = self_attention(base.x + base.pos[p], *base.w)
    return PairMoveResult(
        together=float(np.abs(together - base.out[p]).max()),
        tokens_only=base.max_diff,
        positions_only=float(np.abs(moved_positions - base.out).max()),
    )


def lesson_or_shuffled(T: int, seed: int) -> tuple[int, ...]:
    """The lesson's permutation (3, 0, 5, 1, 4, 2) at its T = 6; otherwise shuffled(T, seed).

    >>> lesson_or_shuffled(6, 1), len(lesson_or_shuffled(9, 1))
    ((3, 0, 5, 1, 4, 2), 9)
    """
    if _checks.integer("T", T, minimum=1) == len(LESSON_PERM):
        return LESSON_PERM
    return tuple(int(p) for p in shuffled(T, seed))


def shuffled(T: int, seed: int) -> np.ndarray:
    """A seeded random permutation of 0..T-1 (RandomState(seed).permutation).

    >>> shuffled(6, 0).shape
    (6,)
    """
    T = _checks.integer("T", T, minimum=1)
    return np.random.RandomState(_checks.integer("seed", seed)).permutation(T)


@dataclass(frozen=True)
class UniformCausal:
    """Causal attention with every score equal (w_q = 0): the weights and how far the output is from a running mean."""

    weights: np.ndarray  # (T, T), row t = 1/(t+1) on keys 0..t
    gap: float  # max |weights @ v - prefix_mean(v)|


def uniform_causal(seed: int, T: int, d: int) -> UniformCausal:
    """Equal scores under a causal mask: each output is the mean of the values up to it.

    >>> uniform_causal(0, 5, 4).gap < 1e-12
    True
    """
    rng = np.random.default_rng(_checks.integer("seed", seed))
    T = _checks.integer("T", T, minimum=1)
    d = _checks.integer("d", d, minimum=1)
    x = rng.standard_normal((T, d))
    w_k, w_v = rng.standard_normal((2, d, d))
    weights = attention_weights(x, np.zeros((d, d)), w_k, causal=True)
    v = x @ w_v
    return UniformCausal(weights, float(np.abs(weights @ v - prefix_mean(v)).max()))
