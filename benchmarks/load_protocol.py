"""Server load without browsers: N concurrent sessions speaking Streamlit's own WebSocket protocol.

On a 2-core machine, 20 Chromium pages starve the server they test (benchmarks/load_test.py). Here
each client is a WebSocket that asks for a page view (a new session with a link's query string) and
then two reruns of it, as a widget change would, and waits for the script to finish, pausing a
random 0.5-1.5 x --think seconds after each (0 = back to back, a stress test). Clients arrive
within --arrive seconds. What is measured is the server alone: its script runs, serialisation and
memory.

    python benchmarks/load_protocol.py [--clients 20] [--settings 30] [--think 0] [--arrive 10]
"""

from __future__ import annotations

import asyncio
import os
import platform
import random
import sys
import time
from pathlib import Path
from urllib.parse import urlsplit

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import websockets  # noqa: E402  (a dependency of streamlit)
from streamlit.proto.BackMsg_pb2 import BackMsg  # noqa: E402
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg  # noqa: E402

from benchmarks.load_test import SETTINGS, arguments, report, sampling  # noqa: E402
from tests.harness import serve  # noqa: E402

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


async def client(port: int, index: int, args, results: dict) -> None:
    rng = random.Random(index)
    await asyncio.sleep(rng.uniform(0, args.arrive))
    for step in range(args.settings):
        path = SETTINGS[(index * 7 + step) % len(SETTINGS)]
        await setting(port, path, 2, args.think, rng, results, f"client {index}")


async def main_async(args) -> None:
    results = {"views": [], "reruns": [], "errors": []}
    with serve() as (base, proc), sampling(proc, base) as samples:
        port = int(base.rsplit(":", 1)[1])
        started = time.perf_counter()
        await asyncio.gather(*(client(port, i, args, results) for i in range(args.clients)))
        elapsed = time.perf_counter() - started

    header = (
        f"machine: {platform.machine()}, {os.cpu_count()} cores; {args.clients} concurrent protocol sessions, "
        f"arriving within {args.arrive:g} s, {args.settings} settings each (a view and two reruns), "
        f"a {args.think:g} s pause on average after each, "
        f"{elapsed:.0f} s in all"
    )
    rows = [("rerun of a page (script run, server side)", "reruns"), ("new page view", "views")]
    report(header, rows, results, samples)


def main() -> None:
    asyncio.run(main_async(arguments(__doc__, default_think=0.0).parse_args()))


if __name__ == "__main__":
    main()
