"""The matched decoder in JAX: one pre-LayerNorm GPT whose only switch is where position comes in.

Legend: B windows in a batch, T tokens, d width, H heads, hd = d / H head width, L layers, V = 256 byte values.

Schemes (the names used in files and on screen):
  none      causal mask only: nothing else tells a token where it is
  learned   an absolute table pos_emb (T_train, d) added to the input (refuses positions past its last row)
  sinusoid  Vaswani et al. (2017) interleaved table added to the input:
            pe[t, 2i] = sin(t w_i), pe[t, 2i+1] = cos(t w_i), w_i = base ** (-2i / d)
  rope      rotary on every head dimension of q and k, rotate-half layout (GPT-NeoX, Llama, SmolLM2):
            out[i] = x[i] cos - x[i + hd/2] sin, out[i + hd/2] = x[i + hd/2] cos + x[i] sin,
            angle t * base ** (-2i / hd) for i < hd/2
  alibi     Press et al. (2022): score(i, j) += -m_h (i - j) for j <= i, m_h = 2 ** (-8h / H), h = 1..H

Every scheme shares the same parameters (same names, shapes and initial values for a seed); `learned` adds
pos_emb. The input is tok_emb[x] * sqrt(d) (+ the added table), Vaswani et al.'s scaling, so that a token's
row (rms 1 at initialisation) and the sinusoid table (rms 1/sqrt(2)) start on one scale.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass

import jax
import jax.numpy as jnp
import numpy as np

SCHEMES = ("none", "learned", "sinusoid", "rope", "alibi")
VOCAB = 256  # byte values


@dataclass(frozen=True)
class Config:
    """The architecture: everything but the scheme is shared by the whole family."""

    scheme: str = "rope"
    layers: int = 4
    d: int = 64
    heads: int = 4
    mlp: int = 256
    T_train: int = 128
    base: float = 10_000.0  # sinusoid and RoPE
    ln_eps: float = 1e-5

    @property
    def head_dim(self) -> int:
        return self.d // self.heads

    def check(self) -> Config:
        """Refuse a configuration the decoder cannot run, with what was expected and what arrived."""
        if self.scheme not in SCHEMES:
            raise ValueError(f"scheme must be one of {', '.join(SCHEMES)}, got {self.scheme!r}")
        for name in ("layers", "d", "heads", "mlp", "T_train"):
            value = getattr(self, name)
            if not isinstance(value, int) or value < 1:
                raise ValueError(f"{name} must be a positive integer, got {value!r}")
        if self.d % self.heads:
            raise ValueError(f"d must be a multiple of heads, got d = {self.d} and heads = {self.heads}")
        if self.scheme == "rope" and self.head_dim % 2:
            raise ValueError(
                f"RoPE rotates pairs of dimensions, so the head width d / heads must be even, got {self.head_dim}"
            )
        if self.scheme == "sinusoid" and self.d % 2:
            raise ValueError(f"the sinusoid table pairs sin and cos, so d must be even, got {self.d}")
        return self

    def asdict(self) -> dict:
        return asdict(self)


# The exported arrays: name -> shape in the legend's letters (learned adds pos_emb).
PARAM_SHAPES = {
    "tok_emb": "(V, d)",
    "pos_emb": "(T_train, d), learned only",
    "ln1_scale": "(L, d)",
    "ln1_bias": "(L, d)",
    "wq": "(L, d, d)",
    "wk": "(L, d, d)",
    "wv": "(L, d, d)",
    "wo": "(L, d, d)",
    "ln2_scale": "(L, d)",
    "ln2_bias": "(L, d)",
    "w_up": "(L, d, mlp)",
    "w_down": "(L, mlp, d)",
    "lnf_scale": "(d,)",
    "lnf_bias": "(d,)",
}


def init_params(cfg: Config, seed: int) -> dict[str, jnp.ndarray]:
    """Initial weights for a seed; every array but pos_emb is the same for every scheme.

    tok_emb ~ N(0, 1/d); wq, wk, wv, w_up ~ N(0, 0.02^2); wo, w_down ~ N(0, (0.02 / sqrt(2L))^2) (GPT-2);
    pos_emb ~ N(0, 0.02^2) from its own key; LayerNorm scales 1, biases 0.
    """
    L, d, m = cfg.layers, cfg.d, cfg.mlp
    keys = jax.random.split(jax.random.PRNGKey(seed), 7)
    std, out_std = 0.02, 0.02 / math.sqrt(2 * L)
    p = {
        "tok_emb": jax.random.normal(keys[0], (VOCAB, d)) / math.sqrt(d),
        "ln1_scale": jnp.ones((L, d)),
        "ln1_bias": jnp.zeros((L, d)),
        "wq": std * jax.random.normal(keys[1], (L, d, d)),
        "wk": std * jax.random.normal(keys[2], (L, d, d)),
        "wv": std * jax.random.normal(keys[3], (L, d, d)),
        "wo": out_std * jax.random.normal(keys[4], (L, d, d)),
        "ln2_scale": jnp.ones((L, d)),
        "ln2_bias": jnp.zeros((L, d)),
        "w_up": std * jax.random.normal(keys[5], (L, d, m)),
        "w_down": out_std * jax.random.normal(keys[6], (L, m, d)),
        "lnf_scale": jnp.ones((d,)),
        "lnf_bias": jnp.zeros((d,)),
    }
    if cfg.scheme == "learned":
        p["pos_emb"] = std * jax.random.normal(jax.random.fold_in(jax.random.PRNGKey(seed), 1_000), (cfg.T_train, d))
    return p


def sinusoid_table(T: int, d: int, base: float) -> np.ndarray:
    """Interleaved sin/cos table, posviz.maths.sinusoidal's convention, in float32.

    Returns: (T, d)
    """
    w = base ** (-np.arange(0, d, 2, dtype=np.float64) / d)
    theta = np.arange(T, dtype=np.float64)[:, None] * w[None, :]
    pe = np.empty((T, d))
    pe[:, 0::2], pe[:, 1::2] = np.sin(theta), np.cos(theta)
    return pe.astype(np.float32)


def rope_angles(T: int, hd: int, base: float) -> tuple[np.ndarray, np.ndarray]:
    """cos and sin of t * base ** (-2i / hd) for the rotate-half layout (computed in float64).

    Returns: two (T, hd/2) float32 arrays
    """
    theta = np.arange(T, dtype=np.float64)[:, None] * base ** (-np.arange(0, hd, 2, dtype=np.float64) / hd)[None, :]
    return np.cos(theta).astype(np.float32), np.sin(theta).astype(np.float32)


def alibi_slopes(heads: int) -> np.ndarray:
    """2 ** (-8h / H) for h = 1..H (Press et al. 2022; H a power of two here).

    Returns: (H,)
    """
    return (2.0 ** (-8.0 * np.arange(1, heads + 1) / heads)).astype(np.float32)


def layer_norm(x: jnp.ndarray, scale: jnp.ndarray, bias: jnp.ndarray, eps: float) -> jnp.ndarray:
    mu = x.mean(-1, keepdims=True)
    var = ((x - mu) ** 2).mean(-1, keepdims=True)
    return (x - mu) / jnp.sqrt(var + eps) * scale + bias


def gelu(x: jnp.ndarray) -> jnp.ndarray:
    """GELU, tanh form (GPT-2): 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))."""
    return 0.5 * x * (1.0 + jnp.tanh(math.sqrt(2.0 / math.pi) * (x + 0.044715 * x**3)))


def rotate(x: jnp.ndarray, cos: jnp.ndarray, sin: jnp.ndarray) -> jnp.ndarray:
    """Rotate-half RoPE on x (B, H, T, hd) with cos, sin (T, hd/2)."""
    half = x.shape[-1] // 2
    a, b = x[..., :half], x[..., half:]
    return jnp.concatenate([a * cos - b * sin, b * cos + a * sin], axis=-1)


def forward(params: dict, tokens: jnp.ndarray, cfg: Config) -> jnp.ndarray:
    """Next-byte logits for each position of each window.

    tokens: (B, T) int32 byte values.
    Returns: (B, T, V) float32
    """
    B, T = tokens.shape
    d, H, hd = cfg.d, cfg.heads, cfg.head_dim
    x = params["tok_emb"][tokens] * math.sqrt(d)  # (B, T, d)
    if cfg.scheme == "learned":
        if T > params["pos_emb"].shape[0]:
            raise ValueError(
                f"the learned table has {params['pos_emb'].shape[0]} rows, so T must be at most that, got {T}"
            )
        x = x + params["pos_emb"][:T]
    if cfg.scheme == "sinusoid":
        x = x + sinusoid_table(T, d, cfg.base)
    causal = np.tril(np.ones((T, T), dtype=bool))
    bias = None
    if cfg.scheme == "alibi":
        offset = np.arange(T)[:, None] - np.arange(T)[None, :]  # i - j
        bias = -alibi_slopes(H)[:, None, None] * offset[None].astype(np.float32)  # (H, T, T)
    if cfg.scheme == "rope":
        cos, sin = rope_angles(T, hd, cfg.base)
    for layer in range(cfg.layers):
        h = layer_norm(x, params["ln1_scale"][layer], params["ln1_bias"][layer], cfg.ln_eps)
        q, k, v = (
            (h @ params[w][layer]).reshape(B, T, H, hd).transpose(0, 2, 1, 3) for w in ("wq", "wk", "wv")
        )  # (B, H, T, hd)
        if cfg.scheme == "rope":
            q, k = rotate(q, cos, sin), rotate(k, cos, sin)
        s = q @ k.transpose(0, 1, 3, 2) / math.sqrt(hd)  # (B, H, T, T)
        if bias is not None:
            s = s + bias
        s = jnp.where(causal, s, -jnp.inf)
        a = jax.nn.softmax(s, axis=-1)
        o = (a @ v).transpose(0, 2, 1, 3).reshape(B, T, d)
        x = x + o @ params["wo"][layer]
        h = layer_norm(x, params["ln2_scale"][layer], params["ln2_bias"][layer], cfg.ln_eps)
        x = x + gelu(h @ params["w_up"][layer]) @ params["w_down"][layer]
    x = layer_norm(x, params["lnf_scale"], params["lnf_bias"], cfg.ln_eps)
    return x @ params["tok_emb"].T


def token_losses(params: dict, windows: jnp.ndarray, cfg: Config) -> jnp.ndarray:
    """-log p(x[t+1] | x[0..t]) for each position t of each window.

    windows: (B, T + 1) int32.
    Returns: (B, T) float32 in nats
    """
    logits = forward(params, windows[:, :-1], cfg)
    logp = jax.nn.log_softmax(logits, axis=-1)
    return -jnp.take_along_axis(logp, windows[:, 1:, None], axis=-1)[..., 0]


def count_params(params: dict) -> int:
    return int(sum(np.prod(v.shape) for v in params.values()))
