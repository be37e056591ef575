"""The course deployment (deploy/cluster.py): 2 replicas behind HAProxy, driven by Debian's Chromium.

WebSocket through the proxy, cookie stickiness (every browser here comes from 127.0.0.1, so stickiness by client
address could not tell them apart), and a replica killed under an open page. The lead's cross-replica room test can
reuse `cluster` and `Cluster.pin` (a context pinned to r1, another to r2).
"""

from __future__ import annotations

import importlib.util
import os
import time

import pytest

from deploy.cluster import COOKIE, HEADER, Cluster, haproxy_path
from tests.harness import chromium_path

MISSING = [
    why
    for why, missing in (
        ("HAProxy is not installed (apt-get install haproxy; .ci/run does it as root)", haproxy_path() is None),
        ("Debian's chromium is not installed (apt-get install chromium)", chromium_path() is None),
        (
            "playwright is not installed (pip install -r requirements-dev.txt)",
            not importlib.util.find_spec("playwright"),
        ),
    )
    if missing
]
if MISSING and os.environ.get("POSVIZ_REQUIRE_BROWSER") and chromium_path() is None:
    raise RuntimeError("browser tests are required here (POSVIZ_REQUIRE_BROWSER is set): " + "; ".join(MISSING))
pytestmark = [pytest.mark.browser, pytest.mark.skipif(bool(MISSING), reason="; ".join(MISSING))]

SIDEBAR = "stSidebarUserContent"
LINK = "/order?T=32&position=sinusoidal"


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    """Two replicas and HAProxy; the rooms file in a temporary folder. Yields the running Cluster."""
    state = tmp_path_factory.mktemp("cluster")
    with Cluster(replicas=2, rooms_db=state / "rooms.sqlite3", state=state) as c:
        yield c


@pytest.fixture(scope="module")
def chromium():
    from tests.harness import browser

    with browser() as b:
        yield b


def test_the_compose_proxy_config_is_the_tested_one_with_docker_dns():
    import subprocess
    from pathlib import Path

    from deploy.cluster import haproxy_config

    compose = (Path(__file__).parents[1] / "deploy" / "haproxy.cfg").read_text().splitlines()
    tested = haproxy_config([("r1", "r1:8501"), ("r2", "r2:8501")], "*:8501").splitlines()[1:]
    assert [line for line in tested if line.strip() and line not in compose] == [
        "    default-server inter 2s fall 3 rise 2"  # the compose file's also names Docker's resolver
    ]
    check = subprocess.run([haproxy_path(), "-c", "-f", "deploy/haproxy.cfg"], cwd=Path(__file__).parents[1])
    assert check.returncode == 0


def open_page(chromium, cluster, path: str, pin: str | None = None):
    """A new browser context (pinned to a replica if asked) with one settled page; records the replica headers."""
    from tests.harness import settle

    context = chromium.new_context(viewport={"width": 1280, "height": 720})
    if pin:
        cluster.pin(context, pin)
    page = context.new_page()
    page.replicas, page.sockets = [], []
    page.on("response", lambda r: page.replicas.append((time.monotonic(), r.headers.get(HEADER.lower()))))
    page.on("websocket", lambda ws: page.sockets.append(ws.url))
    page.goto(cluster.url + path)
    settle(page)
    return page


def no_exception(page) -> None:
    assert page.locator("[data-testid='stException']").count() == 0


def test_a_page_renders_through_the_proxy_over_its_websocket(chromium, cluster):
    page = open_page(chromium, cluster, LINK)
    page.wait_for_selector("[data-testid='stVegaLiteChart']", timeout=30_000)  # drawn by the script's run
    no_exception(page)
    assert page.sockets == [cluster.url.replace("http", "ws", 1) + "/_stcore/stream"]
    page.context.close()


def test_each_browser_stays_on_one_replica_and_new_browsers_spread(chromium, cluster):
    pages = [open_page(chromium, cluster, path) for path in ("/overview", "/overview", "/biases", "/biases")]
    for page in pages:
        page.goto(cluster.url + "/offsets")  # a second full page load in the same context
        names = {name for _, name in page.replicas if name}
        assert names == {cluster.replica_of(page.context)}, names
    assert {cluster.replica_of(p.context) for p in pages} == {"r1", "r2"}  # leastconn spreads open sessions
    for page in pages:
        page.context.close()


def test_a_pinned_browser_reaches_the_replica_it_names_over_its_websocket(chromium, cluster):
    from websockets.sync.client import connect

    page = open_page(chromium, cluster, "/overview", pin="r2")
    assert {name for _, name in page.replicas if name} == {"r2"}
    page.context.close()

    def upgrade(cookie: str) -> str:
        """The replica that answers a WebSocket upgrade carrying the proxy's cookie (the 101 response's header)."""
        url = cluster.url.replace("http", "ws", 1) + "/_stcore/stream"
        with connect(url, subprotocols=["streamlit"], additional_headers={"Cookie": f"{COOKIE}={cookie}"}) as ws:
            return ws.response.headers[HEADER]

    assert [upgrade("r1") for _ in range(3)] == ["r1"] * 3
    assert [upgrade("r2") for _ in range(3)] == ["r2"] * 3


def test_a_room_opened_on_one_replica_is_followed_from_the_other(chromium, cluster):
    """The lecturer on r1, a student on r2: the room lives in the rooms file both replicas read, so the student's
    window moves when the lecturer's key moves the room, and cannot move it."""
    from posviz.lecture import STEPS
    from posviz.lecture.rooms import Rooms, show_code

    store = Rooms(cluster.rooms_db)
    room, secret = store.open(1, {})
    code = show_code(room.code)
    lecturer = open_page(chromium, cluster, f"/lecture?room={code}&secret={secret}&presenter=true", pin="r1")
    student = open_page(chromium, cluster, f"/lecture?room={code}", pin="r2")
    assert cluster.replica_of(lecturer.context) == "r1" and cluster.replica_of(student.context) == "r2"

    def on_step(page, step: int) -> None:
        page.wait_for_function(
            "t => document.body.innerText.includes(t)", arg=f"step {step} / {len(STEPS)} ·", timeout=15_000
        )

    on_step(student, 1)
    lecturer.keyboard.press("PageDown")
    on_step(lecturer, 2)
    on_step(student, 2)  # moved by a write on r1, read on r2
    assert store.get(room.code).step == 2
    student.keyboard.press("PageDown")  # the student explores: the room stays where the lecturer left it
    on_step(student, 3)
    student.wait_for_timeout(2_500)  # more than a poll
    assert store.get(room.code).step == 2
    no_exception(lecturer)
    no_exception(student)
    lecturer.context.close()
    student.context.close()


def test_a_killed_replica_s_browser_keeps_its_page_and_runs_on_a_live_one(chromium, cluster):
    from tests.harness import settle

    page = open_page(chromium, cluster, LINK)
    causal = page.get_by_test_id(SIDEBAR).locator("[data-testid='stCheckbox']").filter(has_text="causal mask")
    causal.click()
    settle(page)
    assert page.url.endswith(LINK + "&causal=true")
    dead = cluster.replica_of(page.context)
    old_pid = cluster.kill(dead)
    killed = time.monotonic()

    deadline = killed + 30
    while len(page.sockets) < 2 and time.monotonic() < deadline:  # Streamlit's frontend reconnects by itself
        page.wait_for_timeout(200)
    assert len(page.sockets) == 2, "the page did not reconnect within 30 s"
    settle(page)
    # The page stayed on screen with its link; the reconnect went to the live replica, with a new cookie.
    assert page.url.endswith(LINK + "&causal=true")
    assert causal.locator("input").is_checked()
    live = cluster.replica_of(page.context)
    if live == dead:  # the supervisor had the killed replica back before the browser reconnected: a new process
        assert next(r for r in cluster.replicas if r.name == dead).pid != old_pid
    assert {name for t, name in page.replicas if t > killed and name} == {live}

    # The next script runs are the live replica's: a new session, seeded from the URL (the first change after
    # the reconnect is replaced by the link's value, measured), then every change works as before.
    for _ in range(2):
        causal.click()
        settle(page)
    causal.click()
    settle(page)
    no_exception(page)
    assert "T=32" in page.url and "position=sinusoidal" in page.url
    assert causal.locator("input").is_checked() == page.url.endswith("causal=true")
    page.context.close()

    restarted = cluster.wait_healthy(dead)  # the supervisor started the killed replica again
    assert restarted.pid != old_pid and restarted.restarts == 1
