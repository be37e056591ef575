"""Peak memory per layer run for a 1B-class llama layout: a synthetic GGUF file of that shape, 1 and 2 layers.

    nice -n 10 python benchmarks/your_model_bench.py [--file /tmp/posviz-1b-class.gguf]

The file (written once, to /tmp, never to the repository): Llama 3.2 1B's layer shape (d 2048, 32 query and 8
key/value heads of 64, MLP 8192, 16 layers, rope base 500000) with Q8_0 weight blocks of random int8 and one scale,
F32 norms, and the tests' 265-token vocabulary (a real 128k table would add its Q8_0 rows to the file, not to the
run: posviz dequantizes only the rows of the ids fed). Each count runs in a fresh process with MEMORY_BUDGET_MB
set to hold exactly that many layers: open (layers dequantized), then a 64-token run, and the best of 3 more.
Reported: the process's peak RSS (ru_maxrss, which counts the mapped file's pages it touched) above the process
after imports, and tracemalloc's peak of numpy's allocations during open + the first run (dequantization's
temporaries included).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import gguf  # noqa: E402
import numpy as np  # noqa: E402

from benchmarks.conditions import Load, machine  # noqa: E402
from tests import synthetic_gguf as sg  # noqa: E402

FILE = Path("/tmp/posviz-1b-class.gguf")
Q8 = gguf.GGMLQuantizationType.Q8_0


def q8_blocks(rows: int, cols: int, rng: np.random.Generator) -> np.ndarray:
    """Q8_0 blocks of random int8 with one float16 scale: (rows, cols / 32 * 34) uint8."""
    scale = np.full((rows, cols // 32, 1), 0.002, np.float16).view(np.uint8)  # (rows, B, 2)
    q = rng.integers(-127, 128, (rows, cols // 32, 32), dtype=np.int8).view(np.uint8)
    return np.concatenate([scale, q], axis=-1).reshape(rows, -1)


def tensors(shape: sg.Shape) -> list[tuple[str, tuple[int, int] | tuple[int], bool]]:
    """(name, numpy shape, quantized) of every tensor, in file order."""
    d, q, kv = shape.d, shape.heads * shape.d_k, shape.kv_heads * shape.d_k
    out = [("token_embd.weight", (len(sg.vocabulary()), d), True), ("output_norm.weight", (d,), False)]
    for i in range(shape.layers):
        sizes = {"attn_q": (q, d), "attn_k": (kv, d), "attn_v": (kv, d), "attn_output": (d, q)}
        sizes |= {"ffn_gate": (shape.F, d), "ffn_up": (shape.F, d), "ffn_down": (d, shape.F)}
        out += [(f"blk.{i}.{n}.weight", s, True) for n, s in sizes.items()]
        out += [(f"blk.{i}.{n}.weight", (d,), False) for n in ("attn_norm", "ffn_norm")]
    return out


def write(path: Path, shape: sg.Shape = sg.ONE_B) -> None:
    """Write the file tensor by tensor (header first), so no more than one tensor is in memory."""
    rng = np.random.default_rng(0)
    writer = gguf.GGUFWriter(str(path), "llama")
    sg.write_keys(writer, shape, "llama")
    made = tensors(shape)
    for name, size, quantized in made:
        if quantized:
            nbytes = size[0] * size[1] // 32 * 34
            writer.add_tensor_info(name, (size[0], size[1] // 32 * 34), np.dtype(np.uint8), nbytes, raw_dtype=Q8)
        else:
            writer.add_tensor_info(name, size, np.dtype(np.float32), 4 * size[0])
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_ti_data_to_file()
    for _, size, quantized in made:
        writer.write_tensor_data(q8_blocks(*size, rng) if quantized else np.ones(size, np.float32))
    writer.close()


CHILD = """
import json, resource, sys, time, tracemalloc
sys.path.insert(0, {root!r})
import numpy as np
from posviz.models import llama_gguf
layers, path = {layers}, {path!r}
rss = lambda: resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
def timed(model, ids):
    start = time.perf_counter()
    model.run(ids)
    return time.perf_counter() - start
before = rss()
probe = llama_gguf.budget({{t.name: t for t in llama_gguf.smollm2._Reader(path).tensors}}, 16, "llama")
llama_gguf.MEMORY_BUDGET_MB = probe.layer_mb * (layers + 0.5)
tracemalloc.start()
start = time.perf_counter()
model = llama_gguf.open_model(path)
opened = time.perf_counter() - start
ids = np.arange(64) % model.config.vocab
start = time.perf_counter()
trace = model.run(ids)
first = time.perf_counter() - start
peak = tracemalloc.get_traced_memory()[1] / 2**20
tracemalloc.stop()
ran = min(timed(model, ids) for _ in range(3))
print(json.dumps(dict(layers=len(model.layers), layer_mb=model.budget.layer_mb, rss_before=before,
                      rss_peak=rss(), traced_peak=peak, open_s=opened, first_s=first, run_s=ran)))
"""


def measure(path: Path, layers: int) -> dict:
    """One fresh process: open with a budget of `layers` layers, run 64 tokens; its numbers."""
    code = CHILD.format(root=str(ROOT), layers=layers, path=str(path))
    env = {**os.environ, "OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1"}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, env=env)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--file", type=Path, default=FILE)
    args = parser.parse_args()
    if not args.file.exists():
        start = time.perf_counter()
        write(args.file)
        print(f"wrote {args.file}: {args.file.stat().st_size / 2**20:,.0f} MiB in {time.perf_counter() - start:.0f} s")
    load = Load.start()
    print(machine())
    print(load.before_line())
    rows = [measure(args.file, n) for n in (1, 2)]
    print(f"float32 layer: {rows[0]['layer_mb']:,.1f} MiB (d 2048, F 8192, 32/8 heads of 64), one BLAS thread")
    for r in rows:
        print(
            f"{r['layers']} layer(s): peak RSS {r['rss_peak']:,.0f} MiB ({r['rss_before']:,.0f} after the imports), "
            f"numpy peak (tracemalloc) {r['traced_peak']:,.0f} MiB; "
            f"open {r['open_s']:.1f} s, 64-token run {r['first_s']:.2f} s first, {r['run_s']:.2f} s best of 3 after"
        )
    extra = rows[1]["rss_peak"] - rows[0]["rss_peak"]
    print(f"the second layer adds {extra:,.0f} MiB of peak RSS")
    print(load.line())


if __name__ == "__main__":
    main()
