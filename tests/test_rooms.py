"""The room store: follow codes, the lecturer's secret, moves, ends and idling, seen from two connections."""

import math
import re
import sqlite3

import pytest

from posviz.lecture import rooms
from posviz.lecture.rooms import ALPHABET, CODE_LENGTH, Rooms, parse_code, parse_secret


@pytest.fixture
def path(tmp_path):
    return tmp_path / "rooms.sqlite3"


def test_a_code_is_ten_symbols_of_crockfords_base_32_and_guessing_one_is_hopeless(path):
    room, _ = Rooms(path).open(1, {})
    assert re.fullmatch(f"[{ALPHABET}]{{{CODE_LENGTH}}}", room.code)
    assert len(set(ALPHABET)) == 32 and not set("ILOU") & set(ALPHABET)
    years = len(ALPHABET) ** CODE_LENGTH / (1000 * 1000) / (365.25 * 86400)  # 1,000 rooms, 1,000 guesses a second
    assert years > 30, years
    assert "36 years" in rooms.__doc__ and math.isclose(years, 35.7, rel_tol=0.01)


def test_codes_are_read_as_people_type_them():
    assert parse_code("abcde-fghjk") == "ABCDEFGHJK"
    assert parse_code(" 0o1il 23456 ") == "0011123456"
    assert rooms.show_code("ABCDEFGHJK") == "ABCDE-FGHJK"


@pytest.mark.parametrize("raw", ["", "ABCDEFGHJ", "ABCDEFGHJKM", "ABCDE_FGHJK", "ABCDEFGHJU", "<script>", "x" * 5000])
def test_a_malformed_code_is_a_value_error_saying_what_was_expected(raw):
    with pytest.raises(ValueError, match="expected a room code of 10"):
        parse_code(raw)


@pytest.mark.parametrize("raw", ["", "short", "a" * 65, "has space in it and more chars", "<script>alert(1)</script>"])
def test_a_malformed_secret_is_a_value_error(raw):
    with pytest.raises(ValueError, match="expected the lecturer's secret"):
        parse_secret(raw)


def test_two_connections_see_one_room_move_as_two_processes_would(path):
    lecturer, follower = Rooms(path), Rooms(path)
    room, secret = lecturer.open(3, {"ramp_scale": "1.2"}, steps="1,3,5")
    seen = follower.get(room.code)
    assert (seen.step, seen.steps, seen.controls, seen.version) == (3, "1,3,5", {"ramp_scale": "1.2"}, 1)
    assert seen.ended is None
    lecturer.move(room.code, secret, 4, {}, steps="1,3,5")
    seen = follower.get(room.code)
    assert (seen.step, seen.controls, seen.version) == (4, {}, 2)
    with sqlite3.connect(path) as db:
        assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"


def test_only_the_secret_moves_or_ends_the_room_and_it_is_stored_only_as_a_hash(path):
    store = Rooms(path)
    room, secret = store.open(2, {})
    other_room, other_secret = store.open(2, {})
    for wrong in (other_secret, secret[:-1] + ("A" if secret[-1] != "A" else "B"), ""):
        with pytest.raises(PermissionError):
            store.move(room.code, wrong, 9, {})
        with pytest.raises(PermissionError):
            store.end(room.code, wrong)
        assert not store.is_lecturer(room.code, wrong)
    assert store.get(room.code).step == 2 and store.get(room.code).version == 1
    assert store.is_lecturer(room.code, secret)
    with sqlite3.connect(path) as db:
        stored = [str(v) for row in db.execute("SELECT * FROM rooms") for v in row]
    assert secret not in stored and other_secret not in stored


def test_an_ended_or_idle_room_cannot_move_and_says_why(path):
    store = Rooms(path, idle=60)
    ended, secret = store.open(1, {}, now=1000)
    store.end(ended.code, secret, now=1010)
    assert store.get(ended.code, now=1011).ended == "ended by the lecturer"
    with pytest.raises(LookupError):
        store.move(ended.code, secret, 2, {}, now=1012)
    idle, secret = store.open(1, {}, now=1000)
    store.move(idle.code, secret, 2, {}, now=1050)
    assert store.get(idle.code, now=1100).ended is None  # 50 s after the last move
    assert store.get(idle.code, now=1111).ended == "idle for 1 min"
    with pytest.raises(LookupError):
        store.touch(idle.code, secret, now=1111)
    assert store.get("0123456789") is None
