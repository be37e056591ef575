"""posviz's matched family: small byte-level decoders identical in everything but where position comes in.

Trained by tools/train_matched.py (JAX, never imported here) on the standard library's pydoc_data.topics (PSF
licence), shipped in posviz/data/matched/ with provenance.json (the recipe, seeds, data hashes, the loss curves
recorded at training). This module runs them in numpy, float32, with the maths layer's own position functions:
`encodings.sinusoidal` for the added table, `rotary.rotate` (rotate-half) for RoPE, `relative.alibi_slopes` and
`relative.alibi_bias` for ALiBi. The scheme is a parameter of the forward pass, so the same weights can be run
with another scheme (what a model loses when its position signal is swapped or removed).

Legend: T tokens, d width, H heads, d_k = d / H, L layers, V = 256 byte values, N windows.

    >>> m = load("rope", 0)
    >>> forward(m, encode("dog bites man")).logits.shape
    (13, 256)
"""

from __future__ import annotations

import functools
import json
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from posviz.maths import rotary
from posviz.maths.encodings import sinusoidal
from posviz.maths.relative import alibi_bias, alibi_slopes
from posviz.models.blocks import attend, attention_weights, gelu_tanh, layer_norm, split_heads

DATA = Path(__file__).resolve().parents[1] / "data" / "matched"
SCHEMES = ("none", "learned", "sinusoid", "rope", "alibi")
CHUNK = 4  # windows per forward pass in token_losses
ADDED = ("learned", "sinusoid")  # the schemes that add a table of rows to the input
NAME = "posviz's matched family"
SOURCE = "trained by tools/train_matched.py on pydoc_data.topics (PSF-2.0)"
PRECISION = "float32 (weights shipped as float16 where provenance.json says so, run in float32)"
FAMILY = {  # which of the lecture's three families each scheme belongs to
    "none": "the causal mask only",
    "learned": "absolute rows added to the input",
    "sinusoid": "absolute rows added to the input",
    "rope": "relative terms in the scores",
    "alibi": "relative terms in the scores",
}


@dataclass(frozen=True)
class Config:
    """The architecture every model of the family shares (provenance.json's recipe.model)."""

    layers: int
    d: int
    heads: int
    mlp: int
    T_train: int
    base: float
    ln_eps: float

    @property
    def d_k(self) -> int:
        return self.d // self.heads


@dataclass(frozen=True, eq=False)
class Model:
    """One trained model: its scheme, seed, the shared architecture and its weights (float32 arrays)."""

    scheme: str
    seed: int
    config: Config
    weights: dict[str, np.ndarray] = field(repr=False)

    @property
    def name(self) -> str:
        return f"{self.scheme}-seed{self.seed}"


@dataclass(frozen=True)
class Trace:
    """What a forward pass computed: next-byte logits, the residual stream before each layer and after the last,
    and each layer's attention weights (kept only when asked).

    logits: (..., T, V); hidden: (L + 1, ..., T, d) or None; weights: (L, ..., H, T, T) or None
    """

    logits: np.ndarray
    hidden: np.ndarray | None = None
    weights: np.ndarray | None = None


@functools.cache
def provenance() -> dict:
    """provenance.json as recorded at training (recipe, data, evaluation rule, models' curves)."""
    path = DATA / "provenance.json"
    if not path.exists():
        raise FileNotFoundError(f"the matched family is not shipped here: expected {path}")
    return json.loads(path.read_text(encoding="utf-8"))


def config() -> Config:
    """The family's shared architecture."""
    return Config(**{k: provenance()["recipe"]["model"][k] for k in Config.__dataclass_fields__})


def names() -> list[str]:
    """Every shipped model, as scheme-seedK, in the order SCHEMES then seed."""
    models = provenance()["models"]
    return sorted(models, key=lambda k: (SCHEMES.index(models[k]["scheme"]), models[k]["seed"]))


def seeds() -> list[int]:
    """The seeds every scheme was trained with."""
    return sorted({m["seed"] for m in provenance()["models"].values()})


def _scheme(scheme: str) -> str:
    if scheme not in SCHEMES:
        raise ValueError(f"scheme must be one of {', '.join(SCHEMES)}, got {scheme!r}")
    return scheme


@functools.cache
def load(scheme: str, seed: int) -> Model:
    """One shipped model, its weights cast to float32 (the precision every recorded loss was computed in)."""
    name = f"{_scheme(scheme)}-seed{seed}"
    if name not in provenance()["models"]:
        raise ValueError(f"expected one of the shipped models {', '.join(names())}, got {name!r}")
    with np.load(DATA / f"{name}.npz", allow_pickle=False) as f:
        weights = {k: f[k].astype(np.float32) for k in f.files}
    for w in weights.values():
        w.setflags(write=False)
    return Model(scheme, seed, config(), weights)


def encode(text: str) -> np.ndarray:
    """The model's tokens: the UTF-8 bytes of text.

    Returns: (T,) int64

    >>> encode("é").tolist()
    [195, 169]
    """
    if not isinstance(text, str):
        raise ValueError(f"expected text as a str, got {type(text).__name__}")
    return np.frombuffer(text.encode("utf-8"), dtype=np.uint8).astype(np.int64)


@functools.cache
def heldout() -> dict[str, bytes]:
    """The held-out topics' text (never trained on), as shipped in heldout.json."""
    raw = json.loads((DATA / "heldout.json").read_text(encoding="utf-8"))
    topics = raw.get("topics", raw)
    return {name: text.encode("utf-8") for name, text in topics.items()}


def windows(length: int, stride: int) -> np.ndarray:
    """Every held-out window of length + 1 bytes: each topic (sorted by name) from 0, stride, ... while it fits.

    Returns: (N, length + 1) int64
    """
    if length < 1 or stride < 1:
        raise ValueError(f"length and stride must be positive, got length = {length}, stride = {stride}")
    out = []
    for name in sorted(heldout()):
        text = np.frombuffer(heldout()[name], dtype=np.uint8)
        out += [text[s : s + length + 1] for s in range(0, len(text) - length, stride)]
    if not out:
        raise ValueError(f"no held-out topic has {length + 1} bytes for one window")
    return np.stack(out).astype(np.int64)


def _added(model: Model, scheme: str, T: int, start: int) -> np.ndarray | None:
    """The rows the added schemes put on the input at positions start..start + T - 1 (None for the others)."""
    cfg = model.config
    if scheme == "sinusoid":
        return sinusoidal(T, cfg.d, start, cfg.base).astype(np.float32)
    if scheme != "learned":
        return None
    table = model.weights.get("pos_emb")
    if table is None:
        raise ValueError(f"the learned scheme needs a position table; {model.name} was trained without one")
    if start + T > table.shape[0]:
        raise ValueError(
            f"the learned table has {table.shape[0]} rows (positions 0..{table.shape[0] - 1}), so it has no row for "
            f"position {start + T - 1}: expected start + T <= {table.shape[0]}, got {start} + {T}"
        )
    return table[start : start + T]


def _angles(cfg: Config, T: int, start: int, scale: float, inv_freq: np.ndarray | None) -> np.ndarray:
    """RoPE's angle for each (position, pair): (start + t) * scale * inv_freq_i; the model's own base by default.

    Returns: (T, d_k / 2)
    """
    if inv_freq is None:
        return rotary.angles(T, cfg.d_k, start, cfg.base) * scale
    inv = np.asarray(inv_freq, dtype=np.float64)
    if inv.shape != (cfg.d_k // 2,):
        raise ValueError(f"inv_freq must have shape (d_k / 2,) = ({cfg.d_k // 2},), got {inv.shape}")
    return np.arange(start, start + T, dtype=np.float64)[:, None] * scale * inv[None, :]


def _alibi(cfg: Config, T: int, scale: float) -> np.ndarray:
    """ALiBi's bias for every head, slopes times scale: (H, T, T), -inf above the diagonal."""
    return np.stack([alibi_bias(T, float(m) * scale) for m in alibi_slopes(cfg.heads)]).astype(np.float32)


def forward(
    model: Model,
    ids: np.ndarray,
    *,
    scheme: str | None = None,
    start: int = 0,
    position_scale: float = 1.0,
    inv_freq: np.ndarray | None = None,
    attention_factor: float = 1.0,
    keep: bool = False,
    layers: int | None = None,
) -> Trace:
    """Next-byte logits of a pre-LayerNorm causal decoder, with position put in by `scheme` (the model's own by
    default): an added table times position_scale (learned, sinusoid), q and k turned by position_scale times
    their angle (rope; inv_freq and attention_factor from a scaling method), or ALiBi's slopes times position_scale.

    `layers` runs only the first that many layers (a layer's attention needs none after it); logits then read the
    last one run.

    ids: (..., T) byte values. Returns: a Trace, logits (..., T, V)
    """
    scheme = _scheme(model.scheme if scheme is None else scheme)
    ids = np.asarray(ids)
    if ids.ndim < 1 or ids.shape[-1] < 1 or not np.issubdtype(ids.dtype, np.integer):
        raise ValueError(f"expected byte values as integers of shape (..., T) with T >= 1, got {ids.dtype} {ids.shape}")
    if ids.min() < 0 or ids.max() > 255:
        raise ValueError(f"expected byte values in 0..255, got {ids.min()}..{ids.max()}")
    if not np.isfinite(position_scale) or not np.isfinite(attention_factor):
        raise ValueError(f"expected finite scales, got position_scale = {position_scale}, factor = {attention_factor}")
    cfg, w, T = model.config, model.weights, ids.shape[-1]
    if layers is not None and not 1 <= layers <= cfg.layers:
        raise ValueError(f"expected layers in 1..{cfg.layers}, got {layers}")
    x = w["tok_emb"][ids] * np.float32(np.sqrt(cfg.d))  # (..., T, d)
    table = _added(model, scheme, T, start)
    if table is not None:
        x = x + np.float32(position_scale) * table
    theta = _angles(cfg, T, start, position_scale, inv_freq) if scheme == "rope" else None
    bias = _alibi(cfg, T, position_scale) if scheme == "alibi" else None
    hidden, maps = [x], []
    for layer in range(cfg.layers if layers is None else layers):
        h = layer_norm(x, w["ln1_scale"][layer], w["ln1_bias"][layer], cfg.ln_eps)
        q, k, v = (split_heads(h @ w[name][layer], cfg.heads) for name in ("wq", "wk", "wv"))  # (..., H, T, d_k)
        if theta is not None:
            q, k = (rotary.rotate(a, theta, interleaved=False) * np.float32(attention_factor) for a in (q, k))
        a = attention_weights(q, k, causal=True, bias=bias)  # (..., H, T, T)
        x = x + attend(a, v) @ w["wo"][layer]
        h = layer_norm(x, w["ln2_scale"][layer], w["ln2_bias"][layer], cfg.ln_eps)
        x = x + gelu_tanh(h @ w["w_up"][layer]) @ w["w_down"][layer]
        if keep:
            hidden.append(x)
            maps.append(a)
    logits = layer_norm(x, w["lnf_scale"], w["lnf_bias"], cfg.ln_eps) @ w["tok_emb"].T  # (..., T, V)
    if not keep:
        return Trace(logits)
    return Trace(logits, np.stack(hidden), np.stack(maps))


def token_losses(model: Model, windows: np.ndarray, **kwargs) -> np.ndarray:
    """-ln p(byte t + 1 | bytes 0..t) in nats at every position of every window; kwargs go to `forward`.

    windows: (..., T + 1). Returns: (..., T)
    """
    windows = np.asarray(windows)
    if windows.shape[-1] < 2:
        raise ValueError(f"a window needs at least 2 bytes (one to read, one to predict), got {windows.shape[-1]}")
    if windows.ndim == 2 and len(windows) > CHUNK:  # a few windows at a time: (CHUNK, H, T, T) weights stay small
        return np.concatenate(
            [token_losses(model, windows[i : i + CHUNK], **kwargs) for i in range(0, len(windows), CHUNK)]
        )
    logits = forward(model, windows[..., :-1], **kwargs).logits.astype(np.float64)
    z = logits - logits.max(axis=-1, keepdims=True)
    logp = z - np.log(np.exp(z).sum(axis=-1, keepdims=True))  # log-softmax, no underflow to log(0)
    return -np.take_along_axis(logp, windows[..., 1:, None], axis=-1)[..., 0]
