"""The light follow channel: one render per move for any number of followers, the event stream, 404s, the count."""

from __future__ import annotations

import asyncio
import json
import socket
import threading
import time

import pytest
from starlette.applications import Starlette
from starlette.testclient import TestClient

import hall
from posviz.lecture import STEPS, decks, follow
from posviz.lecture.rooms import Rooms, show_code

N = len(STEPS)


@pytest.fixture
def store(tmp_path):
    return Rooms(tmp_path / "rooms.sqlite3")


@pytest.fixture
def quick():
    """A renderer that writes a step's place, key and values without the figures (the route tests need no SVG)."""

    def render(state: follow.State) -> str:
        place, total, entry = state.where()
        return f"<section class='step'>step {place} / {total} · {entry.key} {dict(entry.presets)}</section>"

    return follow.Renderer(render=render)


def hall_of(store, quick=None, **kw) -> hall.Hall:
    return hall.Hall(lambda: store, base_url_path="", renderer=quick, **kw)


def test_a_state_reads_the_decks_presets_and_the_rooms_controls_and_clamps_the_step():
    state = follow.State.of("shuffle,ramp:scale=0.3", 9, {"ramp_scale": "1.2"})
    place, total, entry = state.where()
    assert (place, total, entry.key) == (2, 2, "ramp")
    assert dict(entry.presets)["scale"] == 1.2  # the room's value over the deck's preset
    unshown = follow.State.of("shuffle,ramp:scale=0.3", 2, {}).where()[2]
    assert dict(unshown.presets)["scale"] == 0.3  # a step the lecturer has not set: the deck's preset
    wrong = follow.State.of("shuffle,ramp:scale=0.3", 2, {"ramp_scale": "7"}).where()[2]
    assert dict(wrong.presets)["scale"] == 0.3  # a value not among the options is left at the preset


def test_explore_opens_the_live_page_at_the_step_and_settings():
    query = follow.State.of("shuffle,ramp:scale=0.3", 2, {"ramp_scale": "1.2"}).explore()
    assert query == "step=2&steps=shuffle%2Cramp%3Ascale%3D0.3&ramp_scale=1.2"
    assert follow.State.of("", 1, {}).explore() == "step=1&shuffle_seed=42"  # every control, defaults too


def test_the_renderer_draws_a_move_once_for_many_listeners():
    calls = []
    renderer = follow.Renderer(render=lambda s: calls.append(s) or f"<p>{s.step}</p>")
    state = follow.State.of("", 3, {})
    threads = [threading.Thread(target=renderer, args=(state,)) for _ in range(50)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert calls == [state] and renderer.renders == 1
    renderer(follow.State.of("", 4, {}))
    assert renderer.renders == 2


def test_the_renderer_keeps_only_its_size_and_draws_an_evicted_state_again():
    renderer = follow.Renderer(size=2, render=lambda s: str(s.step))
    for step in (1, 2, 3, 1):
        renderer(follow.State.of("", step, {}))
    assert renderer.renders == 4


def test_a_rendered_step_is_the_offline_copys_section_shown_with_its_number():
    html = follow.render(follow.State.of("ramp", 1, {}))
    assert html.startswith("<section class='step' id='step-1' data-key='ramp'>") and " hidden" not in html[:80]
    assert "step 1 / 1" in html and "<svg" in html


@pytest.mark.parametrize("code", ["nope", "AAAAAAAAAA", "AB<script>", "abcde-fghjk", "x" * 64])
def test_an_unknown_or_forged_code_gets_a_404_with_a_plain_sentence(store, quick, code):
    client = TestClient(Starlette(routes=[hall_of(store, quick)]))
    for path in (f"/follow/{code}", f"/follow/{code}/events"):
        response = client.get(path)
        assert response.status_code == 404, path
        assert response.headers["content-type"].startswith("text/plain")
        assert response.text.startswith(("No such room: expected", "There is no room")), response.text
        assert "Traceback" not in response.text and "<" not in response.text.replace("'AB<script>'", "")


def test_the_follow_page_shows_the_rooms_step_with_explore_and_no_secret(store, quick):
    room, secret = store.open(2, {}, "shuffle,ramp:scale=0.3")
    client = TestClient(Starlette(routes=[hall_of(store, quick)]))
    response = client.get(f"/follow/{show_code(room.code)}")
    assert response.status_code == 200 and "step 2 / 2 · ramp {'scale': 0.3}" in response.text
    assert "../lecture?step=2&amp;steps=shuffle%2Cramp%3Ascale%3D0.3&amp;ramp_scale=0.3&amp;follow=" in response.text
    assert secret not in response.text
    assert (
        response.headers["referrer-policy"] == "no-referrer"
        and "default-src 'none'" in (response.headers["content-security-policy"])
    )
    store.end(room.code, secret)
    assert client.get(f"/follow/{room.code}").status_code == 410


def _sse(port: int, path: str) -> socket.socket:
    sock = socket.create_connection(("127.0.0.1", port), timeout=10)
    sock.sendall(f"GET {path} HTTP/1.1\r\nHost: test\r\n\r\n".encode())
    return sock


def _until(sock: socket.socket, marker: bytes, got: bytearray) -> bytes:
    while marker not in got:
        chunk = sock.recv(65536)
        assert chunk, f"the stream closed before {marker!r}"
        got += chunk
    return bytes(got)


def test_the_event_stream_sends_each_move_once_rendered_to_every_listener_and_counts_them(store, quick):
    import uvicorn

    room, secret = store.open(1, {})
    route = hall_of(store, quick, tick=0.05)
    server = uvicorn.Server(uvicorn.Config(Starlette(routes=[route]), host="127.0.0.1", port=0, log_level="error"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    while not server.started:
        time.sleep(0.02)
    port = server.servers[0].sockets[0].getsockname()[1]
    follows = [_sse(port, f"/follow/{room.code}/events") for _ in range(12)]
    explorer = _sse(port, f"/follow/{room.code}/events?explore=1")
    streams = [bytearray() for _ in follows]
    try:
        for sock, got in zip(follows, streams, strict=True):
            assert "text/event-stream" in _until(sock, b"id: 1\n", got).decode()
        deadline = time.monotonic() + 5
        while store.audience(room.code) != (12, 1) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert store.audience(room.code) == (12, 1)
        before = quick.renders
        store.move(room.code, secret, 4, {})
        for sock, got in zip(follows, streams, strict=True):
            text = _until(sock, b"id: 2\n", got).split(b"id: 2\n")[1].split(b"\n\n")[0]
            assert json.loads(text.removeprefix(b"data: "))["step"] == 4
        assert quick.renders - before == 1  # one render for the move, thirteen listeners
        for sock in follows[:5]:
            sock.close()
        deadline = time.monotonic() + 5  # the server reads the disconnect and ends the stream
        while store.audience(room.code) != (7, 1) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert store.audience(room.code) == (7, 1)
        store.end(room.code, secret)
        _until(follows[5], b"event: ended", streams[5])
    finally:
        for sock in (*follows, explorer):
            sock.close()
        server.should_exit = True
        thread.join(10)


def test_the_audience_sums_processes_and_forgets_a_stale_report(store):
    room, _ = store.open(1, {})
    store.report("a", {room.code: (3, 1)}, now=1000.0)
    store.report("b", {room.code: (2, 0)}, now=1010.0)
    assert store.audience(room.code, now=1015.0) == (5, 1)
    assert store.audience(room.code, now=1035.0) == (2, 0)  # a's report is older than AUDIENCE_TTL
    store.report("b", {}, now=1036.0)
    assert store.audience(room.code, now=1036.0) == (0, 0)


def test_a_deck_string_reaches_the_state_unchanged():
    text = decks.encode(decks.read("shuffle,ramp:scale=0.3"))
    assert follow.State.of(text, 1, {}).steps == text


def test_the_hall_runs_no_watcher_without_listeners(store):
    route = hall_of(store)
    assert route._watcher is None and route.counts() == {}
    asyncio.run(route.once())  # nothing to read


def test_an_explorer_on_the_live_page_sees_the_lecturers_step_and_the_way_back_and_moves_nothing(tmp_path, monkeypatch):
    from tests.test_hostile import assert_safe
    from tests.test_rooms_app import run

    monkeypatch.setenv("POSVIZ_ROOMS_DB", str(tmp_path / "rooms.sqlite3"))
    rooms = Rooms()
    room, _ = rooms.open(4, {})
    at = run({"step": "2", "follow": show_code(room.code)})
    assert_safe(at)
    html = " ".join(str(e.proto) for e in at.get("html"))
    assert "step 4" in html and f"follow/{show_code(room.code)}" in html and "Back to the lecturer" in html
    assert any(f"step 2 / {N} ·" in c.value for c in at.caption)  # exploring: the link's step, not the room's
    assert rooms.get(room.code).version == 1
    for value in ("<script>alert(1)</script>", "ABCDE-FGHJK"):
        at = run({"follow": value})
        assert_safe(at)
        words = " ".join(w.value for w in at.warning)
        assert "Back to the lecturer" not in " ".join(str(e.proto) for e in at.get("html"))
        assert "there is no room to go back to" in words or "there is no such room" in words


def test_the_follow_routes_move_with_the_servers_base_url_path(store, quick):
    room, _ = store.open(1, {})
    client = TestClient(Starlette(routes=[hall.Hall(lambda: store, base_url_path="/posviz/", renderer=quick)]))
    assert client.get(f"/posviz/follow/{room.code}").status_code == 200
    assert client.get(f"/follow/{room.code}").status_code == 404  # Starlette's own 404: not our route
    assert client.post(f"/posviz/follow/{room.code}").status_code in (404, 405)
