"""SmolLM2's shipped layers: the forward pass in process, load(), the claims' cost, and the server's memory.

(a) In process, rounds interleaved, medians: the baseline is MiniLM's 6-layer forward pass of one 64-token
    sentence (encoder.states, the other real model, whose target is also 0.3 s); then SmolLM2's 5 layers on
    64 ids (RoPE and the mask, the page's default), its ablations, and the registry's SmolLM2 claims (17-21)
    with the model already loaded.
(b) Fresh processes, interleaved: load() against MiniLM's default_encoder(); gguf's own GGUFReader against the
    reader load() uses (a plain view of the same mapped bytes); the registry's first build without and with
    SmolLM2's claims (what a new server pays on its first overview view; later views are cached).
(c) Memory: a process's VmRSS before and after load() and a 64-id pass (peak VmHWM); and a `streamlit run`
    server driven by headless Chromium, one session, RSS after each view: the magnitude page (no model: the
    baseline), the sentences page (MiniLM), the overview (the registry: MiniLM and SmolLM2), and the llm page
    when the router lists it.

    python benchmarks/llm_bench.py [--repeats 7] [--fresh 3] [--no-browser]
"""

from __future__ import annotations

import argparse
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
from posviz.experiments import claims  # noqa: E402
from posviz.models import minilm, smollm2  # noqa: E402
from posviz.models.minilm import encoder  # noqa: E402

LONG = "The quick brown fox jumps over the lazy dog. " * 8  # cut to 64 ids, <|im_start|> included
MINILM_LONG = " ".join(f"w{i}" for i in range(31))  # 64 MiniLM tokens with [CLS] and [SEP]


def interleaved(rows: list[tuple[str, object]], repeats: int) -> list[tuple[str, float]]:
    """Median seconds of each call, the calls taken in turn `repeats` times (load drifts alike for all)."""
    for _, call in rows:
        call()  # warm: caches, BLAS buffers
    times: dict[str, list[float]] = {label: [] for label, _ in rows}
    for _ in range(repeats):
        for label, call in rows:
            start = time.perf_counter()
            call()
            times[label].append(time.perf_counter() - start)
    return [(label, statistics.median(times[label])) for label, _ in rows]


def table(results: list[tuple[str, float]], unit: str = "seconds") -> None:
    base = results[0][1]
    print(f"| computation | {unit} | ratio to baseline |")
    print("|---|---|---|")
    for label, seconds in results:
        print(f"| {label} | {seconds:.3f} | {seconds / base:.2f} |")
    print()


def in_process(repeats: int) -> None:
    model, mini = smollm2.load(), encoder.default_encoder()
    ids, mini_ids = smollm2.tokenize(LONG, model=model).ids, minilm.tokenize(MINILM_LONG).ids
    short = smollm2.tokenize(claims.SMOLLM2_TEXT, model=model).ids
    if (ids.size, mini_ids.size) != (smollm2.MAX_TOKENS, minilm.MAX_TOKENS):
        raise RuntimeError(f"expected 64 ids for each model, got {ids.size} and {mini_ids.size}")
    rows = [
        ("MiniLM, 6 layers, 64 tokens (baseline)", lambda: encoder.states(mini, mini_ids)),
        ("SmolLM2, 5 layers, 64 ids: RoPE and the mask", lambda: smollm2.run(ids, model=model)),
        (
            "SmolLM2, 5 layers, 64 ids: no rotation, no mask",
            lambda: smollm2.run(ids, rotation="none", causal=False, model=model),
        ),
        ("SmolLM2, 5 layers, 64 ids: positions + 1000", lambda: smollm2.run(ids, start=1000, model=model)),
        (f"SmolLM2, 5 layers, the claims' {short.size} ids", lambda: smollm2.run(short, model=model)),
        ("SmolLM2's claims 17-21, model loaded", claims._smollm2),
    ]
    print(f"(a) in process, median of {repeats} interleaved rounds; numpy {np.__version__}")
    print()
    table(interleaved(rows, repeats))


PREAMBLE = "import time, sys; sys.path.insert(0, '.'); "
FRESH = {
    "MiniLM: encoder.default_encoder() (baseline)": (
        "from posviz.models import encoder; t = time.perf_counter(); encoder.default_encoder()"
    ),
    "SmolLM2: smollm2.load()": "from posviz.models import smollm2; t = time.perf_counter(); smollm2.load()",
    "gguf.GGUFReader on the shipped file (np.memmap slices)": (
        "import gguf; from posviz.models import smollm2; t = time.perf_counter(); "
        "gguf.GGUFReader(smollm2.DATA / smollm2.GGUF_FILE)"
    ),
    "the reader load() uses (a plain view of the same map)": (
        "from posviz.models import smollm2; t = time.perf_counter(); smollm2._Reader(smollm2.DATA / smollm2.GGUF_FILE)"
    ),
    "registry's first build, claims 1-16": (
        "from posviz.experiments import claims as c; t = time.perf_counter(); "
        "c._lesson_000() + c._lesson_002() + c._lesson_003() + c._longer_contexts() + c._real_model()"
    ),
    "registry's first build, claims 1-21 (with SmolLM2's)": (
        "from posviz.experiments import claims as c; t = time.perf_counter(); c.claims()"
    ),
}


def fresh_seconds(code: str) -> float:
    """Seconds a snippet takes after its imports, in a new Python process."""
    script = PREAMBLE + code + "; print(time.perf_counter() - t)"
    run = subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, check=True)
    return float(run.stdout.split()[-1])


def fresh(repeats: int) -> None:
    times: dict[str, list[float]] = {label: [] for label in FRESH}
    for _ in range(repeats):
        for label, code in FRESH.items():
            times[label].append(fresh_seconds(code))
    print(f"(b) each in a new process, median of {repeats} interleaved rounds (imports not counted)")
    print()
    table([(label, statistics.median(t)) for label, t in times.items()])


MEMORY = (
    "import sys; sys.path.insert(0, '.'); from pathlib import Path\n"
    "def rss():\n"
    "    f = dict(l.split(':', 1) for l in Path('/proc/self/status').read_text().splitlines() if ':' in l)\n"
    "    return int(f['VmRSS'].split()[0]) / 1024, int(f['VmHWM'].split()[0]) / 1024\n"
    "import posviz, streamlit; from posviz.models import smollm2; before = rss()\n"
    "model = smollm2.load(); loaded = rss()\n"
    "smollm2.run(smollm2.tokenize(" + repr(LONG) + ", model=model).ids, model=model); ran = rss()\n"
    "print(*before, *loaded, *ran)"
)


def memory_in_process() -> None:
    out = subprocess.run([sys.executable, "-c", MEMORY], cwd=ROOT, capture_output=True, text=True, check=True)
    rss0, _, rss1, _, rss2, peak = map(float, out.stdout.split())
    print("(c) one new process: posviz and streamlit imported (baseline), then load(), then a 64-id pass")
    print()
    print("| state | VmRSS (MB) | vs baseline (MB) |")
    print("|---|---|---|")
    for label, value in (("imported (baseline)", rss0), ("load()", rss1), ("and a 64-id pass", rss2)):
        print(f"| {label} | {value:.0f} | {value - rss0:+.0f} |")
    print(f"| peak (VmHWM) | {peak:.0f} | {peak - rss0:+.0f} |")
    print()


def rss_mb(pid: int) -> tuple[float, float]:
    """(current, peak) resident set size of a process in MB (VmRSS, VmHWM)."""
    fields = dict(line.split(":", 1) for line in Path(f"/proc/{pid}/status").read_text().splitlines() if ":" in line)
    return int(fields["VmRSS"].split()[0]) / 1024, int(fields["VmHWM"].split()[0]) / 1024


def in_browser() -> None:
    from browser_bench import view

    from tests.harness import PAGES, browser, serve

    views = [
        ("position magnitude, defaults (no model loaded; baseline)", "/magnitude"),
        ("real model: word order, defaults (MiniLM loaded)", "/sentences"),
        ("overview (the registry: MiniLM and SmolLM2 loaded)", "/overview"),
        ("overview again", "/overview"),
    ]
    if "llm" in PAGES:
        views.append(("the SmolLM2 page, defaults", "/llm"))
    rows = []
    with browser() as b, serve() as (base, proc):
        ctx = b.new_context(viewport={"width": 1280, "height": 720})
        for label, path in views:
            seconds, received = view(ctx, base + path)
            rows.append((label, seconds, received, *rss_mb(proc.pid)))
    base_rss, minilm_rss = rows[0][3], rows[1][3]
    print("(d) one browser session against one server; RSS read after each view")
    print()
    print(
        "| view | navigation to rendered (s) | kB received | server RSS (MB) | vs baseline | vs MiniLM loaded | peak |"
    )
    print("|---|---|---|---|---|---|---|")
    for label, seconds, received, now, peak in rows:
        line = f"| {label} | {seconds:.2f} | {received / 1000:,.0f} | {now:.0f} | {now - base_rss:+.0f} "
        print(line + f"| {now - minilm_rss:+.0f} | {peak:.0f} |")
    if "llm" not in PAGES:
        print("\nthe router lists no llm page yet: the overview is the only view that loads SmolLM2")
    print()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeats", type=int, default=7, help="interleaved rounds in process")
    parser.add_argument("--fresh", type=int, default=3, help="interleaved rounds of new processes")
    parser.add_argument("--no-browser", action="store_true", help="skip the server's memory")
    args = parser.parse_args()
    load = Load.announce()
    in_process(args.repeats)
    fresh(args.fresh)
    memory_in_process()
    if not args.no_browser:
        in_browser()
    print(f"machine: {load.line()}")


if __name__ == "__main__":
    main()
