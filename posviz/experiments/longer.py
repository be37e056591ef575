"""The Longer contexts, Relative biases and attention-sinks experiments: one setting of a page, run.

The maths is in `posviz.maths.scaling`, `posviz.maths.biases` and `posviz.maths.sinks`; this module runs it for one
setting (a rope_scaling preset, a decay's bases, the biases' shape, a streamed cache against a bug) and keeps the
arrays and counts a page states. Numpy only; the tidy frames and colours are `posviz.drawing`'s.

Dimension letters: P rotated pairs, N distances, T positions, O offsets, B bases.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from posviz.maths import biases, rotary, scaling, sinks
from posviz.maths.sinks import demo_streaming
from posviz.maths.verdicts import machine_zero

BIAS_NAMES = {
    "t5": "T5 bidirectional",
    "t5_causal": "T5 causal",
    "shaw": "Shaw clipped",
    "alibi": "ALiBi",
    "kerple": "KERPLE log",
}
SINK_NAMES = {
    "cache": "positions re-assigned within the cache (StreamingLLM)",
    "original": "positions from the text (each token keeps its own)",
    "rotated_at_insert": "bug: keys rotated once, when cached",
}
SINK_SHORT = {  # each way in a few words, as the legends name its error ("error, text positions")
    "cache": "re-indexed cache",
    "original": "text positions",
    "rotated_at_insert": "keys rotated once",
}
DECAY_BASES = (10_000.0, 500_000.0)
ALIBI_HEADS, ALIBI_HEAD = 8, 5  # the ALiBi head the Relative biases page starts on and the lecture's recap measures


@dataclass(frozen=True)
class Scaled:
    """A preset's rotated pairs, scaled at its extended window, next to the same head unscaled."""

    preset: scaling.Preset
    inv: np.ndarray  # (P,) scaled inverse frequencies
    plain: np.ndarray  # (P,) default inverse frequencies
    attention: float  # the attention factor a (cos and sin are multiplied by it)

    @property
    def changed(self) -> int:
        """Pairs whose frequency the scaling changes (beyond rounding)."""
        return int(self._slowed.sum())

    @property
    def never_turn(self) -> int:
        """Unscaled pairs whose wavelength exceeds the training window: they never complete a turn inside it."""
        return int(self._never.sum())

    @property
    def slowed_never_turn(self) -> int:
        """Slowed pairs among those that never complete a turn inside the training window."""
        return int((self._never & self._slowed).sum())

    @property
    def scales(self) -> bool:
        """False when the preset changes nothing: no pair slowed, attention factor 1, window not extended."""
        return bool(self.changed or self.attention != 1 or self.preset.extended != self.preset.original)

    @property
    def _never(self) -> np.ndarray:
        return scaling.wavelengths(self.plain) > self.preset.original

    @property
    def _slowed(self) -> np.ndarray:
        return np.array([not machine_zero(abs(s / p - 1)) for s, p in zip(self.inv, self.plain, strict=True)])


def scaled(preset: scaling.Preset) -> Scaled:
    """The preset's scaled and default inverse frequencies at its extended length.

    >>> scaled(scaling.PRESETS["llama3.1-8b"]).inv.shape
    (64,)
    """
    inv, attention = preset.inv_freq(preset.extended)
    plain = rotary.frequencies(2 * inv.size, preset.rope_theta)
    return Scaled(preset, inv, plain, attention)


def scaling_factor(preset: scaling.Preset) -> float:
    """The factor every method is given for the preset (`scaling.method_parameters`): its config's, or extended /
    original when it has none.

    >>> scaling_factor(scaling.PRESETS["llama3.1-8b"]), scaling_factor(scaling.PRESETS["neox-partial"])
    (8.0, 1.0)
    """
    return float(preset.params.factor or preset.extended / preset.original)


def llama3_bounds(preset: scaling.Preset) -> tuple[float, float]:
    """Llama 3's two wavelengths (tokens per turn), as `scaling.llama3_masks` uses them for this preset: pairs faster
    than L / high_freq_factor are kept, pairs slower than L / low_freq_factor divided by the factor.

    >>> llama3_bounds(scaling.PRESETS["llama3.1-8b"])
    (2048.0, 8192.0)
    """
    params = scaling.method_parameters("llama3", preset)
    length = params.original_max_position_embeddings
    return length / params.high_freq_factor, length / params.low_freq_factor


def wavelengths(view: Scaled) -> dict[str, np.ndarray]:
    """Tokens per full turn of each pair, unscaled and scaled (an unscaled preset, rope_type "default": the one).

    Returns: {name: (P,)}

    >>> list(wavelengths(scaled(scaling.PRESETS["linear-4k-8k"])))
    ['unscaled', 'linear']
    """
    series = {"unscaled": scaling.wavelengths(view.plain)}
    if view.preset.params.rope_type != "default":
        series[view.preset.params.rope_type] = scaling.wavelengths(view.inv)
    return series


def self_scores(view: Scaled, seed: int, points: int = 1200) -> tuple[np.ndarray, dict[str, np.ndarray]]:
    """Rotary score q . R(m) q of seeded N(0, 1) content with itself out to the extended window, unscaled and
    scaled (with a^2); an unscaled preset (`Scaled.scales` False) has the one curve.

    Returns: ((N,) distances, {name: (N,)}), N <= points

    >>> self_scores(scaled(scaling.PRESETS["linear-4k-8k"]), 0, points=10)[0].shape
    (10,)
    """
    q = np.random.default_rng(seed).standard_normal(view.preset.head_dim)
    distances = np.unique(np.linspace(0, view.preset.extended, points).astype(int))  # (N,)
    series = {"unscaled": scaling.rotary_scores(q, q, distances, view.plain)}
    if view.scales:  # an unscaled preset has the one curve
        # "(x a²)" only where the factor is not 1 (then the curves differ by the slowed pairs alone)
        name = view.preset.params.rope_type + (" (x a²)" if view.attention != 1 else "")
        series[name] = scaling.rotary_scores(q, q, distances, view.inv, view.attention)
    return distances, series


def mean_past_window(view: Scaled, seed: int, points: int = 600) -> dict[str, float]:
    """Each curve's mean score over the distances past the training window (the `self_scores` the chart draws).

    >>> sorted(mean_past_window(scaled(scaling.PRESETS["linear-4k-8k"]), 0, points=50))
    ['linear', 'unscaled']
    """
    distances, series = self_scores(view, seed, points=points)
    past = distances > view.preset.original
    return {name: float(np.mean(values[past])) for name, values in series.items()}


@dataclass(frozen=True)
class Decay:
    """RoFormer's decay bound and the measured score of random content with itself, per base."""

    distances: np.ndarray  # (N,)
    names: tuple[str, ...]  # (B,) "base 10,000", ...
    bound: np.ndarray  # (B, N)
    measured: np.ndarray  # (B, N)

    @property
    def bound_at_zero(self) -> float:
        """The bound at distance 0: (d/2 + 1) / 2 for every base."""
        return float(self.bound[0, 0])

    @property
    def measured_at_zero(self) -> float:
        """The measured score at distance 0: the mean |q|^2 of the draws, for every base."""
        return float(self.measured[0, 0])


def decay(reach: int, dim: int, seed: int, bases: tuple[float, ...] = DECAY_BASES, points: int = 600) -> Decay:
    """Bound (1/(d/2)) sum_j |S_j| and measured mean q . R(m) q for m in [0, reach], one curve per base.

    Returns: Decay with (B, N) curves, N <= points

    >>> decay(100, 8, 0, points=11).bound.shape
    (2, 11)
    """
    m = np.unique(np.linspace(0, reach, points).astype(int))  # (N,)
    bound = np.array([scaling.decay_bound(m, dim, b) for b in bases], dtype=float)
    measured = np.array([scaling.self_scores(m, dim, b, seed=seed) for b in bases], dtype=float)
    return Decay(m, tuple(f"base {b:,.0f}" for b in bases), bound, measured)


def alibi_slope(heads: int, head: int) -> float:
    """The slope of ALiBi's head `head` (1-based) of `heads`: 2^(-8 head / heads) for a power of two.

    >>> alibi_slope(8, 5)
    0.03125
    """
    return float(-biases.bias("alibi", np.array([1]), heads=heads, head=head)[0])


def bias_matrices(T: int, **shape: object) -> dict[str, np.ndarray]:
    """Each bias of biases.KINDS over a T x T grid of offsets j - i; `shape` goes to biases.bias.

    Returns: {kind: (T, T)}

    >>> bias_matrices(4, clip=2)["shaw"].shape
    (4, 4)
    """
    grid = biases.offsets(T)
    return {kind: biases.bias(kind, grid, **shape) for kind in biases.KINDS}


def bias_lines(reach: int, **shape: object) -> tuple[np.ndarray, dict[str, np.ndarray]]:
    """Each bias of biases.KINDS against the offset j - i from -reach to reach; `shape` goes to biases.bias.

    Returns: ((O,) offsets, {kind: (O,)}), O = 2 reach + 1

    >>> bias_lines(3)[1]["alibi"].shape
    (7,)
    """
    line = np.arange(-reach, reach + 1)  # (O,)
    return line, {kind: biases.bias(kind, line, **shape) for kind in biases.KINDS}


def sink_exact(result: sinks.StreamingResult) -> bool:
    """True if every step equals the recompute over the kept tokens up to rounding."""
    return machine_zero(float(result.errors.max()), float(np.abs(result.reference).max(initial=1.0)))


@dataclass(frozen=True)
class SinkComparison:
    """The rolling cache with StreamingLLM's positions and with one of the bugs, on the same tokens and weights."""

    cache: sinks.StreamingResult  # positions inside the cache
    bug: str  # a key of SINK_NAMES other than "cache"
    buggy: sinks.StreamingResult

    @property
    def ways(self) -> dict[str, sinks.StreamingResult]:
        """Both runs by way of giving positions, the cache first."""
        return {"cache": self.cache, self.bug: self.buggy}

    @property
    def bug_name(self) -> str:
        """The other way's short name, as its legend names its error ("text positions")."""
        return SINK_SHORT[self.bug]

    @property
    def errors(self) -> tuple[float, float]:
        """The largest error of each run over every step: the re-indexed cache's, the bug's."""
        return float(self.cache.errors.max()), float(self.buggy.errors.max())

    @property
    def before_eviction(self) -> float | None:
        """The other way's largest error before the first eviction (None if nothing is evicted): rounding only, since
        until then a token's place in the cache is its place in the text."""
        first = self.cache.first_eviction
        return None if first is None else float(self.buggy.errors[:first].max(initial=0.0))

    @property
    def exact(self) -> bool:
        """True if the re-indexed cache equals the recompute over the kept tokens (`sink_exact`)."""
        return sink_exact(self.cache)


def sink_comparison(*, seed: int, T: int, d: int, sinks: int, window: int, bug: str) -> SinkComparison:
    """`demo_streaming` with positions inside the cache and with `bug` ("original" or "rotated_at_insert").

    >>> r = sink_comparison(seed=0, T=24, d=8, sinks=4, window=4, bug="original"); r.exact, r.bug_name
    (True, 'text positions')
    """
    kept = dict(seed=seed, T=T, d=d, sinks=sinks, window=window)
    return SinkComparison(demo_streaming(**kept, positions="cache"), bug, demo_streaming(**kept, positions=bug))
