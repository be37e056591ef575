"""What the two load scripts share: the settings a class walks through, one protocol session,
sampling the server's memory and the clients' CPU, the report table and the command-line options.

benchmarks/load_test.py (Chromium pages plus one protocol probe) and benchmarks/load_protocol.py
(protocol sessions only) both import this module; neither imports the other.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import statistics
import sys
import threading
import time
import urllib.request
from pathlib import Path
from urllib.parse import urlsplit

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import websockets  # noqa: E402  (a dependency of streamlit)
from streamlit.proto.BackMsg_pb2 import BackMsg  # noqa: E402
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg  # noqa: E402

from benchmarks.browser_bench import peak_rss_mb  # noqa: E402

SETTINGS = [
    "/overview",
    "/order",
    "/order?position=ramp",
    "/order?T=32&d=32&perm_mode=shuffle&position=sinusoidal",
    "/order?T=128&d=64&perm_mode=shuffle&position=rotary&causal=true",
    "/order?T=256&d=256&perm_mode=shuffle&position=learned",
    "/order?forget=true",
    "/sinusoids",
    "/sinusoids?T=1024&d=256",
    "/sinusoids?T=8192&d=2048",
    "/sinusoids?T=8192&d=2048&view=chart",
    "/sinusoids?T=2000&d=512&check=similarity",
    "/sinusoids?view=zoom%3A+exact+values&T=4096&d=1024&zr=2000",
    "/sinusoids?base=500000&check=wavelengths",
    "/attention",
    "/attention?position=sinusoidal&pscale=1.0",
    "/attention?s1=the+cat+saw+the+dog&s2=the+dog+saw+the+cat",
    "/attention?d=64&position=learned",
    "/magnitude",
    "/magnitude?scale=0.001",
    "/magnitude?loglog=true",
    "/magnitude?s1=a+b+c+d+e+f&s2=f+e+d+c+b+a&word=c",
    "/minilm",
    "/minilm?part=sentences&s1=the+cat+saw+the+dog&s2=the+dog+saw+the+cat&head=3",
    "/sentences",
    "/sentences?s1=the+cat+saw+the+dog&s2=the+dog+saw+the+cat&scale=0.5",
    "/lecture",
    "/lecture?step=8",
    "/lecture?step=16",
    "/longer",
    "/longer?part=decay",
    "/biases",
]
DONE = (ForwardMsg.FINISHED_SUCCESSFULLY, ForwardMsg.FINISHED_FRAGMENT_RUN_SUCCESSFULLY)


async def run_script(ws, query: str, page: str, timeout: float) -> tuple[float, list[str]]:
    """Ask for one script run; seconds until it finished, and the exceptions it showed."""
    msg = BackMsg()
    msg.rerun_script.query_string = query
    msg.rerun_script.page_name = page
    start = time.perf_counter()
    await ws.send(msg.SerializeToString())
    problems = []
    while True:
        forward = ForwardMsg()
        forward.ParseFromString(await asyncio.wait_for(ws.recv(), timeout))
        kind = forward.WhichOneof("type")
        if kind == "delta" and forward.delta.new_element.WhichOneof("type") == "exception":
            problems.append(forward.delta.new_element.exception.message[:120])
        if kind == "script_finished" and forward.script_finished in DONE:
            return time.perf_counter() - start, problems


async def setting(port: int, path: str, reruns: int, think: float, rng, results: dict, who: str, keys=None) -> None:
    """One student on one shared link: a page view (a new session), then `reruns` reruns of it, each
    timed into results[keys[0]] / results[keys[1]], with a random 0.5-1.5 x `think` pause after each."""
    views, reruns_key = keys or ("views", "reruns")
    target = urlsplit(path)
    page = target.path.strip("/")
    try:
        async with websockets.connect(
            f"ws://127.0.0.1:{port}/_stcore/stream", subprotocols=["streamlit"], max_size=2**27
        ) as ws:
            problems = []
            for number in range(1 + reruns):
                seconds, more = await run_script(ws, target.query, page, 120)
                results[views if number == 0 else reruns_key].append(seconds)
                problems += more
                await asyncio.sleep(think * rng.uniform(0.5, 1.5))
        results["errors"] += [f"{who}: {page}?{target.query}: exception {p}" for p in problems]
    except (TimeoutError, OSError, websockets.WebSocketException) as error:
        results["errors"].append(f"{who}: {page}?{target.query}: {type(error).__name__}")


@contextlib.contextmanager
def sampling(proc, base: str):
    """Sample the server's peak RSS and cache memory, and the CPU time of this script's other child
    processes (browsers, drivers), while the block runs; yield the samples dict."""
    baseline = {pid: cpu_seconds(pid) for pid in clients(proc.pid)}
    samples: dict = {"clients": dict(baseline), "kinds": {}}
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
        samples["client_cpu"] = {}
        for pid, seconds in samples["clients"].items():
            kind = samples["kinds"].get(pid, "other")
            samples["client_cpu"][kind] = samples["client_cpu"].get(kind, 0.0) + seconds - baseline.get(pid, 0.0)


def clients(server: int) -> list[int]:
    """This process and its descendants, without the server and its own children."""
    parents = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            with contextlib.suppress(OSError, IndexError):
                parents[int(entry.name)] = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
    found, frontier = [], [os.getpid()]
    while frontier:
        pid = frontier.pop()
        found.append(pid)
        frontier += [child for child, parent in parents.items() if parent == pid and child != server]
    return found


def cpu_seconds(pid: int) -> float:
    """User + system CPU time a process has used so far (Linux /proc), in seconds."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def process_kind(pid: int) -> str:
    """What a client process is: 'chromium renderer', 'chromium gpu-process', 'node', 'python', ..."""
    name = Path(f"/proc/{pid}/comm").read_text().strip()
    words = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace").split()
    kind = next((w.split("=", 1)[1] for w in words if w.startswith("--type=")), "")
    sub = next((w.split("=", 1)[1].split(".")[0] for w in words if w.startswith("--utility-sub-type=")), "")
    return " ".join(part for part in (name, sub or kind) if part)


def sample(pid: int, base: str, stop: threading.Event, out: dict) -> None:
    """Peak RSS, the largest cache-memory figure in /_stcore/metrics and the client processes' CPU
    time (the last reading of each, so that processes that end are still counted), every half second."""
    while not stop.is_set():
        out["rss"] = max(out.get("rss", 0.0), peak_rss_mb(pid))
        for child in clients(pid):
            with contextlib.suppress(OSError):
                out["clients"][child] = cpu_seconds(child)
                if child not in out["kinds"]:
                    out["kinds"][child] = process_kind(child)
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
    kinds = {"exception": 0, "page error": 0, "crashed": 0, "TimeoutError": 0}
    for line in results["errors"]:
        for kind in kinds:
            kinds[kind] += kind.lower() in line.lower()
    print(f"errors seen: {len(results['errors'])} ({', '.join(f'{k}: {v}' for k, v in kinds.items())})")
    for line in results["errors"][:5] + results["errors"][5:][-3:]:
        print("  ", line.splitlines()[0])
    print(
        f"server peak RSS: {samples['rss']:.0f} MB; largest cache memory in /_stcore/metrics: "
        f"{samples.get('cache', float('nan')):.1f} MB"
    )
    print(
        f"server CPU: {samples['cpu']:.0f} s over {samples['wall']:.0f} s of wall time "
        f"({100 * samples['cpu'] / samples['wall']:.0f}% of one core; the machine has {os.cpu_count()})"
    )
    shares = {kind: seconds for kind, seconds in samples.get("client_cpu", {}).items() if seconds >= 1}
    if shares:
        parts = ", ".join(f"{kind} {seconds:.0f} s" for kind, seconds in sorted(shares.items(), key=lambda x: -x[1]))
        total = sum(shares.values())
        print(f"clients' CPU: {total:.0f} s ({100 * total / samples['wall']:.0f}% of one core): {parts}")


def arguments(doc: str, default_think: float = 3.0) -> argparse.ArgumentParser:
    """The load scripts' shared options: --clients, --settings, --think, --arrive."""
    parser = argparse.ArgumentParser(description=doc)
    parser.add_argument("--clients", type=int, default=20)
    parser.add_argument("--settings", type=int, default=30)
    parser.add_argument("--think", type=float, default=default_think, help="seconds to pause after each action")
    parser.add_argument("--arrive", type=float, default=10.0, help="clients arrive within this many seconds")
    return parser
