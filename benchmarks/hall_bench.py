"""A hall on the light follow page: the follow latency and the lecturer's step time with 1, 60 and 300 followers.

One server process; the lecturer is a Chromium page on the lecturer's link (presenter mode, 1280x720) pressing
PageDown and PageUp over steps 1-5, as in benchmarks/follow_bench.py (whose walk this reuses). The followers are
protocol clients of the light channel (hall.py): each holds one `/follow/CODE/events` stream open (raw asyncio
streams, in a thread of this process) and notes when each step's event arrives. Measured, in one run:
- the first showing of each step (its render included: the first pass over steps 1-5, one follower);
- one Chromium phone (390x844) on the light page: key press until the page shows the new step (one moment after
  the event arrives: the step's HTML swapped in);
- with 1, 60 and 300 followers: the follow latency (key press until a follower has the new step's event), median
  and slowest, and the lecturer's own step time (key press until its page shows the step, script finished);
- the lecturer's step time with no follower; the server's CPU while nobody moves, alone and with 300 followers
  waiting; the server's memory per follower (the growth of its resident memory while the streams opened, over
  their number);
- a question to the room answered by as many followers at once (each with the token its follow page gave, POST
  /follow/CODE/answer from 50 threads): the time until every answer is in, and the store's count (each once).

    python benchmarks/hall_bench.py [--followers 1,60,300] [--moves 8] [--idle 20]

The rooms are a new SQLite file unless POSVIZ_ROOMS_REDIS names a Redis (posviz.lecture.rooms_redis.connect picks,
for this script and the server alike).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks.conditions import Load  # noqa: E402
from benchmarks.follow_bench import PATH, idle_cpu, latencies, walk  # noqa: E402
from posviz.lecture.rooms import show_code  # noqa: E402
from posviz.lecture.rooms_redis import connect  # noqa: E402
from tests.harness import browser, free_port, serve, settle  # noqa: E402

FOLLOWERS = [300]  # the run's follower counts (--followers)
STEP = re.compile(rb'data: \{"version": \d+, "step": (\d+)')


class Crowd:
    """Protocol followers of one room in a thread of their own: each a held event stream and its (step, time) list."""

    def __init__(self, port: int, code: str) -> None:
        self.port, self.code, self.seen = port, code, []
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.thread.start()
        self.tasks = []

    def add(self, count: int) -> None:
        """Open `count` more streams; returns when each has its first step event."""
        ready = []
        for _ in range(count):
            seen = []
            self.seen.append(seen)
            ready.append(asyncio.run_coroutine_threadsafe(self.follow(seen), self.loop))
        deadline = time.perf_counter() + 120
        while not all(self.seen) and time.perf_counter() < deadline:
            time.sleep(0.05)
        self.tasks += ready

    async def follow(self, seen: list) -> None:
        reader, writer = await asyncio.open_connection("127.0.0.1", self.port, limit=2**24)
        writer.write(f"GET /follow/{self.code}/events HTTP/1.1\r\nHost: bench\r\n\r\n".encode())
        await writer.drain()
        try:
            while True:
                line = await reader.readline()
                if not line:
                    return
                found = STEP.match(line)
                if found:
                    seen.append((int(found.group(1)), time.perf_counter()))
        finally:
            writer.close()

    def close(self) -> None:
        async def cancel() -> None:
            tasks = [t for t in asyncio.all_tasks() if t is not asyncio.current_task()]
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)

        asyncio.run_coroutine_threadsafe(cancel(), self.loop).result(30)
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(10)


def rss_mb(pid: int) -> float:
    """A process's resident memory (Linux /proc), MB."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise ValueError(f"expected VmRSS in /proc/{pid}/status, found none")


def alone_kb(code: str) -> tuple[str, str]:
    """Memory per stream of a server running only the follow routes (hall.Hall on uvicorn): its resident memory
    with `followers` streams open less with none, over their number; the same room and store as the run."""
    port = free_port()
    script = (
        "import uvicorn; from starlette.applications import Starlette; import hall; "
        "app = Starlette(routes=[hall.Hall(base_url_path='')]); "
        f"uvicorn.run(app, host='127.0.0.1', port={port}, log_level='error')"
    )
    proc = subprocess.Popen([sys.executable, "-c", script], cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)})
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                if time.monotonic() > deadline:
                    return "n/a", "the follow-only server did not start"
                time.sleep(0.2)
        crowd = Crowd(port, code)
        crowd.add(1)  # the first stream renders the step and starts the watcher: not a follower's own cost
        time.sleep(1.0)
        before = rss_mb(proc.pid)
        crowd.add(FOLLOWERS[-1] - 1)
        time.sleep(2.0)
        grown = rss_mb(proc.pid) - before
        crowd.close()
        return f"{grown * 1024 / (FOLLOWERS[-1] - 1):.0f}", f"{grown:.1f} MB for {FOLLOWERS[-1] - 1} streams"
    finally:
        proc.terminate()
        proc.wait(10)


def quiet(proc, below: float = 0.15, window: float = 3.0, most: float = 240.0) -> float:
    """Wait until the server's CPU over `window` s is under `below` of a core (its start-up warming, ui.startup, has
    finished), at most `most` s; returns the seconds waited."""
    start = time.perf_counter()
    while time.perf_counter() - start < most and idle_cpu(proc, window) >= below:
        pass
    return time.perf_counter() - start


def everyone(crowd: Crowd):
    def wait(step: int, t0: float) -> None:
        deadline = time.perf_counter() + 15
        while time.perf_counter() < deadline and not all(s and s[-1][0] == step and s[-1][1] >= t0 for s in crowd.seen):
            time.sleep(0.02)

    return wait


WATCH = """() => { window.__seen = [];
  new MutationObserver(() => {
    const m = document.getElementById('step').innerText.match(/step (\\d+) \\//);
    if (m) window.__seen.push([+m[1], Date.now() / 1000]);
  }).observe(document.getElementById('step'), {childList: true, subtree: true}); }"""


def drawn(crowd: Crowd, phone, shown: list):
    """Wait for the crowd, then for the phone's page to have swapped in the step (a MutationObserver notes when, on
    the page's clock, this machine's); note the phone's time from the key press."""
    crowd_wait, offset = everyone(crowd), time.time() - time.perf_counter()

    def wait(step: int, t0: float) -> None:
        crowd_wait(step, t0)
        at = phone.wait_for_function(
            "([s, t]) => (window.__seen.find(([k, when]) => k === s && when >= t) || [0, 0])[1]",
            arg=[step, t0 + offset],
            timeout=15_000,
        ).json_value()
        shown.append(at - offset - t0)

    return wait


def answers(base: str, code: str, rooms: object, secret: str, n: int) -> tuple[float, int, set[int]]:
    """`n` followers answer a question at once: (seconds until all are in, the store's count, the HTTP statuses)."""
    asked = rooms.ask(code.replace("-", ""), secret, 1, "Which?", ["a", "b", "c"])

    def token(_: int) -> str:
        page = urllib.request.urlopen(f"{base}/follow/{code}", timeout=60).read().decode()
        return page.split("data-token='")[1].split("'")[0]

    def send(item: tuple[int, str]) -> int:
        body = json.dumps({"token": item[1], "question": asked.id, "answer": item[0] % 3}).encode()
        request = urllib.request.Request(f"{base}/follow/{code}/answer", data=body, method="POST")
        try:
            return urllib.request.urlopen(request, timeout=60).status
        except urllib.error.HTTPError as error:
            return error.code

    with ThreadPoolExecutor(50) as pool:
        tokens = list(pool.map(token, range(n)))
        start = time.perf_counter()
        statuses = set(pool.map(send, enumerate(tokens)))
        took = time.perf_counter() - start
    return took, rooms.question(code.replace("-", "")).count, statuses


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--followers", default="1,60,300", help="follower counts, ascending (comma-separated)")
    parser.add_argument("--moves", type=int, default=8)
    parser.add_argument("--idle", type=float, default=20.0, help="seconds of CPU sampling while nobody moves")
    args = parser.parse_args()
    counts = [int(n) for n in args.followers.split(",")]
    FOLLOWERS[:] = counts
    load = Load.start()
    os.environ.setdefault("POSVIZ_ROOMS_DB", str(Path(tempfile.mkdtemp()) / "rooms.sqlite3"))
    store = connect()  # Redis when POSVIZ_ROOMS_REDIS is set, else this new file
    print(f"rooms: {type(store).__name__}", flush=True)
    room, secret = store.open(1, {})
    code = show_code(room.code)
    rows = []

    def med(values: list[float]) -> str:
        return f"{statistics.median(values):.2f}" if values else "n/a"

    with serve() as (base, proc), browser() as b:
        port = int(base.rsplit(":", 1)[1])
        lecturer = b.new_context(viewport={"width": 1280, "height": 720}).new_page()
        lecturer.goto(f"{base}/lecture?presenter=true&room={code}&secret={secret}")
        settle(lecturer)
        first = Crowd(port, code)
        first.add(1)
        _, presses = walk(lecturer, len(PATH) // 2, everyone(first))  # steps 2-5 shown the first time: renders
        cold = latencies(first.seen, presses)
        walk(lecturer, len(PATH) // 2)  # back to step 1
        first.close()
        waited = quiet(proc)
        alone, _ = walk(lecturer, args.moves)
        cpu_alone = idle_cpu(proc, args.idle)
        rows += [
            ("first showing of a step, 1 follower (render included), median s", med(cold), f"{len(cold)} steps"),
            ("lecturer's step time, no followers, median s", med(alone), f"{len(alone)} moves"),
        ]
        crowd, grown = Crowd(port, code), 0.0
        for n in counts:
            before = rss_mb(proc.pid)
            crowd.add(n - len(crowd.seen))
            time.sleep(1.0)
            grown += rss_mb(proc.pid) - before  # the streams' memory, apart from what moves allocate
            if n == counts[0]:  # and a Chromium phone on the light page: the end-to-end time, the step drawn
                phone = b.new_context(viewport={"width": 390, "height": 844}).new_page()
                phone.goto(f"{base}/follow/{code}")
                phone.wait_for_selector("#step section")
                phone.evaluate(WATCH)
                shown = []
                steps, _ = walk(lecturer, args.moves, drawn(crowd, phone, shown))
                phone.context.close()
                rows.append(("follow latency, 1 Chromium phone (390x844), step in its page, median s", med(shown), ""))
            steps, presses = walk(lecturer, args.moves, everyone(crowd))
            found = latencies(crowd.seen, presses)
            rows += [
                (f"follow latency, {n} followers, median s", med(found), f"{len(found)}/{args.moves * n} seen"),
                (f"follow latency, {n} followers, slowest s", f"{max(found):.2f}" if found else "n/a", ""),
                (f"lecturer's step time, {n} followers, median s", med(steps), f"{args.moves} moves"),
            ]
        cpu_crowd = idle_cpu(proc, args.idle)
        per = grown * 1024 / max(1, len(crowd.seen))
        followers = len(crowd.seen)
        rows += [
            ("server CPU, nobody moving, lecturer alone (% of a core)", f"{100 * cpu_alone:.1f}", f"{args.idle:g} s"),
            (f"server CPU, {len(crowd.seen)} followers waiting (% of a core)", f"{100 * cpu_crowd:.1f}", ""),
            (f"server memory per follower, KB ({followers} streams)", f"{per:.0f}", "resident, as streams opened"),
        ]
        crowd.close()
        took, counted, statuses = answers(base, code, store, secret, followers)
        rows.append(
            (f"answers, {followers} followers at once: all in, s", f"{took:.2f}", f"{counted} counted, HTTP {statuses}")
        )
    rows.append((f"memory per follower, KB, the follow routes alone ({followers} streams)", *alone_kb(code)))
    print(
        f"hall_bench: {load.line()} (compare rows of this run); the followers' client runs in this process on the "
        f"same cores; steps 1-5 by PageDown/PageUp; measured after the server's warming ({waited:.0f} s waited)"
    )
    print()
    print("| measure | value | over |")
    print("|---|---|---|")
    for row in rows:
        print("| " + " | ".join(row) + " |")


if __name__ == "__main__":
    main()
