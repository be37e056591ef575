"""The whole real model: forward-pass time in process, and the server's memory with the model loaded.

(a) In process, medians of --repeats, one BLAS thread as the server runs: two 64-token sentences through all 6
    layers, one pass each (the baseline) and both in one pass (rows share every matrix product); what the page
    computes (both sentences with and without position rows), its first view's curve (0, 0.5 and 1, two of them
    taken from the numbers), the other 18 scales, and the first curve of 6 scales it drew before; each with a pass
    in one thread and in two halves at once (encoder.PASS_THREADS 1 and 2).
(b) A `streamlit run` server driven by headless Chromium, one session: the server's RSS after the
    magnitude page (no model loaded: the baseline; the overview loads it, for claim 12) and after the
    real-model page at its defaults and with two 64-token sentences; bytes each view receives.

    python benchmarks/encoder_bench.py [--repeats 7] [--no-browser]
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import sys
import time
from pathlib import Path
from urllib.parse import quote

for _name in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):  # as streamlit_app.py, before numpy
    os.environ.setdefault(_name, "1")

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

import numpy as np  # noqa: E402

from benchmarks.conditions import Load  # noqa: E402
from posviz.models import minilm  # noqa: E402
from posviz.models.minilm import encoder  # noqa: E402

LONG1 = " ".join(f"w{i}" for i in range(31))  # "w" and "##0".. pieces: 64 tokens with [CLS] and [SEP]
LONG2 = " ".join(f"w{i}" for i in reversed(range(31)))


def timed(call, repeats: int) -> float:
    call()  # warm: caches, BLAS buffers
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        call()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def rss_mb(pid: int) -> tuple[float, float]:
    """(current, peak) resident set size of a process in MB (VmRSS, VmHWM)."""
    fields = dict(line.split(":", 1) for line in Path(f"/proc/{pid}/status").read_text().splitlines() if ":" in line)
    return int(fields["VmRSS"].split()[0]) / 1024, int(fields["VmHWM"].split()[0]) / 1024


def in_process(repeats: int) -> None:
    model = encoder.default_encoder()
    a, b = minilm.tokenize(LONG1).ids, minilm.tokenize(LONG2).ids
    if (len(a), len(b)) != (minilm.MAX_TOKENS, minilm.MAX_TOKENS):
        raise RuntimeError(f"expected two {minilm.MAX_TOKENS}-token sentences, got {len(a)} and {len(b)}")
    rows = [
        ("two 64-token sentences, one pass each (baseline)", lambda: [encoder.states(model, i) for i in (a, b)]),
        ("two 64-token sentences, one pass for both", lambda: encoder.states_many(model, [a, b])),
        ("the page's numbers: both, with and without position", lambda: encoder.compare(model, LONG1, LONG2)),
        (
            "the page's first curve: 3 scales, 0 and 1 from the numbers",
            lambda: encoder.curve_texts(LONG1, LONG2, 21, every=10, known=((0.0, 1.0), (1.0, 0.9))),
        ),
        ("the rest of the curve: 18 scales (float32)", lambda: encoder.curve_texts(LONG1, LONG2, 21, 10, rest=True)),
        ("before 2026-12-02, the first curve: 6 scales", lambda: encoder.curve_texts(LONG1, LONG2, 21, every=4)),
        ("the defaults (5 tokens each): numbers", lambda: encoder.compare(model, "dog bites man", "man bites dog")),
        ("the defaults: curve", lambda: encoder.curve_texts("dog bites man", "man bites dog")),
    ]
    results = {}
    for label, call in rows:  # each row in both settings, one after the other: a drift of the machine's load hits both
        for threads in (1, 2):
            encoder.PASS_THREADS = threads
            results.setdefault(label, {})[threads] = timed(call, repeats)
    encoder.PASS_THREADS = 2
    base = results[rows[0][0]][1]
    print(f"(a) in process, median of {repeats} runs; numpy {np.__version__}; one BLAS thread")
    print()
    print("| computation | one thread (s) | two halves at once (s) | two / one | one thread / baseline |")
    print("|---|---|---|---|---|")
    for label, (one, two) in ((k, (v[1], v[2])) for k, v in results.items()):
        print(f"| {label} | {one:.3f} | {two:.3f} | {two / one:.2f} | {one / base:.2f} |")
    print()


def in_browser() -> None:
    from browser_bench import view

    from tests.harness import browser, serve

    rows = []
    with browser() as b, serve() as (base, proc):
        ctx = b.new_context(viewport={"width": 1280, "height": 720})
        long = f"/sentences?s1={quote(LONG1)}&s2={quote(LONG2)}"
        for label, path, charts in (
            ("position magnitude, defaults (no model loaded; baseline)", "/magnitude", 1),
            ("real model: word order, defaults (first view)", "/sentences", 2),
            ("real model: word order, defaults (again)", "/sentences", 2),
            ("real model: word order, two 64-token sentences", long, 2),
            ("a real transformer (minilm), defaults", "/minilm", 1),
        ):
            seconds, received = view(ctx, base + path, charts)
            rows.append((label, seconds, received, *rss_mb(proc.pid)))
    base_rss = rows[0][3]
    print("(b) one browser session against one server; RSS read after each view")
    print()
    print("| view | navigation to rendered (s) | bytes received | server RSS (MB) | vs baseline (MB) | peak RSS (MB) |")
    print("|---|---|---|---|---|---|")
    for label, seconds, received, now, peak in rows:
        kb = received / 1024
        print(f"| {label} | {seconds:.2f} | {kb:,.0f} kB | {now:.0f} | {now - base_rss:+.0f} | {peak:.0f} |")
    print()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--no-browser", action="store_true", help="only the in-process timings")
    args = parser.parse_args()
    load = Load.start()
    print(f"machine: {platform.machine()}, Python {platform.python_version()}; {load.before_line()}")
    print()
    in_process(args.repeats)
    if not args.no_browser:
        in_browser()
    print(f"machine: {load.line()}")


if __name__ == "__main__":
    main()
