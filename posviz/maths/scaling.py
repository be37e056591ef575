"""RoPE scaling as models ship it: inverse frequencies and attention factor per `rope_type`.

The formulas and parameter names follow Hugging Face transformers, `src/transformers/modeling_rope_utils.py`
(`_compute_default_rope_parameters`, `_compute_linear_scaling_rope_parameters`,
`_compute_dynamic_ntk_parameters`, `_compute_yarn_parameters` with `mscale`/`mscale_all_dim`/`truncate`,
`_compute_longrope_parameters`, `_compute_llama3_parameters`), computed here in float64.
RoPE's long-term decay bound is RoFormer (Su et al. 2021) section 3.4.3.

Dimension letters:
    d  head width      r  rotary width int(d * partial_rotary_factor)      P = r/2 rotated pairs
    N  distances       S  random samples
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from posviz.maths import _checks
from posviz.maths.rotary import frequencies, rotate

ROPE_TYPES = ("default", "linear", "dynamic", "yarn", "longrope", "llama3")
YARN_BETA_FAST, YARN_BETA_SLOW = 32.0, 1.0


@dataclass(frozen=True)
class RopeParameters:
    """What a model reads from `rope_scaling` besides head_dim and rope_theta (names as in its config).

    Fields a rope_type does not read are ignored by it; those it needs must be set (see `inv_freq`).
    """

    rope_type: str = "default"
    factor: float | None = None
    original_max_position_embeddings: int | None = None
    max_position_embeddings: int | None = None
    low_freq_factor: float | None = None
    high_freq_factor: float | None = None
    beta_fast: float | None = None
    beta_slow: float | None = None
    mscale: float | None = None
    mscale_all_dim: float | None = None
    attention_factor: float | None = None
    truncate: bool = True
    short_factor: tuple[float, ...] | None = None
    long_factor: tuple[float, ...] | None = None


def rotary_dim(head_dim: int, partial_rotary_factor: float = 1.0) -> int:
    """Rotated width r = int(head_dim * partial_rotary_factor), even (GPT-NeoX's rotary_pct).

    >>> rotary_dim(96, 0.25)
    24
    """
    head_dim = _checks.integer("head_dim", head_dim, minimum=2)
    share = _checks.positive_real("partial_rotary_factor", partial_rotary_factor)
    if share > 1:
        raise ValueError(f"partial_rotary_factor must be in (0, 1], got {share}")
    dim = int(head_dim * share)
    if dim < 2 or dim % 2:
        raise ValueError(f"int(head_dim * partial_rotary_factor) must be even and >= 2, got {dim}")
    return dim


def _need(params: RopeParameters, *names: str) -> None:
    missing = [n for n in names if getattr(params, n) is None]
    if missing:
        raise ValueError(f"rope_type {params.rope_type!r} needs {', '.join(missing)}, got None")


def _factor(params: RopeParameters, *, minimum: float = 1.0) -> float:
    factor = _checks.positive_real("factor", params.factor)
    if factor < minimum:
        raise ValueError(f"factor must be >= {minimum:g} for rope_type {params.rope_type!r}, got {factor}")
    return factor


def dynamic_base(base: float, dim: int, factor: float, max_position_embeddings: int, seq_len: int) -> float:
    """Dynamic NTK base: base * (factor * L / L_max - (factor - 1)) ** (r / (r - 2)), L = max(seq_len, L_max).

    >>> round(dynamic_base(1e4, 128, 2.0, 2048, 4096), 2)
    30527.74
    """
    dim = _checks.even_width("dim", dim, why="RoPE rotates pairs of dimensions")
    if dim < 4:
        raise ValueError(f"dynamic NTK needs a rotary width of at least 4 (it divides by r - 2), got {dim}")
    top = _checks.integer("max_position_embeddings", max_position_embeddings, minimum=1)
    length = max(_checks.integer("seq_len", seq_len, minimum=1), top)
    return base * (factor * length / top - (factor - 1)) ** (dim / (dim - 2))


def yarn_correction_range(
    dim: int,
    base: float,
    original_max_position_embeddings: int,
    beta_fast: float = 32.0,
    beta_slow: float = 1.0,
    *,
    truncate: bool = True,
) -> tuple[float, float]:
    """YaRN's pair range (low, high) between which frequencies blend from kept to interpolated.

    find_correction_dim(n) = r * ln(L / (2 pi n)) / (2 ln theta); low = floor(dim(beta_fast)),
    high = ceil(dim(beta_slow)) when truncate; clipped to [0, r - 1] (transformers' find_correction_range).

    >>> yarn_correction_range(128, 1e4, 4096)
    (20, 46)
    """
    dim = _checks.even_width("dim", dim, why="RoPE rotates pairs of dimensions")
    base = _checks.positive_real("base", base)
    if base == 1:
        raise ValueError("base must differ from 1 (YaRN divides by its log), got 1.0")
    length = _checks.integer("original_max_position_embeddings", original_max_position_embeddings, minimum=1)
    fast, slow = _checks.positive_real("beta_fast", beta_fast), _checks.positive_real("beta_slow", beta_slow)

    def correction_dim(rotations: float) -> float:
        return dim * math.log(length / (rotations * 2 * math.pi)) / (2 * math.log(base))

    low, high = correction_dim(fast), correction_dim(slow)
    if truncate:
        low, high = math.floor(low), math.ceil(high)
    return max(low, 0), min(high, dim - 1)


def yarn_mscale(scale: float, mscale: float = 1.0) -> float:
    """YaRN's attention temperature: 0.1 * mscale * ln(scale) + 1 for scale > 1, else 1.

    >>> round(yarn_mscale(4.0), 6)
    1.138629
    """
    return 1.0 if scale <= 1 else 0.1 * mscale * math.log(scale) + 1.0


def _yarn(inv: np.ndarray, dim: int, base: float, params: RopeParameters) -> tuple[np.ndarray, float]:
    _need(params, "factor", "original_max_position_embeddings")
    factor = _factor(params)
    attention = params.attention_factor
    if attention is None:
        if params.mscale and params.mscale_all_dim:
            attention = yarn_mscale(factor, params.mscale) / yarn_mscale(factor, params.mscale_all_dim)
        else:
            attention = yarn_mscale(factor)
    low, high = yarn_correction_range(
        dim,
        base,
        params.original_max_position_embeddings,
        params.beta_fast or YARN_BETA_FAST,
        params.beta_slow or YARN_BETA_SLOW,
        truncate=params.truncate,
    )
    if low == high:
        high += 0.001  # transformers' guard against a zero-width ramp
    ramp = np.clip((np.arange(dim // 2) - low) / (high - low), 0.0, 1.0)
    keep = 1.0 - ramp  # 1: extrapolate (keep theta_i), 0: interpolate (theta_i / factor)
    return inv / factor * (1.0 - keep) + inv * keep, float(attention)


def llama3_masks(inv: np.ndarray, params: RopeParameters) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Llama 3.1's three groups of pairs by wavelength 2 pi / theta_i against L / high and L / low.

    Returns: (kept, smoothed, divided) boolean masks, each (P,): wavelength < L/high_freq_factor,
    in between, > L/low_freq_factor (L = original_max_position_embeddings).
    """
    _need(params, "factor", "low_freq_factor", "high_freq_factor", "original_max_position_embeddings")
    low = _checks.positive_real("low_freq_factor", params.low_freq_factor)
    high = _checks.positive_real("high_freq_factor", params.high_freq_factor)
    if high <= low:
        raise ValueError(f"high_freq_factor must be greater than low_freq_factor {low}, got {high}")
    length = _checks.integer("original_max_position_embeddings", params.original_max_position_embeddings, minimum=1)
    wavelength = 2 * math.pi / inv
    kept, divided = wavelength < length / high, wavelength > length / low
    return kept, ~(kept | divided), divided


def _llama3(inv: np.ndarray, params: RopeParameters) -> tuple[np.ndarray, float]:
    kept, smoothed, divided = llama3_masks(inv, params)
    factor = _factor(params)
    low, high = params.low_freq_factor, params.high_freq_factor
    smooth = (params.original_max_position_embeddings * inv / (2 * math.pi) - low) / (high - low)
    out = np.where(divided, inv / factor, inv)
    return np.where(smoothed, (1 - smooth) * out / factor + smooth * out, out), 1.0


def _longrope(inv: np.ndarray, params: RopeParameters, seq_len: int | None) -> tuple[np.ndarray, float]:
    _need(params, "short_factor", "long_factor", "original_max_position_embeddings")
    length = _checks.integer("original_max_position_embeddings", params.original_max_position_embeddings, minimum=1)
    factor = params.factor
    if factor is None:
        _need(params, "max_position_embeddings")
        factor = params.max_position_embeddings / length
    factor = _checks.positive_real("factor", factor)
    attention = params.attention_factor
    if attention is None:
        attention = 1.0 if factor <= 1 else math.sqrt(1 + math.log(factor) / math.log(length))
    use_long = seq_len is not None and seq_len > length
    name = "long_factor" if use_long else "short_factor"
    ext = _checks.array(name, getattr(params, name))
    if ext.shape != inv.shape or (ext <= 0).any():
        raise ValueError(f"{name} must hold {inv.size} positive numbers (one per pair), got shape {ext.shape}")
    return inv / ext, float(attention)


def inv_freq(
    params: RopeParameters,
    head_dim: int,
    base: float = 10_000.0,
    *,
    partial_rotary_factor: float = 1.0,
    seq_len: int | None = None,
) -> tuple[np.ndarray, float]:
    """Inverse frequency of each rotated pair and the attention factor, as transformers computes them.

    default: theta_i = base ** (-2i / r); linear: theta_i / factor; dynamic: default with
    `dynamic_base` at seq_len; yarn: theta_i blended with theta_i / factor over `yarn_correction_range`,
    attention factor `yarn_mscale`; longrope: theta_i / (long_factor if seq_len > original else
    short_factor), attention sqrt(1 + ln factor / ln original); llama3: see `llama3_masks`.
    The attention factor multiplies cos and sin, so attention logits get its square.

    Returns: ((P,) inverse frequencies, attention factor)

    >>> inv_freq(RopeParameters("linear", factor=2.0), 128)[0].shape
    (64,)
    """
    if params.rope_type not in ROPE_TYPES:
        raise ValueError(f"rope_type must be one of {ROPE_TYPES}, got {params.rope_type!r}")
    dim = rotary_dim(head_dim, partial_rotary_factor)
    base = _checks.positive_real("base", base)
    if seq_len is not None:
        seq_len = _checks.integer("seq_len", seq_len, minimum=1)
    kind = params.rope_type
    if kind == "dynamic":
        _need(params, "factor", "max_position_embeddings")
        length = params.max_position_embeddings if seq_len is None else seq_len
        base = dynamic_base(base, dim, _factor(params), params.max_position_embeddings, length)
    inv = frequencies(dim, base)
    if kind == "linear":
        _need(params, "factor")
        return inv / _factor(params), 1.0
    if kind == "yarn":
        return _yarn(inv, dim, base, params)
    if kind == "llama3":
        return _llama3(inv, params)
    if kind == "longrope":
        return _longrope(inv, params, seq_len)
    return inv, 1.0


def wavelengths(inv: np.ndarray) -> np.ndarray:
    """Positions per full turn of each pair: 2 pi / theta_i.

    Returns: (P,)

    >>> wavelengths(np.array([1.0, 0.5])).shape
    (2,)
    """
    inv = _checks.array("inv_freq", inv)
    if (inv <= 0).any():
        raise ValueError(f"inverse frequencies must be > 0, got minimum {inv.min()}")
    return 2 * math.pi / inv


def rotary_scores(
    q: np.ndarray,
    k: np.ndarray,
    distances: Sequence[int] | np.ndarray,
    inv: np.ndarray,
    attention_factor: float = 1.0,
) -> np.ndarray:
    """Score of query content q at position m + n with key content k at position n, for each distance m.

    score(m) = a^2 * rotate(q, m theta) . k + q_rest . k_rest: RoPE's scores depend only on m, so q is turned
    by m theta_i (rotary.rotate, interleaved pairs) against k unturned; that is a^2 * sum_i Re[(q_2i + i q_2i+1)
    conj(k_2i + i k_2i+1) e^{i m theta_i}] + q_rest . k_rest. Dimensions past the rotated width r (partial
    rotary) are not rotated; a is the attention factor applied to cos and sin (the rotated part gets a^2).

    q, k: (d,). Returns: (N,)

    >>> rotary_scores(np.ones(8), np.ones(8), [0, 1, 2], np.array([1.0, 0.1])).shape
    (3,)
    """
    q, k, inv = _checks.array("q", q), _checks.array("k", k), _checks.array("inv_freq", inv)
    if q.shape != k.shape or q.ndim != 1 or 2 * inv.size > q.size:
        raise ValueError(f"q and k must be vectors of one width >= 2 * {inv.size} pairs, got {q.shape}, {k.shape}")
    m = _checks.array("distances", np.asarray(distances, dtype=float))
    r = 2 * inv.size
    turned = rotate(np.tile(q[:r], (m.size, 1)), m[:, None] * inv[None, :])  # (N, r): q at distance m
    return attention_factor**2 * (turned @ k[:r]) + float(q[r:] @ k[r:])


def decay_bound(distances: Sequence[int] | np.ndarray, dim: int, base: float = 10_000.0) -> np.ndarray:
    """RoFormer 3.4.3: the relative upper bound (1 / (d/2)) sum_{j=1}^{d/2} |S_j|, S_j = sum_{k<j} e^{i m theta_k}.

    |sum_i h_i e^{i m theta_i}| <= max_i |h_{i+1} - h_i| * sum_j |S_j|; at distance 0, S_j = j, so the
    average is (d/2 + 1) / 2 (32.5 for d = 128).

    Returns: (N,)

    >>> float(decay_bound([0], 128)[0])
    32.5
    """
    m = _checks.array("distances", np.asarray(distances, dtype=float))
    theta = frequencies(dim, base)
    partial = np.cumsum(np.exp(1j * m[:, None] * theta[None, :]), axis=1)  # (N, d/2): S_1..S_{d/2}
    return np.abs(partial).mean(axis=1)


def self_scores(
    distances: Sequence[int] | np.ndarray,
    dim: int,
    base: float = 10_000.0,
    *,
    samples: int = 256,
    seed: int = 0,
) -> np.ndarray:
    """Measured mean rotary score of random content with itself m positions apart (q = k ~ N(0, I_d)).

    mean over S draws of sum_i |q~_i|^2 cos(m theta_i); divide by d for the score per dimension.

    Returns: (N,)

    >>> self_scores([0, 10], 8, samples=4).shape
    (2,)
    """
    samples = _checks.integer("samples", samples, minimum=1)
    rng = np.random.default_rng(_checks.integer("seed", seed))
    theta = frequencies(dim, base)
    q = rng.standard_normal((samples, dim))
    power = (q[:, 0::2] ** 2 + q[:, 1::2] ** 2).mean(axis=0)  # (d/2,) mean |q~_i|^2 over the draws
    m = _checks.array("distances", np.asarray(distances, dtype=float))
    return np.cos(m[:, None] * theta[None, :]) @ power


@dataclass(frozen=True)
class Preset:
    """A model's rotary setup as its configuration states it, and where that comes from."""

    label: str
    source: str
    head_dim: int
    rope_theta: float  # the config key as the model states it; the maths layer calls it base
    params: RopeParameters
    original: int  # the training window, in tokens
    extended: int  # the window the scaling is for
    partial_rotary_factor: float = 1.0

    def inv_freq(self, seq_len: int | None = None) -> tuple[np.ndarray, float]:
        """This preset's inverse frequencies and attention factor (`inv_freq`), at seq_len if it matters."""
        return inv_freq(
            self.params,
            self.head_dim,
            self.rope_theta,
            partial_rotary_factor=self.partial_rotary_factor,
            seq_len=seq_len,
        )


PRESETS = {
    "llama3.1-8b": Preset(
        "Llama 3.1 8B (llama3)",
        "meta-llama/Llama-3.1-8B config.json: rope_theta 500000, 32 heads of 128, rope_scaling "
        "{rope_type: llama3, factor: 8, low_freq_factor: 1, high_freq_factor: 4, "
        "original_max_position_embeddings: 8192}, max_position_embeddings 131072",
        128, 500_000.0,
        RopeParameters("llama3", factor=8.0, low_freq_factor=1.0, high_freq_factor=4.0,
                       original_max_position_embeddings=8192),
        8192, 131_072,
    ),
    "qwen2.5-yarn": Preset(
        "Qwen2.5-style YaRN (factor 4)",
        "Qwen2.5 model cards' long-context recipe: rope_theta 1000000, head dim 128, rope_scaling "
        "{type: yarn, factor: 4.0, original_max_position_embeddings: 32768}",
        128, 1_000_000.0,
        RopeParameters("yarn", factor=4.0, original_max_position_embeddings=32_768),
        32_768, 131_072,
    ),
    "linear-4k-8k": Preset(
        "Linear interpolation 4096 -> 8192",
        "Position Interpolation (Chen et al. 2023; kaiokendev's SuperHOT) on a Llama-2-shaped head: "
        "rope_theta 10000, head dim 128, rope_scaling {rope_type: linear, factor: 2}",
        128, 10_000.0, RopeParameters("linear", factor=2.0), 4096, 8192,
    ),
    "neox-partial": Preset(
        "GPT-NeoX-20B partial rotary (a quarter)",
        "EleutherAI/gpt-neox-20b config.json: hidden 6144 over 64 heads (head dim 96), rotary_pct 0.25 "
        "(24 rotated dimensions), rotary_emb_base 10000, max_position_embeddings 2048; no scaling",
        96, 10_000.0, RopeParameters("default"), 2048, 2048, 0.25,
    ),
    "yarn-reference": Preset(
        "YaRN, base 10,000, original 4096, factor 4",
        "The YaRN paper's Llama 2 geometry (rope_theta 10000, head dim 128, original 4096) with factor 4, "
        "computed as transformers' _compute_yarn_parameters does (beta_fast 32, beta_slow 1)",
        128, 10_000.0, RopeParameters("yarn", factor=4.0, original_max_position_embeddings=4096), 4096, 16_384,
    ),
    "dynamic-reference": Preset(
        "Dynamic NTK, base 10,000, max 2048, factor 2",
        "Dynamic NTK (/u/emozilla) as transformers' _compute_dynamic_ntk_parameters: rope_theta 10000, "
        "head dim 128, factor 2, max_position_embeddings 2048; the base grows once the text is longer",
        128, 10_000.0, RopeParameters("dynamic", factor=2.0, max_position_embeddings=2048), 2048, 4096,
    ),
}  # fmt: skip
METHODS = ("linear", "dynamic", "yarn", "llama3")


def method_parameters(method: str, preset: Preset) -> RopeParameters:
    """The preset's factor and windows applied through another rope_type, to compare methods on one head.

    llama3 uses low_freq_factor 1 and high_freq_factor 4 (Llama 3.1's values); dynamic runs at the
    extended length; factor = the preset's factor, or extended / original when it has none.

    >>> method_parameters("yarn", PRESETS["linear-4k-8k"]).original_max_position_embeddings
    4096
    """
    factor = preset.params.factor or preset.extended / preset.original
    if method == "linear":
        return RopeParameters("linear", factor=factor)
    if method == "dynamic":
        return RopeParameters("dynamic", factor=factor, max_position_embeddings=preset.original)
    if method == "yarn":
        return RopeParameters("yarn", factor=factor, original_max_position_embeddings=preset.original)
    if method == "llama3":
        return RopeParameters(
            "llama3",
            factor=factor,
            low_freq_factor=1.0,
            high_freq_factor=4.0,
            original_max_position_embeddings=preset.original,
        )
    raise ValueError(f"method must be one of {METHODS}, got {method!r}")


def divisors(preset: Preset, methods: Sequence[str] = METHODS) -> dict[str, np.ndarray]:
    """How much each method slows each rotated pair: default theta_i / scaled theta_i (1 = untouched).

    Dynamic is taken at the preset's extended length. Returns: {method: (P,)}

    >>> divisors(PRESETS["llama3.1-8b"])["llama3"].shape
    (64,)
    """
    plain = frequencies(rotary_dim(preset.head_dim, preset.partial_rotary_factor), preset.rope_theta)
    out = {}
    for method in methods:
        scaled, _ = inv_freq(
            method_parameters(method, preset),
            preset.head_dim,
            preset.rope_theta,
            partial_rotary_factor=preset.partial_rotary_factor,
            seq_len=preset.extended,
        )
        out[method] = plain / scaled
    return out
