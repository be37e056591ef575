"""A room followed across two replicas that share Redis (POSVIZ_ROOMS_REDIS): two app servers, one redis-server.

Each replica is a whole `streamlit run streamlit_app.py` (tests.harness.serve) with its own light follow channel
(hall.py); nothing joins them but Redis. A follower's event stream on one replica receives the move made through the
other, and the lecturer's window reads the followers of both.
"""

from __future__ import annotations

import json
import time
import urllib.request

import pytest

from posviz.lecture.rooms import show_code
from tests.harness import redis_missing
from tests.test_follow import _sse, _until

pytestmark = pytest.mark.skipif(bool(redis_missing()), reason=redis_missing() or "")


@pytest.fixture(scope="module")
def replicas(tmp_path_factory):
    """(store, base URL of replica A, base URL of replica B): two servers on one throwaway Redis, no SQLite file."""
    from posviz.lecture.rooms_redis import ENV, RedisRooms
    from tests.harness import redis_server, serve

    folder = tmp_path_factory.mktemp("redis")
    unused = str(folder / "unused.sqlite3")  # were a replica to fall back to SQLite, it would not share this
    with redis_server(folder) as url:
        with serve(env={ENV: url, "POSVIZ_ROOMS_DB": unused}) as (a, _), serve(env={ENV: url}) as (b, _):
            yield RedisRooms(url), a, b
        assert not (folder / "unused.sqlite3").exists()


def _step(sock, got: bytearray, version: int) -> int:
    """Read the stream until the whole event with this version (its id) has come; the step it carries."""
    marker = f"id: {version}\n".encode()
    _until(sock, marker, got)
    while b"\n\n" not in got.split(marker)[1]:
        chunk = sock.recv(65536)
        assert chunk, "the stream closed inside an event"
        got += chunk
    text = got.split(marker)[1].split(b"\n\n")[0]
    return json.loads(text.removeprefix(b"data: "))["step"]


def test_a_move_reaches_followers_on_both_replicas_and_the_count_adds_them(replicas):
    store, a, b = replicas
    room, secret = store.open(1, {})
    for base in (a, b):  # either replica serves the room's light page from Redis
        with urllib.request.urlopen(f"{base}/follow/{room.code}", timeout=30) as page:
            assert show_code(room.code) in page.read().decode()
    port = {base: int(base.rsplit(":", 1)[1]) for base in (a, b)}
    on_a, on_b = _sse(port[a], f"/follow/{room.code}/events"), _sse(port[b], f"/follow/{room.code}/events?explore=1")
    got = {on_a: bytearray(), on_b: bytearray()}
    try:
        for sock in got:
            assert _step(sock, got[sock], 1) == 1
        deadline = time.monotonic() + 20  # each replica reports its own listeners; the store sums both
        while store.audience(room.code) != (1, 1) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert store.audience(room.code) == (1, 1)
        moved = time.monotonic()
        store.move(room.code, secret, 4, {"ramp_scale": "1.2"})
        for sock in got:
            assert _step(sock, got[sock], 2) == 4
        assert time.monotonic() - moved < 10
        store.end(room.code, secret)
        for sock in got:
            _until(sock, b"event: ended", got[sock])
    finally:
        for sock in got:
            sock.close()


@pytest.mark.browser
def test_the_lecturer_moves_in_chromium_on_one_replica_and_a_follower_on_the_other_sees_it(replicas):
    from tests.harness import browser, chromium_path, settle

    if chromium_path() is None:
        pytest.skip("Debian's chromium is not installed (apt-get install chromium)")
    store, a, b = replicas
    room, secret = store.open(1, {})
    follower = _sse(int(b.rsplit(":", 1)[1]), f"/follow/{room.code}/events")
    got = bytearray()
    try:
        assert _step(follower, got, 1) == 1
        with browser() as chromium:
            lecturer = chromium.new_context(viewport={"width": 1280, "height": 720}).new_page()
            lecturer.goto(f"{a}/lecture?room={show_code(room.code)}&secret={secret}&presenter=true")
            settle(lecturer)
            lecturer.wait_for_function("() => !location.search.includes('secret=')")  # the room is joined
            lecturer.keyboard.press("PageDown")
            assert _step(follower, got, 2) == 2  # written to Redis by replica A, sent by replica B's watcher
            assert store.get(room.code).step == 2
            lecturer.context.close()
    finally:
        follower.close()
