"""The matched family: the numpy forward of every scheme, the memory its models take, and the page's first views.

(a) In process, rounds interleaved, medians: every scheme's seed-0 model on the default held-out text (held-out
    window 0, as the claims read it) at 8 x T_train bytes, the learned table at T_train (it has no row past it),
    against one scheme (RoPE) at T_train; the ratio is to that baseline.
(b) Memory: a new process's VmRSS with posviz and streamlit imported (the baseline), then every shipped model
    loaded, then family_curves cached (the page's held-out curves on WINDOWS windows), and its peak (VmHWM); and the
    `streamlit run` server's RSS after the views of (c), which warm every model at start.
(c) The page's first views against the plain-Altair baseline page (benchmarks/baseline_app.py) in the same run,
    with browser_bench's view(), verdict() and targets (defaults <= 0.25 x the baseline's time and 500 kB, largest
    <= 0.3 x and 1.5 MB): every part at its defaults (part long first, the page's default), and the largest
    settings: part attention, the deepest layer, a 1,000-byte text the server has not seen for every view (cold).
    The server is started with POSVIZ_MATCHED_WINDOWS = --windows (8, the server's default; the tests use 1), and
    each part is viewed once unmeasured first: that view waits for the server's warm-up (the curves, probes and
    scaled curves, computed once per server).

    python benchmarks/matched_bench.py [--repeats 3] [--windows 8] [--no-browser]
"""

from __future__ import annotations

import argparse
import ast
import random
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

import numpy as np  # noqa: E402

from benchmarks.conditions import Load  # noqa: E402
from posviz.experiments import matched as ex  # noqa: E402
from posviz.models import matched  # noqa: E402

BASELINE_URL = "?T=1024&d=256"  # browser_bench's baseline: a plain Altair heatmap of a 1024x256 sinusoid table
MAX_TEXT = 1000  # the page's text box: up to 1000 bytes (app_pages/matched.py)


def forward_rows() -> list[tuple[str, object]]:
    """(label, call) for (a): RoPE at T_train first (the baseline), then every scheme as far as 8 x T_train."""
    T, w = matched.config().T_train, ex.long_windows(1)[0]  # window 0: 8 T_train + 1 bytes
    rope = matched.load("rope", 0)
    rows = [(f"rope, T_train = {T} bytes (baseline)", lambda: matched.token_losses(rope, w[: T + 1]))]
    for scheme in matched.SCHEMES:
        model, P = matched.load(scheme, 0), ex.reach(scheme, len(w) - 1)
        where = f"{P // T} x T_train = {P} bytes" + (" (its table's last row)" if P < len(w) - 1 else "")
        rows.append((f"{scheme}, {where}", lambda model=model, P=P: matched.token_losses(model, w[: P + 1])))
    return rows


def in_process(repeats: int) -> None:
    from llm_bench import interleaved, table  # the same interleaving and table as SmolLM2's benchmark

    print(
        f"(a) in process, one held-out window, seed 0, median of {repeats} interleaved rounds; numpy {np.__version__}"
    )
    print()
    table(interleaved(forward_rows(), repeats))


MEMORY = (
    "import sys; sys.path.insert(0, '.'); from pathlib import Path\n"
    "def rss():\n"
    "    f = dict(l.split(':', 1) for l in Path('/proc/self/status').read_text().splitlines() if ':' in l)\n"
    "    return int(f['VmRSS'].split()[0]) / 1024, int(f['VmHWM'].split()[0]) / 1024\n"
    "import posviz, streamlit; from posviz.experiments import matched as ex; from posviz.models import matched\n"
    "before = rss()\n"
    "models = [matched.load(m['scheme'], m['seed']) for m in matched.provenance()['models'].values()]; loaded = rss()\n"
    "ex.family_curves(int(sys.argv[1])); curves = rss()\n"
    "print(*before, *loaded, *curves)"
)


def memory_in_process(windows: int) -> None:
    out = subprocess.run(
        [sys.executable, "-c", MEMORY, str(windows)], cwd=ROOT, capture_output=True, text=True, check=True
    )
    rss0, _, rss1, _, rss2, peak = map(float, out.stdout.split())
    print(
        "(b) one new process: posviz and streamlit imported (baseline), then the ten models loaded, then "
        f"family_curves on {windows} windows"
    )
    print()
    print("| state | VmRSS (MB) | vs baseline (MB) |")
    print("|---|---|---|")
    rows = (("imported (baseline)", rss0), ("ten models loaded", rss1), (f"family_curves({windows}) cached", rss2))
    for label, value in rows:
        print(f"| {label} | {value:.0f} | {value - rss0:+.0f} |")
    print(f"| peak (VmHWM) | {peak:.0f} | {peak - rss0:+.0f} |")
    print()


def cold_text(k: int) -> str:
    """The k-th of distinct ASCII texts of exactly MAX_TEXT bytes (browser_bench's words, seed k)."""
    from browser_bench import WORDS

    rng = random.Random(k)
    text = ""
    while len(text) < MAX_TEXT:
        text += rng.choice(WORDS) + " "
    return text[:MAX_TEXT]


def parts() -> list[str]:
    """The page's parts, in its order (the PARTS table of app_pages/matched.py, read without running the page)."""
    tree = ast.parse((ROOT / "app_pages" / "matched.py").read_text(encoding="utf-8"))
    table = next(
        node.value
        for node in tree.body
        if isinstance(node, ast.Assign) and getattr(node.targets[0], "id", "") == "PARTS"
    )
    return list(ast.literal_eval(table))


def plan(repeats: int) -> list[tuple[str, list[dict[str, object]]]]:
    """(settings label, the views' query settings) for (c): every part's defaults, then the largest, cold."""
    last = matched.config().layers - 1
    rows = [
        ("defaults" if part == "long" else f"defaults, part={part}", [{"part": part}] * repeats) for part in parts()
    ]
    largest = [{"part": "attention", "layer": last, "text": cold_text(k)} for k in range(repeats)]
    return [*rows, (f"maxima, part=attention, layer {last}, {MAX_TEXT}-byte text, cold", largest)]


def in_browser(repeats: int, windows: int) -> None:
    from browser_bench import TimeoutError, query, verdict, view
    from llm_bench import rss_mb

    from tests.harness import browser, serve

    env = {"POSVIZ_MATCHED_WINDOWS": str(windows)}
    rows, baselines = [], []
    with browser() as b, serve("benchmarks/baseline_app.py") as (plain, _), serve(env=env) as (base, proc):
        plain_ctx = b.new_context(viewport={"width": 1280, "height": 720})
        view(plain_ctx, f"{plain}/{BASELINE_URL}")  # warm-up, not measured
        bare = rss_mb(proc.pid)  # the server's warm-up thread has started loading the models by now
        warm = b.new_context(viewport={"width": 1280, "height": 720})
        started = time.perf_counter()
        for label, views in plan(1):
            settings = {**views[0], "text": "warm-up"} if "cold" in label else views[0]
            while True:  # the first view of part long waits for the server's warm-up (minutes at 8 windows)
                try:
                    view(warm, f"{base}/matched{query(settings)}")
                    break
                except TimeoutError:
                    continue
        waited = time.perf_counter() - started
        warm.close()
        warmed = rss_mb(proc.pid)
        ctx = b.new_context(viewport={"width": 1280, "height": 720})
        view(ctx, f"{base}/overview")  # the app's code into this context's HTTP cache
        for label, views in plan(repeats):
            baselines.append(view(plain_ctx, f"{plain}/{BASELINE_URL}"))
            rows.append((label, [view(ctx, f"{base}/matched{query(one)}") for one in views], len(baselines) - 1))
        baselines.append(view(plain_ctx, f"{plain}/{BASELINE_URL}"))
        after = rss_mb(proc.pid)
    median = statistics.median(r[0] for r in baselines)
    print(
        f"(c) the matched page's first views, {repeats} views each, medians; the baseline {len(baselines)} times "
        f"between them ({', '.join(f'{r[0]:.2f}' for r in baselines)} s); server with {windows} windows; its "
        f"warm-up views took {waited:.0f} s"
    )
    print()
    head = "settings | navigation to rendered (s) | ratio to the run's baseline | ratio to the nearest baselines"
    print(f"| {head} | sent (largest view) | target |")
    print("|---|---|---|---|---|---|")
    print(f"| baseline: plain Altair heatmap, 1024x256 | {median:.2f} | 1.00 | | |  |")
    for label, runs, before in rows:
        t, sent = statistics.median(r[0] for r in runs), max(r[1] for r in runs)
        near = (baselines[before][0] + baselines[before + 1][0]) / 2
        target = verdict(label.split(",")[0], t, sent, min(median, near))
        print(f"| {label} | {t:.2f} | {t / median:.2f} | {t / near:.2f} | {sent / 1000:,.0f} kB | {target} |")
    print()
    print("| server | RSS (MB) | peak (MB) |")
    print("|---|---|---|")
    for label, (now, peak) in (
        ("after the baseline's warm-up view (the models' warm-up has started)", bare),
        ("after the warm-up views of every part (models loaded, curves, probes, scaled curves cached)", warmed),
        ("after the measured views", after),
    ):
        print(f"| {label} | {now:.0f} | {peak:.0f} |")
    print()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeats", type=int, default=3, help="interleaved rounds in process; views in the browser")
    parser.add_argument("--windows", type=int, default=ex.WINDOWS, help="held-out windows for the curves")
    parser.add_argument("--no-browser", action="store_true", help="skip the server's first views")
    args = parser.parse_args()
    load = Load.announce()
    in_process(args.repeats)
    memory_in_process(args.windows)
    if not args.no_browser:
        in_browser(args.repeats, args.windows)
    print(f"machine: {load.line()}")


if __name__ == "__main__":
    main()
