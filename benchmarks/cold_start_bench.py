"""A cold server's first view of the lecture's step 1, in presenter mode, against the same view once warm.

Each round starts a new posviz server with the deployed defaults (the matched family warmed on its 8 held-out
windows) on one fixed port, opens `lecture?presenter=true` as soon as the server answers its health check (cold:
the first session of the process; the browser's HTTP cache already holds Streamlit's frontend from an unmeasured
first round, as a lecturer's browser does), then opens it again in a new session (warm). The baseline
(benchmarks/baseline_app.py, a plain Altair heatmap of a 1024x256 sinusoid table, on a server of its own started
once) is viewed in every round, so the ratio to it reads against browser_bench's first-view budget (0.25 of the
baseline at a page's defaults). Navigation to rendered is browser_bench's `view`: the script finished, nothing
stale, every chart drawn.

    python benchmarks/cold_start_bench.py [--rounds 3] [--url "lecture?presenter=true"]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from browser_bench import view  # noqa: E402

from benchmarks.conditions import Load  # noqa: E402
from tests.harness import browser, free_port, serve  # noqa: E402

BUDGET = 0.25  # browser_bench's target for a page at its defaults, as a share of the baseline's time


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--url", default="lecture?presenter=true")
    args = parser.parse_args()
    load = Load.announce()
    cold, warm, base, started = [], [], [], []
    port = free_port()  # every server on one port: the browser's HTTP cache holds Streamlit's frontend across them
    with browser() as b, serve("benchmarks/baseline_app.py") as (plain, _):
        plain_ctx = b.new_context(viewport={"width": 1280, "height": 720})
        view(plain_ctx, f"{plain}/?T=1024&d=256")  # its own first run, not measured
        ctx = b.new_context(viewport={"width": 1280, "height": 720})
        for r in range(args.rounds + 1):  # round 0 fills the browser's cache and is not measured
            t0 = time.perf_counter()
            with serve(env={"POSVIZ_MATCHED_WINDOWS": "8"}, timeout=120, port=port) as (url, _):
                up = time.perf_counter() - t0
                first, second = view(ctx, f"{url}/{args.url}")[0], view(ctx, f"{url}/{args.url}")[0]
            if r:
                started.append(up), cold.append(first), warm.append(second)
                base.append(view(plain_ctx, f"{plain}/?T=1024&d=256")[0])
        ctx.close()
        plain_ctx.close()
    baseline = statistics.median(base)
    print(
        f"\n{args.rounds} rounds, medians; the baseline once a round ({', '.join(f'{t:.2f}' for t in base)} s); "
        f"server start to health check: {', '.join(f'{t:.1f}' for t in started)} s\n"
    )
    print(f"| view of /{args.url} | navigation to rendered (s) | each round (s) | ratio to the baseline | budget |")
    print("|---|---|---|---|---|")
    rows = (("baseline: plain Altair heatmap, 1024x256", base), ("cold server, first session", cold))
    for label, times in (*rows, ("same server, second session", warm)):
        t = statistics.median(times)
        ok = "" if times is base else "ok" if t <= BUDGET * baseline else f"OVER: {t / baseline:.2f} > {BUDGET}"
        print(f"| {label} | {t:.2f} | {', '.join(f'{x:.2f}' for x in times)} | {t / baseline:.2f} | {ok} |")
    print(f"\n{load.line()}")


if __name__ == "__main__":
    main()
