"""Small llama-family GGUF files written with gguf.GGUFWriter, and an independent forward pass to check them against.

The weights are drawn in Hugging Face's layout (q and k rows in rotate-half order, pairs (i, i + d_k/2)); a llama or
mistral file stores q and k permuted as llama.cpp's converter does (convert_hf_to_gguf.py's LlamaModel.permute,
written out again here, not imported), a qwen2 file stores them unpermuted with q, k, v biases, as llama.cpp does.
`reference` runs the Hugging Face weights in float64 straight from the formulas (RMSNorm, rotate-half RoPE,
grouped-query attention, SwiGLU), so it shares no code with posviz's forward pass.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import gguf
import numpy as np

PRE = {"llama": "smollm", "mistral": "llama-bpe", "qwen2": "qwen2"}  # one of posviz's pre-tokenizers each
CONTROL = ("<|endoftext|>", "<|im_start|>", "<|im_end|>")
MERGES = ("Ġ t", "h e", "Ġt he", "Ġ a", "o g", "d og")


def byte_alphabet() -> list[str]:
    """GPT-2's 256 byte characters (bytes_to_unicode), in byte order."""
    visible = [*range(ord("!"), ord("~") + 1), *range(ord("¡"), ord("¬") + 1), *range(ord("®"), ord("ÿ") + 1)]
    chars, extra = {}, 0
    for b in range(256):
        if b in visible:
            chars[b] = chr(b)
        else:
            chars[b] = chr(256 + extra)
            extra += 1
    return [chars[b] for b in range(256)]


def vocabulary() -> list[str]:
    """Control tokens, the 256 bytes, then each merge's result."""
    return [*CONTROL, *byte_alphabet(), *(m.replace(" ", "") for m in MERGES)]


@dataclass
class Shape:
    """A model's shape; the defaults are a tiny model, `one_b` a 1B-class layout."""

    d: int = 64
    heads: int = 4
    kv_heads: int = 2
    F: int = 96
    layers: int = 2
    base: float = 10_000.0
    eps: float = 1e-5
    context: int = 512
    extra: dict = field(default_factory=dict)  # more keys under the architecture's prefix

    @property
    def d_k(self) -> int:
        return self.d // self.heads


ONE_B = Shape(d=2048, heads=32, kv_heads=8, F=8192, layers=16, base=500_000.0, context=131_072)


def permute(w: np.ndarray, heads: int) -> np.ndarray:
    """convert_hf_to_gguf.py's LlamaModel.permute: Hugging Face rotate-half rows to GGUF's interleaved rows."""
    return w.reshape(heads, 2, w.shape[0] // heads // 2, *w.shape[1:]).swapaxes(1, 2).reshape(w.shape)


def hf_weights(shape: Shape, arch: str, seed: int = 0) -> dict[str, np.ndarray]:
    """Random float32 weights in Hugging Face's layout, named by GGUF tensor (q, k rows rotate-half)."""
    rng = np.random.default_rng(seed)
    d, q, kv = shape.d, shape.heads * shape.d_k, shape.kv_heads * shape.d_k
    out = {
        "token_embd.weight": rng.normal(0, 1, (len(vocabulary()), d)),
        "output_norm.weight": 1 + 0.1 * rng.normal(size=d),
    }
    for i in range(shape.layers):
        sizes = {
            "attn_q": (q, d),
            "attn_k": (kv, d),
            "attn_v": (kv, d),
            "attn_output": (d, q),
            "ffn_gate": (shape.F, d),
            "ffn_up": (shape.F, d),
            "ffn_down": (d, shape.F),
        }
        for name, size in sizes.items():
            out[f"blk.{i}.{name}.weight"] = rng.normal(0, 2 / np.sqrt(size[1]), size)
        for name in ("attn_norm", "ffn_norm"):
            out[f"blk.{i}.{name}.weight"] = 1 + 0.1 * rng.normal(size=d)
        if arch == "qwen2":
            for name, n in (("attn_q", q), ("attn_k", kv), ("attn_v", kv)):
                out[f"blk.{i}.{name}.bias"] = rng.normal(0, 0.5, n)
    return {k: v.astype(np.float32) for k, v in out.items()}


def write(
    path: Path,
    arch: str,
    shape: Shape | None = None,
    *,
    seed: int = 0,
    quant: dict[str, gguf.GGMLQuantizationType] | None = None,
) -> dict[str, np.ndarray]:
    """Write a GGUF file of `arch` with `hf_weights`, the tensors named in `quant` stored in that type.

    Returns: the Hugging Face weights, as `reference` takes them
    """
    shape = shape or Shape()
    weights = hf_weights(shape, arch, seed)
    writer = gguf.GGUFWriter(str(path), arch)
    write_keys(writer, shape, arch)
    for name, w in weights.items():
        stored = w
        if arch != "qwen2" and name.endswith(("attn_q.weight", "attn_k.weight")):
            stored = permute(w, shape.heads if "attn_q" in name else shape.kv_heads)
        kind = (quant or {}).get(name)
        if kind is None:
            writer.add_tensor(name, stored)
        else:
            writer.add_tensor(name, gguf.quants.quantize(stored, kind), raw_dtype=kind)
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()
    return weights


def write_keys(writer: gguf.GGUFWriter, shape: Shape, arch: str) -> None:
    """The hyperparameters under `arch`'s prefix and a gpt2 BPE tokenizer's keys (vocabulary, merges, BOS id 1)."""
    writer.add_context_length(shape.context)
    writer.add_embedding_length(shape.d)
    writer.add_block_count(shape.layers)
    writer.add_feed_forward_length(shape.F)
    writer.add_head_count(shape.heads)
    writer.add_head_count_kv(shape.kv_heads)
    writer.add_rope_freq_base(shape.base)
    writer.add_layer_norm_rms_eps(shape.eps)
    for key, value in shape.extra.items():
        writer.add_key_value(f"{arch}.{key}", value[0], value[1])
    tokens = vocabulary()
    writer.add_tokenizer_model("gpt2")
    writer.add_tokenizer_pre(PRE[arch])
    writer.add_token_list(tokens)
    writer.add_token_types([3 if t in CONTROL else 1 for t in tokens])
    writer.add_token_merges(list(MERGES))
    writer.add_bos_token_id(1)
    writer.add_add_bos_token(arch == "mistral")


def rotate_half(x: np.ndarray) -> np.ndarray:
    half = x.shape[-1] // 2
    return np.concatenate([-x[..., half:], x[..., :half]], axis=-1)


def reference(weights: dict[str, np.ndarray], shape: Shape, ids: np.ndarray, layers: int, start: int = 0) -> dict:
    """Hugging Face's llama/qwen2 forward pass in float64 from the formulas, on the Hugging Face weights.

    Returns: {"hidden": (L, T, d), "weights": (L, H, T, T)}
    """
    w = {k: v.astype(np.float64) for k, v in weights.items()}
    T, d_k, group = len(ids), shape.d_k, shape.heads // shape.kv_heads
    inv_freq = 1.0 / shape.base ** (np.arange(0, d_k, 2) / d_k)  # (d_k/2,)
    angle = np.outer(np.arange(start, start + T), inv_freq)
    cos, sin = np.cos(np.concatenate([angle, angle], -1)), np.sin(np.concatenate([angle, angle], -1))  # (T, d_k)

    def norm(x: np.ndarray, g: np.ndarray) -> np.ndarray:
        return x / np.sqrt((x**2).mean(-1, keepdims=True) + shape.eps) * g

    def linear(x: np.ndarray, name: str) -> np.ndarray:
        bias = w.get(f"{name}.bias")
        return x @ w[f"{name}.weight"].T + (0 if bias is None else bias)

    x, hidden, attention = w["token_embd.weight"][ids], [], []
    for i in range(layers):
        h = norm(x, w[f"blk.{i}.attn_norm.weight"])
        q = linear(h, f"blk.{i}.attn_q").reshape(T, shape.heads, d_k).transpose(1, 0, 2)
        k = linear(h, f"blk.{i}.attn_k").reshape(T, shape.kv_heads, d_k).transpose(1, 0, 2)
        v = linear(h, f"blk.{i}.attn_v").reshape(T, shape.kv_heads, d_k).transpose(1, 0, 2)
        q, k = q * cos + rotate_half(q) * sin, k * cos + rotate_half(k) * sin
        k, v = np.repeat(k, group, axis=0), np.repeat(v, group, axis=0)  # HF repeat_kv: head h reads kv h // group
        scores = q @ k.transpose(0, 2, 1) / np.sqrt(d_k) + np.triu(np.full((T, T), -np.inf), 1)
        a = np.exp(scores - scores.max(-1, keepdims=True))
        a /= a.sum(-1, keepdims=True)
        x = x + (a @ v).transpose(1, 0, 2).reshape(T, -1) @ w[f"blk.{i}.attn_output.weight"].T
        h = norm(x, w[f"blk.{i}.ffn_norm.weight"])
        gate = h @ w[f"blk.{i}.ffn_gate.weight"].T
        x = x + (gate / (1 + np.exp(-gate)) * (h @ w[f"blk.{i}.ffn_up.weight"].T)) @ w[f"blk.{i}.ffn_down.weight"].T
        hidden.append(x)
        attention.append(a)
    return {"hidden": np.stack(hidden), "weights": np.stack(attention)}
