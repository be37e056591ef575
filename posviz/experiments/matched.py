"""What each position scheme buys, measured on posviz's matched family (posviz.models.matched).

Every model of the family shares its text, bytes, architecture, initialisation, optimiser, steps and training
window T_train; only the position scheme differs. These experiments read the shipped weights: held-out loss at
each position out to 8 x T_train, RoPE scaling methods applied at inference, a linear probe of position from each
layer, attention on a typed text, and the position signal scaled from 0 to 1.

Legend: T tokens, N windows, L layers, d width, P positions, S scales.
"""

from __future__ import annotations

import functools
import os
import threading
from dataclasses import dataclass

import numpy as np

from posviz.maths import scaling
from posviz.models import matched

DEFAULT_WINDOWS = 8  # held-out windows a server evaluates unless POSVIZ_MATCHED_WINDOWS says otherwise


def _windows_setting(value: str | None, default: int = DEFAULT_WINDOWS) -> int:
    """POSVIZ_MATCHED_WINDOWS: how many held-out windows a server evaluates (more: smoother curves, slower start).

    >>> _windows_setting(None), _windows_setting("3"), _windows_setting("many")
    (8, 3, 8)
    """
    return int(value) if value is not None and value.isdigit() and 1 <= int(value) <= 200 else default


# Held-out windows (of 8 x T_train tokens) the server evaluates, spread evenly over all of them; the tests' servers
# set POSVIZ_MATCHED_WINDOWS=1 (they check drawing, not statistics).
WINDOWS = _windows_setting(os.environ.get("POSVIZ_MATCHED_WINDOWS"))
FACTOR = 8  # the long windows reach FACTOR x T_train tokens
SCALING = scaling.METHODS  # the core's scaling methods, applied to the RoPE models as the longer-contexts page does
RECENT = 4  # "recent" keys: the query itself and the 3 before it


def spread_windows(length: int, count: int) -> np.ndarray:
    """`count` held-out windows of length + 1 bytes (at the evaluation's stride), evenly spread over all of them.

    Returns: (N, length + 1)
    """
    every = matched.windows(length, matched.provenance()["evaluation"]["stride"])
    if not 1 <= count <= len(every):
        raise ValueError(f"count must be in 1..{len(every)} (the held-out windows), got {count}")
    return every[np.unique(np.linspace(0, len(every) - 1, count).round().astype(int))]


def long_windows(count: int = WINDOWS) -> np.ndarray:
    """`count` of the held-out evaluation windows (FACTOR x T_train + 1 bytes), evenly spread over all of them.

    Returns: (N, FACTOR T_train + 1)
    """
    return spread_windows(matched.provenance()["evaluation"]["window_tokens"], count)


def reach(scheme: str, T: int) -> int:
    """How far a scheme can read: the learned table stops at its last row (T_train); the others run to T."""
    return min(T, matched.config().T_train) if scheme == "learned" else T


def heldout_curve(scheme: str, seed: int, count: int = WINDOWS, **kwargs) -> np.ndarray:
    """Mean held-out loss at each position (nats per byte) of one model; kwargs go to matched.forward.

    Returns: (P,) with P = FACTOR T_train, or T_train for the learned table
    """
    w = long_windows(count)
    P = reach(kwargs.get("scheme", scheme), w.shape[1] - 1)
    return matched.token_losses(matched.load(scheme, seed), w[:, : P + 1], **kwargs).mean(axis=0)


def bins(T_train: int, factor: int = FACTOR) -> list[tuple[int, int]]:
    """Position bins [0, T), [T, 2T), [2T, 4T), ... up to factor x T_train.

    >>> bins(64, 8)
    [(0, 64), (64, 128), (128, 256), (256, 512)]
    """
    edges, k = [0, T_train], 2
    while k <= factor:
        edges.append(k * T_train)
        k *= 2
    return list(zip(edges[:-1], edges[1:], strict=True))


@dataclass(frozen=True)
class BinRow:
    """One scheme's held-out loss in one position bin, or its rise there over the training window: the seeds'
    mean, lowest and highest (nan where it cannot read so far)."""

    scheme: str
    start: int
    stop: int
    mean: float
    low: float
    high: float
    seeds: int

    @property
    def signed_mean(self) -> str:
        """The mean alone, with its sign, in `signed`'s decimals (`written` where the seeds print alike).

        >>> BinRow("none", 512, 1024, 0.2586, 0.2574, 0.2598, 2).signed_mean
        '+0.259'
        """
        return f"{self.mean:+.{self.places}f}"

    @property
    def places(self) -> int:
        """Decimals for the rise: 2, or 3 where 2 would print the seeds' two different values alike."""
        return 3 if f"{self.low:+.2f}" == f"{self.high:+.2f}" and self.low != self.high else 2

    @property
    def seeds_range(self) -> str:
        """The seeds' lowest and highest, with their signs, in `signed`'s decimals.

        >>> BinRow("alibi", 512, 1024, 0.2338, 0.2042, 0.2634, 2).seeds_range
        '+0.20..+0.26'
        """
        return f"{self.low:+.{self.places}f}..{self.high:+.{self.places}f}"

    @property
    def written(self) -> str:
        """What a bar writes: the seeds' range where its two ends print apart, else the mean, said to be both seeds'
        (a lone number read as a missing range).

        >>> BinRow("rope", 512, 1024, 2.526, 2.310, 2.742, 2).written
        '+2.31..+2.74'
        >>> BinRow("sinusoid", 512, 1024, 1.3061, 1.3057, 1.3064, 2).written
        '+1.306 (both seeds)'
        """
        low, high = self.seeds_range.split("..")
        return f"{self.signed_mean} ({'both' if self.seeds == 2 else 'all'} seeds)" if low == high else self.seeds_range

    @property
    def signed(self) -> str:
        """The mean and the seeds' range with their signs (a rise): 2 decimals, 3 where 2 would print two seeds'
        different values as one range "+0.26..+0.26", which reads as one seed counted twice.

        >>> BinRow("none", 512, 1024, 0.2586, 0.2574, 0.2598, 2).signed
        '+0.259 (seeds +0.257..+0.260)'
        """
        return f"{self.signed_mean} (seeds {self.seeds_range})"


def bin_table(curves: dict[tuple[str, int], np.ndarray], factor: int = FACTOR) -> list[BinRow]:
    """Each scheme's mean loss per bin over its seeds, from curves keyed (scheme, seed)."""
    rows = []
    for scheme in matched.SCHEMES:
        mine = [c for (s, _), c in curves.items() if s == scheme]
        for a, b in bins(matched.config().T_train, factor):
            values = [float(c[a:b].mean()) for c in mine if len(c) >= b]
            nan = float("nan")
            stats = (np.mean(values), min(values), max(values)) if values else (nan, nan, nan)
            rows.append(BinRow(scheme, a, b, *map(float, stats), len(values)))
    return rows


def rises(curves: dict[str, np.ndarray], T_train: int, start: int, stop: int) -> dict[str, BinRow]:
    """Each scheme's rise from curves keyed scheme-seedK (loss per position): mean of curve[start:stop] minus mean
    of curve[:T_train], per seed; a scheme whose curves stop before `stop` (the learned table) is left out.

    >>> rises({"a-seed0": np.r_[np.ones(4), 3 * np.ones(4)], "a-seed1": np.ones(8)}, 4, 4, 8)["a"].signed
    '+1.00 (seeds +0.00..+2.00)'
    """
    if not 0 < T_train <= start < stop:
        raise ValueError(f"expected 0 < T_train <= start < stop, got T_train {T_train}, start {start}, stop {stop}")
    per: dict[str, list[float]] = {}
    for name, curve in curves.items():
        scheme = name.rsplit("-seed", 1)[0]
        if len(curve) >= stop:
            per.setdefault(scheme, []).append(float(curve[start:stop].mean() - curve[:T_train].mean()))
    return {k: BinRow(k, start, stop, float(np.mean(v)), min(v), max(v), len(v)) for k, v in per.items()}


def extremes(rise: dict[str, BinRow]) -> tuple[list[str], list[str]]:
    """The schemes whose rise is least and most, each with any other whose seeds' range overlaps it (a difference
    within the seeds' spread picks no single scheme).

    >>> extremes({"a": BinRow("a", 1, 2, 0.1, 0.0, 0.2, 2), "b": BinRow("b", 1, 2, 0.15, 0.1, 0.2, 2),
    ...           "c": BinRow("c", 1, 2, 2.0, 1.9, 2.1, 2)})
    (['a', 'b'], ['c'])
    """
    order = sorted(rise.values(), key=lambda r: r.mean)
    least = [r.scheme for r in order if r is order[0] or r.low <= order[0].high]
    most = [r.scheme for r in order[::-1] if r is order[-1] or r.high >= order[-1].low]
    return least, most


def rope_preset(factor: float = FACTOR) -> scaling.Preset:
    """The matched RoPE models' rotary setup as a scaling preset: trained at T_train, extended to factor x T_train."""
    cfg = matched.config()
    return scaling.Preset(
        f"matched rope ({cfg.T_train} -> {round(factor * cfg.T_train)})",
        "posviz/data/matched/provenance.json recipe.model",
        cfg.d_k,
        cfg.base,
        scaling.RopeParameters("default"),
        cfg.T_train,
        round(factor * cfg.T_train),
    )


def scaled_rope_curve(seed: int, method: str, factor: float = FACTOR, count: int = WINDOWS) -> np.ndarray:
    """The RoPE model's held-out loss per position with a scaling method applied at inference, no fine-tuning:
    `scaling.method_parameters` of the method for a window of T_train extended `factor` times (dynamic at the
    windows' length), as the longer-contexts page applies them.

    Returns: (FACTOR T_train,)
    """
    if method not in SCALING:
        raise ValueError(f"method must be one of {', '.join(SCALING)}, got {method!r}")
    preset = rope_preset(factor)
    w = long_windows(count)
    params = scaling.method_parameters(method, preset)
    inv, attention = scaling.inv_freq(params, preset.head_dim, preset.rope_theta, seq_len=w.shape[1] - 1)
    model = matched.load("rope", seed)
    return matched.token_losses(model, w, inv_freq=inv, attention_factor=attention).mean(axis=0)


RIDGES = 10.0 ** np.arange(-3, 4)  # the probe's ridge strengths, per row, on standardised features


def _ridge(x: np.ndarray, y: np.ndarray, ridge: float) -> np.ndarray:
    """Ridge coefficients of centred y on centred x: (x'x + ridge n I)^-1 x'y."""
    return np.linalg.solve(x.T @ x + ridge * len(x) * np.eye(x.shape[1]), x.T @ y)


def _r2(x_fit: np.ndarray, y_fit: np.ndarray, x_test: np.ndarray, y_test: np.ndarray) -> float:
    """R² on the test rows of a linear probe fitted on the fit rows: features standardised on the fit rows, the
    ridge strength chosen from RIDGES by two-fold validation within the fit rows (the test rows never choose it).
    """
    mean, std = x_fit.mean(0), x_fit.std(0) + 1e-12
    xf, xt, my = (x_fit - mean) / std, (x_test - mean) / std, y_fit.mean()
    half = len(xf) // 2

    def error(ridge: float) -> float:
        folds = ((slice(0, half), slice(half, None)), (slice(half, None), slice(0, half)))
        return sum(float(((xf[b] @ _ridge(xf[a], y_fit[a] - my, ridge) + my - y_fit[b]) ** 2).sum()) for a, b in folds)

    coef = _ridge(xf, y_fit - my, min(RIDGES, key=error))
    pred = xt @ coef + my
    return float(1 - ((y_test - pred) ** 2).sum() / ((y_test - y_test.mean()) ** 2).sum())


def position_probe(scheme: str, seed: int, count: int = 32) -> np.ndarray:
    """R² of a linear probe that reads each token's position t from the residual stream, before each layer and
    after the last: fitted on half of `count` held-out windows of T_train tokens, scored on the other half.

    Returns: (L + 1,)
    """
    T = matched.config().T_train
    w = spread_windows(T, count)[:, :T]
    hidden = matched.forward(matched.load(scheme, seed), w, keep=True).hidden.astype(np.float64)  # (L+1, N, T, d)
    half = len(w) // 2
    y = np.tile(np.arange(T, dtype=float), len(w)).reshape(len(w), T)
    out = []
    for h in hidden:
        fit, test = h[:half].reshape(-1, h.shape[-1]), h[half:].reshape(-1, h.shape[-1])
        out.append(_r2(fit, y[:half].ravel(), test, y[half:].ravel()))
    return np.array(out)


@dataclass(frozen=True)
class Reading:
    """One model's attention on a text: a head's weights, and per query the weight on the first token and on the
    RECENT most recent keys (mean over every head of the layer).

    weights: (T, T); first, recent: (T,)
    """

    scheme: str
    layer: int
    head: int
    weights: np.ndarray
    first: np.ndarray
    recent: np.ndarray


@functools.lru_cache(maxsize=8)
def _layer_weights(scheme: str, seed: int, ids: bytes, layer: int) -> np.ndarray:
    """One layer's attention weights on a byte string, the layers after it not run; cached so that the page's
    chosen head and its per-scheme curves share one pass.

    Returns: (H, T, T) float32, read-only
    """
    ids_ = np.frombuffer(ids, dtype=np.uint8).astype(np.int64)
    # a copy: the slice of the stacked maps would keep every earlier layer's (H, T, T) alive in the cache too
    a = matched.forward(matched.load(scheme, seed), ids_, keep=True, layers=layer + 1).weights[layer].copy()
    a.flags.writeable = False
    return a


def attention_reading(scheme: str, seed: int, ids: np.ndarray, layer: int = 0, head: int = 0) -> Reading:
    """Read one layer's attention on a byte sequence (its length may pass T_train, except for the learned table)."""
    cfg = matched.config()
    if not (0 <= layer < cfg.layers and 0 <= head < cfg.heads):
        raise ValueError(f"expected layer in 0..{cfg.layers - 1} and head in 0..{cfg.heads - 1}, got {layer}, {head}")
    a = _layer_weights(scheme, seed, np.asarray(ids, dtype=np.uint8).tobytes(), layer)  # (H, T, T) float32
    # weight on key t - o at query t, o < RECENT, read from a's diagonals (not a (H, T, T) mask): (H, T) each
    band = [np.diagonal(a, -o, axis1=-2, axis2=-1).astype(np.float64) for o in range(min(RECENT, a.shape[-1]))]
    recent = sum(np.pad(b, ((0, 0), (o, 0))) for o, b in enumerate(band))
    first = a[:, :, 0].mean(0, dtype=np.float64)
    return Reading(scheme, layer, head, a[head].astype(np.float64), first, recent.mean(0))


def magnitude_losses(scheme: str, seed: int, scales: np.ndarray, count: int = 8) -> np.ndarray:
    """Held-out loss inside the training window with the model's position signal times each scale (0 removes it).

    Returns: (S,)
    """
    T = matched.config().T_train
    w = long_windows(count)[:, : T + 1]
    model = matched.load(scheme, seed)
    return np.array([matched.token_losses(model, w, position_scale=float(s)).mean() for s in scales])


def sentence_cosine(scheme: str, seed: int, text1: str, text2: str, scales: np.ndarray) -> np.ndarray:
    """Cosine of the two texts' mean final hidden states at each scale of the position signal: two texts with the
    same bytes in another order get the same mean with no position and no mask, but a causal decoder's mask
    already tells them apart at scale 0.

    Returns: (S,)
    """
    model = matched.load(scheme, seed)
    out = []
    for s in scales:
        h1, h2 = (
            matched.forward(model, matched.encode(t), position_scale=float(s), keep=True).hidden[-1].mean(0)
            for t in (text1, text2)
        )
        out.append(float(h1 @ h2 / np.linalg.norm(h1) / np.linalg.norm(h2)))
    return np.array(out)


_CURVES = threading.Lock()  # one computation at a time: a second caller (the lecture, the page) waits for the warm-up's


def family_curves(count: int | None = None) -> dict[str, np.ndarray]:
    """Every shipped model's held-out loss by position on `count` windows (default WINDOWS), keyed scheme-seedK
    (computed once per process and count; a call while another computes them waits for its result)."""
    with _CURVES:
        return _family_curves(count or WINDOWS)


@functools.cache
def _family_curves(count: int) -> dict[str, np.ndarray]:
    out = {}
    for name in matched.names():
        entry = matched.provenance()["models"][name]
        out[name] = heldout_curve(entry["scheme"], entry["seed"], count)
    return out


def family_scaled(count: int | None = None) -> dict[str, np.ndarray]:
    """The RoPE models' held-out loss by position as trained ("unscaled-seedK") and with each scaling method, on
    `count` windows (default WINDOWS)."""
    return _family_scaled(count or WINDOWS)


@functools.cache
def _family_scaled(count: int) -> dict[str, np.ndarray]:
    out = {}
    for seed in matched.seeds():
        out[f"unscaled-seed{seed}"] = family_curves(count)[f"rope-seed{seed}"]
        for method in SCALING:
            out[f"{method}-seed{seed}"] = scaled_rope_curve(seed, method, count=count)
    return out


@functools.cache
def family_probe(count: int = 32) -> dict[str, np.ndarray]:
    """Every shipped model's probe R² per layer, keyed scheme-seedK."""
    models = matched.provenance()["models"]
    return {name: position_probe(models[name]["scheme"], models[name]["seed"], count) for name in matched.names()}


def window_table(curves: dict[str, np.ndarray]) -> list[BinRow]:
    """`bin_table` of curves keyed scheme-seedK."""
    models = matched.provenance()["models"]
    return bin_table({(models[k]["scheme"], models[k]["seed"]): c for k, c in curves.items()})


def mean_past(curves: dict[str, np.ndarray], start: int) -> dict[str, float]:
    """Each curve family's loss from position `start` on, mean over its seeds (curves keyed name-seedK), in the
    curves' order.

    >>> mean_past({"a-seed0": np.array([9.0, 1.0]), "a-seed1": np.array([9.0, 3.0])}, 1)
    {'a': 2.0}
    """
    out: dict[str, list[float]] = {}
    for key, curve in curves.items():
        out.setdefault(key.rsplit("-seed", 1)[0], []).append(float(curve[start:].mean()))
    return {k: float(np.mean(v)) for k, v in out.items()}


def seed_mean(values: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """Arrays keyed name-seedK averaged over the seeds of each name, in the values' order.

    >>> seed_mean({"a-seed0": np.array([1.0, 2.0]), "a-seed1": np.array([3.0, 4.0])})["a"].shape
    (2,)
    """
    out: dict[str, list[np.ndarray]] = {}
    for key, v in values.items():
        out.setdefault(key.rsplit("-seed", 1)[0], []).append(np.asarray(v, dtype=float))
    return {k: np.mean(v, axis=0) for k, v in out.items()}


@dataclass(frozen=True)
class Setup:
    """What a scaling method does to the matched RoPE models' pairs at a length: each pair's angle divided by
    `divisors` (1 = untouched), the base it rotates with, and the factor multiplying cos and sin.

    divisors: (d_k / 2,)
    """

    method: str
    divisors: np.ndarray
    base: float
    attention: float
    length: int

    @property
    def kept(self) -> int:
        """How many pairs the method leaves untouched (divisor 1)."""
        return int(np.isclose(self.divisors, 1.0).sum())

    @property
    def divided(self) -> int:
        """How many pairs the method slows by the whole factor or more (length / T_train: position interpolation)."""
        return int((self.divisors >= self.length / matched.config().T_train - 1e-9).sum())


def scaling_setups(factor: float = FACTOR) -> dict[str, Setup]:
    """Each of the core's scaling methods as applied to the matched RoPE models (`scaled_rope_curve`), at the long
    windows' length factor x T_train.

    >>> {k: v.divisors.shape for k, v in scaling_setups().items()}["linear"]
    (8,)
    """
    preset, cfg = rope_preset(factor), matched.config()
    length = preset.extended
    plain = scaling.frequencies(cfg.d_k, cfg.base)
    out = {}
    for method in SCALING:
        params = scaling.method_parameters(method, preset)
        inv, attention = scaling.inv_freq(params, cfg.d_k, cfg.base, seq_len=length)
        base = (
            scaling.dynamic_base(cfg.base, cfg.d_k, params.factor, cfg.T_train, length)
            if method == "dynamic"
            else cfg.base
        )
        out[method] = Setup(method, plain / inv, float(base), float(attention), length)
    return out


MAX_BYTES = 1000  # a typed text is read up to this many UTF-8 bytes (attention costs T² a head)
TEXT = "The interpreter reads the file line by line; each statement runs in order. " * 6  # the page's default text


def typed(text: str, limit: int = MAX_BYTES) -> str:
    """A typed text cut to its first `limit` UTF-8 bytes, a character cut in two dropped.

    >>> len(typed("é" * 600)), len(typed("abc", 2))
    (500, 2)
    """
    return matched.encode(text)[:limit].astype(np.uint8).tobytes().decode("utf-8", "ignore")


@functools.lru_cache(maxsize=8)
def head_weights(scheme: str, seed: int, text: str, layer: int, head: int) -> np.ndarray:
    """One head's attention weights on a text's bytes, as far as the scheme reads (the learned table: T_train).

    Returns: (T, T) float32
    """
    ids = matched.encode(text)
    return attention_reading(scheme, seed, ids[: reach(scheme, ids.size)], layer, head).weights.astype(np.float32)


@functools.lru_cache(maxsize=16)
def text_curves(text: str) -> dict[str, np.ndarray]:
    """Every shipped model's loss at each position of a text's UTF-8 bytes, keyed scheme-seedK; the learned table's
    curve stops at T_train (it has no row past it).

    Returns: {name: (P,)} with P = bytes - 1, or at most T_train for the learned table
    """
    ids = matched.encode(text)
    if ids.size < 2:
        raise ValueError(f"a text needs at least 2 bytes (one to read, one to predict), got {ids.size}")
    out = {}
    for name in matched.names():
        entry = matched.provenance()["models"][name]
        P = reach(entry["scheme"], ids.size - 1)
        out[name] = matched.token_losses(matched.load(entry["scheme"], entry["seed"]), ids[: P + 1])
    return out


@functools.lru_cache(maxsize=16)
def family_attention(text: str, layer: int, seed: int = 0) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """Each scheme's (seed `seed`) weight on the first byte and on the RECENT latest bytes at each query of a text's
    bytes, mean over the layer's heads; the learned table reads only the first T_train bytes.

    Returns: {scheme-seedK: ((T,) first, (T,) recent)}, T = the bytes the scheme reads
    """
    return {f"{scheme}-seed{seed}": scheme_attention(text, layer, scheme, seed) for scheme in matched.SCHEMES}


def scheme_attention(text: str, layer: int, scheme: str, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """One scheme's `family_attention` entry (the page runs the schemes side by side, one job each).

    Returns: ((T,) first, (T,) recent), T = the bytes the scheme reads
    """
    ids = matched.encode(text)
    r = attention_reading(scheme, seed, ids[: reach(scheme, ids.size)], layer)
    return r.first, r.recent


SCALES = tuple(float(s) for s in np.linspace(0.0, 1.0, 6))  # the position signal's scales the page shows


def family_magnitude(scales: tuple[float, ...] = SCALES, count: int | None = None) -> dict[str, np.ndarray]:
    """`magnitude_losses` of every shipped model with a position signal on `count` windows (default WINDOWS), keyed
    scheme-seedK (computed once per process, scales and count).

    Returns: {name: (S,)}
    """
    return _family_magnitude(tuple(scales), count or WINDOWS)


@functools.cache
def _family_magnitude(scales: tuple[float, ...], count: int) -> dict[str, np.ndarray]:
    models = matched.provenance()["models"]
    return {
        name: magnitude_losses(models[name]["scheme"], models[name]["seed"], np.array(scales), count)
        for name in matched.names()
        if models[name]["scheme"] != "none"
    }


@functools.cache
def family_cosine(text1: str, text2: str, scales: tuple[float, ...]) -> dict[str, np.ndarray]:
    """`sentence_cosine` of every shipped model with a position signal, keyed scheme-seedK.

    Returns: {name: (S,)}
    """
    models = matched.provenance()["models"]
    return {
        name: sentence_cosine(models[name]["scheme"], models[name]["seed"], text1, text2, np.array(scales))
        for name in matched.names()
        if models[name]["scheme"] != "none"
    }


def warm() -> None:
    """Compute what the page's first views need, once per process (the server calls it at start)."""
    family_curves()
    family_probe()
    family_scaled()
    family_magnitude()
    text_curves(TEXT)
    family_attention(TEXT, 0)
    head_weights("rope", 0, TEXT, 0, 0)
