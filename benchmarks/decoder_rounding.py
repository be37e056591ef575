"""How far step 19's 1 − cosine moves when SmolLM2's weights are rounded again, as coarsely as the shipped copy was.

The shipped layers are stored in 4 bits (Q4_1); no full-precision file is on this machine, so the rounding's effect
cannot be read off directly. `decoder.rounding_gaps` gives each weight matrix uniform noise of one rounding step and
reruns step 19's three runs; this prints the spread over the draws beside the shipped copy's numbers, and in how
many draws RoPE + mask moves the two sentences further apart than RoPE off (step 19's caption, at 20 draws).

    python benchmarks/decoder_rounding.py            # 20 draws at seed 0 (about 10 s)
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

for _name in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):  # as streamlit_app.py, before numpy
    os.environ.setdefault(_name, "1")

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import numpy as np  # noqa: E402

from benchmarks.conditions import Load, machine  # noqa: E402
from posviz.experiments import decoder  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--draws", type=int, default=20)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    load = Load.start()
    began = time.perf_counter()
    shipped = {name: 1 - decoder.sentence_cosine(*run)[0] for name, run in decoder.ROUNDING_RUNS.items()}
    drawn = decoder.rounding_gaps(args.draws, args.seed)
    layers, of = decoder.shipped_layers()
    print(f"SmolLM2's shipped {layers} of {of} layers; {args.draws} draws of a rounding step's noise, seed {args.seed}")
    print(machine())
    print(load.line())
    print()
    print(f"{'run':<12} {'shipped':>10} {'draws: min':>11} {'median':>10} {'max':>10} {'max/min':>8}")
    for name, values in drawn.items():
        low, mid, high = np.min(values), np.median(values), np.max(values)
        rounding = low < 1e-6  # 1 − cosine of 1 up to float32 rounding: no ratio
        ratio = f"{'-':>8}" if rounding else f"{high / low:8.2f}"
        print(f"{name:<12} {shipped[name]:10.5f} {low:11.5f} {mid:10.5f} {high:10.5f} {ratio}")
    on, off = drawn["RoPE + mask"], drawn["RoPE off"]
    print()
    print(f"draws where RoPE + mask moves the sentences further than RoPE off: {int(np.sum(on > off))} of {args.draws}")
    print(f"time: {time.perf_counter() - began:.1f} s")


if __name__ == "__main__":
    main()
