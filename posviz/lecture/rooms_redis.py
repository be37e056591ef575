"""Rooms in Redis, for replicas on several hosts: the same rooms, rules and limits as posviz.lecture.rooms (SQLite).

Which store a server uses is chosen here, in one place (`where`, `connect`): `POSVIZ_ROOMS_REDIS` (a Redis URL such
as redis://host:6379/0) selects Redis; unset, the rooms are the SQLite file of `rooms.db_path()`, the one-host
default. The `redis` client is imported only when Redis is chosen, so posviz runs without it.

Keys (every one under `prefix`, default "posviz:"), each a room's or an hour's, each with a TTL so Redis forgets them:
- `room:CODE`, a hash: secret_hash (the secret's SHA-256, as SQLite keeps it), step, steps, controls (JSON),
  version, created, active, ended ('' while open); its TTL ends `KEEP` s after the room ended or went idle
  (set again at each move, touch and end), and a read treats a room past that moment as gone, as SQLite's purge does;
- `live`, a sorted set of open rooms' codes by their last move (for `MAX_OPEN`);
- `opened:SHA256(address)`, a sorted set of one hour's openings from an address (for `OPENS_PER_HOUR`);
- `audience:CODE`, a hash of process -> [follow, explore, at] (TTL `AUDIENCE_TTL`), and `reported:PROCESS`, the
  codes a process reported last (so its next report replaces them);
- `question:CODE`, a hash: the room's current question (id, step, text, choices as JSON, low, high, state), and
  `answers:CODE`, a hash of SHA256(token) -> the answer; both expire with the room's key (their TTL is set again with
  the room's), and asking or withdrawing deletes the last question's answers. The room's hash counts its questions
  (`questions`), so an id is never given twice.
A move or an end is one MULTI transaction under WATCH of the room's key (a concurrent move retries it) and is
published on the channel `moves` (`CODE VERSION`), which a server may wait on instead of sleeping between reads.
"""

from __future__ import annotations

import hmac
import json
import logging
import math
import os
import secrets
import threading
import time
from collections.abc import Callable
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from posviz.lecture import rooms as _sqlite  # MAX_ANSWERS read at each answer (one bound for both stores)
from posviz.lecture.decks import MAX_TEXT
from posviz.lecture.rooms import (
    ALPHABET,
    AUDIENCE_TTL,
    CODE_LENGTH,
    IDLE,
    KEEP,
    MAX_OPEN,
    OPENS_PER_HOUR,
    Question,
    Room,
    Rooms,
    TooMany,
    _controls,
    _hash,
    _mac,
    db_path,
    limited,
    question_of,
    show_code,
)

if TYPE_CHECKING:  # pragma: no cover
    import redis

ENV = "POSVIZ_ROOMS_REDIS"
_log = logging.getLogger(__name__)
_SCHEMES = ("redis://", "rediss://", "unix://")


class RedisTrouble(OSError):
    """Redis could not be reached or refused a command (an OSError, as a lost SQLite file is to the pages); `words`
    says it for a page (rooms.plain), without the server's address."""

    def __init__(self, message: str, words: str = "the rooms' Redis server cannot be reached or refused the request"):
        super().__init__(message)
        self.words = words


def where() -> str:
    """The chosen store: $POSVIZ_ROOMS_REDIS (a Redis URL) when set, else the SQLite file's path."""
    return os.environ.get(ENV, "").strip() or str(db_path())


def connect(place: str | None = None) -> Rooms | RedisRooms:
    """The store at `place` (default `where()`): RedisRooms for a redis://, rediss:// or unix:// URL, else Rooms."""
    place = where() if place is None else place
    return RedisRooms(place) if place.startswith(_SCHEMES) else Rooms(place)


def shown(url: str) -> str:
    """A Redis URL for a log line, its password replaced by ***.

    >>> shown("redis://:s3cret@10.0.0.5:6379/0")
    'redis://***@10.0.0.5:6379/0'
    """
    head, at, tail = url.rpartition("@")
    if not at:
        return url
    scheme, _, auth = head.partition("://")
    user = auth.partition(":")[0]
    return f"{scheme}://{user + ':' if user else ''}***@{tail}"


class RedisRooms:
    """The rooms in one Redis database (every replica, on any host, given the same URL shares them)."""

    def __init__(self, url: str, idle: float = IDLE, prefix: str = "posviz:", client: Any = None) -> None:
        self.url, self.idle, self.prefix = url, idle, prefix
        if client is None:
            try:
                import redis  # only when Redis is chosen
            except ImportError as error:
                why = f"{ENV} is set but the redis client is not installed (pip install redis)"
                raise RedisTrouble(why, words=why) from error
            client = redis.Redis.from_url(url, socket_timeout=5, socket_connect_timeout=5, health_check_interval=30)
        self.client: redis.Redis = client
        self._moves: Any = None  # the subscription `wait` reads, made at its first call
        self._lock = threading.Lock()
        self._run(lambda: self.client.ping())  # an unreachable server shows now, not at the first move

    # -- plumbing --------------------------------------------------------------------------------------------------
    def _key(self, *parts: str) -> str:
        return self.prefix + ":".join(parts)

    def _run(self, work: Callable[[], Any]) -> Any:
        """`work`, its Redis errors logged once (URL without password, cause) and raised as RedisTrouble."""
        import redis

        try:
            return work()
        except redis.RedisError as error:
            _report(self.url, error)
            raise RedisTrouble(f"Redis at {shown(self.url)}: {error}") from error

    def _expires(self, active: float, ended: float | None) -> float:
        """When the room's key may go: KEEP s after it ended or went idle."""
        return (ended if ended is not None else active + self.idle) + KEEP

    def _ttl(self, pipe: Any, code: str, active: float, ended: float | None, now: float) -> None:
        """The room's keys (its hash, its question and answers) expire together; EXPIRE skips a key not there."""
        seconds = max(1, math.ceil(self._expires(active, ended) - now))
        for kind in ("room", "question", "answers"):
            pipe.expire(self._key(kind, code), seconds)

    def _room(self, code: str, raw: dict, now: float) -> Room | None:
        if not raw:
            return None
        active, ended = float(raw[b"active"]), float(raw[b"ended"]) if raw[b"ended"] else None
        if self._expires(active, ended) < now:
            return None  # past its keeping: gone, whether or not Redis has dropped the key yet
        why = "ended by the lecturer" if ended is not None else None
        if why is None and active < now - self.idle:
            why = f"idle for {self.idle / 3600:g} h" if self.idle >= 3600 else f"idle for {self.idle / 60:g} min"
        controls = json.loads(raw[b"controls"])
        step, version, created = int(raw[b"step"]), int(raw[b"version"]), float(raw[b"created"])
        return Room(code, step, raw[b"steps"].decode(), controls, version, created, active, why)

    def wait(self, timeout: float) -> bool:
        """Block until a room moves or ends (its message on `moves`) or `timeout` s pass; True if one did. A server's
        watcher waits here instead of sleeping between reads, so a move reaches it at once."""
        deadline = time.monotonic() + timeout
        with self._lock:
            try:
                if self._moves is None:
                    self._moves = self.client.pubsub(ignore_subscribe_messages=True)
                    self._run(lambda: self._moves.subscribe(self._key("moves")))
                while (left := deadline - time.monotonic()) > 0:
                    if self._run(lambda: self._moves.get_message(timeout=left)) is not None:
                        return True
            except RedisTrouble:
                self._moves = None  # subscribe afresh at the next call (Redis restarted, the connection dropped)
                raise
        return False

    # -- the interface of rooms.Rooms ------------------------------------------------------------------------------
    def open(
        self, step: int, controls: dict[str, str], steps: str = "", now: float | None = None, address: str = ""
    ) -> tuple[Room, str]:
        """A new room at this step; returns it and the lecturer's secret (never stored). TooMany past OPENS_PER_HOUR
        from `address` or MAX_OPEN open rooms."""
        now = time.time() if now is None else now
        text, steps = _controls(controls), limited(steps, MAX_TEXT, "a deck (steps=)")
        secret, live = secrets.token_urlsafe(24), self._key("live")
        opened = self._key("opened", _hash(address)) if address else None

        def work(pipe: Any) -> str:
            if opened:  # reads only until MULTI: a write to a watched key would void the transaction
                count = pipe.zcount(opened, now - 3600, "+inf")
                if count >= OPENS_PER_HOUR:
                    raise TooMany(f"this address opened {count} rooms in the last hour (at most {OPENS_PER_HOUR})")
            count = pipe.zcount(live, now - self.idle, "+inf")
            if count >= MAX_OPEN:
                raise TooMany(f"{count} rooms are open on this server (at most {MAX_OPEN})")
            while True:
                code = "".join(secrets.choice(ALPHABET) for _ in range(CODE_LENGTH))
                if not pipe.exists(self._key("room", code)):
                    break
            pipe.multi()
            pipe.zremrangebyscore(live, "-inf", f"({now - self.idle}")
            if opened:
                pipe.zremrangebyscore(opened, "-inf", f"({now - 3600}")
                pipe.zadd(opened, {secrets.token_hex(8): now})
                pipe.expire(opened, 3600)
            fields = {"secret_hash": _hash(secret), "step": step, "steps": steps, "controls": text, "version": 1}
            pipe.hset(self._key("room", code), mapping={**fields, "created": now, "active": now, "ended": ""})
            self._ttl(pipe, code, now, None, now)
            pipe.zadd(live, {code: now})
            return code

        watched = [live, opened] if opened else [live]
        code = self._run(lambda: self.client.transaction(work, *watched, value_from_callable=True))
        return Room(code, step, steps, dict(controls), 1, now, now, None), secret

    def get(self, code: str, now: float | None = None) -> Room | None:
        """The room with this code (ended or not), or None when there is none."""
        raw = self._run(lambda: self.client.hgetall(self._key("room", code)))
        return self._room(code, raw, time.time() if now is None else now)

    def many(self, codes: list[str], now: float | None = None) -> dict[str, Room]:
        """The rooms among `codes` that exist, by code: one round trip for all."""
        if not codes:
            return {}
        now = time.time() if now is None else now

        def work() -> list[dict]:
            pipe = self.client.pipeline(transaction=False)
            for code in codes:
                pipe.hgetall(self._key("room", code))
            return pipe.execute()

        found = {code: self._room(code, raw, now) for code, raw in zip(codes, self._run(work), strict=True)}
        return {code: room for code, room in found.items() if room is not None}

    def report(self, process: str, counts: dict[str, tuple[int, int]], now: float | None = None) -> None:
        """Record this process's (follow, explore) counts per room, replacing its last report."""
        now = time.time() if now is None else now
        mine = self._key("reported", process)

        def work() -> None:
            before = [code.decode() for code in self.client.smembers(mine)]
            pipe = self.client.pipeline(transaction=True)
            for code in before:
                pipe.hdel(self._key("audience", code), process)
            pipe.delete(mine)
            for code, (follow, explore) in counts.items():
                pipe.hset(self._key("audience", code), process, json.dumps([int(follow), int(explore), now]))
                pipe.expire(self._key("audience", code), math.ceil(AUDIENCE_TTL))
                pipe.sadd(mine, code)
            pipe.expire(mine, math.ceil(AUDIENCE_TTL))
            pipe.execute()

        self._run(work)

    def audience(self, code: str, now: float | None = None) -> tuple[int, int]:
        """How many follow the room on the light page and how many explore, over the reports of the last
        AUDIENCE_TTL s."""
        now = time.time() if now is None else now
        reports = [json.loads(v) for v in self._run(lambda: self.client.hvals(self._key("audience", code)))]
        fresh = [(f, e) for f, e, at in reports if at >= now - AUDIENCE_TTL]
        return sum(f for f, _ in fresh), sum(e for _, e in fresh)

    def is_lecturer(self, code: str, secret: str) -> bool:
        """True when `secret` is this room's lecturer secret."""
        stored = self._run(lambda: self.client.hget(self._key("room", code), "secret_hash"))
        return stored is not None and hmac.compare_digest(stored.decode(), _hash(secret))

    def move(
        self, code: str, secret: str, step: int, controls: dict[str, str], steps: str = "", now: float | None = None
    ) -> Room:
        """Move the room; PermissionError for a wrong secret, LookupError for a room gone or ended, ValueError for a
        string past its cap."""
        now = time.time() if now is None else now
        text, steps = _controls(controls), limited(steps, MAX_TEXT, "a deck (steps=)")

        def change(pipe: Any, _: dict) -> None:
            pipe.hset(self._key("room", code), mapping={"step": step, "steps": steps, "controls": text, "active": now})
            pipe.hincrby(self._key("room", code), "version", 1)
            self._ttl(pipe, code, now, None, now)
            pipe.zadd(self._key("live"), {code: now})

        self._change(code, secret, now, change, publish=True)
        return self.get(code, now)

    def touch(self, code: str, secret: str, now: float | None = None) -> None:
        """Keep the room alive (a lecturer's window loaded) without moving it."""
        now = time.time() if now is None else now

        def change(pipe: Any, _: dict) -> None:
            pipe.hset(self._key("room", code), "active", now)
            self._ttl(pipe, code, now, None, now)
            pipe.zadd(self._key("live"), {code: now})

        self._change(code, secret, now, change)

    def end(self, code: str, secret: str, now: float | None = None) -> None:
        """End the room: followers are told so and stop moving."""
        now = time.time() if now is None else now

        def change(pipe: Any, _: dict) -> None:
            pipe.hset(self._key("room", code), "ended", now)
            pipe.hincrby(self._key("room", code), "version", 1)
            self._ttl(pipe, code, now, now, now)
            pipe.zrem(self._key("live"), code)

        self._change(code, secret, now, change, publish=True)

    def _change(
        self, code: str, secret: str, now: float, change: Callable, publish: bool = False, watch: tuple[str, ...] = ()
    ) -> list:
        """`change(pipe, held)` in a transaction after the lecturer's check, retried if the room (or a key of `watch`)
        changed meanwhile; `held` is the room's fields (active, ended, questions) and whether each `watch` key exists.
        Returns the transaction's results."""
        key = self._key("room", code)

        def work(pipe: Any) -> None:
            raw = pipe.hmget(key, "secret_hash", "active", "ended", "questions")
            if raw[0] is None or raw[2] or float(raw[1]) < now - self.idle:
                raise LookupError(f"room {show_code(code)} has ended or never existed")
            if not hmac.compare_digest(raw[0].decode(), _hash(secret)):
                raise PermissionError(f"that is not the lecturer's secret for room {show_code(code)}")
            held = {"active": float(raw[1]), "questions": int(raw[3] or 0), **{k: pipe.exists(k) for k in watch}}
            pipe.multi()
            change(pipe, held)
            if publish:
                pipe.hget(key, "version")

        done = self._run(lambda: self.client.transaction(work, key, *watch))
        if publish:
            self._run(lambda: self.client.publish(self._key("moves"), f"{code} {int(done[-1])}"))
        return done

    # -- questions to the room (the interface of rooms.Rooms) --------------------------------------------------------
    def ask(
        self,
        code: str,
        secret: str,
        step: int,
        text: str,
        choices: list[str] | tuple[str, ...] = (),
        low: float | None = None,
        high: float | None = None,
        now: float | None = None,
    ) -> Question:
        """Ask the room a question (the lecturer's secret only): it replaces the last one, whose answers are deleted.
        PermissionError for a wrong secret, LookupError for an ended room, ValueError past a cap."""
        now = time.time() if now is None else now
        text, choices, low, high = question_of(text, choices, low, high)
        asked = self._key("question", code)
        fields = {"step": int(step), "text": text, "choices": json.dumps(list(choices)), "state": "open"}
        fields |= {"low": "" if low is None else repr(low), "high": "" if high is None else repr(high)}
        number = []

        def change(pipe: Any, held: dict) -> None:
            number[:] = [held["questions"] + 1]  # read under WATCH of the room: ids are never given twice
            pipe.hset(self._key("room", code), "questions", number[0])
            pipe.delete(asked, self._key("answers", code))
            pipe.hset(asked, mapping={**fields, "id": number[0]})
            self._ttl(pipe, code, held["active"], None, now)

        self._change(code, secret, now, change)
        return Question(code, number[0], int(step), text, choices, low, high, "open")

    def reveal(self, code: str, secret: str, now: float | None = None) -> None:
        """Show the class's answers (the lecturer's secret only); the question takes no more answers."""
        asked = self._key("question", code)

        def change(pipe: Any, held: dict) -> None:
            if held[asked]:  # no question: nothing to reveal (HSET would make a question without its fields)
                pipe.hset(asked, "state", "revealed")

        self._change(code, secret, time.time() if now is None else now, change, watch=(asked,))

    def withdraw(self, code: str, secret: str, now: float | None = None) -> None:
        """Take the question away (the lecturer's secret only), with its answers."""

        def change(pipe: Any, _: dict) -> None:
            pipe.delete(self._key("question", code), self._key("answers", code))

        self._change(code, secret, time.time() if now is None else now, change)

    def token(self, code: str) -> str:
        """A follower's anonymous answer token (as rooms.Rooms.token: a nonce and its HMAC under the room's secret
        hash). LookupError when there is no such room."""
        stored = self._run(lambda: self.client.hget(self._key("room", code), "secret_hash"))
        if stored is None:
            raise LookupError(f"there is no room {show_code(code)}")
        nonce = secrets.token_urlsafe(12)
        return f"{nonce}.{_mac(stored.decode(), code, nonce)}"

    def answer(self, code: str, token: str, question: int, raw: object, now: float | None = None) -> int:
        """A follower's answer to question `question` (as rooms.Rooms.answer: one a token, a second replacing the first,
        at most MAX_ANSWERS; PermissionError, LookupError, ValueError). Returns the number answered."""
        now = time.time() if now is None else now
        found = _sqlite._TOKEN.fullmatch(token) if isinstance(token, str) else None
        if found is None:
            raise PermissionError("expected the answer token this room's page gave (16 characters, a dot, 32 hex)")
        room, asked, answers = self._key("room", code), self._key("question", code), self._key("answers", code)

        def work(pipe: Any) -> int:  # WATCHes the three keys: a question asked or revealed meanwhile voids it
            raw_room = pipe.hmget(room, "secret_hash", "active", "ended")
            if raw_room[0] is None or not hmac.compare_digest(
                _mac(raw_room[0].decode(), code, found.group(1)), found.group(2)
            ):
                raise PermissionError(f"that answer token is not one room {show_code(code)} gave")
            active, ended = float(raw_room[1]), float(raw_room[2]) if raw_room[2] else None
            if ended is not None or active < now - self.idle:
                raise LookupError(f"room {show_code(code)} has ended")
            current = self._question(code, pipe.hgetall(asked))
            if current is None or current.id != question or current.state != "open":
                raise LookupError(f"question {question} is not open in room {show_code(code)}")
            value, key = current.check(raw), _hash(token)
            count, again = pipe.hlen(answers), pipe.hexists(answers, key)
            if not again and count >= _sqlite.MAX_ANSWERS:
                raise ValueError(f"this question has its {_sqlite.MAX_ANSWERS} answers already")
            pipe.multi()
            pipe.hset(answers, key, repr(value))
            self._ttl(pipe, code, active, ended, now)
            return count + (not again)

        return self._run(lambda: self.client.transaction(work, room, asked, answers, value_from_callable=True))

    def questions(self, codes: list[str], now: float | None = None) -> dict[str, Question]:
        """The current question of each room among `codes` that has one (a room past its keeping has none), with its
        count, and its answers when revealed: two round trips at most."""
        if not codes:
            return {}
        now = time.time() if now is None else now

        def work() -> list:
            pipe = self.client.pipeline(transaction=False)
            for code in codes:
                pipe.hmget(self._key("room", code), "active", "ended")
                pipe.hgetall(self._key("question", code))
                pipe.hlen(self._key("answers", code))
            return pipe.execute()

        got, found = self._run(work), {}
        for i, code in enumerate(codes):
            (active, ended), raw, count = got[3 * i : 3 * i + 3]
            if active is None or self._expires(float(active), float(ended) if ended else None) < now:
                continue
            asked = self._question(code, raw)
            if asked is not None:
                found[code] = replace(asked, count=int(count))
        shown = [code for code, asked in found.items() if asked.revealed]
        if shown:

            def values() -> list:
                pipe = self.client.pipeline(transaction=False)
                for code in shown:
                    pipe.hvals(self._key("answers", code))
                return pipe.execute()

            for code, raw in zip(shown, self._run(values), strict=True):
                found[code] = replace(found[code], values=tuple(float(v) for v in raw))
        return found

    def question(self, code: str, now: float | None = None) -> Question | None:
        """The room's current question (see `questions`), or None."""
        return self.questions([code], now).get(code)

    @staticmethod
    def _question(code: str, raw: dict) -> Question | None:
        """A question's hash as a Question (no count), or None when there is none (or it is being asked: no id yet)."""
        if not raw or b"id" not in raw:
            return None
        low, high = (float(raw[k]) if raw[k] else None for k in (b"low", b"high"))
        choices = tuple(json.loads(raw[b"choices"]))
        return Question(
            code, int(raw[b"id"]), int(raw[b"step"]), raw[b"text"].decode(), choices, low, high, raw[b"state"].decode()
        )


_REPORTED: set[tuple[str, str]] = set()


def _report(url: str, error: BaseException) -> None:
    """Log a Redis error's server and cause once per process (a poll meets the same error every second)."""
    key = (shown(url), f"{type(error).__name__}: {error}")
    if key not in _REPORTED:
        _REPORTED.add(key)
        _log.error("rooms in Redis at %s: %s", *key)
