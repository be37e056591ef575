"""The whole SmolLM2 (fetched with `posviz models fetch smollm2`): load, a 64-token pass of all 30 layers, the
next-token part's first view, and peak memory, for two memory budgets.

Each budget runs in a fresh process (POSVIZ_WHOLE_MB set): load_whole() (the GGUF header, vocabulary, tokenizer);
the first 64-token pass (every layer dequantized on the way); the median of `--repeats` later passes (layers kept
within the budget, the rest dequantized again); whole.read on a 64-token text (three passes and the next tokens:
the page's first view, after the load); and the process's peak resident memory (VmHWM) after all of it.

    python benchmarks/whole_smollm2_bench.py [--repeats 5] [--budgets 640,0]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks.conditions import Load  # noqa: E402
from posviz.experiments import whole  # noqa: E402
from posviz.models import smollm2  # noqa: E402

LONG = "The quick brown fox jumps over the lazy dog. " * 8  # cut to 64 ids, <|im_start|> included


def vm(field: str) -> float:
    """A /proc/self/status memory field in MiB (VmRSS, VmHWM)."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1]) / 1024
    return float("nan")


def child(repeats: int) -> dict:
    """One process's measurements (printed as JSON for the parent)."""
    path = whole.whole_path()
    start = time.perf_counter()
    model = smollm2.load_whole(path)
    loaded = time.perf_counter() - start
    ids = smollm2.tokenize(LONG, model=model).ids
    start = time.perf_counter()
    smollm2.forward(ids, model=model)
    first = time.perf_counter() - start
    passes = []
    for _ in range(repeats):
        start = time.perf_counter()
        smollm2.forward(ids, model=model)
        passes.append(time.perf_counter() - start)
    start = time.perf_counter()
    reading = whole.read(LONG)
    view = time.perf_counter() - start
    return {
        "T": int(ids.size),
        "load": loaded,
        "first": first,
        "pass": statistics.median(passes),
        "view": view,
        "view_T": int(reading.tokens.ids.size),
        "kept": model.kept.used / 2**20,
        "rss": vm("VmRSS"),
        "peak": vm("VmHWM"),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--budgets", default="640,0", help="MiB of float32 weights kept, one process each")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(child(args.repeats)))
        return
    if whole.whole_path() is None:
        raise SystemExit(whole.absent_note())
    load = Load.announce()
    print(f"file: {whole.whole_path()}")
    columns = (("budget MiB", 10), ("kept MiB", 9), ("load s", 7), ("1st pass s", 10), ("pass s", 7), ("view s", 7))
    print(" ".join(f"{name:>{width}}" for name, width in columns), f"{'peak MiB':>9}")
    for budget in args.budgets.split(","):
        env = {**os.environ, smollm2.WHOLE_BUDGET_ENV: budget}
        command = [sys.executable, __file__, "--child", "--repeats", str(args.repeats)]
        run = subprocess.run(command, capture_output=True, text=True, check=True, env=env)
        r = json.loads(run.stdout.strip().splitlines()[-1])
        print(
            f"{budget:>10} {r['kept']:>9.0f} {r['load']:>7.2f} {r['first']:>10.2f} {r['pass']:>7.2f} "
            f"{r['view']:>7.2f} {r['peak']:>9.0f}"
        )
    print(
        f"\n{r['T']}-token passes of all 30 layers, float32; view: whole.read (3 passes and the next tokens), "
        f"{r['view_T']} ids"
    )
    print(load.line())


if __name__ == "__main__":
    main()
