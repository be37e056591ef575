"""One process against two replicas behind HAProxy (deploy/cluster.py), under the same protocol load, in one run.

Each run is benchmarks/load_protocol.py's class: N sessions speaking Streamlit's WebSocket protocol arrive within
--arrive s, each asks for a page view from a link and two reruns per setting, with a random 0.5-1.5 x --think s
pause after each script run. Runs: one process at 40 and 80 sessions; 2 replicas through the proxy at 40 and 80;
2 replicas at 40 with r1 killed (SIGKILL) --kill-at s into the run; then the most sessions one process holds at
p95 <= 1 s (20/40/60). Each protocol session carries no cookie, so HAProxy places each new session by leastconn (a
browser keeps its cookie: that changes which replica, not how many sessions each holds).

    python benchmarks/cluster_bench.py [--settings 6] [--think 3] [--arrive 10] [--kill-at 20]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import math
import os
import statistics
import sys
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks.conditions import Load  # noqa: E402
from benchmarks.load_common import cpu_seconds  # noqa: E402
from benchmarks.load_protocol import client  # noqa: E402
from deploy.cluster import Cluster  # noqa: E402
from tests.harness import serve  # noqa: E402

HOSTS = [(2, 1024), (4, 4096), (16, 16384)]  # (cores, MB)
RESERVED_MB = 256  # the system, HAProxy and sshd: left out of a host's memory before replicas are counted


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


@contextlib.contextmanager
def watching(pids):
    """Peak RSS and CPU seconds of each named process while the block runs; `pids()` names the current pids."""
    out = {"rss": {}, "cpu": {}, "start": {}}
    stop = threading.Event()

    def sample():
        while not stop.is_set():
            for name, pid in pids().items():
                with contextlib.suppress(OSError):
                    out["rss"][name] = max(out["rss"].get(name, 0.0), rss_mb(pid))
                    out["start"].setdefault((name, pid), cpu_seconds(pid))
                    out["cpu"][(name, pid)] = cpu_seconds(pid)
            stop.wait(0.5)

    thread = threading.Thread(target=sample, daemon=True)
    wall = time.perf_counter()
    thread.start()
    try:
        yield out
    finally:
        stop.set()
        thread.join()
        out["wall"] = time.perf_counter() - wall
        per = {}
        for (name, pid), seconds in out["cpu"].items():
            per[name] = per.get(name, 0.0) + seconds - out["start"][(name, pid)]
        out["cpu"] = per


async def load(port: int, sessions: int, args, kill=None) -> dict:
    results = {"views": [], "reruns": [], "errors": []}
    jobs = [client(port, i, args, results) for i in range(sessions)]
    if kill:
        jobs.append(kill())
    await asyncio.gather(*jobs)
    return results


def pct(values, q):
    return statistics.quantiles(values, n=100)[q - 1] if len(values) > 1 else float("nan")


def row(setup: str, sessions: int, results: dict, watched: dict) -> dict:
    r = {
        "setup": setup,
        "sessions": sessions,
        "rerun": (pct(results["reruns"], 50), pct(results["reruns"], 95)),
        "view": (pct(results["views"], 50), pct(results["views"], 95)),
        "runs": len(results["reruns"]) + len(results["views"]),
        "errors": len(results["errors"]),
        "first_errors": results["errors"][:3],
        "rss": watched["rss"],
        "cpu": {name: seconds / watched["wall"] for name, seconds in watched["cpu"].items()},
        "wall": watched["wall"],
    }
    procs = ", ".join(
        f"{name} {r['rss'].get(name, float('nan')):.0f} MB / {100 * share:.0f}%" for name, share in r["cpu"].items()
    )
    print(
        f"| {setup} | {sessions} | {r['rerun'][0]:.2f} / {r['rerun'][1]:.2f} | {r['view'][0]:.2f} / {r['view'][1]:.2f}"
        f" | {r['errors']} of {r['runs']} | {procs} | {r['wall']:.0f} |",
        flush=True,
    )
    for line in r["first_errors"]:
        print("|  | error: " + line.splitlines()[0][:100] + " |||||", flush=True)
    return r


def one_process(sessions: int, args) -> dict:
    with serve() as (base, proc):
        time.sleep(args.warm)
        with watching(lambda: {"process": proc.pid, "load client": os.getpid()}) as w:
            results = asyncio.run(load(int(base.rsplit(":", 1)[1]), sessions, args))
    return row("1 process, direct", sessions, results, w)


def replicas(sessions: int, args, kill_at: float | None = None) -> dict:
    with Cluster(replicas=2) as c:
        time.sleep(args.warm)

        def pids():
            return {**{r.name: r.pid for r in c.replicas}, "haproxy": c.proxy.pid, "load client": os.getpid()}

        async def kill():
            await asyncio.sleep(kill_at)
            c.kill("r1")

        with watching(pids) as w:
            results = asyncio.run(load(c.port, sessions, args, kill if kill_at else None))
        setup = "2 replicas, HAProxy" + (f", r1 killed at {kill_at:g} s (restarted: {c.events})" if kill_at else "")
        return row(setup, sessions, results, w)


def hosts(capacity: int, cores: float, rss: float) -> None:
    print()
    print(f"Replicas per host: min(cores / {cores:.2f}, (memory - {RESERVED_MB} MB) / {rss:.0f} MB), rounded down;")
    print(f"sessions = replicas x {capacity} (one replica's most sessions at p95 <= 1 s, measured above).")
    print()
    print("| host | by cores | by memory | replicas | sessions at p95 <= 1 s |")
    print("|---|---|---|---|---|")
    for n, mb in HOSTS:
        by_cores, by_memory = math.floor(n / cores), math.floor((mb - RESERVED_MB) / rss)
        k = max(0, min(by_cores, by_memory))
        print(f"| {n} cores / {mb // 1024} GB | {by_cores} | {by_memory} | {k} | {k * capacity} |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--settings", type=int, default=6, help="settings per session (a view and two reruns each)")
    parser.add_argument("--think", type=float, default=3.0)
    parser.add_argument("--arrive", type=float, default=10.0)
    parser.add_argument("--kill-at", type=float, default=20.0)
    parser.add_argument("--warm", type=float, default=8.0, help="seconds after start before the load (model warm-up)")
    args = parser.parse_args()
    load = Load.start()
    print(
        f"machine: {load.before_line()} (the last line of this report gives it after); the replicas, HAProxy and this "
        "load client all run on it and share its CPU.\n"
        f"{args.settings} settings a session (a view and two reruns each), {args.think:g} s pauses, arriving within "
        f"{args.arrive:g} s. Times in seconds (p50 / p95); per process: peak RSS / CPU as % of one core.\n"
    )
    print("| setup | sessions | rerun p50 / p95 | view p50 / p95 | errors | processes | wall (s) |")
    print("|---|---|---|---|---|---|---|")
    rows = {40: one_process(40, args)}
    rows[80] = one_process(80, args)
    for n in (40, 80):
        replicas(n, args)
    replicas(40, args, kill_at=args.kill_at)

    def holds(r):
        return r["errors"] == 0 and max(r["rerun"][1], r["view"][1]) <= 1.0

    tried = [40]
    nxt = 60 if holds(rows[40]) else 20
    rows[nxt] = one_process(nxt, args)
    tried.append(nxt)
    capacity = max([n for n in tried if holds(rows[n])], default=0)
    print(f"\nmost sessions one process holds at p95 <= 1 s with no errors (tried {sorted(tried)}): {capacity}")
    cores = max(r["cpu"]["process"] for r in rows.values())  # a saturated process: about one core
    rss = max(r["rss"]["process"] for r in rows.values())
    hosts(capacity, cores, rss)
    print()
    print(f"machine: {load.line()}")


if __name__ == "__main__":
    main()
