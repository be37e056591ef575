"""Questions to the room: the lecturer asks and reveals, followers answer once each from the light page, bounded."""

from __future__ import annotations

import json
import os
import time

import pyarrow as pa
import pytest
from starlette.applications import Starlette
from starlette.testclient import TestClient

import hall
from posviz.lecture import STEPS, follow, notes, rooms
from posviz.lecture.rooms import KEEP, MAX_ANSWERS, Question, Rooms, show_code
from tests.test_rooms import redis_url  # noqa: F401 (the module's redis-server, for the Redis store)


@pytest.fixture(params=["sqlite", "redis"])
def store(request, tmp_path):
    """A store of either kind: every store test here runs on SQLite and on Redis (tests.test_rooms's redis_url)."""
    if request.param == "sqlite":
        return Rooms(tmp_path / "rooms.sqlite3")
    from posviz.lecture.rooms_redis import RedisRooms

    url = request.getfixturevalue("redis_url")
    RedisRooms(url).client.flushdb()
    return RedisRooms(url)


@pytest.fixture
def client(store):
    quick = follow.Renderer(render=lambda s: f"<section class='step'>step {s.step}</section>")
    return TestClient(Starlette(routes=[hall.Hall(lambda: store, base_url_path="", renderer=quick)]))


def test_a_follower_answers_once_a_second_answer_replaces_the_first(store):
    room, secret = store.open(3, {})
    asked = store.ask(room.code, secret, 3, "Which way?", ["left", "right", "both"])
    one, two = store.token(room.code), store.token(room.code)
    assert store.answer(room.code, one, asked.id, 0) == 1
    assert store.answer(room.code, one, asked.id, 2) == 1  # the same follower: replaced, not counted again
    assert store.answer(room.code, two, asked.id, 2) == 2
    assert store.question(room.code).count == 2 and store.question(room.code).values == ()  # not revealed yet
    store.reveal(room.code, secret)
    shown = store.question(room.code)
    assert shown.revealed and sorted(shown.values) == [2.0, 2.0]
    assert shown.bars() == [("left", 0), ("right", 0), ("both", 2)]
    with pytest.raises(LookupError, match="not open"):  # revealed: no more answers
        store.answer(room.code, store.token(room.code), asked.id, 1)


def test_a_new_question_replaces_the_last_with_its_answers_and_an_old_id_is_refused(store):
    room, secret = store.open(1, {})
    first = store.ask(room.code, secret, 1, "How many?", low=0, high=4)
    token = store.token(room.code)
    store.answer(room.code, token, first.id, 3)
    second = store.ask(room.code, secret, 2, "Again?", ["yes", "no"])
    assert second.id == first.id + 1 and store.question(room.code).count == 0
    with pytest.raises(LookupError):
        store.answer(room.code, token, first.id, 1)
    store.withdraw(room.code, secret)
    assert store.question(room.code) is None


def test_only_the_lecturers_secret_asks_reveals_or_withdraws(store):
    room, secret = store.open(1, {})
    other, _ = store.open(1, {})
    token = store.token(room.code)
    for wrong in ("x" * 32, token, store.token(other.code)):  # a follower holds a token, never the secret
        with pytest.raises(PermissionError):
            store.ask(room.code, wrong, 1, "Mine?", ["a", "b"])
    store.ask(room.code, secret, 1, "Real?", ["a", "b"])
    for action in (store.reveal, store.withdraw):
        with pytest.raises(PermissionError):
            action(room.code, token)
    assert store.question(room.code).state == "open"


@pytest.mark.parametrize(
    ("raw", "why"),
    [(3, "index from 0 to 2"), (-1, "index"), (1.0, "index"), (True, "got bool"), ("1", "got str"), (None, "got")],
)
def test_an_answer_out_of_bounds_is_a_value_error_saying_what_was_expected(store, raw, why):
    room, secret = store.open(1, {})
    asked = store.ask(room.code, secret, 1, "Pick", ["a", "b", "c"])
    with pytest.raises(ValueError, match=why):
        store.answer(room.code, store.token(room.code), asked.id, raw)


@pytest.mark.parametrize("raw", [-0.5, 10.5, float("nan"), float("inf"), 1e300])
def test_a_number_answer_outside_its_range_is_refused(store, raw):
    room, secret = store.open(1, {})
    asked = store.ask(room.code, secret, 1, "Guess", low=0, high=10)
    with pytest.raises(ValueError, match="from 0 to 10"):
        store.answer(room.code, store.token(room.code), asked.id, raw)
    assert store.answer(room.code, store.token(room.code), asked.id, 9.5) == 1


@pytest.mark.parametrize(
    ("text", "choices", "low", "high", "why"),
    [
        ("", ["a", "b"], None, None, "empty"),
        ("q" * 301, ["a", "b"], None, None, "at most 300"),
        ("q", ["a"], None, None, "2 to 6 choices"),
        ("q", list("abcdefg"), None, None, "2 to 6 choices"),
        ("q", ["a", "b" * 61], None, None, "at most 60"),
        ("q", [], None, None, "range"),
        ("q", [], 5, 5, "low < high"),
        ("q", [], 0, 1e12, "low < high"),
    ],
)
def test_a_question_past_its_caps_is_refused(store, text, choices, low, high, why):
    room, secret = store.open(1, {})
    with pytest.raises(ValueError, match=why):
        store.ask(room.code, secret, 1, text, choices, low, high)


def test_a_forged_or_another_rooms_token_is_refused(store):
    room, secret = store.open(1, {})
    other, _ = store.open(1, {})
    asked = store.ask(room.code, secret, 1, "Pick", ["a", "b"])
    good = store.token(room.code)
    nonce, mac = good.split(".")
    for bad in (store.token(other.code), f"{nonce}.{'0' * 32}", f"{'A' * 16}.{mac}", "", "x" * 500, None, 7):
        with pytest.raises(PermissionError):
            store.answer(room.code, bad, asked.id, 0)


def test_answers_are_bounded_in_count(store, monkeypatch):
    monkeypatch.setattr(rooms, "MAX_ANSWERS", 3)
    room, secret = store.open(1, {})
    asked = store.ask(room.code, secret, 1, "Pick", ["a", "b"])
    tokens = [store.token(room.code) for _ in range(4)]
    for token in tokens[:3]:
        store.answer(room.code, token, asked.id, 1)
    with pytest.raises(ValueError, match="its 3 answers"):
        store.answer(room.code, tokens[3], asked.id, 0)
    assert store.answer(room.code, tokens[0], asked.id, 0) == 3  # changing one's answer is still allowed
    assert MAX_ANSWERS == 1000


def test_answers_sent_at_once_are_each_counted_once(store):
    from concurrent.futures import ThreadPoolExecutor

    room, secret = store.open(1, {})
    asked = store.ask(room.code, secret, 1, "Pick", ["a", "b", "c"])
    tokens = [store.token(room.code) for _ in range(30)]
    sent = [(token, k % 3) for k, token in enumerate(tokens)] + [(token, 0) for token in tokens[:10]]  # 10 changed
    with ThreadPoolExecutor(8) as pool:
        list(pool.map(lambda item: store.answer(room.code, item[0], asked.id, item[1]), sent))
    assert store.question(room.code).count == 30
    store.reveal(room.code, secret)
    assert len(store.question(room.code).values) == 30


def test_questions_and_answers_are_deleted_with_the_room(store, monkeypatch):
    room, secret = store.open(1, {}, now=1000.0)
    asked = store.ask(room.code, secret, 1, "Pick", ["a", "b"], now=1001.0)
    store.answer(room.code, store.token(room.code), asked.id, 1, now=1002.0)
    if isinstance(store, Rooms):
        store.end(room.code, secret, now=1003.0)
        store.open(1, {}, now=1003.0 + KEEP + 1)  # any write purges what expired
        held = store._run(
            lambda db: [db.execute(f"SELECT COUNT(*) FROM {t}").fetchone()[0] for t in ("questions", "answers")]
        )
        assert held == [0, 0] and store.get(room.code) is None
        return
    from posviz.lecture import rooms_redis

    keys = [store._key(kind, room.code) for kind in ("room", "question", "answers")]
    assert store.client.exists(*keys) == 3
    assert store.question(room.code, now=1001.0 + store.idle + KEEP) is None  # past its keeping: gone to a reader
    monkeypatch.setattr(rooms_redis, "KEEP", 0)  # Redis drops a room's keys together, at its key's TTL
    store.end(room.code, secret, now=1003.0)
    ttls = [store.client.ttl(key) for key in keys]
    assert ttls == [1, 1, 1]
    deadline = time.monotonic() + 5
    while store.client.exists(*keys) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert store.client.exists(*keys) == 0


def test_a_number_questions_bars_are_bins_of_its_range():
    small = Question("C", 1, 1, "?", (), 1, 5, "revealed", 3, (1.0, 1.0, 5.0))
    assert small.bars() == [("1", 2), ("2", 0), ("3", 0), ("4", 0), ("5", 1)]
    wide = Question("C", 1, 1, "?", (), 0, 1, "revealed", 3, (0.0, 0.55, 1.0))
    bars = wide.bars()
    assert len(bars) == 10 and sum(n for _, n in bars) == 3 and bars[-1][1] == 1 and bars[5][1] == 1


# -- the routes ---------------------------------------------------------------------------------------------------
def _token(client, code) -> str:
    page = client.get(f"/follow/{show_code(code)}").text
    return page.split("data-token='")[1].split("'")[0]


def test_a_follower_answers_through_the_route_with_the_token_its_page_gave(store, client):
    room, secret = store.open(1, {})
    asked = store.ask(room.code, secret, 1, "Pick", ["a", "b"])
    token = _token(client, room.code)
    sent = client.post(f"/follow/{room.code}/answer", json={"token": token, "question": asked.id, "answer": 1})
    assert sent.status_code == 200 and sent.text == "1 answered\n"
    again = client.post(f"/follow/{room.code}/answer", json={"token": token, "question": asked.id, "answer": 0})
    assert again.text == "1 answered\n" and store.question(room.code).count == 1
    assert secret not in client.get(f"/follow/{room.code}").text


@pytest.mark.parametrize(
    "body",
    [
        b"",
        b"not json",
        b"[1, 2]",
        b'{"token": "t", "question": 1}',
        b'{"token": "t", "question": 1, "answer": 0, "more": 1}',
        b'{"token": "T", "question": "1", "answer": 0}',
        b'{"token": "T", "question": true, "answer": 0}',
        b'{"token": "T", "question": 1, "answer": 9}',
        b'{"token": "T", "question": 1, "answer": "<script>"}',
        b'{"token": "T", "question": 1, "answer": [0]}',
        b'{"token": "T", "question": 1, "answer": 0.5}',
        b'{"token": "T", "question": 1, "answer": 0}' + b" " * 600,
    ],
)
def test_a_hostile_answer_gets_a_400_with_a_plain_sentence(store, client, body):
    room, secret = store.open(1, {})
    store.ask(room.code, secret, 1, "Pick", ["a", "b"])
    body = body.replace(b'"T"', json.dumps(_token(client, room.code)).encode())
    response = client.post(f"/follow/{room.code}/answer", content=body)
    assert response.status_code == 400, response.text
    assert response.headers["content-type"].startswith("text/plain") and "Traceback" not in response.text
    assert store.question(room.code).count == 0


def test_a_forged_token_gets_a_403_a_closed_question_a_409_and_followers_cannot_ask(store, client):
    room, secret = store.open(1, {})
    asked = store.ask(room.code, secret, 1, "Pick", ["a", "b"])
    forged = {"token": "A" * 16 + "." + "0" * 32, "question": asked.id, "answer": 0}
    assert client.post(f"/follow/{room.code}/answer", json=forged).status_code == 403
    token = _token(client, room.code)
    store.reveal(room.code, secret)
    late = client.post(f"/follow/{room.code}/answer", json={"token": token, "question": asked.id, "answer": 0})
    assert late.status_code == 409 and "not open" in late.text
    assert client.post("/follow/BADCODE/answer", json=forged).status_code == 404
    for path in ("ask", "reveal", "question", "answer/x"):  # no route opens or reveals: only the lecturer's window
        assert client.post(f"/follow/{room.code}/{path}", json={"secret": secret}).status_code in (404, 405)
    assert client.get(f"/follow/{room.code}/answer").status_code in (404, 405)


def test_the_watcher_sends_the_question_its_count_and_the_reveal_to_listeners(store):
    import asyncio

    room, secret = store.open(1, {})
    route = hall.Hall(lambda: store, base_url_path="", renderer=follow.Renderer(render=lambda s: "<p>x</p>"))
    listener = hall.Listener(False)
    route.listeners[room.code] = {listener}

    def sent() -> dict | None | str:
        asyncio.run(route.once())
        data = listener.latest.pop("question", None)
        return "nothing" if data is None else json.loads(data.decode().split("data: ", 1)[1])

    assert sent() == "nothing"  # no question: no event
    asked = store.ask(room.code, secret, 1, "Pick", ["a", "b"])
    assert sent() == {**asked.public(), "count": 0}
    assert sent() == "nothing"  # nothing changed
    store.answer(room.code, store.token(room.code), asked.id, 1)
    assert sent()["count"] == 1
    store.reveal(room.code, secret)
    assert sent()["bars"] == [["a", 0], ["b", 1]]
    store.withdraw(room.code, secret)
    assert sent() is None and route.asked == {}  # withdrawn: the event that hides it
    assert sent() == "nothing"


# -- the lecture page (AppTest) -------------------------------------------------------------------------------------
def shown(at) -> str:
    return " ".join(e.proto.body for e in at.get("html"))


def answers_chart(at) -> list:
    return [c for c in at.get("vega_lite_chart") if '"answered"' in c.proto.spec]


@pytest.fixture
def env_store(tmp_path, monkeypatch):
    monkeypatch.setenv("POSVIZ_ROOMS_DB", str(tmp_path / "rooms.sqlite3"))
    return Rooms()


def test_the_speaker_view_asks_the_notes_question_and_reveals_and_the_projected_step_shows_the_count(env_store):
    from tests.test_hostile import assert_safe
    from tests.test_rooms_app import run, texts

    store = env_store
    room, secret = store.open(2, {})
    speaker = run({"room": room.code, "secret": secret, "speaker": "1"})
    assert_safe(speaker)
    assert speaker.text_area(key="ask-text-speaker").value == notes.note(STEPS[1].key).ask  # from the notes
    speaker.radio(key="ask-kind-speaker").set_value("a number")
    speaker.number_input(key="ask-low-speaker").set_value(1.0)
    speaker.number_input(key="ask-high-speaker").set_value(5.0)
    speaker.button(key="FormSubmitter:ask-form-speaker-Ask the class").click().run()
    assert_safe(speaker)
    asked = store.question(room.code)
    assert (asked.step, asked.choices, asked.low, asked.high, asked.state) == (2, (), 1.0, 5.0, "open")
    for value in (4, 4, 2):
        store.answer(room.code, store.token(room.code), asked.id, value)
    projected = run({"room": room.code, "secret": secret, "presenter": "true"})
    assert_safe(projected)
    assert "<b>3 answered</b>" in shown(projected) and not answers_chart(projected)
    speaker.run()
    assert "3 answered" in texts(speaker)
    speaker.button(key="ask-reveal-speaker").click().run()
    assert store.question(room.code).revealed
    projected.run()
    chart = answers_chart(projected)
    assert len(chart) == 1 and "<b>3 answered</b> · the class's answers" in shown(projected)
    spec = json.loads(chart[0].proto.spec)
    assert spec["config"]["axis"]["labelFontSize"] == 20  # the hall's sizes in presenter mode
    frame = pa.ipc.open_stream(chart[0].proto.datasets[0].data.data).read_pandas()
    counts = dict(zip(frame["answer"], frame["answered"], strict=True))
    assert counts == {"1": 0, "2": 1, "3": 0, "4": 2, "5": 0}
    follower = run({"room": room.code})  # a follower's window: no question form, no count, no chart
    assert_safe(follower)
    assert not answers_chart(follower) and "answered" not in texts(follower) + shown(follower)
    assert not [f for f in follower.get("form")]


def test_a_question_past_its_caps_gets_a_note_and_is_not_asked(env_store):
    from tests.test_hostile import assert_safe
    from tests.test_rooms_app import run, warnings

    room, secret = env_store.open(1, {})
    speaker = run({"room": room.code, "secret": secret, "speaker": "1"})
    speaker.text_area(key="ask-choices-speaker").set_value("only one")
    speaker.button(key="FormSubmitter:ask-form-speaker-Ask the class").click().run()
    assert_safe(speaker)
    assert "The question was not asked: expected 2 to 6 choices, got 1" in warnings(speaker)
    assert env_store.question(room.code) is None


# -- in Chromium ----------------------------------------------------------------------------------------------------
@pytest.mark.browser
def test_a_phone_answers_the_lecturers_question_and_the_projected_step_counts_and_reveals_it(tmp_path_factory):
    from tests.harness import browser, serve
    from tests.test_browser import FIRST
    from tests.test_rooms_browser import clean, on_step, window

    path = str(tmp_path_factory.mktemp("ask") / "rooms.sqlite3")
    before = os.environ.get("POSVIZ_ROOMS_DB")
    os.environ["POSVIZ_ROOMS_DB"] = path
    try:
        with serve() as (base, _), browser() as b:
            app = (base, b, Rooms(path))
            room, secret = app[2].open(2, {})
            lecturer = f"/lecture?room={room.code}&secret={secret}"
            projected = window(app, lecturer + "&presenter=true")
            speaker = window(app, lecturer + "&speaker=1", size=(1280, 900))
            phone = b.new_context(viewport={"width": 390, "height": 844}).new_page()  # the light page: no Streamlit
            phone.errors = []
            phone.on("pageerror", lambda error: phone.errors.append(str(error)))
            phone.goto(f"{base}/follow/{show_code(room.code)}")
            on_step(projected, 2)
            speaker.get_by_role("button", name="Ask the class").click()  # the form's, with the notes' question
            phone.locator("#ask").wait_for(state="visible", timeout=8_000)
            assert phone.locator("#ask-text").inner_text() == notes.note(STEPS[1].key).ask
            phone.get_by_role("button", name="Yes").click()
            phone.wait_for_function("() => document.getElementById('ask-count').innerText.includes('Your answer')")
            phone.get_by_role("button", name="No").click()  # a second answer replaces the first
            phone.wait_for_function("() => document.querySelector('#ask button.mine')?.innerText === 'No'")
            projected.locator(".room-question").get_by_text("1 answered").wait_for(timeout=8_000)
            speaker.get_by_text("1 answered").first.wait_for(timeout=8_000)
            speaker.get_by_role("button", name="Reveal").click()
            projected.locator(".room-question").wait_for(timeout=8_000)
            projected.get_by_text("the class's answers").wait_for(timeout=8_000)
            sizes = projected.evaluate(
                "() => [...document.querySelectorAll('.room-question div')].map(p => getComputedStyle(p).fontSize)"
            )
            assert sizes and all(float(size.removesuffix("px")) >= 20 for size in sizes), sizes
            chart = projected.locator("[data-testid='stVegaLiteChart']").filter(has_text="answered")
            chart.first.wait_for(timeout=8_000)
            phone.get_by_text("1 answered · revealed").wait_for(timeout=8_000)
            assert phone.locator("#ask .row").count() == 2
            width = phone.evaluate("() => [document.documentElement.scrollWidth, innerWidth]")
            assert width[0] <= width[1]  # no sideways scroll on the phone
            box = chart.first.bounding_box()
            assert box["y"] + box["height"] <= 720 + 1  # the class's answers on the projected screen
            projected.wait_for_timeout(1_500)  # the step's figures drawn beside the answers
            figures = [f.bounding_box() for f in projected.locator(FIRST).all()]
            assert len(figures) >= 2 and all(f["y"] + f["height"] <= 720 + 1 for f in figures), figures  # on screen
            for name, page in (("projected", projected), ("speaker", speaker), ("phone", phone)):
                page.screenshot(path=str(tmp_path_factory.getbasetemp() / f"ask-{name}.png"))
            clean(projected, speaker)
            assert not phone.errors and not projected.errors
    finally:
        if before is None:
            del os.environ["POSVIZ_ROOMS_DB"]
        else:
            os.environ["POSVIZ_ROOMS_DB"] = before


def test_the_lecturers_sidebar_asks_too_and_a_live_page_follower_has_no_way_to(env_store):
    from tests.test_hostile import assert_safe
    from tests.test_rooms_app import run

    room, secret = env_store.open(3, {})
    projected = run({"room": room.code, "secret": secret})
    projected.sidebar.button(key="room-ask").click().run()
    assert_safe(projected)
    assert projected.text_area(key="ask-text-dialog").value == notes.note(STEPS[2].key).ask  # the dialog, open
    follower = run({"room": room.code, "secret": "A" * 32})  # a wrong secret: following, no sidebar panel
    assert_safe(follower)
    assert not [b for b in follower.sidebar.button if b.key == "room-ask"]


def test_a_store_without_questions_still_serves_the_follow_page_and_moves_its_followers(store):
    import asyncio

    class Older:  # a store with only the rooms' methods (another backend may not have questions yet)
        get, many, report = store.get, store.many, store.report

    room, secret = store.open(1, {})
    route = hall.Hall(lambda: Older(), base_url_path="", renderer=follow.Renderer(render=lambda s: f"<p>{s.step}</p>"))
    page = TestClient(Starlette(routes=[route])).get(f"/follow/{room.code}")
    assert page.status_code == 200 and "data-token=''" in page.text
    listener = hall.Listener(False)
    route.listeners[room.code] = {listener}
    store.move(room.code, secret, 2, {})
    asyncio.run(route.once())
    assert b'"step": 2' in listener.latest["step"] and "question" not in listener.latest
