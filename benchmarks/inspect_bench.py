"""`posviz inspect`: the time and peak memory of reading a GGUF header and computing its pairs, in fresh processes.

Files: the GGUF posviz ships (SmolLM2's first 5 layers with the published file's whole header: 98,148 vocabulary
and merge strings), a synthetic file of the whole SmolLM2's shape (that header, all 30 layers' 272 tensors at the
published types Q4_1 / Q8_0 / F32, zero bytes: about the published 98 MB), and any file given with --file (the
whole SmolLM2 when you have it). Each row is the median over --repeats fresh processes, files taken in turn:
    report    gguf_inspect.read + inspection.report (the core call), seconds
    words     model_report.text on that report, seconds
    peak      VmHWM growth over the process's peak after its imports (MiB): what inspecting adds
    command   `python -m posviz inspect FILE` end to end, seconds (imports included)
    GGUFReader  gguf.GGUFReader(FILE) in the same process afterwards, seconds and its peak growth (MiB): the
              reader posviz's forward pass uses, which builds every vocabulary string (why inspect walks the header)

    python benchmarks/inspect_bench.py [--repeats 5] [--file MODEL.gguf ...]
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import gguf  # noqa: E402
import numpy as np  # noqa: E402

from benchmarks.conditions import Load  # noqa: E402
from posviz.models import smollm2  # noqa: E402

LAYERS = 30  # the whole SmolLM2-135M (model-notes: 30 layers)


def status_kib(name: str) -> int:
    """A /proc/self/status value in KiB (VmHWM: peak resident, VmRSS: resident now)."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(name + ":"):
            return int(line.split()[1])
    raise ValueError(f"/proc/self/status has no {name}")


def child(path: Path) -> None:
    """One measurement in this fresh process, printed as JSON; gguf's own reader last (its peak is higher)."""
    from posviz.drawing import model_report
    from posviz.experiments import inspection
    from posviz.models import gguf_inspect

    before = status_kib("VmHWM")
    start = time.perf_counter()
    report = inspection.report(gguf_inspect.read(path))
    middle = time.perf_counter()
    model_report.text(report)
    end = time.perf_counter()
    peak = status_kib("VmHWM")
    gguf.GGUFReader(path)
    reader = time.perf_counter() - end
    measured = {"report": middle - start, "words": end - middle, "peak_mib": (peak - before) / 1024}
    measured |= {"reader": reader, "reader_mib": (status_kib("VmHWM") - peak) / 1024}
    print(json.dumps(measured))


def whole_shape(out: Path) -> Path:
    """The shipped header with all 30 layers' tensors at their published types (zero bytes), and the final norm."""
    reader = gguf.GGUFReader(smollm2.DATA / smollm2.GGUF_FILE)
    writer = gguf.GGUFWriter(out, "llama")
    for key, item in reader.fields.items():
        if key.startswith("GGUF.") or key == "general.architecture":
            continue
        sub_type = item.types[-1] if item.types[0] == gguf.GGUFValueType.ARRAY else None
        writer.add_key_value(key, item.contents(), item.types[0], sub_type=sub_type)
    templates = [t for t in reader.tensors if not t.name.startswith("blk.") or t.name.startswith("blk.0.")]
    for i in range(LAYERS):
        for t in templates:
            if t.name.startswith("blk.") or i == 0:
                raw = np.zeros(np.asarray(t.data).shape, np.asarray(t.data).dtype)
                name = t.name.replace("blk.0.", f"blk.{i}.")
                writer.add_tensor(name, raw, raw_shape=raw.shape, raw_dtype=t.tensor_type)
    width = int(reader.fields["llama.embedding_length"].contents())
    writer.add_tensor("output_norm.weight", np.zeros(width, np.float32))
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()
    return out


def run(command: list[str]) -> tuple[float, str]:
    start = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True, check=True, cwd=ROOT)
    return time.perf_counter() - start, done.stdout


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--child", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--file", type=Path, action="append", default=[], help="another GGUF file to inspect")
    args = parser.parse_args()
    if args.child:
        return child(args.child)
    load = Load.start()
    with tempfile.TemporaryDirectory() as tmp:
        files = [smollm2.DATA / smollm2.GGUF_FILE, whole_shape(Path(tmp) / "smollm2-whole-shape.gguf"), *args.file]
        rows: dict[Path, list[dict]] = {f: [] for f in files}
        for _ in range(args.repeats):
            for f in files:
                measured = json.loads(run([sys.executable, __file__, "--child", str(f)])[1])
                measured["command"] = run([sys.executable, "-m", "posviz", "inspect", str(f)])[0]
                rows[f].append(measured)
        print(f"machine: {load.line()}; medians of {args.repeats} fresh processes\n")
        print("| file | MB | tensors | report s | words s | peak MiB | command s | GGUFReader s | its peak MiB |")
        print("|---|---|---|---|---|---|---|---|---|")
        for f, measured in rows.items():
            tensors = len(gguf.GGUFReader(f).tensors)
            med = {k: statistics.median(m[k] for m in measured) for k in measured[0]}
            print(
                f"| {f.name} | {f.stat().st_size / 1e6:.1f} | {tensors} | {med['report']:.3f} | {med['words']:.4f} "
                f"| {med['peak_mib']:.1f} | {med['command']:.2f} | {med['reader']:.2f} | {med['reader_mib']:.0f} |"
            )


if __name__ == "__main__":
    main()
