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
import platform
import random
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


from benchmarks.conditions import Load  # noqa: E402
from benchmarks.load_common import SETTINGS, arguments, report, sampling, setting  # noqa: E402
from tests.harness import serve  # noqa: E402


async def client(port: int, index: int, args, results: dict) -> None:
    rng = random.Random(index)
    await asyncio.sleep(rng.uniform(0, args.arrive))
    for step in range(args.settings):
        path = SETTINGS[(index * 7 + step) % len(SETTINGS)]
        await setting(port, path, 2, args.think, rng, results, f"client {index}")


async def main_async(args) -> None:
    results = {"views": [], "reruns": [], "errors": []}
    load = Load.start()
    with serve() as (base, proc), sampling(proc, base) as samples:
        port = int(base.rsplit(":", 1)[1])
        started = time.perf_counter()
        await asyncio.gather(*(client(port, i, args, results) for i in range(args.clients)))
        elapsed = time.perf_counter() - started

    header = (
        f"machine: {platform.machine()}, {load.line()}; {args.clients} concurrent protocol sessions, "
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
