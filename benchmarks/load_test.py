"""Load test: 20 concurrent Chromium pages against one posviz server on loopback.

Each client walks 30 settings across the pages (a shared link, then a slider move where the page has
one), in its own order, pausing --think seconds after each (a student reading; 0 = back to back).
The server's peak RSS and /_stcore/metrics are sampled while it runs.

    python benchmarks/load_test.py [--clients 20] [--settings 30] [--think 0]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import platform
import statistics
import sys
import threading
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks.browser_bench import RENDERED, peak_rss_mb  # noqa: E402
from tests.harness import CHROMIUM_ARGS, chromium_path, serve  # noqa: E402

SETTINGS = [
    "/overview",
    "/order",
    "/order?position=ramp",
    "/order?T=32&C=32&perm_mode=shuffle&position=sinusoidal",
    "/order?T=128&C=64&perm_mode=shuffle&position=rotary&causal=true",
    "/order?T=256&C=256&perm_mode=shuffle&position=learned",
    "/order?forget=true",
    "/sinusoids",
    "/sinusoids?length=1024&width=256",
    "/sinusoids?length=8192&width=2048",
    "/sinusoids?length=8192&width=2048&view=chart",
    "/sinusoids?length=2000&width=512&check=similarity",
    "/sinusoids?view=zoom%3A+exact+values&length=4096&width=1024&zr=2000",
    "/sinusoids?base=500000&check=wavelengths",
    "/attention",
    "/attention?position=sinusoidal&pscale=1.0",
    "/attention?s1=the+cat+saw+the+dog&s2=the+dog+saw+the+cat",
    "/attention?d=64&position=learned",
    "/magnitude",
    "/magnitude?scale=0.001",
    "/magnitude?loglog=true",
    "/magnitude?s1=a+b+c+d+e+f&s2=f+e+d+c+b+a&word=c",
]
WATCH = """() => {
  window.__posvizRuns = 0;
  const app = document.querySelector("[data-testid='stApp']");
  new MutationObserver(() => {
    if (app.getAttribute("data-test-script-state") === "running") window.__posvizRuns += 1;
  }).observe(app, {attributes: true, attributeFilter: ["data-test-script-state"]});
}"""
RERUN = """() => {
  const app = document.querySelector("[data-testid='stApp']");
  return window.__posvizRuns > 0 && app.getAttribute("data-test-script-state") === "notRunning"
    && !document.querySelector("[data-stale='true']");
}"""


async def client(browser, base: str, index: int, settings: int, results: dict, think: float = 0.0) -> None:
    context = await browser.new_context(viewport={"width": 1280, "height": 720})
    page = await context.new_page()
    page.on("pageerror", lambda e: results["errors"].append(f"client {index}: page error {e}"))
    for step in range(settings):
        path = SETTINGS[(index * 7 + step) % len(SETTINGS)]
        try:
            start = time.perf_counter()
            await page.goto(base + path)
            await page.wait_for_function(RENDERED % (0, 0), timeout=60_000, polling=100)
            results["views"].append(time.perf_counter() - start)
            if await page.locator("[data-testid='stException']").count():
                results["errors"].append(f"client {index}: exception on {path}")
            await asyncio.sleep(think)
            slider = page.locator("input[type='range']")
            if await slider.count():
                thumb = slider.first
                at_max = await thumb.evaluate("e => e.value === e.max")
                await page.evaluate(WATCH)
                await thumb.focus()
                start = time.perf_counter()
                await thumb.press("ArrowLeft" if at_max else "ArrowRight")
                await page.wait_for_function(RERUN, timeout=60_000, polling=50)
                results["reruns"].append(time.perf_counter() - start)
                await asyncio.sleep(think)
        except Exception as error:  # a timeout or a crash is an error of the run, counted, not raised
            results["errors"].append(f"client {index}: {path}: {type(error).__name__}: {str(error)[:120]}")
    await context.close()


@contextlib.contextmanager
def sampling(proc, base: str):
    """Sample the server's peak RSS and cache memory while the block runs; yield the samples dict."""
    samples: dict = {}
    stop = threading.Event()
    sampler = threading.Thread(target=sample, args=(proc.pid, base, stop, samples), daemon=True)
    cpu, wall = cpu_seconds(proc.pid), time.perf_counter()
    sampler.start()
    try:
        yield samples
    finally:
        stop.set()
        sampler.join()
        samples["rss"] = max(samples.get("rss", 0.0), peak_rss_mb(proc.pid))
        samples["cpu"], samples["wall"] = cpu_seconds(proc.pid) - cpu, time.perf_counter() - wall


def cpu_seconds(pid: int) -> float:
    """User + system CPU time a process has used so far (Linux /proc), in seconds."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def sample(pid: int, base: str, stop: threading.Event, out: dict) -> None:
    """Peak RSS and the largest cache-memory figure in /_stcore/metrics, every half second."""
    while not stop.is_set():
        out["rss"] = max(out.get("rss", 0.0), peak_rss_mb(pid))
        try:
            with urllib.request.urlopen(f"{base}/_stcore/metrics", timeout=5) as r:
                text = r.read().decode()
            total = sum(
                float(line.rsplit(" ", 1)[1]) for line in text.splitlines() if line.startswith("cache_memory_bytes")
            )
            out["cache"] = max(out.get("cache", 0.0), total / 2**20)
        except (OSError, ValueError):
            pass
        stop.wait(0.5)


async def main_async(args) -> None:
    from playwright.async_api import async_playwright

    results = {"views": [], "reruns": [], "errors": []}
    with serve() as (base, proc), sampling(proc, base) as samples:
        started = time.perf_counter()
        async with async_playwright() as p:
            browser = await p.chromium.launch(executable_path=chromium_path(), headless=True, args=CHROMIUM_ARGS)
            await asyncio.gather(
                *(client(browser, base, i, args.settings, results, args.think) for i in range(args.clients))
            )
            await browser.close()
        elapsed = time.perf_counter() - started

    header = (
        f"machine: {platform.machine()}, {os.cpu_count()} cores; {args.clients} concurrent Chromium pages, "
        f"{args.settings} settings each, {args.think:g} s pause after each action, {elapsed:.0f} s in all"
    )
    report(header, [("rerun after a slider move", "reruns"), ("page view from a link", "views")], results, samples)


def report(header: str, rows: list[tuple[str, str]], results: dict, samples: dict) -> None:
    """Print the load table: p50/p95 of each timing list, errors by kind, peak RSS and cache memory."""

    def pct(values, q):
        return statistics.quantiles(values, n=100)[q - 1] if len(values) > 1 else float("nan")

    print(header)
    print()
    print("| measure | p50 (s) | p95 (s) | count |")
    print("|---|---|---|---|")
    for label, key in rows:
        print(f"| {label} | {pct(results[key], 50):.2f} | {pct(results[key], 95):.2f} | {len(results[key])} |")
    print()
    kinds = {"exception": 0, "page error": 0, "TimeoutError": 0}
    for line in results["errors"]:
        for kind in kinds:
            kinds[kind] += kind.lower() in line.lower()
    print(f"errors seen: {len(results['errors'])} ({', '.join(f'{k}: {v}' for k, v in kinds.items())})")
    for line in results["errors"][:5]:
        print("  ", line.splitlines()[0])
    print(
        f"server peak RSS: {samples['rss']:.0f} MB; largest cache memory in /_stcore/metrics: "
        f"{samples.get('cache', float('nan')):.1f} MB"
    )
    print(
        f"server CPU: {samples['cpu']:.0f} s over {samples['wall']:.0f} s of wall time "
        f"({100 * samples['cpu'] / samples['wall']:.0f}% of one core; the machine has {os.cpu_count()})"
    )


def arguments(doc: str) -> argparse.Namespace:
    """The load scripts' shared options: --clients, --settings, --think."""
    parser = argparse.ArgumentParser(description=doc)
    parser.add_argument("--clients", type=int, default=20)
    parser.add_argument("--settings", type=int, default=30)
    parser.add_argument("--think", type=float, default=0.0, help="seconds to pause after each action")
    return parser.parse_args()


def main() -> None:
    asyncio.run(main_async(arguments(__doc__)))


if __name__ == "__main__":
    main()
