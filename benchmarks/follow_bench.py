"""Follow latency: how long after the lecturer's key press a follower shows the new step, and what polling costs.

One server process; the lecturer is a Chromium page on the lecturer's link (presenter mode, 1280x720) pressing
PageDown and PageUp over steps 1-5. Measured, in one run:
- the lecturer's own step time (key press until its page shows the step and its script finished) with no followers,
  with one Chromium follower, and with 60 protocol-level followers polling;
- the follow latency (key press until a follower shows the new step): one Chromium follower (390x844), then 60
  followers speaking Streamlit's WebSocket protocol as the browser does (a page view of ?room=CODE, then the poll
  fragment's auto-rerun every interval the server asks for), each seeing the step in the page run it triggers;
- the server's CPU while nobody moves: the lecturer alone, and with the 60 followers waiting on a step;
- one read of the room in the store (what each poll costs before Streamlit's own work).

    python benchmarks/follow_bench.py [--followers 60] [--moves 8] [--idle 20]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import re
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import websockets  # noqa: E402  (a dependency of streamlit)
from streamlit.proto.BackMsg_pb2 import BackMsg  # noqa: E402
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg  # noqa: E402

from benchmarks.conditions import Load  # noqa: E402
from benchmarks.load_common import cpu_seconds  # noqa: E402
from posviz.lecture import STEPS  # noqa: E402
from posviz.lecture.rooms import Rooms, show_code  # noqa: E402
from tests.harness import DONE, browser, serve, settle  # noqa: E402

N = len(STEPS)
CAPTION = re.compile(r"step (\d+) / \d+ ·")
PATH = [2, 3, 4, 5, 4, 3, 2, 1]  # the lecturer's walk from step 1: PageDown x4, PageUp x4 (repeated)
WHERE = {"step": 1, "move": 0}  # the lecturer's step and moves so far


def shown(text: str) -> int | None:
    found = CAPTION.search(text)
    return int(found.group(1)) if found else None


class Follower:
    """One protocol-level follower: a page view of the follow link, then the poll fragment's auto-reruns."""

    def __init__(self, port: int, code: str, seen: list) -> None:
        self.port, self.code, self.seen, self.step, self.page = port, code, seen, None, ""

    async def run(self, stop: threading.Event) -> None:
        url = f"ws://127.0.0.1:{self.port}/_stcore/stream"
        async with websockets.connect(url, subprotocols=["streamlit"], max_size=2**27) as ws:
            fragment, interval = await self.script(ws, None)
            tick = time.perf_counter()
            while not stop.is_set():
                tick += interval
                await asyncio.sleep(max(0.0, tick - time.perf_counter()))
                fragment, interval = await self.script(ws, fragment, interval)

    async def script(self, ws, fragment: str | None, interval: float = 1.0) -> tuple[str, float]:
        msg = BackMsg()
        msg.rerun_script.query_string = f"room={self.code}"
        msg.rerun_script.page_name = "lecture"
        if fragment:  # as the browser does: the page's hash too, or a rerun the fragment asks for runs the home page
            msg.rerun_script.fragment_id, msg.rerun_script.is_auto_rerun = fragment, True
            msg.rerun_script.page_script_hash = self.page
        await ws.send(msg.SerializeToString())
        while True:
            forward = ForwardMsg()
            forward.ParseFromString(await asyncio.wait_for(ws.recv(), 60))
            kind = forward.WhichOneof("type")
            if kind == "navigation" and forward.navigation.page_script_hash:  # the page st.navigation ran
                self.page = forward.navigation.page_script_hash
            elif kind == "auto_rerun":
                fragment, interval = forward.auto_rerun.fragment_id, forward.auto_rerun.interval
            elif kind == "delta" and forward.delta.new_element.WhichOneof("type") == "markdown":
                step = shown(forward.delta.new_element.markdown.body)
                if step is not None and step != self.step:
                    self.step = step
                    self.seen.append((step, time.perf_counter()))
            elif kind == "script_finished" and forward.script_finished in (
                ForwardMsg.FINISHED_SUCCESSFULLY,
                ForwardMsg.FINISHED_FRAGMENT_RUN_SUCCESSFULLY,
            ):
                return fragment, interval


def crowd(port: int, code: str, count: int, stop: threading.Event, ready: threading.Event) -> tuple:
    """Run `count` protocol followers in a thread of their own until `stop`; returns each one's (step, time) list."""
    seen = [[] for _ in range(count)]

    async def main() -> None:
        followers = [Follower(port, code, s) for s in seen]
        tasks = [asyncio.create_task(f.run(stop)) for f in followers]
        while not all(f.step for f in followers):
            await asyncio.sleep(0.2)
        ready.set()
        await asyncio.gather(*tasks, return_exceptions=True)

    thread = threading.Thread(target=lambda: asyncio.run(main()), daemon=True)
    thread.start()
    return seen, thread


def press(page, key: str, step: int) -> tuple[float, float]:
    """Press a key on the lecturer's page; (press time, seconds until its page showed `step`, script finished)."""
    t0 = time.perf_counter()
    page.keyboard.press(key)
    page.wait_for_function(
        "([done, text]) => document.querySelector(done) && document.body.innerText.includes(text)",
        arg=[DONE, f"step {step} / {N} ·"],
        timeout=60_000,
    )
    return t0, time.perf_counter() - t0


def walk(lecturer, moves: int, wait=None) -> tuple[list[float], list[tuple[int, float]]]:
    """The lecturer's moves along PATH; each waits for `wait(step, t0)` (followers) and a 1 s pause."""
    times, presses = [], []
    for _ in range(moves):
        here, step = WHERE["step"], PATH[WHERE["move"] % len(PATH)]
        WHERE["move"] += 1
        t0, seconds = press(lecturer, "PageDown" if step > here else "PageUp", step)
        times.append(seconds)
        presses.append((step, t0))
        if wait:
            wait(step, t0)
        WHERE["step"] = step
        time.sleep(1.0)
    return times, presses


def latencies(seen: list[list], presses: list[tuple[int, float]]) -> list[float]:
    """For each press and each follower: the time until that follower first showed the step after the press."""
    found = []
    for step, t0 in presses:
        for events in seen:
            after = [t for s, t in events if s == step and t >= t0]
            if after:
                found.append(after[0] - t0)
    return found


def idle_cpu(proc, seconds: float) -> float:
    """The server's CPU over `seconds` of wall time, as a share of one core."""
    start = cpu_seconds(proc.pid)
    time.sleep(seconds)
    return (cpu_seconds(proc.pid) - start) / seconds


def store_read_us(path: str, code: str, count: int = 2000) -> float:
    store = Rooms(path)
    start = time.perf_counter()
    for _ in range(count):
        store.get(code)
    return (time.perf_counter() - start) / count * 1e6


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--followers", type=int, default=60)
    parser.add_argument("--moves", type=int, default=8)
    parser.add_argument("--idle", type=float, default=20.0, help="seconds of CPU sampling while nobody moves")
    args = parser.parse_args()
    load = Load.start()
    path = os.environ.setdefault("POSVIZ_ROOMS_DB", str(Path(tempfile.mkdtemp()) / "rooms.sqlite3"))
    room, secret = Rooms(path).open(1, {})
    code = show_code(room.code)
    rows = []
    with serve() as (base, proc), browser() as b:
        port = int(base.rsplit(":", 1)[1])
        lecturer = b.new_context(viewport={"width": 1280, "height": 720}).new_page()
        lecturer.goto(f"{base}/lecture?presenter=true&room={code}&secret={secret}")
        settle(lecturer)
        walk(lecturer, len(PATH))  # warm the slide cache for steps 1-5
        alone, _ = walk(lecturer, args.moves)
        cpu_alone = idle_cpu(proc, args.idle)

        phone = b.new_context(viewport={"width": 390, "height": 844}).new_page()
        phone.goto(f"{base}/lecture?room={code}")
        settle(phone)
        one = []

        def follow(step: int, t0: float) -> None:
            phone.wait_for_function("text => document.body.innerText.includes(text)", arg=f"step {step} / {N} ·")
            one.append(time.perf_counter() - t0)

        with_one, _ = walk(lecturer, args.moves, follow)
        phone.context.close()

        stop, ready = threading.Event(), threading.Event()
        seen, thread = crowd(port, code, args.followers, stop, ready)
        ready.wait(300)
        time.sleep(2.0)
        cpu_crowd = idle_cpu(proc, args.idle)

        def everyone(step: int, t0: float) -> None:
            deadline = time.perf_counter() + 15
            while time.perf_counter() < deadline and not all(e and e[-1][0] == step for e in seen):
                time.sleep(0.05)

        with_crowd, presses = walk(lecturer, args.moves, everyone)
        stop.set()
        thread.join(30)
    many = latencies(seen, presses)
    expected = args.moves * args.followers

    def med(values: list[float]) -> str:
        return f"{statistics.median(values):.2f}" if values else "n/a"

    rows += [
        ("follow latency, 1 Chromium follower (390x844), median s", med(one), f"{len(one)} moves"),
        (f"follow latency, {args.followers} protocol followers, median s", med(many), f"{len(many)}/{expected} seen"),
        (f"follow latency, {args.followers} protocol followers, slowest s", f"{max(many):.2f}" if many else "n/a", ""),
        ("lecturer's step time, no followers, median s", med(alone), f"{len(alone)} moves"),
        ("lecturer's step time, 1 follower, median s", med(with_one), f"{len(with_one)} moves"),
        (f"lecturer's step time, {args.followers} followers polling, median s", med(with_crowd), f"{args.moves} moves"),
        ("server CPU while nobody moves, lecturer alone (% of a core)", f"{100 * cpu_alone:.0f}", f"{args.idle:g} s"),
        (f"server CPU, {args.followers} followers waiting on a step (% of a core)", f"{100 * cpu_crowd:.0f}", ""),
        ("one read of the room in the store, µs", f"{store_read_us(path, room.code):.0f}", "2000 reads"),
    ]
    print(
        f"follow_bench: {load.line()} (compare rows of this run); "
        f"poll interval {ui_poll()} s; steps 1-5 by PageDown/PageUp"
    )
    print()
    print("| measure | value | over |")
    print("|---|---|---|")
    for row in rows:
        print("| " + " | ".join(row) + " |")
    if not many:
        print("(no protocol follower saw a move: see the followers' (step, time) lists)", seen[:2])


def ui_poll() -> float:
    import ui.rooms

    return ui.rooms.POLL


if __name__ == "__main__":
    main()
