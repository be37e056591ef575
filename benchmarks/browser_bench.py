"""Browser benchmark: posviz's sinusoid page against a plain Altair heatmap, in one run, in headless Chromium.

Measures (a) navigation to rendered for the sinusoid page at defaults, 1024x256 and 8192x2048;
(b) the plain Altair heatmap at 1024x256 (the baseline); (c) slider change to updated chart;
(d) bytes the browser receives per page view (WebSocket frames plus media); (e) peak server RSS.

    python benchmarks/browser_bench.py [--repeats 3]
"""

from __future__ import annotations

import argparse
import base64
import os
import platform
import statistics
import sys
import time
from pathlib import Path
from urllib.parse import urlparse

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.harness import browser, serve  # noqa: E402

RENDERED = """() => {
  const app = document.querySelector("[data-testid='stApp']");
  if (!app || app.getAttribute("data-test-script-state") !== "notRunning") return false;
  if (!document.querySelector("h1")) return false;
  if (document.querySelector("[data-stale='true'], [data-testid='stSkeleton']")) return false;
  const charts = [...document.querySelectorAll("[data-testid='stVegaLiteChart']")];
  if (charts.length < %d) return false;
  if (!charts.every(c => c.querySelector("canvas, svg.marks"))) return false;
  const imgs = [...document.querySelectorAll("[data-testid='stImage'] img")];
  return imgs.length >= %d && imgs.every(i => i.complete && i.naturalWidth > 0);
}"""


def peak_rss_mb(pid: int) -> float:
    """Peak resident set size (VmHWM) of a process, in MB."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return float("nan")


class Meter:
    """Counts the bytes a page receives over WebSockets and as media, through the DevTools protocol."""

    def __init__(self, page) -> None:
        self.bytes = 0
        cdp = page.context.new_cdp_session(page)
        cdp.send("Network.enable")
        cdp.on("Network.webSocketFrameReceived", self._frame)
        cdp.on("Network.responseReceived", self._response)
        cdp.on("Network.loadingFinished", self._finished)
        self._media: set[str] = set()

    def _frame(self, event) -> None:
        r = event["response"]
        data = r["payloadData"]
        self.bytes += len(base64.b64decode(data)) if r.get("opcode") == 2 else len(data.encode())

    def _response(self, event) -> None:
        if urlparse(event["response"]["url"]).path.startswith("/media/"):  # not /static/media/ (fonts)
            self._media.add(event["requestId"])

    def _finished(self, event) -> None:
        if event["requestId"] in self._media:
            self.bytes += int(event["encodedDataLength"])


def view(context, url: str, min_charts: int, min_images: int = 0) -> tuple[float, int]:
    """Seconds from navigation to rendered, and bytes received, for a new page (a new app session).

    The browser context is shared, so its HTTP cache is warm, as for a visitor opening a second link.
    """
    page = context.new_page()
    meter = Meter(page)
    start = time.perf_counter()
    page.goto(url)
    page.wait_for_function(RENDERED % (min_charts, min_images), timeout=300_000, polling=50)
    elapsed = time.perf_counter() - start
    page.wait_for_timeout(300)
    received = meter.bytes
    page.close()
    return elapsed, received


def slider_latency(b, url: str, moves: int) -> list[float]:
    """Seconds from a slider key press to the rerun finished with the charts redrawn."""
    context = b.new_context(viewport={"width": 1280, "height": 720})
    page = context.new_page()
    page.goto(url)
    page.wait_for_function(RENDERED % (1, 0), timeout=120_000, polling=50)
    thumb = page.locator("input[type='range']").first
    times = []
    for i in range(moves):
        thumb.focus()
        before = page.locator("[data-testid='stMarkdownContainer'] div.posviz-number").first.inner_text()
        start = time.perf_counter()
        thumb.press("ArrowLeft" if i % 2 == 0 else "ArrowRight")
        page.wait_for_function(
            """(before) => {
              const h = document.querySelector("[data-testid='stMarkdownContainer'] div.posviz-number");
              const app = document.querySelector("[data-testid='stApp']");
              return h && h.innerText !== before && app.getAttribute("data-test-script-state") === "notRunning"
                && !document.querySelector("[data-stale='true']");
            }""",
            arg=before,
            timeout=60_000,
            polling=20,
        )
        times.append(time.perf_counter() - start)
    context.close()
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--moves", type=int, default=10)
    args = parser.parse_args()
    rows = []
    with browser() as b:
        with serve("benchmarks/baseline_app.py") as (base, proc):
            ctx = b.new_context(viewport={"width": 1280, "height": 720})
            view(ctx, f"{base}/?length=64&width=64", 1)  # warm the server and the browser cache
            runs = [view(ctx, f"{base}/?length=1024&width=256", 1) for _ in range(args.repeats)]
            rows.append(("baseline: plain Altair heatmap, 1024x256", runs, peak_rss_mb(proc.pid)))
            ctx.close()
        with serve() as (base, proc):
            ctx = b.new_context(viewport={"width": 1280, "height": 720})
            view(ctx, f"{base}/overview", 0)  # warm the server and the browser cache
            for label, query, charts, images in (
                ("defaults (64x64)", "", 2, 0),
                ("1024x256 (image)", "?length=1024&width=256", 0, 2),
                ("8192x2048 (maximum, image)", "?length=8192&width=2048", 0, 2),
                ("8192x2048 (maximum, block-mean chart)", "?length=8192&width=2048&view=chart", 1, 0),
            ):
                runs = [view(ctx, f"{base}/sinusoids{query}", charts, images) for _ in range(args.repeats)]
                rows.append((f"posviz sinusoids, {label}", runs, peak_rss_mb(proc.pid)))
            for name in ("order", "attention", "magnitude", "overview", "minilm", "sentences"):
                runs = [view(ctx, f"{base}/{name}", 0 if name == "overview" else 1) for _ in range(args.repeats)]
                rows.append((f"posviz {name}, defaults", runs, peak_rss_mb(proc.pid)))
            slider = slider_latency(b, f"{base}/magnitude", args.moves)
            slider_order = slider_latency(b, f"{base}/order", args.moves)
            rss = peak_rss_mb(proc.pid)

    baseline = statistics.median(r[0] for r in rows[0][1])
    print(
        f"machine: {platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}; "
        f"{args.repeats} views each, medians"
    )
    print()
    print("| view | navigation to rendered (s) | ratio to baseline | bytes (largest view) | server peak RSS (MB) |")
    print("|---|---|---|---|---|")
    for label, runs, peak in rows:
        t = statistics.median(r[0] for r in runs)
        kb = max(r[1] for r in runs) / 1024  # the first view: later ones may find images in the browser cache
        print(f"| {label} | {t:.2f} | {t / baseline:.2f} | {kb:,.0f} kB | {peak:.0f} |")
    print()
    print("| slider change to updated chart | median (s) | max (s) |")
    print("|---|---|---|")
    for label, times in (("magnitude page, scale slider", slider), ("order page, tokens slider", slider_order)):
        print(f"| {label} ({len(times)} moves) | {statistics.median(times):.2f} | {max(times):.2f} |")
    print()
    print(f"posviz server peak RSS over the whole run: {rss:.0f} MB")


if __name__ == "__main__":
    main()
