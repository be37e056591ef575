"""The room store: follow codes, the lecturer's secret, moves, ends and idling, seen from two connections."""

import math
import os
import re
import sqlite3
import threading
import time

import pytest

from posviz.lecture import rooms
from posviz.lecture.rooms import ALPHABET, CODE_LENGTH, Rooms, parse_code, parse_secret


@pytest.fixture
def path(tmp_path):
    return tmp_path / "rooms.sqlite3"


@pytest.fixture(scope="module")
def redis_url(tmp_path_factory):
    """One throwaway redis-server for the module (tests.harness.redis_server); each test flushes its database."""
    from tests.harness import redis_missing, redis_server

    if redis_missing():
        pytest.skip(redis_missing())
    with redis_server(tmp_path_factory.mktemp("redis")) as url:
        yield url


@pytest.fixture(params=["sqlite", "redis"])
def make(request, path):
    """Build a store of either kind (same arguments as Rooms but the path); `make.stored()` is every string it
    keeps, to show what never is."""
    if request.param == "sqlite":

        def build(**kwargs):
            return Rooms(path, **kwargs)

        def stored():
            with sqlite3.connect(path) as db:
                tables = [row[0] for row in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
                return [str(v) for table in tables for row in db.execute(f"SELECT * FROM {table}") for v in row]

    else:
        from posviz.lecture.rooms_redis import RedisRooms

        url = request.getfixturevalue("redis_url")
        RedisRooms(url).client.flushdb()

        def build(**kwargs):
            return RedisRooms(url, **kwargs)

        def stored():
            client = RedisRooms(url).client
            found = []
            for key in client.scan_iter():
                kind = client.type(key).decode()
                value = {
                    "hash": client.hgetall,
                    "zset": lambda k: client.zrange(k, 0, -1),
                    "set": client.smembers,
                    "string": client.get,
                }[kind](key)
                found += [key.decode(), str(value)]
            return found

    build.stored, build.kind = stored, request.param
    return build


def test_a_code_is_ten_symbols_of_crockfords_base_32_and_guessing_one_is_hopeless(make):
    room, _ = make().open(1, {})
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


def test_two_connections_see_one_room_move_as_two_processes_would(make):
    lecturer, follower = make(), make()
    room, secret = lecturer.open(3, {"ramp_scale": "1.2"}, steps="1,3,5")
    seen = follower.get(room.code)
    assert (seen.step, seen.steps, seen.controls, seen.version) == (3, "1,3,5", {"ramp_scale": "1.2"}, 1)
    assert seen.ended is None
    lecturer.move(room.code, secret, 4, {}, steps="1,3,5")
    seen = follower.get(room.code)
    assert (seen.step, seen.controls, seen.version) == (4, {}, 2)
    assert follower.many([room.code, "0123456789"]) == {room.code: seen}


def test_the_sqlite_file_is_in_wal_mode(path):
    Rooms(path).open(1, {})
    with sqlite3.connect(path) as db:
        assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"


def test_only_the_secret_moves_or_ends_the_room_and_it_is_stored_only_as_a_hash(make):
    store = make()
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
    stored = "\n".join(make.stored())
    assert rooms._hash(secret) in stored  # the check reads the hash
    assert secret not in stored and other_secret not in stored


def test_an_ended_or_idle_room_cannot_move_and_says_why(make):
    store = make(idle=60)
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


def mode(path) -> int:
    return path.stat().st_mode & 0o777


def test_the_default_store_is_owner_only_in_the_users_state_directory(tmp_path, monkeypatch):
    monkeypatch.delenv("POSVIZ_ROOMS_DB", raising=False)
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    old = os.umask(0o022)  # the usual umask: files 644, directories 755 unless posviz says otherwise
    try:
        store = Rooms()
        store.open(1, {})
    finally:
        os.umask(old)
    assert store.path == tmp_path / "state" / "posviz" / "rooms.sqlite3"
    assert mode(store.path.parent) == 0o700
    for path in (store.path, store.path.with_name("rooms.sqlite3-wal"), store.path.with_name("rooms.sqlite3-shm")):
        assert path.exists() and mode(path) == 0o600, (path, oct(mode(path)))


@pytest.mark.parametrize("which", ["rooms.sqlite3", "rooms.sqlite3-wal", "rooms.sqlite3-shm", "."])
def test_a_store_file_or_directory_others_may_write_is_refused_naming_it(tmp_path, which):
    folder = tmp_path / "rooms"
    folder.mkdir(mode=0o700)
    target = folder / which
    target.touch()
    target.chmod(0o777 if which == "." else 0o666)
    with pytest.raises(rooms.UnsafeStore, match=rf"{re.escape(str(target.resolve()))} is writable by group or others"):
        Rooms(folder / "rooms.sqlite3")


@pytest.mark.skipif(os.geteuid() != 0, reason="chown to another user needs root")
@pytest.mark.parametrize("which", ["rooms.sqlite3", "rooms.sqlite3-wal", "."])
def test_a_store_file_owned_by_another_user_is_refused_with_both_uids(tmp_path, which):
    """Run as root, so the file really is another uid's (os.chown); the owner check itself is rooms.check_owner."""
    folder = tmp_path / "rooms"
    folder.mkdir(mode=0o700)
    target = folder / which
    target.touch()
    os.chown(target, 4321, 4321)
    expected = rf"{re.escape(str(target.resolve()))} is owned by uid 4321, expected uid {os.geteuid()}"
    with pytest.raises(rooms.UnsafeStore, match=expected):
        Rooms(folder / "rooms.sqlite3")


def test_the_owner_check_refuses_a_path_whose_uid_is_not_the_expected_one(path):
    Rooms(path)
    rooms.check_owner(path)  # ours
    with pytest.raises(rooms.UnsafeStore, match=f"is owned by uid {os.geteuid()}, expected uid {os.geteuid() + 1}"):
        rooms.check_owner(path, uid=os.geteuid() + 1)


def test_the_store_recovers_when_its_file_is_deleted_mid_class(path):
    store = Rooms(path)
    room, secret = store.open(1, {})
    for name in ("rooms.sqlite3", "rooms.sqlite3-wal", "rooms.sqlite3-shm"):
        (path.parent / name).unlink(missing_ok=True)
    assert store.get(room.code) is None  # the room went with the file: it says so rather than failing
    with pytest.raises(LookupError):
        store.move(room.code, secret, 2, {})
    fresh, _ = store.open(2, {})  # this thread's connection, on the new file
    assert Rooms(path).get(fresh.code).step == 2  # another process sees it
    found = []
    worker = threading.Thread(target=lambda: found.append(store.get(fresh.code)))  # a new session's thread
    worker.start()
    worker.join()
    assert found[0].step == 2


def hold_lock(path, seconds: float) -> threading.Thread:
    """Another process's write transaction on the file for `seconds` (started before this returns)."""
    held = threading.Event()

    def hold():
        db = sqlite3.connect(path, isolation_level=None)
        db.execute("BEGIN IMMEDIATE")
        held.set()
        time.sleep(seconds)
        db.execute("COMMIT")
        db.close()

    thread = threading.Thread(target=hold)
    thread.start()
    held.wait()
    return thread


def test_a_move_that_meets_a_lock_is_tried_again_not_lost(path):
    store = Rooms(path, busy=0.2, tries=5)
    room, secret = store.open(1, {})
    holder = hold_lock(path, 0.5)  # longer than one try's wait, shorter than all five
    moved = store.move(room.code, secret, 2, {})
    holder.join()
    assert moved.step == 2 and Rooms(path).get(room.code).version == 2


def test_a_rooms_error_is_logged_once_with_its_path_and_cause_and_reads_plainly(path, caplog):
    store = Rooms(path, busy=0.05, tries=2)
    room, secret = store.open(1, {})
    holder = hold_lock(path, 1.0)
    errors = []
    for _ in range(3):  # a poll meets the same error again and again
        with pytest.raises(sqlite3.OperationalError) as raised:
            store.move(room.code, secret, 2, {})
        errors.append(raised.value)
    holder.join()
    logged = [r.getMessage() for r in caplog.records if r.name == "posviz.lecture.rooms"]
    assert len(logged) == 1 and str(path) in logged[0] and "database is locked" in logged[0], logged
    words = rooms.plain(errors[0])
    assert words == "the rooms file is busy (another process holds its write lock)"
    assert "OperationalError" not in words and str(path) not in words


def test_one_address_opens_at_most_opens_per_hour_rooms(make):
    store = make()
    for _ in range(rooms.OPENS_PER_HOUR):
        store.open(1, {}, address="10.0.0.7", now=1000)
    with pytest.raises(rooms.TooMany, match=f"opened {rooms.OPENS_PER_HOUR} rooms in the last hour"):
        store.open(1, {}, address="10.0.0.7", now=1000)
    store.open(1, {}, address="10.0.0.8", now=1000)  # another address
    store.open(1, {}, address="10.0.0.7", now=1000 + 3601)  # an hour later
    assert "10.0.0.7" not in str(make.stored())  # kept as a hash


def test_every_stored_string_is_capped(make):
    store = make()
    with pytest.raises(ValueError, match=f"expected a deck \\(steps=\\) of at most {rooms.MAX_TEXT} characters"):
        store.open(1, {}, steps="shuffle," * 1000)
    room, secret = store.open(1, {})
    for controls in ({"ramp_scale": "1" * 65}, {"k" * 65: "1"}, {f"c{i}": "1" for i in range(17)}):
        with pytest.raises(ValueError, match="expected"):
            store.move(room.code, secret, 2, controls)
    assert store.get(room.code).version == 1


def test_an_ended_room_is_deleted_a_day_later_with_its_openings(make, path):
    store = make(idle=60)
    ended, secret = store.open(1, {}, now=1000, address="a")
    idle, _ = store.open(1, {}, now=1000)
    store.end(ended.code, secret, now=1010)
    store.open(1, {}, now=1010 + rooms.KEEP - 1)
    later = 1010 + rooms.KEEP - 1
    assert store.get(ended.code, now=later) is not None and store.get(idle.code, now=later) is not None  # read why
    store.open(1, {}, now=1060 + rooms.KEEP + 1)
    assert store.get(ended.code, now=1060 + rooms.KEEP + 1) is None
    assert store.get(idle.code, now=1060 + rooms.KEEP + 1) is None
    if make.kind == "sqlite":
        with sqlite3.connect(path) as db:
            assert db.execute("SELECT COUNT(*) FROM opened").fetchone()[0] == 0


def test_redis_forgets_a_room_by_its_ttl_at_the_rooms_idle_end_plus_keep(make, monkeypatch):
    """Redis's own expiry matches the rule SQLite's purge applies: KEEP s after the room ended or went idle."""
    if make.kind != "redis":
        pytest.skip("Redis TTLs only")
    from posviz.lecture import rooms_redis

    store = make(idle=60)
    room, secret = store.open(1, {}, address="10.0.0.7")
    key = store.prefix + "room:" + room.code
    assert abs(store.client.ttl(key) - (60 + rooms.KEEP)) <= 1
    assert 3599 <= store.client.ttl(store.prefix + "opened:" + rooms._hash("10.0.0.7")) <= 3600
    store.report("p1", {room.code: (3, 1)})
    assert 0 < store.client.ttl(store.prefix + "audience:" + room.code) <= rooms.AUDIENCE_TTL
    store.end(room.code, secret)
    assert abs(store.client.ttl(key) - rooms.KEEP) <= 1
    monkeypatch.setattr(rooms_redis, "KEEP", 0)  # keep nothing after the end: Redis drops the key itself
    short = make(idle=1)
    gone, _ = short.open(1, {})
    assert short.client.exists(short.prefix + "room:" + gone.code)
    time.sleep(2.2)
    assert not short.client.exists(short.prefix + "room:" + gone.code)


def test_a_report_replaces_the_processs_last_one_and_old_reports_lapse(make):
    store = make()
    first, _ = store.open(1, {})
    second, _ = store.open(1, {})
    store.report("p1", {first.code: (3, 1), second.code: (2, 0)}, now=1000)
    store.report("p2", {first.code: (5, 2)}, now=1000)
    assert store.audience(first.code, now=1001) == (8, 3)
    store.report("p1", {first.code: (1, 0)}, now=1002)  # second left out: p1 has none there now
    assert store.audience(first.code, now=1003) == (6, 2) and store.audience(second.code, now=1003) == (0, 0)
    assert store.audience(first.code, now=1002 + rooms.AUDIENCE_TTL + 1) == (0, 0)


def test_the_store_is_chosen_in_one_place_by_the_environment(make, monkeypatch, path):
    from posviz.lecture import rooms_redis

    monkeypatch.setenv("POSVIZ_ROOMS_DB", str(path))
    monkeypatch.delenv(rooms_redis.ENV, raising=False)
    assert rooms_redis.where() == str(path) and type(rooms_redis.connect()) is Rooms
    if make.kind == "redis":
        url = make().url
        monkeypatch.setenv(rooms_redis.ENV, url)
        assert rooms_redis.where() == url and type(rooms_redis.connect()) is rooms_redis.RedisRooms
    assert rooms_redis.shown("redis://user:pw@host:6379/0") == "redis://user:***@host:6379/0"
    assert rooms_redis.shown("redis://:pw@host/0") == "redis://***@host/0"


def test_an_unreachable_redis_is_an_os_error_logged_once_without_its_password(caplog):
    pytest.importorskip("redis")
    from posviz.lecture.rooms_redis import RedisRooms, RedisTrouble
    from tests.harness import free_port

    url = f"redis://:hunter2hunter2@127.0.0.1:{free_port()}/0"  # nothing listens there
    for _ in range(2):
        with pytest.raises(RedisTrouble) as raised:
            RedisRooms(url)
    assert isinstance(raised.value, OSError) and "hunter2" not in str(raised.value)
    logged = [r.getMessage() for r in caplog.records if r.name == "posviz.lecture.rooms_redis"]
    assert len(logged) == 1 and "127.0.0.1" in logged[0] and "hunter2" not in logged[0], logged
    assert rooms.plain(raised.value) == "the rooms' Redis server cannot be reached or refused the request"


def test_posviz_runs_without_the_redis_client_until_redis_is_chosen(tmp_path):
    """In a fresh interpreter whose `import redis` fails: SQLite by default; with the variable, a plain refusal."""
    import subprocess
    import sys

    from tests.harness import ROOT

    script = """
import os, sys
sys.modules["redis"] = None  # as if it were not installed
from posviz.lecture import rooms, rooms_redis
import hall
assert type(rooms_redis.connect()) is rooms.Rooms
os.environ[rooms_redis.ENV] = "redis://127.0.0.1:6379/0"
try:
    rooms_redis.connect()
except rooms_redis.RedisTrouble as error:
    print(rooms.plain(error))
"""
    env = {**os.environ, "POSVIZ_ROOMS_DB": str(tmp_path / "rooms.sqlite3")}
    env.pop("POSVIZ_ROOMS_REDIS", None)
    run = [sys.executable, "-c", script]
    done = subprocess.run(run, capture_output=True, text=True, env=env, check=False, cwd=ROOT)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "POSVIZ_ROOMS_REDIS is set but the redis client is not installed (pip install redis)"


def test_a_redis_store_wakes_a_waiting_watcher_at_a_move_and_not_otherwise(make):
    if make.kind != "redis":
        pytest.skip("SQLite has no wait: its watcher sleeps a tick")
    store, lecturer = make(), make()
    room, secret = lecturer.open(1, {})
    started = time.monotonic()
    assert store.wait(0.3) is False and time.monotonic() - started >= 0.29  # nothing moved
    woke = []
    waiter = threading.Thread(target=lambda: woke.append((store.wait(5.0), time.monotonic())))
    waiter.start()
    time.sleep(0.2)
    moved = time.monotonic()
    lecturer.move(room.code, secret, 2, {})
    waiter.join()
    assert woke[0][0] is True and woke[0][1] - moved < 0.5, woke
