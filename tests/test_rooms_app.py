"""The room on the lecture page, run with AppTest: hostile room links fall back to the plain lecture with a note,
a wrong secret follows without moving the room, and speaker notes appear in the speaker view only."""

from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from posviz import lecture
from posviz.lecture import STEPS, notes
from posviz.lecture.rooms import Rooms, show_code
from tests.test_hostile import HOSTILE, assert_safe
from ui.rooms import SECRETS
from ui.text import escape, glued, html_text

LECTURE = str(Path(__file__).resolve().parents[1] / "app_pages" / "lecture.py")


@pytest.fixture
def store(tmp_path, monkeypatch):
    monkeypatch.setenv("POSVIZ_ROOMS_DB", str(tmp_path / "rooms.sqlite3"))
    return Rooms()


def run(query: dict[str, str]) -> AppTest:
    at = AppTest.from_file(LECTURE, default_timeout=60)
    for key, value in query.items():
        at.query_params[key] = value
    return at.run()


def warnings(at: AppTest) -> str:
    return " ".join(w.value for w in at.warning).replace("\\", "")  # note() escapes Markdown


@pytest.mark.parametrize("value", [*HOSTILE[:14], "ABCDE-FGHJK", "0123456789"], ids=range(16))
def test_a_hostile_or_unknown_room_code_gets_a_note_and_the_plain_lecture(store, value):
    at = run({"room": value, "secret": value, "speaker": value})
    assert_safe(at)
    assert "showing the plain lecture" in warnings(at) or value == "", warnings(at)
    assert any(f"step 1 / {len(STEPS)} ·" in c.value for c in at.caption)


@pytest.mark.parametrize("secret", ["wrong", "A" * 32, "<script>alert(1)</script>", "x" * 5000])
def test_a_wrong_secret_follows_the_room_and_cannot_move_it(store, secret):
    room, _ = store.open(3, {})
    at = run({"room": show_code(room.code), "secret": secret, "speaker": "1"})
    assert_safe(at)
    assert "you follow the room, not move it" in warnings(at)
    assert any(f"step 3 / {len(STEPS)} ·" in c.value for c in at.caption)  # the room's step, not the link's
    at.session_state["step"] = 5  # what the follower's own keys would do
    at.run()
    assert store.get(room.code).step == 3 and store.get(room.code).version == 1


def test_an_ended_room_says_so_and_shows_the_plain_lecture(store):
    room, secret = store.open(2, {})
    store.end(room.code, secret)
    at = run({"room": room.code})
    assert_safe(at)
    assert "it has ended (ended by the lecturer)" in warnings(at)


def test_speaker_notes_appear_in_the_speaker_view_and_never_on_the_projected_window(store, monkeypatch):
    key = STEPS[1].key
    note = notes.Note("SAYTHIS", "ASKTHIS", "ANSWERTHIS", "MISCONCEPTIONTHIS")
    monkeypatch.setitem(notes.NOTES, key, note)
    room, secret = store.open(2, {})
    lecturer = {"room": show_code(room.code), "secret": secret}
    texts = {}
    for name, query in (("projected", {**lecturer, "presenter": "true"}), ("speaker", {**lecturer, "speaker": "1"})):
        at = run(query)
        assert_safe(at)
        texts[name] = " ".join(m.value for m in [*at.markdown, *at.caption]) + " ".join(e.value for e in at.info)
    for text in ("SAYTHIS", "ASKTHIS", "ANSWERTHIS", "MISCONCEPTIONTHIS"):
        assert text in texts["speaker"] and text not in texts["projected"]
    slide = lecture.slide(1)  # the number's full source (lesson names) in the speaker view, the hall's words projected
    assert escape(slide.source) in texts["speaker"]  # as the speaker view's markdown draws it: parentheses escaped
    assert glued(slide.source) not in texts["projected"] and glued(slide.hall) in texts["projected"]
    assert f"step 3 · {STEPS[2].title}" in texts["speaker"]
    assert "No notes for this step" not in texts["projected"]


def test_the_speaker_view_says_when_a_step_has_no_notes(store, monkeypatch):
    monkeypatch.delitem(notes.NOTES, STEPS[0].key, raising=False)
    room, secret = store.open(1, {})
    at = run({"room": room.code, "secret": secret, "speaker": "1"})
    assert_safe(at)
    assert any("No notes for this step" in e.value for e in at.info)


def test_the_lecturers_move_is_written_to_the_room_and_a_follower_arrives_on_it(store):
    room, secret = store.open(1, {})
    at = run({"room": room.code, "secret": secret})
    at.session_state["step"] = 3
    at.session_state["ramp_scale"] = 1.2
    at.run()
    seen = store.get(room.code)
    assert (seen.step, seen.controls) == (3, {"ramp_scale": "1.2"}) and seen.version == 2
    follower = run({"room": room.code})
    assert_safe(follower)
    assert any(f"step 3 / {len(STEPS)} ·" in c.value for c in follower.caption)
    assert follower.session_state["ramp_scale"] == 1.2


def texts(at: AppTest) -> str:
    """Every text the page wrote (markdown, captions, code, notes), Markdown escapes removed."""
    parts = [*at.markdown, *at.caption, *at.code, *at.info, *at.warning]
    return " ".join(str(e.value) for e in parts).replace("\\", "")


@pytest.mark.parametrize("step", [3, 7, len(STEPS)])
def test_the_speaker_view_quotes_the_steps_number_headline_number_and_verdict(store, step):
    room, secret = store.open(step, {})
    at = run({"room": room.code, "secret": secret, "speaker": "1"})
    assert_safe(at)
    slide = lecture.slide(step - 1)
    text = texts(at)
    assert f"Step {step} of {len(STEPS)} · {STEPS[step - 1].title}" in text
    assert html_text(glued(slide.label)) in text and html_text(slide.shown) in text  # as ui.text.headlines draws it
    assert (slide.verdict if slide.ok else slide.otherwise) in text


def test_sharing_shows_the_room_card_with_the_code_and_no_secret_and_back_to_the_slide_dismisses_it(store):
    at = run({"step": "5"})
    at.sidebar.button(key="room-share").click().run()
    assert_safe(at)
    assert "secret" not in at.query_params  # out of the address bar: the session holds it
    code = at.query_params["room"]
    code = code[0] if isinstance(code, list) else code
    secret = at.session_state[SECRETS][code.replace("-", "")]
    text = texts(at)
    assert code in text and f"/lecture?room={code}" in text and secret not in text  # no secret on the card
    assert f"/follow/{code}" in text  # the QR code's and the card's link: the light follow page
    assert len(at.get("imgs")) == 0 and any(type(e).__name__ == "Image" for e in at.main)  # the QR code
    assert not any("step 5 / " in c.value for c in at.caption)  # the card stands in for the slide
    assert store.get(code.replace("-", "")).step == 5
    at.button(key="room-card-close").click().run()
    assert_safe(at)
    card = "Follow the lecture on your phone"
    assert card in text
    assert any(f"step 5 / {len(STEPS)} ·" in c.value for c in at.caption) and card not in texts(at)
    at.sidebar.button(key="room-show").click().run()  # the sidebar's button shows it again
    assert card in texts(at) and not any("step 5 / " in c.value for c in at.caption)
    for step in (6, 5):  # a step move dismisses it, and coming back shows the slide
        at.session_state["step"] = step
        at.run()
        assert card not in texts(at) and any(f"step {step} / " in c.value for c in at.caption)


def test_a_deck_rooms_follower_gets_the_decks_presets_on_steps_the_lecturer_has_not_shown(store):
    room, _ = store.open(1, {}, steps="shuffle,ramp:scale=0.3,norms")
    follower = run({"room": room.code})
    assert_safe(follower)
    assert follower.query_params["steps"] in ("shuffle,ramp:scale=0.3,norms", ["shuffle,ramp:scale=0.3,norms"])
    assert follower.session_state["ramp_scale"] == 0.3  # the deck's preset, not the whole lecture's 0.6
    assert "ramp_scale" not in follower.query_params  # and no wrong value written into the follower's link
    assert any("step 1 / 3 ·" in c.value for c in follower.caption)


def test_the_lecturers_link_with_a_step_moves_the_room_there(store):
    room, secret = store.open(2, {})
    at = run({"room": room.code, "secret": secret, "step": "8"})
    assert_safe(at)
    assert any(f"step 8 / {len(STEPS)} ·" in c.value for c in at.caption)
    assert store.get(room.code).step == 8 and store.get(room.code).version == 2
    again = run({"room": room.code, "secret": secret, "step": "8"})  # the same link again: nothing to move
    assert_safe(again)
    assert store.get(room.code).version == 2
    plain_link = run({"room": room.code, "secret": secret})  # no step in the link: the window takes the room's
    assert any(f"step 8 / {len(STEPS)} ·" in c.value for c in plain_link.caption)


@pytest.mark.parametrize(
    ("spoil", "words"),
    [
        (lambda path: path.parent.chmod(0o777), "the rooms file is not this server's own"),
        (lambda path: path.write_bytes(b"not a database, just bytes" * 100), "the rooms file was replaced or damaged"),
    ],
    ids=["others-may-write", "not-sqlite"],
)
def test_a_rooms_error_reads_in_plain_words_on_the_page_and_reaches_the_log(
    tmp_path, monkeypatch, caplog, spoil, words
):
    path = tmp_path / "rooms" / "rooms.sqlite3"
    path.parent.mkdir(mode=0o700)
    monkeypatch.setenv("POSVIZ_ROOMS_DB", str(path))
    spoil(path)
    at = run({"room": "ABCDE-FGHJK"})
    assert_safe(at)
    text = warnings(at)
    assert f"Rooms are unavailable on this server: {words}" in text and "showing the plain lecture" in text.lower()
    assert "Error" not in text and str(tmp_path) not in text  # no exception's name, no server path on the page
    assert any(str(path.parent) in r.getMessage() for r in caplog.records if r.name == "posviz.lecture.rooms")


def test_opening_a_room_past_the_limit_says_so(store, monkeypatch):
    from posviz.lecture import rooms

    monkeypatch.setattr(rooms, "MAX_OPEN", 0)
    at = run({"step": "5"})
    at.sidebar.button(key="room-share").click().run()
    assert_safe(at)
    assert "A room could not be opened on this server: 0 rooms are open on this server (at most 0)" in warnings(at)
    assert "room" not in at.query_params


def test_the_lecturers_secret_leaves_the_address_after_the_first_load_and_the_window_still_moves_the_room(store):
    room, secret = store.open(1, {})
    at = run({"room": room.code, "secret": secret, "presenter": "true"})
    assert_safe(at)
    assert "secret" not in at.query_params and at.session_state[SECRETS] == {room.code: secret}
    remembered = [e for e in at.get("html") if "sessionStorage.setItem" in str(e.proto)]
    assert len(remembered) == 1 and secret in str(remembered[0].proto)  # for a reload of this tab
    at.session_state["step"] = 4
    at.run()
    assert "secret" not in at.query_params and store.get(room.code).step == 4


def test_a_move_the_store_cannot_take_is_said_plainly_and_sent_again(store, monkeypatch):
    import sqlite3

    from posviz.lecture.rooms import Rooms as Store

    room, secret = store.open(1, {})
    at = run({"room": room.code, "secret": secret})
    real, calls = Store.move, []

    def locked_once(self, *args, **kwargs):
        calls.append(args)
        if len(calls) == 1:
            raise sqlite3.OperationalError("database is locked")
        return real(self, *args, **kwargs)

    monkeypatch.setattr(Store, "move", locked_once)
    at.session_state["step"] = 3
    at.run()
    assert_safe(at)
    text = warnings(at)
    assert "Your move has not reached the room yet (the rooms file is busy" in text and "Error" not in text
    assert store.get(room.code).step == 3 and len(calls) == 2  # the lecturer's poll (in the sidebar) sent it again
    assert "_room_unsent" not in at.session_state
