"""Serve posviz to a whole course on one Linux host: N Streamlit replicas behind HAProxy, restarted if they die.

    python deploy/serve.py --replicas 2 --port 8501 [--host 0.0.0.0] [--rooms-db PATH | --rooms-redis URL] [--state DIR]

Needs Debian's haproxy (apt-get install haproxy). Prints the URL; Ctrl-C (or SIGTERM) stops the proxy and
every replica. The replicas share one server.cookieSecret (STREAMLIT_SERVER_COOKIE_SECRET if set, else a new
random one for this run) and one rooms file (POSVIZ_ROOMS_DB; --rooms-db overrides it), or, with --rooms-redis
(env POSVIZ_ROOMS_REDIS), one Redis for the rooms of replicas on several hosts (pip install redis).
"""

from __future__ import annotations

import argparse
import os
import signal
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from deploy.cluster import Cluster  # noqa: E402

STATE = Path(os.environ.get("XDG_STATE_HOME", Path.home() / ".local" / "state")) / "posviz"


def arguments() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--replicas", type=int, default=2, help="Streamlit processes (about one core each)")
    parser.add_argument("--port", type=int, default=8501, help="the proxy's port: the one URL students open")
    parser.add_argument("--host", default="127.0.0.1", help="the proxy's address (0.0.0.0 for every interface)")
    parser.add_argument(
        "--rooms-db",
        default=os.environ.get("POSVIZ_ROOMS_DB"),
        help="the SQLite file every replica shares for the lecture's rooms (default: env POSVIZ_ROOMS_DB, "
        "else rooms.sqlite3 in --state)",
    )
    parser.add_argument(
        "--rooms-redis",
        default=os.environ.get("POSVIZ_ROOMS_REDIS"),
        help="a Redis URL (redis://host:6379/0) every replica on every host shares for the rooms, instead of the "
        "SQLite file (default: env POSVIZ_ROOMS_REDIS)",
    )
    parser.add_argument("--state", default=str(STATE), help="folder for haproxy.cfg and the logs")
    return parser.parse_args()


def interrupted(*_: object) -> None:
    raise KeyboardInterrupt


def main() -> None:
    args = arguments()
    signal.signal(signal.SIGTERM, interrupted)  # a service manager's stop ends it as Ctrl-C does
    if args.rooms_redis:
        os.environ["POSVIZ_ROOMS_REDIS"] = args.rooms_redis  # the replicas inherit it (rooms_redis.where)
    cluster = Cluster(replicas=args.replicas, port=args.port, host=args.host, rooms_db=args.rooms_db, state=args.state)
    print(f"starting {args.replicas} replicas and HAProxy (logs in {cluster.state}) ...", flush=True)
    with cluster:
        for r in cluster.replicas:
            print(f"  replica {r.name}: {r.url} (pid {r.pid})")
        if args.rooms_redis:
            from posviz.lecture.rooms_redis import shown

            print(f"  rooms: Redis at {shown(args.rooms_redis)}")
        else:
            print(f"  rooms file: {cluster.rooms_db}")
        print(f"posviz is at {cluster.url}  (Ctrl-C stops it)", flush=True)
        seen = 0
        try:
            while True:
                time.sleep(1)
                for event in cluster.events[seen:]:
                    print(" ", event, flush=True)
                seen = len(cluster.events)
        except KeyboardInterrupt:
            print("\nstopping ...", flush=True)
    print("stopped")


if __name__ == "__main__":
    main()
