"""Load test: 20 concurrent Chromium pages against one posviz server on loopback, used as a class would.

Each client (a student) arrives within the first --arrive seconds through a shared link, then walks
--settings settings across the pages: a click on another page in the sidebar every third step (or
where the page has no slider), otherwise a move of one of the page's sliders with its arrow keys;
halfway it opens a second shared link. After each action it pauses a random 0.5-1.5 x --think
seconds (a student reading; the randomness keeps twenty clients from acting in lockstep).

The browsers run at the lowest CPU priority (nice 19), so the server gets the CPU first, as if the
browsers were on the students' own machines. Each browser action is timed end to end (the click or
key press -> the page settled with every chart drawn), which on this machine includes twenty
renderers queueing for the same cores. One more student, a protocol probe in a thread at normal
priority, times the server's reply to that load: a page view from a link, then a rerun.
The server's peak RSS and /_stcore/metrics are sampled while it runs.

    python benchmarks/load_test.py [--clients 20] [--settings 30] [--think 3] [--arrive 10] [--deadline 1500]
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import platform
import random
import sys
import threading
import time
from pathlib import Path
from urllib.parse import urlsplit

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks.browser_bench import RENDERED  # noqa: E402
from benchmarks.conditions import Load  # noqa: E402
from benchmarks.load_common import SETTINGS, arguments, report, sampling, setting  # noqa: E402
from tests.harness import CHROMIUM_ARGS, chromium_path, serve  # noqa: E402

WATCH = """() => {
  window.__posvizRuns = 0;
  const app = document.querySelector("[data-testid='stApp']");
  // Count every change of the script state: a fast run can start and end before the callback sees it.
  if (window.__posvizWatch) window.__posvizWatch.disconnect();
  window.__posvizWatch = new MutationObserver(records => { window.__posvizRuns += records.length; });
  window.__posvizWatch.observe(app, {attributes: true, attributeFilter: ["data-test-script-state"]});
}"""
RERUN = """() => {
  const app = document.querySelector("[data-testid='stApp']");
  return window.__posvizRuns > 0 && app.getAttribute("data-test-script-state") === "notRunning"
    && !document.querySelector("[data-stale='true']");
}"""
STATE = """() => {
  const app = document.querySelector("[data-testid='stApp']");
  const charts = [...document.querySelectorAll("[data-testid='stVegaLiteChart']")];
  return [location.pathname, app && app.getAttribute("data-test-script-state"), window.__posvizRuns,
    document.querySelectorAll("[data-stale='true'], [data-testid='stSkeleton']").length,
    charts.filter(c => c.querySelector("canvas, svg.marks")).length + "/" + charts.length].join(" ");
}"""
NAV = "[data-testid='stSidebarNav'] a"
WAIT_MS = 60_000


def probe(port: int, think: float, results: dict, stop: threading.Event) -> None:
    """One more student speaking Streamlit's protocol from a thread at normal priority: a page view
    from a link, then a rerun, with pauses like the browsers'. Times the server's reply to the load
    the browsers make, unaffected by the browsers' own queue for the CPU."""

    async def walk() -> None:
        rng = random.Random(-1)
        while not stop.is_set():
            path = rng.choice(SETTINGS)
            await setting(port, path, 1, think, rng, results, "probe", keys=("probe views", "probe reruns"))

    asyncio.run(walk())


def page_of(url: str) -> str:
    """The page a URL shows: its path, with the root being the default page (the overview)."""
    return urlsplit(url).path.strip("/") or "overview"


async def client(browser, base: str, index: int, args, results: dict) -> None:
    rng = random.Random(index)
    context = await browser.new_context(viewport={"width": 1280, "height": 720})
    page = await context.new_page()
    page.on("pageerror", lambda e: results["errors"].append(f"client {index}: page error {e}"))
    page.on("crash", lambda _: results["errors"].append(f"client {index}: page crashed"))

    async def act(kind: str, label: str, action) -> None:
        """Run one action, time it to a settled page, and count what went wrong."""
        try:
            start = time.perf_counter()
            await action()
            # settled: no run, nothing stale, every chart and image drawn (arg 0: at least one run counted by
            # WATCH, when WATCH was set; a page opened by its link has no count)
            await page.wait_for_function(RENDERED, arg=0, timeout=WAIT_MS, polling=100)
            results[kind].append(time.perf_counter() - start)
            if await page.locator("[data-testid='stException']").count():
                results["errors"].append(f"client {index}: exception after {label}")
        except Exception as error:  # a timeout or a crash is an error of the run, counted, not raised
            with contextlib.suppress(Exception):
                label += f" (then {await asyncio.wait_for(page.evaluate(STATE), 5)})"
            results["errors"].append(f"client {index}: {label}: {type(error).__name__}: {str(error)[:120]}")

    async def open_link(path: str) -> None:
        await page.goto(base + path, timeout=WAIT_MS)

    async def visit(href: str) -> None:
        await page.evaluate(WATCH)
        await page.locator(f"{NAV}[href='{href}']").first.click(timeout=WAIT_MS)
        await page.wait_for_function(RERUN, timeout=WAIT_MS, polling=50)

    async def slide(thumb) -> None:
        value, low, high = await thumb.evaluate("e => [e.value, e.min, e.max]")
        key = "ArrowLeft" if value == high or (value != low and rng.random() < 0.5) else "ArrowRight"
        await page.evaluate(WATCH)
        await thumb.focus(timeout=WAIT_MS)
        await thumb.press(key, timeout=WAIT_MS)
        await page.wait_for_function(RERUN, timeout=WAIT_MS, polling=50)

    async def step(number: int) -> None:
        """One setting: a shared link (first and halfway), a sidebar page, or a slider move."""
        if number in (0, args.settings // 2):
            path = links[number > 0]
            return await act("views", f"link {path}", lambda: open_link(path))
        sliders = page.locator("input[type='range']")
        count = await sliders.count()
        if number % 3 == 0 or count == 0:
            hrefs = await page.locator(NAV).evaluate_all("links => links.map(a => a.getAttribute('href'))")
            href = rng.choice([h for h in hrefs if page_of(h) != page_of(page.url)])
            return await act("views", f"sidebar {href}", lambda: visit(href))
        thumb = sliders.nth(rng.randrange(count))
        await act("reruns", f"slider on {page.url[len(base) :][:80]}", lambda: slide(thumb))

    await asyncio.sleep(rng.uniform(0, args.arrive))
    links = rng.sample(SETTINGS, 2)
    for number in range(args.settings):
        results["progress"][index] = number
        try:  # a step that hangs outside the timed waits (a frozen page) is an error too
            await asyncio.wait_for(step(number), 3 * WAIT_MS / 1000)
        except Exception as error:
            results["errors"].append(f"client {index}: step {number} on {page.url[len(base) :][:80]}: {error!r:.120}")
        await asyncio.sleep(args.think * rng.uniform(0.5, 1.5))
    results["progress"][index] = "closing"
    with contextlib.suppress(Exception):
        await asyncio.wait_for(context.close(), 30)
    results["progress"][index] = "done"


async def main_async(args) -> None:
    from playwright.async_api import async_playwright

    results = {"views": [], "reruns": [], "probe views": [], "probe reruns": [], "errors": [], "progress": {}}
    load = Load.start()
    with serve() as (base, proc), sampling(proc, base) as samples:
        stop = threading.Event()
        port = int(base.rsplit(":", 1)[1])
        prober = threading.Thread(target=probe, args=(port, args.think, results, stop), daemon=True)
        prober.start()  # before the nice below: a thread keeps the priority it was created with
        os.nice(19)  # this thread, and so the driver and browsers it starts: the server gets the CPU first
        started = time.perf_counter()
        async with async_playwright() as p:
            browser = await p.chromium.launch(executable_path=chromium_path(), headless=True, args=CHROMIUM_ARGS)
            clients_done = asyncio.gather(*(client(browser, base, i, args, results) for i in range(args.clients)))
            while not clients_done.done():  # a line of progress a minute on stderr: which step each client is at
                await asyncio.wait([clients_done], timeout=60)
                print(f"{time.perf_counter() - started:.0f} s: {results['progress']}", file=sys.stderr, flush=True)
                if time.perf_counter() - started > args.deadline:
                    clients_done.cancel()
                    late = {i: step for i, step in results["progress"].items() if step != "done"}
                    results["errors"].append(f"stopped at the {args.deadline:g} s deadline; unfinished: {late}")
                    break
            with contextlib.suppress(asyncio.CancelledError):
                await clients_done
            with contextlib.suppress(Exception):
                await asyncio.wait_for(browser.close(), 60)
        elapsed = time.perf_counter() - started
        stop.set()
        prober.join()

    header = (
        f"machine: {platform.machine()}, {load.line()}; {args.clients} concurrent Chromium pages "
        f"arriving within {args.arrive:g} s, {args.settings} settings each, a {args.think:g} s pause on average "
        f"after each action, {elapsed:.0f} s in all; the browsers made "
        f"{(len(results['views']) + len(results['reruns'])) / elapsed:.2f} actions per second"
    )
    rows = [
        ("rerun, protocol probe (the server's reply)", "probe reruns"),
        ("page view, protocol probe (the server's reply)", "probe views"),
        ("rerun after a slider move in Chromium (end to end)", "reruns"),
        ("page view, link or sidebar, in Chromium (end to end)", "views"),
    ]
    report(header, rows, results, samples)


def main() -> None:
    parser = arguments(__doc__)
    parser.add_argument("--deadline", type=float, default=1500.0, help="stop the clients after this many seconds")
    asyncio.run(main_async(parser.parse_args()))


if __name__ == "__main__":
    main()
