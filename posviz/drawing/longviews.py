"""What the Longer contexts, Relative biases and attention-sinks views show: their numbers and tidy frames.

The maths is in `posviz.maths.scaling`, `posviz.maths.biases` and `posviz.maths.sinks` (numpy only); this module runs it
for one setting of a page and lays the results out as long-form frames for the `posviz.drawing.charts` builders.
No streamlit here.

Dimension letters: P rotated pairs, N distances, T positions, O offsets.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np
import pandas as pd

from posviz.drawing import charts
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
SINK_SERIES = {  # named like the headlines' metric: each step's error against the recompute
    "cache": "error, re-indexed cache",
    "original": "error, text positions",
    "rotated_at_insert": "error, keys rotated once",
}
SINK_COLOURS = {"cache": "#0072B2", "original": "#E69F00", "rotated_at_insert": "#CC79A7"}
DECAY_BASES = (10_000.0, 500_000.0)
# One colour per way of scaling RoPE, in every chart that draws one (unscaled the neutral grey); Okabe-Ito hues,
# leaving out vermillion, which the charts' reference lines and markers use (charts.ACCENT).
METHOD_COLOURS = {
    "unscaled": "#8c8c8c",
    "linear": "#E69F00",
    "dynamic": "#009E73",
    "yarn": "#CC79A7",
    "llama3": "#0072B2",
    "longrope": "#56B4E9",
}
# The decay part's two bases: hues no method uses, so a colour there does not read as a scaling method.
DECAY_COLOURS = ("#000000", "#D55E00")
# The biases' colours: ALiBi and T5 causal far apart in hue (not two blues) on a projector.
BIAS_COLOURS = {
    "t5": "#CC79A7",
    "t5_causal": "#E69F00",
    "shaw": "#009E73",
    "alibi": "#0072B2",
    "kerple": "#000000",
}


def method_colours(names: list[str] | tuple[str, ...]) -> tuple[tuple[str, str], ...]:
    """Each series name with its method's colour (METHOD_COLOURS), by the name's first word ("yarn (x a²)": yarn).

    >>> method_colours(["unscaled", "yarn (x a²)"])
    (('unscaled', '#8c8c8c'), ('yarn (x a²)', '#CC79A7'))
    """
    unknown = [n for n in names if n.split(" ")[0] not in METHOD_COLOURS]
    if unknown:
        raise ValueError(f"series must be named after one of {tuple(METHOD_COLOURS)}, got {unknown}")
    return tuple((n, METHOD_COLOURS[n.split(" ")[0]]) for n in names)


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


def factor_ticks(top: float, factor: float) -> tuple[float, ...]:
    """Ticks for a log axis of divisors from 1 to `top`: the powers of 4 it spans, and the factor.

    >>> factor_ticks(130.0, 8.0)
    (1.0, 4.0, 8.0, 16.0, 64.0, 256.0)
    """
    powers = [4.0**k for k in range(int(np.ceil(np.log(max(top, 1.0)) / np.log(4))) + 1)]
    return tuple(sorted({*powers, float(factor)}))


def divisor_frame(preset: scaling.Preset) -> pd.DataFrame:
    """Each method's per-pair divisor default theta_i / scaled theta_i: columns pair, divisor, method.

    Returns: (len(METHODS) * P) rows

    >>> divisor_frame(scaling.PRESETS["linear-4k-8k"]).shape
    (256, 3)
    """
    series = scaling.divisors(preset)
    pairs = np.arange(len(next(iter(series.values()))))
    return charts.series_frame(pairs, series, x_name="pair", y_name="divisor", group="method")


def wavelength_frame(view: Scaled) -> pd.DataFrame:
    """Tokens per full turn of each pair, unscaled and scaled: columns pair, wavelength, rope.

    An unscaled preset (rope_type "default") has the one curve.

    Returns: (2P) rows

    >>> wavelength_frame(scaled(scaling.PRESETS["linear-4k-8k"])).shape
    (128, 3)
    """
    series = {"unscaled": scaling.wavelengths(view.plain)}
    if view.preset.params.rope_type != "default":
        series[view.preset.params.rope_type] = scaling.wavelengths(view.inv)
    return charts.series_frame(np.arange(view.inv.size), series, x_name="pair", y_name="wavelength", group="rope")


def window_levels(preset: scaling.Preset) -> pd.DataFrame:
    """The original and the extended window as labelled levels (y, label), for `charts.hline`.

    Windows less than 4x apart sit too close on a log axis for two labels: the upper line then names both, short
    (a label starts mid-plot, so half a narrow chart is all it has).

    >>> window_levels(scaling.PRESETS["llama3.1-8b"])["y"].tolist()
    [8192.0, 131072.0]
    >>> window_levels(scaling.PRESETS["linear-4k-8k"])["label"].tolist()
    ['', 'window 4,096 → 8,192']
    """
    original = f"original {preset.original:,}"
    if preset.extended == preset.original:
        return charts.level_frame(preset.original, original)
    extended = f"extended {preset.extended:,}"
    if preset.extended < 4 * preset.original:
        original, extended = "", f"window {preset.original:,} → {preset.extended:,}"
    levels = [charts.level_frame(preset.original, original), charts.level_frame(preset.extended, extended)]
    return pd.concat(levels, ignore_index=True)


def score_frame(view: Scaled, seed: int, points: int = 1200) -> pd.DataFrame:
    """Rotary score q . R(m) q of seeded N(0, 1) content with itself out to the extended window, unscaled and
    scaled (with a^2): columns distance, score, curve.

    An unscaled preset (`Scaled.scales` False) has the one curve.

    Returns: (2N) rows (N for an unscaled preset), N <= points

    >>> score_frame(scaled(scaling.PRESETS["linear-4k-8k"]), 0, points=10).shape
    (20, 3)
    """
    q = np.random.default_rng(seed).standard_normal(view.preset.head_dim)
    distances = np.unique(np.linspace(0, view.preset.extended, points).astype(int))  # (N,)
    series = {"unscaled": scaling.rotary_scores(q, q, distances, view.plain)}
    if view.scales:  # an unscaled preset has the one curve
        # "(x a²)" only where the factor is not 1 (then the curves differ by the slowed pairs alone)
        name = view.preset.params.rope_type + (" (x a²)" if view.attention != 1 else "")
        series[name] = scaling.rotary_scores(q, q, distances, view.inv, view.attention)
    return charts.series_frame(distances, series, x_name="distance", y_name="score", group="curve")


def window_point(view: Scaled, scores: pd.DataFrame) -> pd.DataFrame:
    """The scaled curve at the end of the training window (x, y, label), for `charts.marker`."""
    curve = scores[scores["curve"] != "unscaled"] if scores["curve"].nunique() > 1 else scores
    at = int(np.searchsorted(curve["distance"].to_numpy(), view.preset.original))
    row = curve.iloc[min(at, len(curve) - 1)]
    return charts.point_frame(row["distance"], row["score"], f"training window {view.preset.original:,}")


def mean_past_window(view: Scaled, seed: int, points: int = 600) -> dict[str, float]:
    """Each curve's mean score over the distances past the training window (the `score_frame` the chart draws).

    >>> sorted(mean_past_window(scaled(scaling.PRESETS["linear-4k-8k"]), 0, points=50))
    ['linear', 'unscaled']
    """
    scores = score_frame(view, seed, points=points)
    past = scores[scores["distance"] > view.preset.original]
    return {name: float(curve["score"].mean()) for name, curve in past.groupby("curve", sort=False)}


@dataclass(frozen=True)
class Decay:
    """RoFormer's decay bound and the measured score of random content with itself, per base."""

    bound: pd.DataFrame  # columns distance, value, curve
    measured: pd.DataFrame  # columns distance, value, curve

    @property
    def bound_at_zero(self) -> float:
        """The bound at distance 0: (d/2 + 1) / 2 for every base."""
        return float(self.bound["value"].iloc[0])

    @property
    def measured_at_zero(self) -> float:
        """The measured score at distance 0: the mean |q|^2 of the draws, for every base."""
        return float(self.measured["value"].iloc[0])


def decay(reach: int, dim: int, seed: int, bases: tuple[float, ...] = DECAY_BASES, points: int = 600) -> Decay:
    """Bound (1/(d/2)) sum_j |S_j| and measured mean q . R(m) q for m in [0, reach], one curve per base.

    Returns: frames of (len(bases) * N) rows, N <= points

    >>> decay(100, 8, 0, points=11).bound.shape
    (22, 3)
    """
    m = np.unique(np.linspace(0, reach, points).astype(int))  # (N,)
    names = [f"base {b:,.0f}" for b in bases]
    bound = {n: scaling.decay_bound(m, dim, b) for n, b in zip(names, bases, strict=True)}
    measured = {n: scaling.self_scores(m, dim, b, seed=seed) for n, b in zip(names, bases, strict=True)}
    return Decay(
        charts.series_frame(m, bound, x_name="distance", y_name="value"),
        charts.series_frame(m, measured, x_name="distance", y_name="value"),
    )


def alibi_slope(heads: int, head: int) -> float:
    """The slope of ALiBi's head `head` (1-based) of `heads`: 2^(-8 head / heads) for a power of two.

    >>> alibi_slope(8, 5)
    0.03125
    """
    return float(-biases.bias("alibi", np.array([1]), heads=heads, head=head)[0])


def bias_colours() -> tuple[tuple[str, str], ...]:
    """Each bias's display name with its colour (BIAS_COLOURS), in KINDS order."""
    return tuple((BIAS_NAMES[k], BIAS_COLOURS[k]) for k in biases.KINDS)


def bias_matrices(T: int, **shape: object) -> dict[str, np.ndarray]:
    """Each bias of biases.KINDS over a T x T grid of offsets j - i; `shape` goes to biases.bias.

    Returns: {kind: (T, T)}

    >>> bias_matrices(4, clip=2)["shaw"].shape
    (4, 4)
    """
    grid = biases.offsets(T)
    return {kind: biases.bias(kind, grid, **shape) for kind in biases.KINDS}


def bias_frame(reach: int, **shape: object) -> pd.DataFrame:
    """Each bias against the offset j - i from -reach to reach: columns offset, bias, kind (its display name).

    Returns: (len(KINDS) * (2 reach + 1)) rows

    >>> bias_frame(3).shape
    (35, 3)
    """
    line = np.arange(-reach, reach + 1)  # (O,)
    series = {BIAS_NAMES[k]: biases.bias(k, line, **shape) for k in biases.KINDS}
    return charts.series_frame(line, series, x_name="offset", y_name="bias", group="kind")


def sink_series(results: Mapping[str, sinks.StreamingResult]) -> dict[str, str]:
    """Each way's legend name (SINK_SERIES), marked where every step's error is rounding (`sink_exact`): its bars are
    at 0 on the chart's axis, not missing.

    >>> sink_series({"cache": sinks.demo_streaming(T=12)})["cache"]
    'error, re-indexed cache (rounding only: at 0)'
    """
    return {w: SINK_SERIES[w] + (" (rounding only: at 0)" if sink_exact(r) else "") for w, r in results.items()}


def sink_colours(results: Mapping[str, sinks.StreamingResult]) -> tuple[tuple[str, str], ...]:
    """Each way's legend name and its colour (SINK_COLOURS), for `charts.grouped_bars_keyed`."""
    return tuple((name, SINK_COLOURS[w]) for w, name in sink_series(results).items())


def sink_errors_frame(results: Mapping[str, sinks.StreamingResult]) -> pd.DataFrame:
    """Error of each step for each way of giving positions: columns token, error, way (its legend name).

    Returns: (len(results) * T) rows
    """
    names = sink_series(results)
    series = {names[w]: r.errors for w, r in results.items()}
    tokens = np.arange(len(next(iter(results.values())).errors))
    return charts.series_frame(tokens, series, x_name="token", y_name="error", group="way")


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
        return SINK_SERIES[self.bug].removeprefix("error, ")

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
