"""Browser benchmark: every posviz page at its defaults and at its largest settings against a plain Altair heatmap.

One run, headless Chromium, a warm browser context for the pages and one for the baseline, each view a new page
(a new app session), rendered when the script has finished, nothing is stale, every chart has drawn and every
image (Streamlit's and those written in HTML) has loaded:
(a) navigation to rendered and bytes received (WebSocket frames plus media) for every page in
tests.harness.PAGES at its defaults and at the bounds of its ui.Param declarations (MAXIMA below), and the
real-model pages at those bounds cold: a sentence pair the server has not seen for every view (COLD; the
word-order page's first view draws its curve at 3 of 21 scales and the rest in a fragment run after it, so one
more row times it until the curve is whole);
(b) the baseline, a plain long-form Altair rect heatmap of a 1024x256 sinusoid table
(benchmarks/baseline_app.py), opened between the pages all through the run (each page and the baseline are
viewed once before the run, unmeasured, so that no server's first run of a page is counted); (c) slider change to
updated page on the order page at its largest settings and on the magnitude page; (d) peak server
RSS. Each view is checked against the targets of issue 17: defaults at most 500 kB and 0.25 of
the baseline's time, maxima at most 1.5 MB and 0.3; the ratio to the mean of the two baseline views measured
just before and just after the page's views is printed too (the machine's load drifts in a run), and the
verdict takes the less favourable of the two.

    python benchmarks/browser_bench.py [--repeats 3] [--moves 7] [--pages order,layouts]
"""

from __future__ import annotations

import argparse
import base64
import platform
import random
import statistics
import sys
import time
from pathlib import Path
from urllib.parse import urlencode, urlparse

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from playwright.sync_api import TimeoutError  # noqa: E402

from benchmarks.conditions import Load  # noqa: E402
from tests.harness import PAGES, browser, serve  # noqa: E402

WORDS = (
    "the old dog saw a cat on the mat and the cat ran up a big red box as the sun set so the man sat by "
    "the sea to eat an egg and a fig with his son who had a hat and a toy car he got on a day in may "
    "when it was hot and dry but the boy was not sad"
).split()
SENTENCE = " ".join(WORDS[:64])  # 64 words (ui.MAX_WORDS) within a text box's 300 characters (ui.MAX_TEXT)
REVERSED = " ".join(reversed(WORDS[:64]))  # the same words in another order
STEPS_MAX = 1.0  # the largest position scale of lessons.magnitude_steps()
MATCHED_TEXT = ((SENTENCE + " ") * 8)[:1000]  # the matched page's text box holds 1000 bytes
SENTENCES_MAX = 1.0  # the largest scale of the sentences page's SCALES
# Each page at the bounds of its ui.Param declarations (hi of every number, the longest text, the heavier choice).
MAXIMA: dict[str, dict[str, object]] = {
    "attention": {"s1": SENTENCE, "s2": REVERSED, "position": "sinusoidal", "pscale": 1.0, "d": 256},
    "biases": {"T": 200, "reach": 1000, "clip": 64, "heads": 32, "head": 32, "r1": 10.0, "r2": 10.0},
    "bugs": {"T": 512, "d": 256},
    "causal": {"T": 64, "d": 64, "wscale": 3.0},
    "layouts": {"T": 1024, "d": 1024, "base": 10_000_000.0},
    # 64 tokens (the text is cut there), the deepest live layer
    "llm": {"text": SENTENCE, "im_start": "false", "layer": 4},
    # the shipped SmolLM2 file (no models folder on a benchmark server): the heads part at its deepest live layer
    "yourmodel": {"part": "heads", "text": SENTENCE, "layer": 4},
    "lecture": {"step": 14},
    "longer": {"part": "decay", "reach": 65_536, "d": 256},
    # the part that runs a typed text through every scheme's model: the text box's 1000 bytes, the deepest layer
    "matched": {"part": "attention", "text": MATCHED_TEXT, "layer": 3, "head": 3},
    "magnitude": {"scale": STEPS_MAX, "s1": SENTENCE, "s2": REVERSED, "loglog": "true"},
    "minilm": {"part": "sentences", "s1": SENTENCE, "s2": REVERSED, "head": 12, "scale": STEPS_MAX},
    "offsets": {"T": 64, "prefill": 64, "d": 64, "sink_T": 64, "sinks": 16, "window": 32},
    "order": {"T": 256, "d": 256, "perm_mode": "shuffle", "position": "sinusoidal", "pscale": 3.0,
              "causal": "true", "first": 255, "second": 254},
    "overview": {},  # no controls
    # T = 1024 asks the 512-row learned table for rows it lacks and draws an error note instead: the
    # largest view that draws the table asks for all 512 rows.
    "sentences": {"s1": SENTENCE, "s2": REVERSED, "scale": SENTENCES_MAX},
    "rotary": {"max_length": 512, "T": 512, "d": 64, "pair": 31, "shift": 100_000, "heads": 32, "head": 32},
    "sinusoids": {"T": 8192, "d": 2048},
}  # fmt: skip
EXTRA = [
    ("sinusoids", "maxima, view=chart", {"T": 8192, "d": 2048, "view": "chart"}),
    ("order", "maxima, part=twins", {**MAXIMA["order"], "part": "twins"}),
    ("order", "maxima, part=pairs", {**MAXIMA["order"], "part": "pairs"}),
    ("offsets", "maxima, part=sinks", {**MAXIMA["offsets"], "part": "sinks"}),
    ("longer", "maxima, part=scaling", {**MAXIMA["longer"], "part": "scaling"}),
    ("longer", "maxima, part=scores", {**MAXIMA["longer"], "part": "scores"}),
    ("minilm", "maxima, part=table", {**MAXIMA["minilm"], "part": "table"}),
    ("rotary", "maxima, part=learned", {**MAXIMA["rotary"], "part": "learned"}),
    ("rotary", "maxima, part=alibi", {**MAXIMA["rotary"], "part": "alibi"}),
    ("llm", "maxima, part=distance", {**MAXIMA["llm"], "part": "distance"}),
    ("llm", "maxima, part=sink", {**MAXIMA["llm"], "part": "sink"}),
    ("llm", "maxima, part=pairs", {**MAXIMA["llm"], "part": "pairs"}),
    ("llm", "maxima, part=ablations", {**MAXIMA["llm"], "part": "ablations", "k": 100_000}),
    ("llm", "maxima, part=longer", {**MAXIMA["llm"], "part": "longer", "head": 8, "preset": "llama3"}),
]


def cold_pair(k: int) -> dict[str, str]:
    """The k-th of distinct 64-word sentence pairs (words drawn from WORDS, seed k; the second reversed) that a
    server has not seen: the real-model pages cache by sentence pair, so repeating one URL times a cache hit."""
    rng = random.Random(k)
    while True:
        words = [rng.choice(WORDS) for _ in range(64)]
        if len(" ".join(words)) <= 300:  # ui.MAX_TEXT
            return {"s1": " ".join(words), "s2": " ".join(reversed(words))}


# The real-model pages at their largest settings with a fresh pair for every measured view (k counts the views).
COLD = [
    ("sentences", "maxima, cold", lambda k: {**MAXIMA["sentences"], **cold_pair(k)}),
    # the same page until its curve is whole: the page's run draws 3 of its 21 scales, a fragment run after it the
    # other 18; the row above ends at the page's run, complete but for those 18 points
    ("sentences", "maxima, cold, whole curve", lambda k: {**MAXIMA["sentences"], **cold_pair(k)}),
    ("minilm", "maxima, cold", lambda k: {**MAXIMA["minilm"], **cold_pair(k)}),
    # the RoPE model caches its run per text: a new 64-word text each view (cut at 64 tokens), its heaviest part too
    ("llm", "maxima, cold", lambda k: {**MAXIMA["llm"], "text": cold_pair(k)["s1"]}),
    (
        "llm",
        "maxima, part=ablations, cold",
        lambda k: {**MAXIMA["llm"], "part": "ablations", "k": 100_000, "text": cold_pair(k)["s1"]},
    ),
]
# rows that are rendered only once this element is there too (ui.quick_then_whole's container of the whole version)
WAIT_FOR = {"maxima, cold, whole curve": ".st-key-whole-sentence-curve"}
BASELINE_EVERY = 6
NOTES: set[str] = set()  # the notes (ui.note) views showed: a largest setting a page refused would show here
TARGETS = {"defaults": (500_000, 0.25), "maxima": (1_500_000, 0.30)}  # bytes, ratio to the baseline's time
# Counts the script runs: every change of the app's script state to "running", from the first paint on.
RUN_COUNTER = """
window.__posvizRuns = 0;
new MutationObserver(records => {
  for (const r of records) if (r.target.getAttribute("data-test-script-state") === "running"
      && r.oldValue !== "running") window.__posvizRuns += 1;
}).observe(document, {attributes: true, attributeOldValue: true, subtree: true,
                      attributeFilter: ["data-test-script-state"]});
"""
RENDERED = """(runs) => {
  const app = document.querySelector("[data-testid='stApp']");
  if (!app || app.getAttribute("data-test-script-state") !== "notRunning" || window.__posvizRuns <= runs) return false;
  if (document.querySelector("[data-stale='true'], [data-testid='stSkeleton']")) return false;
  const charts = [...document.querySelectorAll("[data-testid='stVegaLiteChart']")];
  if (!charts.every(c => c.querySelector("canvas, svg.marks"))) return false;
  const imgs = [...document.querySelectorAll("[data-testid='stApp'] img")];  // st.image and pictures in HTML
  return imgs.every(i => i.complete && i.naturalWidth > 0);
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


def view(context, url: str, wait_for: str = "") -> tuple[float, int]:
    """Seconds from navigation to rendered, and bytes received, for a new page (a new app session).

    Rendered: a script run has finished, nothing is stale, every chart has drawn and every image loaded (and, with
    `wait_for`, that CSS selector matches an element).
    The browser context is shared, so its HTTP cache is warm, as for a visitor opening a second link.
    """
    page = context.new_page()
    page.add_init_script(RUN_COUNTER)
    meter = Meter(page)
    start = time.perf_counter()
    page.goto(url)
    if wait_for:
        page.wait_for_selector(wait_for, state="attached", timeout=300_000)
    page.wait_for_function(RENDERED, arg=0, timeout=300_000, polling=50)
    elapsed = time.perf_counter() - start
    page.wait_for_timeout(300)
    received = meter.bytes
    if page.locator("[data-testid='stException']").count():
        raise RuntimeError(f"{url} shows an exception")
    NOTES.update(f"{urlparse(url).path}: {note}" for note in page.locator("[data-testid='stAlert']").all_inner_texts())
    page.close()
    return elapsed, received


def slider_latency(b, url: str, moves: int, where: str = "") -> list[float]:
    """Seconds from a key press on the first slider (inside `where`, a CSS selector) to the rerun finished and
    the page redrawn; the moves alternate left and right."""
    context = b.new_context(viewport={"width": 1280, "height": 720})
    page = context.new_page()
    page.add_init_script(RUN_COUNTER)
    page.goto(url)
    page.wait_for_function(RENDERED, arg=0, timeout=300_000, polling=50)
    thumb = page.locator(f"{where} input[type='range']").first
    times = []
    for i in range(moves):
        thumb.focus()
        page.wait_for_timeout(200)
        runs = page.evaluate("window.__posvizRuns")
        start = time.perf_counter()
        thumb.press("ArrowLeft" if i % 2 == 0 else "ArrowRight")
        try:
            page.wait_for_function(RENDERED, arg=runs, timeout=30_000, polling=20)
        except TimeoutError:  # no rerun seen: reported as a missing move, never as a time
            continue
        times.append(time.perf_counter() - start)
    context.close()
    return times


def query(settings: dict[str, object]) -> str:
    return "?" + urlencode(settings) if settings else ""


def verdict(which: str, seconds: float, sent: int, baseline: float) -> str:
    most_bytes, most_ratio = TARGETS[which]
    over = [f"time {seconds / baseline:.2f} > {most_ratio}"] if seconds / baseline > most_ratio else []
    over += [f"{sent / 1000:,.0f} kB > {most_bytes / 1000:,.0f}"] if sent > most_bytes else []
    return "ok" if not over else "OVER: " + "; ".join(over)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeats", type=int, default=2)
    parser.add_argument("--moves", type=int, default=7)
    parser.add_argument("--pages", default="", help="comma-separated page names (default: every page)")
    args = parser.parse_args()
    pages = [p for p in PAGES if not args.pages or p in args.pages.split(",")]
    missing = set(pages) - set(MAXIMA)  # only the pages asked for: --pages can leave out one not declared yet
    if missing:
        raise SystemExit(f"MAXIMA has no largest settings for {sorted(missing)}: add them")
    load = Load.start()
    rows, baseline_runs = [], []
    with browser() as b, serve("benchmarks/baseline_app.py") as (plain, _), serve() as (base, proc):
        # Warm-up, not measured: each server's first run of a page (imports, cached computations) would otherwise
        # land on whichever page or baseline view comes first. The pages are warmed in a context of their own, so
        # that the measured context has not seen their images (its first view of a page counts every byte).
        plain_ctx = b.new_context(viewport={"width": 1280, "height": 720})
        view(plain_ctx, f"{plain}/?T=1024&d=256")
        warm = b.new_context(viewport={"width": 1280, "height": 720})
        for name in pages:
            view(warm, f"{base}/{name}")
        warm.close()
        ctx = b.new_context(viewport={"width": 1280, "height": 720})
        view(ctx, f"{base}/overview")  # the app's code into this context's HTTP cache
        plan = [(name, "defaults", {}) for name in pages] + [(name, "maxima", MAXIMA[name]) for name in pages]
        plan += [extra for extra in EXTRA if extra[0] in pages] + [cold for cold in COLD if cold[0] in pages]
        fresh = iter(range(1_000_000))  # one new sentence pair for each cold view
        # The baseline is measured between the pages, every BASELINE_EVERY views, so that a change in the
        # machine's load over the run weighs on both sides of the ratio.
        for i, (name, which, settings) in enumerate(plan):
            if i % BASELINE_EVERY == 0:
                baseline_runs.append(view(plain_ctx, f"{plain}/?T=1024&d=256"))
            views = [settings(next(fresh)) if callable(settings) else settings for _ in range(args.repeats)]
            runs = [view(ctx, f"{base}/{name}{query(one)}", WAIT_FOR.get(which, "")) for one in views]
            rows.append((name, which, runs, len(baseline_runs) - 1))
        baseline_runs.append(view(plain_ctx, f"{plain}/?T=1024&d=256"))
        ctx.close()
        plain_ctx.close()
        sliders = []
        if "order" in pages:
            order_max = f"{base}/order{query(MAXIMA['order'])}"
            moves = slider_latency(b, order_max, args.moves, "[data-testid='stSidebar']")
            sliders.append(("order page at its maxima, tokens slider T", moves))
        if "magnitude" in pages:
            sliders.append(("magnitude page, scale slider", slider_latency(b, f"{base}/magnitude", args.moves)))
        rss = peak_rss_mb(proc.pid)

    rows.insert(0, ("baseline: plain Altair heatmap, 1024x256", "", baseline_runs, None))
    baseline = statistics.median(r[0] for r in baseline_runs)
    spread = ", ".join(f"{r[0]:.1f}" for r in baseline_runs)
    print(
        f"machine: {platform.machine()}, Python {platform.python_version()}; {load.line()}; "
        f"{args.repeats} views each, medians; kB = 1000 bytes; the baseline {len(baseline_runs)} times "
        f"between the pages ({spread} s)"
    )
    print()
    print(
        "| page | settings | navigation to rendered (s) | ratio to the run's baseline | ratio to the nearest "
        "baselines | sent (largest view) | target |"
    )
    print("|---|---|---|---|---|---|---|")
    for name, which, runs, before in rows:
        t = statistics.median(r[0] for r in runs)
        sent = max(r[1] for r in runs)  # the first view: later ones may find images in the browser cache
        # The machine's load drifts over a run, so the ratio to the baseline views measured just before and just
        # after this page's views is printed too; the verdict takes the less favourable of the two ratios.
        near = baseline if before is None else (baseline_runs[before][0] + baseline_runs[before + 1][0]) / 2
        target = verdict(which.split(",")[0], t, sent, min(baseline, near)) if which else ""
        ratios = f"{t / baseline:.2f} | {t / near:.2f}"
        print(f"| {name} | {which} | {t:.2f} | {ratios} | {sent / 1000:,.0f} kB | {target} |")
    print()
    print("| slider change to updated page | median (s) | max (s) | target |")
    print("|---|---|---|---|")
    for label, times in sliders:
        if not times:
            print(f"| {label} (no move of {args.moves} redrew the page) | | | OVER |")
            continue
        median = statistics.median(times)
        target = ("ok" if median <= 1.0 else "OVER: median > 1 s") if label.startswith("order") else ""
        missing = f", {args.moves - len(times)} without a rerun" if len(times) < args.moves else ""
        print(f"| {label} ({len(times)} moves{missing}) | {median:.2f} | {max(times):.2f} | {target} |")
    print()
    print(f"posviz server peak RSS over the whole run: {rss:.0f} MB")
    for note in sorted(NOTES):
        print("note shown:", " ".join(note.split())[:200])


if __name__ == "__main__":
    main()
