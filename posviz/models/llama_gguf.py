"""Any llama-family GGUF file: its hyperparameters from its own architecture's keys, its first layers run in numpy.

The file is memory-mapped (gguf.GGUFReader); a layer's tensors are read from the map and dequantized to float32
by `gguf.quants.dequantize` one layer at a time, and only the first `budget(...).count` layers ever are: a float32
layer of a 1B-class model is 232 MiB, so MEMORY_BUDGET_MB decides how many a dashboard server keeps.

Architectures run (`RUNS`), each with Llama's layer (models.smollm2's equations: RMSNorm, RoPE, grouped-query
attention, SwiGLU), the keys under its own prefix (`{arch}.attention.head_count`, ...):
    llama    Llama 1-3, SmolLM2, and Mistral 7B (llama.cpp converts it as "llama"); q, k rows in GGUF's interleaved
             layout (llama.cpp's converter permutes Hugging Face's rotate-half rows: smollm2.hf_to_gguf_rows)
    mistral  the same layer and layout under the prefix `mistral.`
    qwen2    the same layer plus biases on q, k and v; rows in Hugging Face's rotate-half layout (llama.cpp's NEOX
             rope, no permutation): they are permuted to the interleaved layout at load, so that every pair is
             (2i, 2i+1) downstream (pair energies, posviz.maths.rotary's default), and q . k is unchanged
Any other architecture is read only: posviz shows its `posviz inspect` report and runs none of its layers. So is a
llama-family file whose layers hold something else (mixture-of-experts, partial rotary, a rope scaling other than
linear or per-pair factors): the ValueError names what.

RoPE angles: (start + t) * theta_i, theta_i = base^(-2i/d_k) (rotary.frequencies), divided by the linear
`rope.scaling.factor` and by `rope_freqs.weight` (Llama 3's per-pair factors) when the file has them, as llama.cpp.

Dimension letters: T tokens, d width, d_k head width, H query heads, G key/value heads, P = d_k/2 pairs, F MLP width.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

import gguf
import numpy as np
from tokenizers import AddedToken, Regex, Tokenizer, decoders, models, pre_tokenizers

from posviz.maths import _checks, rotary
from posviz.models import gguf_inspect, smollm2
from posviz.models.blocks import attend, attention_weights, rms_norm, split_heads
from posviz.models.smollm2 import Config, Rotation, Trace, check_ids
from posviz.models.tokens import Tokens

RUNS = {"llama": "interleaved", "mistral": "interleaved", "qwen2": "rotate-half"}  # arch -> layout of q, k rows
BIASED = ("qwen2",)  # architectures whose attn_q, attn_k, attn_v carry a bias
# Float32 layers a server keeps for one model, in MiB: a laptop's dashboard next to a browser. SmolLM2-135M's layer
# is 13.5 MiB (all 30 fit); a 1B-class layer (d 2048, F 8192) 232 MiB (4 fit); a 7B layer (d 4096, F 14336) 832 MiB
# (1 fits).
MEMORY_BUDGET_MB = 1024
MAX_TOKENS = 64  # ids fed, a BOS token included
MODELS_DIR = "POSVIZ_MODELS_DIR"  # the environment variable naming the folder of model files
BIASES = {"b_q": "attn_q", "b_k": "attn_k", "b_v": "attn_v"}
# Pre-tokenizers posviz builds for a gpt2-style byte-level BPE vocabulary (tokenizer.ggml.pre -> the split regex of
# the model's Hugging Face tokenizer.json; None: GPT-2's own regex, ByteLevel's). "smollm" is smollm2's.
PRE_TOKENIZERS = {
    "gpt-2": None,
    "default": None,
    "llama-bpe": r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*"
    r"|\s*[\r\n]+|\s+(?!\S)|\s+",
    "qwen2": r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*"
    r"|\s*[\r\n]+|\s+(?!\S)|\s+",
}


@dataclass(frozen=True, eq=False)
class Layer(smollm2.Layer):
    """One decoder layer in float32 (smollm2.Layer), q and k rows interleaved, and qwen2's biases (None without)."""

    b_q: np.ndarray | None = None  # (H d_k,)
    b_k: np.ndarray | None = None  # (G d_k,)
    b_v: np.ndarray | None = None  # (G d_k,)


@dataclass(frozen=True)
class Budget:
    """How many first layers run: as many float32 layers as fit in MEMORY_BUDGET_MB, at most the model's."""

    layer_mb: float  # one layer's weights as float32
    count: int  # layers run
    model_layers: int
    present: int  # the first layers whose tensors the file holds (all of them but in a cut-down copy)

    @property
    def short(self) -> str:
        """How many ran, in a few words: "layers 0-4 of 30 run".

        >>> Budget(13.5, 5, 30, 5).short
        'layers 0-4 of 30 run'
        """
        return f"layers 0-{self.count - 1} of {self.model_layers} run"

    @property
    def reason(self) -> str:
        """Why `count` layers, in one sentence."""
        if self.count == self.present < self.model_layers:
            return (
                f"the {self.count} layers the file holds of the model's {self.model_layers} run (a float32 layer: "
                f"{self.layer_mb:,.1f} MiB, within the {MEMORY_BUDGET_MB:,} MiB memory budget)"
            )
        if self.count == self.model_layers:
            return (
                f"all {self.model_layers} layers run: {self.count} float32 layers of {self.layer_mb:,.1f} MiB each fit "
                f"in the {MEMORY_BUDGET_MB:,} MiB memory budget"
            )
        return (
            f"the first {self.count} of {self.model_layers} layers run: a float32 layer takes {self.layer_mb:,.1f} MiB "
            f"and the server keeps at most {MEMORY_BUDGET_MB:,} MiB of them (MEMORY_BUDGET_MB)"
        )


@dataclass(frozen=True, eq=False)
class Model:
    """A llama-family GGUF file's first layers in float32; the token table stays in its stored blocks, memory-mapped."""

    path: Path
    architecture: str
    config: Config
    budget: Budget
    layers: tuple[Layer, ...]
    inv_freq: np.ndarray  # (P,) radians per position, the file's scaling applied
    token_blocks: np.ndarray = field(repr=False)  # (V, bytes per row) or (V, d), memory-mapped
    token_type: gguf.GGMLQuantizationType
    tokenizer: Tokenizer | None = field(repr=False)  # None when posviz cannot build the file's tokenizer
    tokenizer_note: str  # what the tokenizer is, or why there is none
    bos: int | None  # tokenizer.ggml.bos_token_id
    add_bos: bool  # tokenizer.ggml.add_bos_token (False when not stated)

    def embed(self, ids: np.ndarray) -> np.ndarray:
        """Dequantize only the token-table rows of `ids`.

        Returns: (T, d) float32
        """
        ids = check_ids(ids, self.config.vocab)
        rows = _dequantize("token_embd.weight", np.asarray(self.token_blocks[ids]), self.token_type)
        return rows.reshape(ids.size, self.config.d)

    def run(
        self,
        ids: object,
        *,
        layers: int | None = None,
        rotation: Rotation = "rope",
        causal: bool = True,
        start: int = 0,
    ) -> Trace:
        """The first `layers` loaded layers on `ids` (smollm2.run's options: no rotation, no mask, shifted start).

        Returns: Trace with hidden (L, T, d), q (L, H, T, d_k), k (L, G, T, d_k), weights (L, H, T, T)
        """
        ids = check_ids(ids, self.config.vocab, limit=smollm2.MAX_RUN)
        count = len(self.layers) if layers is None else _checks.integer("layers", layers, minimum=1)
        if count > len(self.layers):
            raise ValueError(f"layers must be 1..{len(self.layers)} (the layers loaded), got {count}")
        if rotation not in ("rope", "none"):
            raise ValueError(f"rotation must be 'rope' or 'none', got {rotation!r}")
        positions = start + np.arange(ids.size)
        angles = np.outer(positions, self.inv_freq) * (rotation == "rope")  # (T, P)
        x = embedding = self.embed(ids)
        steps = []
        for layer in self.layers[:count]:
            steps.append(layer_forward(layer, x, angles, self.config, causal=bool(causal)))
            x = steps[-1][0]
        hidden, q, k, weights = (np.stack(s) for s in zip(*steps, strict=True))
        return Trace(ids, positions, rotation, bool(causal), embedding, hidden, q, k, weights)


def layer_forward(
    layer: Layer, x: np.ndarray, angles: np.ndarray, config: Config, *, causal: bool = True
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """smollm2.layer_forward with q, k, v biases when the layer has them (q, k rows interleaved).

    Returns: (x out (T, d), rotated q (H, T, d_k), rotated k (G, T, d_k), weights (H, T, T))
    """
    h = rms_norm(x, layer.attn_norm, config.eps)
    q = rotary.rotate(split_heads(_project(h, layer.w_q, layer.b_q), config.heads), angles)  # (H, T, d_k)
    k = rotary.rotate(split_heads(_project(h, layer.w_k, layer.b_k), config.kv_heads), angles)  # (G, T, d_k)
    v = split_heads(_project(h, layer.w_v, layer.b_v), config.kv_heads)  # (G, T, d_k)
    weights = attention_weights(q, k, causal=causal)  # (H, T, T)
    x = x + attend(weights, v) @ layer.w_o.T
    h = rms_norm(x, layer.ffn_norm, config.eps)
    gate = h @ layer.w_gate.T  # (T, F)
    silu = gate * (0.5 + 0.5 * np.tanh(0.5 * gate))  # gate * sigmoid(gate)
    x = x + (silu * (h @ layer.w_up.T)) @ layer.w_down.T
    return x, q, k, weights


def _project(h: np.ndarray, w: np.ndarray, b: np.ndarray | None) -> np.ndarray:
    return h @ w.T if b is None else h @ w.T + b


def _dequantize(name: str, data: np.ndarray, kind: gguf.GGMLQuantizationType) -> np.ndarray:
    """gguf's dequantization to float32, or a ValueError naming the tensor and its type."""
    try:
        return np.array(gguf.quants.dequantize(data, kind), dtype=np.float32)
    except NotImplementedError:
        raise ValueError(
            f"{name} is stored as {kind.name}, a type gguf {_gguf_version()} cannot dequantize "
            "(it reads F32, F16, BF16, Q4_0-Q8_0, the K-quants and the IQ types)"
        ) from None


def _gguf_version() -> str:
    from importlib.metadata import version

    return version("gguf")


def _key(reader: gguf.GGUFReader, key: str, default: object = None) -> object:
    """A key's value; a ValueError when the file lacks it and there is no default."""
    if key in reader.fields:
        return reader.fields[key].contents()
    if default is None:
        raise ValueError(f"expected the key {key!r} in the file, got {len(reader.fields)} keys without it")
    return default


def config(reader: gguf.GGUFReader, arch: str) -> Config:
    """The forward pass's hyperparameters from the keys under `arch`'s prefix; V from the token table's rows.

    d_k: `{arch}.attention.key_length`, else d / H (llama.cpp's rule).
    """
    heads, d = int(_key(reader, f"{arch}.attention.head_count")), int(_key(reader, f"{arch}.embedding_length"))
    tensors = {t.name: t for t in reader.tensors}
    if "token_embd.weight" not in tensors:
        raise ValueError("expected the tensor 'token_embd.weight' (the token table), got a file without it")
    return Config(
        d=d,
        heads=heads,
        kv_heads=int(_key(reader, f"{arch}.attention.head_count_kv", heads)),
        d_k=int(_key(reader, f"{arch}.attention.key_length", d // heads)),
        base=float(_key(reader, f"{arch}.rope.freq_base")),
        eps=float(_key(reader, f"{arch}.attention.layer_norm_rms_epsilon")),
        vocab=int(tensors["token_embd.weight"].data.shape[0]),
        model_layers=int(_key(reader, f"{arch}.block_count")),
        context=int(_key(reader, f"{arch}.context_length")),
    )


def layer_names(i: int, arch: str) -> dict[str, str]:
    """Layer i's tensor names in the file, by Layer field."""
    names = {key: f"blk.{i}.{name}.weight" for key, name in smollm2.LAYER_TENSORS.items()}
    if arch in BIASED:
        names |= {key: f"blk.{i}.{name}.bias" for key, name in BIASES.items()}
    return names


def budget(tensors: dict[str, gguf.ReaderTensor], model_layers: int, arch: str) -> Budget:
    """How many first layers fit in MEMORY_BUDGET_MB as float32 (layer 0's size for each).

    >>> budget({}, 30, "llama").count
    0
    """
    names = layer_names(0, arch).values()
    layer_mb = sum(int(tensors[n].n_elements) * 4 for n in names if n in tensors) / 2**20
    present = next((i for i in range(model_layers) if layer_names(i, arch)["w_q"] not in tensors), model_layers)
    count = 0 if layer_mb == 0 else min(present, int(MEMORY_BUDGET_MB // layer_mb))
    return Budget(layer_mb, count, model_layers, present)


def read_layer(tensors: dict[str, gguf.ReaderTensor], i: int, arch: str, config: Config) -> Layer:
    """Layer i, dequantized from the mapped file; q, k rows (and biases) interleaved; shapes checked."""
    names = layer_names(i, arch)
    missing = sorted(n for n in names.values() if n not in tensors)
    if missing:
        raise ValueError(f"layer {i} of a {arch} file needs the tensors {missing}, the file lacks them")
    parts = {key: _dequantize(name, tensors[name].data, tensors[name].tensor_type) for key, name in names.items()}
    if RUNS[arch] == "rotate-half":  # to GGUF's interleaved layout, as llama.cpp's converter does for llama
        for key, heads in (
            ("w_q", config.heads),
            ("w_k", config.kv_heads),
            ("b_q", config.heads),
            ("b_k", config.kv_heads),
        ):
            if key in parts:
                parts[key] = smollm2.hf_to_gguf_rows(parts[key], heads)
    layer = Layer(**parts)
    _check_biases(layer, config)
    return smollm2.check_layer(layer, config)


def _check_biases(layer: Layer, config: Config) -> None:
    for name, width in (("b_q", config.heads), ("b_k", config.kv_heads), ("b_v", config.kv_heads)):
        bias = getattr(layer, name)
        if bias is not None and bias.shape != (width * config.d_k,):
            raise ValueError(f"{name} should have shape {(width * config.d_k,)}, the file has {bias.shape}")


def frequencies(scheme: gguf_inspect.Scheme, config: Config) -> np.ndarray:
    """theta_i = base^(-2i/d_k), divided by the linear factor and by rope_freqs.weight when the file has them: the
    report's own frequencies (`Scheme.inv_freq`), for the scalings run here.

    Returns: (P,) float64
    """
    if scheme.rotary_dim != config.d_k:
        raise ValueError(f"expected RoPE over the whole head (d_k = {config.d_k}), got {scheme.rotary_dim} dimensions")
    if scheme.rope_type not in ("none", "linear"):
        raise ValueError(f"rope scaling {scheme.rope_type!r} is not run here (run: none, linear, rope_freqs factors)")
    other = sorted(set(scheme.factor_tensors) - {gguf_inspect.FREQ_FACTORS})
    if other:
        raise ValueError(f"the per-pair factors {other} (LongRoPE) are not run here")
    return scheme.inv_freq()  # (P,)


def tokenizer(reader: gguf.GGUFReader) -> tuple[Tokenizer | None, str]:
    """The file's tokenizer when it is a byte-level BPE posviz builds (PRE_TOKENIZERS or smollm), else None; and a
    line saying which it is or why there is none."""
    kind, pre = _key(reader, "tokenizer.ggml.model", ""), _key(reader, "tokenizer.ggml.pre", "default")
    if kind == "gpt2" and pre == "smollm":
        return smollm2.tokenizer_from_gguf(reader), "byte-level BPE from the file (pre-tokenizer smollm)"
    if kind != "gpt2" or pre not in PRE_TOKENIZERS:
        read = ", ".join(["smollm", *PRE_TOKENIZERS])
        return None, (
            f"tokenizer {kind or 'not stated'!r} (pre-tokenizer {pre!r}) is not one posviz builds: it builds gpt2 "
            f"byte-level BPE with the pre-tokenizers {read}"
        )
    tokens = _key(reader, "tokenizer.ggml.tokens")
    merges = [tuple(m.split(" ", 1)) for m in _key(reader, "tokenizer.ggml.merges")]
    built = Tokenizer(models.BPE(vocab={t: i for i, t in enumerate(tokens)}, merges=merges))
    split = PRE_TOKENIZERS[pre]
    byte_level = pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=split is None)
    built.pre_tokenizer = (
        byte_level
        if split is None
        else pre_tokenizers.Sequence([pre_tokenizers.Split(Regex(split), behavior="isolated"), byte_level])
    )
    built.decoder = decoders.ByteLevel()
    types = _key(reader, "tokenizer.ggml.token_type", [1] * len(tokens))
    control = [t for t, kind in zip(tokens, types, strict=True) if kind == 3]
    built.add_special_tokens([AddedToken(t, special=True, normalized=False) for t in control])
    built.encode_special_tokens = True
    return built, f"byte-level BPE from the file (pre-tokenizer {pre})"


def open_model(path: str | Path) -> Model:
    """A llama-family GGUF file with its first `budget` layers dequantized; ValueError for a corrupt or cut file, an
    architecture posviz only reads, a layer it cannot run, or a quantization gguf cannot dequantize."""
    scheme = gguf_inspect.read(path)  # the header's checks: magic, version, counts, cut tensors
    arch = scheme.architecture
    if arch not in RUNS:
        raise ValueError(f"architecture {arch!r} is read only: posviz runs the layers of {', '.join(RUNS)}")
    try:
        reader = smollm2._Reader(Path(path))
    except (ValueError, IndexError, KeyError, OSError) as error:
        raise ValueError(f"{Path(path).name}: gguf could not read it ({error})") from None
    tensors = {t.name: t for t in reader.tensors}
    cfg = config(reader, arch)
    inv = frequencies(scheme, cfg)
    plan = budget(tensors, cfg.model_layers, arch)
    if plan.count == 0:
        raise ValueError(
            f"one float32 layer takes {plan.layer_mb:,.0f} MiB, more than the {MEMORY_BUDGET_MB:,} MiB budget"
        )
    layers = tuple(read_layer(tensors, i, arch, cfg) for i in range(plan.count))  # one layer dequantized at a time
    built, note = tokenizer(reader)
    table = tensors["token_embd.weight"]
    _dequantize("token_embd.weight", np.asarray(table.data[:1]), table.tensor_type)  # its type, checked now
    bos = _key(reader, "tokenizer.ggml.bos_token_id", -1)
    return Model(
        path=Path(path),
        architecture=arch,
        config=cfg,
        budget=plan,
        layers=layers,
        inv_freq=inv,
        token_blocks=table.data,
        token_type=table.tensor_type,
        tokenizer=built,
        tokenizer_note=note,
        bos=None if bos == -1 else int(bos),
        add_bos=bool(_key(reader, "tokenizer.ggml.add_bos_token", False)),
    )


def tokenize(model: Model, text: str, *, bos: bool) -> Tokens:
    """The model's tokens for `text`, at most MAX_TOKENS ids (the BOS token first when `bos`).

    Returns: Tokens with ids (T,); ValueError for empty text or a model without a tokenizer posviz builds
    """
    if model.tokenizer is None:
        raise ValueError(model.tokenizer_note)
    if bos and model.bos is None:
        raise ValueError("the file states no BOS token (tokenizer.ggml.bos_token_id); feed none")
    clean, notes = smollm2._clean(text)
    first = [model.bos] if bos else []
    ids = first + model.tokenizer.encode(clean).ids
    cut = len(ids) > MAX_TOKENS or len(clean) < len(text)
    if len(ids) > MAX_TOKENS:
        ids = ids[:MAX_TOKENS]
        notes.append(f"cut to the first {MAX_TOKENS} tokens")
    spelled = model.tokenizer.decode(ids[len(first) :], skip_special_tokens=False)
    shown = tuple(smollm2.token_text(model.tokenizer, i) for i in ids)
    return Tokens(np.array(ids, dtype=np.int64), shown, cut, spelled != text, tuple(notes), im_start=bos)


# ----- the folder the operator names -------------------------------------------------------------------------------


def models_folder(environ: dict[str, str] | None = None) -> Path | None:
    """The folder $POSVIZ_MODELS_DIR names (None when unset or empty); ValueError when it is not a folder."""
    value = (os.environ if environ is None else environ).get(MODELS_DIR, "").strip()
    if not value:
        return None
    folder = Path(value).expanduser()
    if not folder.is_dir():
        raise ValueError(f"{MODELS_DIR} should name a folder, got {value!r}, which is not one")
    return folder.resolve()


def listed(folder: Path) -> list[str]:
    """The *.gguf files directly in `folder` (not in subfolders, no link leading outside it), by name."""
    return sorted(p.name for p in Path(folder).glob("*.gguf") if _inside(folder, p) and p.resolve().is_file())


def resolve(folder: Path, name: str) -> Path:
    """The file `name` in `folder`; ValueError for a path (separators, "..", absolute), a link leading outside the
    folder, a name not ending in .gguf, or no such file."""
    if not isinstance(name, str) or not name or Path(name).name != name or name in (".", "..") or "\\" in name:
        raise ValueError(f"expected the name of a file directly in the models folder, got {name!r}")
    if not name.endswith(".gguf"):
        raise ValueError(f"expected a .gguf file name, got {name!r}")
    path = Path(folder) / name
    if not _inside(folder, path):
        raise ValueError(f"{name!r} leads outside the models folder {folder}: refused")
    if not path.resolve().is_file():
        raise ValueError(f"expected a file {name!r} in the models folder {folder}, got none")
    return path.resolve()


def _inside(folder: Path, path: Path) -> bool:
    """Whether `path`, every link followed, lies directly in `folder` (also resolved)."""
    return path.resolve().parent == Path(folder).resolve()
