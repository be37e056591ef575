"""Rooms: a lecture that a class follows on its own devices, kept in SQLite so that server processes share it.

A room holds where the lecturer is (the step, the deck's `steps=` string passed through as it came, and the step's
control values as URL strings) and a version that goes up with every move, so a follower's poll compares one integer.
Anyone with the follow code reads the room; only the lecturer's secret moves or ends it. Only the secret's SHA-256 is
stored: the secret is 24 random bytes (`secrets.token_urlsafe`), so its hash needs no salt or stretching.

The file is `POSVIZ_ROOMS_DB`, by default rooms.sqlite3 in the user's state directory ($XDG_STATE_HOME/posviz, else
~/.local/state/posviz), in WAL mode; every read and write is one short transaction on its own connection, so two
server processes on one host see the same rooms. `Rooms._open` is the one place that opens the file: it makes the
directory 0o700 and the file 0o600 (SQLite gives its -wal and -shm files the file's mode), refuses a directory, file,
-wal or -shm owned by another user or writable by group or others (`UnsafeStore`), and creates the schema, on every
new connection and again when the file was deleted or replaced under a running server. A write that meets another
process's lock waits `BUSY` s and is tried `TRIES` times before it fails.

The store also keeps who follows: each server process reports how many hold a room's light follow page and how
many explore from it (`report`; hall.py does it), and `audience` sums the reports younger than `AUDIENCE_TTL`.

Questions to the room: the lecturer (the secret) asks one question at a time (`ask`: choices or a number's range),
`reveal`s or `withdraw`s it; followers answer with an anonymous token (`token`: a nonce and its HMAC under the
room's secret hash, so any process checks it and none can be forged), one answer a token per question, a second
replacing the first, at most `MAX_ANSWERS`; an answer is a choice's index or a number in the range, nothing else.

Limits: `OPENS_PER_HOUR` rooms opened per client address (its SHA-256 is kept an hour), `MAX_OPEN` rooms open at
once, every stored string capped (a deck at decks.MAX_TEXT characters, a control's name and value at `MAX_VALUE`,
`MAX_CONTROLS` of them, a question's words and choices). A room is deleted `KEEP` s (a day) after it ended or
went idle, with everything kept for it.

Why a follow code cannot be guessed: a code is 10 symbols of Crockford's base 32 (digits, and letters but I, L, O,
U; a typed O reads as 0, an I or L as 1): 32**10 = 1.1e15 codes. With 1,000 rooms alive and an attacker trying 1,000
codes a second (one Streamlit process runs a few hundred pages a second at most), a hit takes 32**10 / (1,000 *
1,000) s = 1.1e9 s on average, about 36 years; and a room ends after `IDLE` seconds (2 h) without a lecturer's move.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import logging
import math
import os
import re
import secrets
import sqlite3
import stat
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

from posviz.lecture.decks import MAX_TEXT

T = TypeVar("T")
_log = logging.getLogger(__name__)

ALPHABET = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"  # Crockford's base 32: no I, L, O, U
CODE_LENGTH = 10
IDLE = 2 * 60 * 60  # seconds without a lecturer's move (or page load) after which a room ends
KEEP = 24 * 60 * 60  # seconds an idle room is kept after it ended (its followers read why), then deleted
OPENS_PER_HOUR = 20  # rooms one client address may open in an hour
MAX_OPEN = 1000  # rooms open at once on one store (the guessing bound below counts 1,000)
MAX_VALUE = 64  # characters of a control's URL key or value
MAX_CONTROLS = 16  # controls stored with a step (a step has at most two)
BUSY = 0.5  # seconds a write waits for another connection's lock, per try (then the lecturer's poll sends it)
TRIES = 3  # tries of a write that met a lock
AUDIENCE_TTL = 30.0  # seconds a process's count of a room's followers stands without being reported again
MAX_QUESTION = 300  # characters of a question to the room
MAX_CHOICE = 60  # characters of a choice's label
MAX_CHOICES = 6  # choices of a question (at least 2)
MAX_ANSWERS = 1000  # answers to one question (a second answer from one follower replaces the first)
MAX_NUMBER = 1e9  # a number answer's range lies within +-MAX_NUMBER
_TOKEN = re.compile(r"([A-Za-z0-9_-]{16})\.([0-9a-f]{32})")
_READ_AS = str.maketrans("OIL", "011")
_SECRET = re.compile(r"[A-Za-z0-9_-]{20,64}")
_SCHEMA = """
CREATE TABLE IF NOT EXISTS rooms (
    code TEXT PRIMARY KEY,          -- the follow code, CODE_LENGTH symbols of ALPHABET
    secret_hash TEXT NOT NULL,      -- sha256 hex of the lecturer's secret
    step INTEGER NOT NULL,          -- the lecturer's step, 1-based within the deck
    steps TEXT NOT NULL,            -- the lecturer's steps= string ('' for the whole lecture), opaque here
    controls TEXT NOT NULL,         -- JSON {url key: URL string} of the step's controls
    version INTEGER NOT NULL,       -- one more at every move
    created REAL NOT NULL,          -- unix seconds
    active REAL NOT NULL,           -- the lecturer's last move or page load
    ended REAL                      -- set when the lecturer ends it
);
CREATE TABLE IF NOT EXISTS audience (
    code TEXT NOT NULL,             -- a room's follow code
    process TEXT NOT NULL,          -- the server process that holds these followers' connections
    follow INTEGER NOT NULL,        -- followers on the light page (hall.py's event streams)
    explore INTEGER NOT NULL,       -- followers exploring on the live page, still listening
    at REAL NOT NULL,               -- unix seconds of the process's last report; older than AUDIENCE_TTL: gone
    PRIMARY KEY (code, process)
);
CREATE TABLE IF NOT EXISTS opened (
    address TEXT NOT NULL,          -- sha256 hex of the client address that opened a room
    at REAL NOT NULL                -- unix seconds; rows older than an hour are deleted
);
CREATE TABLE IF NOT EXISTS questions (
    code TEXT PRIMARY KEY,          -- a room's follow code: one question at a time, the last one asked
    id INTEGER NOT NULL,            -- one more at each question asked in the room (an answer names it)
    step INTEGER NOT NULL,          -- the step it was asked on
    text TEXT NOT NULL,             -- the question, at most MAX_QUESTION characters
    choices TEXT NOT NULL,          -- JSON list of the choices' labels; [] for a number answer
    low REAL, high REAL,            -- a number answer's range (NULL for choices)
    state TEXT NOT NULL,            -- 'open' (taking answers) or 'revealed' (answers shown, no more taken)
    at REAL NOT NULL                -- unix seconds it was asked
);
CREATE TABLE IF NOT EXISTS answers (
    code TEXT NOT NULL,             -- a room's follow code
    question INTEGER NOT NULL,      -- questions.id
    token TEXT NOT NULL,            -- sha256 hex of the follower's anonymous token: one answer a token
    value REAL NOT NULL,            -- a choice's index, or the number
    PRIMARY KEY (code, question, token)
);
"""


class UnsafeStore(RuntimeError):
    """The rooms' directory or file is another user's, or others may write it: posviz will not use it."""


class TooMany(RuntimeError):
    """A room cannot be opened now: this address opened OPENS_PER_HOUR in the last hour, or MAX_OPEN are open."""


def state_dir() -> Path:
    """The user's state directory for posviz: $XDG_STATE_HOME/posviz, else ~/.local/state/posviz."""
    base = os.environ.get("XDG_STATE_HOME") or ""
    return (Path(base) if os.path.isabs(base) else Path.home() / ".local" / "state") / "posviz"


def db_path() -> Path:
    """The rooms' SQLite file: $POSVIZ_ROOMS_DB, or rooms.sqlite3 in `state_dir()`."""
    return Path(os.environ.get("POSVIZ_ROOMS_DB") or state_dir() / "rooms.sqlite3")


def check_owner(path: Path, uid: int | None = None) -> None:
    """UnsafeStore unless `path` (if it exists) belongs to `uid` (default: this process's) and only its owner may write
    it: another user could otherwise read or rewrite every room, or plant the file before posviz makes it."""
    uid = os.geteuid() if uid is None else uid
    try:
        info = path.lstat()
    except FileNotFoundError:
        return
    if stat.S_ISLNK(info.st_mode):
        raise UnsafeStore(f"{path} is a symbolic link; expected a plain file or directory owned by uid {uid}")
    if info.st_uid != uid:
        raise UnsafeStore(f"{path} is owned by uid {info.st_uid}, expected uid {uid} (this server's user)")
    if info.st_mode & (stat.S_IWGRP | stat.S_IWOTH):
        raise UnsafeStore(
            f"{path} is writable by group or others (mode {stat.S_IMODE(info.st_mode):o}), expected 700/600"
        )


def limited(text: str, limit: int, what: str) -> str:
    """`text` if it has at most `limit` characters; else ValueError saying what was expected."""
    if len(text) > limit:
        raise ValueError(f"expected {what} of at most {limit} characters, got {len(text)}")
    return text


def _controls(controls: dict[str, str]) -> str:
    """The controls as stored (JSON), each name and value checked against MAX_VALUE, at most MAX_CONTROLS."""
    if len(controls) > MAX_CONTROLS:
        raise ValueError(f"expected at most {MAX_CONTROLS} controls, got {len(controls)}")
    for key, value in controls.items():
        limited(str(key), MAX_VALUE, "a control's name")
        limited(str(value), MAX_VALUE, f"the value of {str(key)[:MAX_VALUE]!r}")
    return json.dumps(controls)


def parse_code(raw: str) -> str:
    """A follow code as typed or linked (any case, dashes and spaces ignored), in its stored form.

    >>> parse_code("abcde-fghjk")
    'ABCDEFGHJK'
    """
    code = re.sub(r"[\s-]", "", raw[:40]).upper().translate(_READ_AS)
    if len(code) != CODE_LENGTH or any(ch not in ALPHABET for ch in code):
        expected = f"a room code of {CODE_LENGTH} letters and digits (like ABCDE-FGHJK)"
        raise ValueError(f"expected {expected}, got {raw[:40]!r}")
    return code


def show_code(code: str) -> str:
    """A code as people read it: two groups of five ('ABCDE-FGHJK')."""
    return f"{code[:5]}-{code[5:]}"


def parse_secret(raw: str) -> str:
    """A lecturer's secret from a link; ValueError when it cannot be one (wrong length or characters)."""
    if not _SECRET.fullmatch(raw):
        raise ValueError("expected the lecturer's secret from the lecturer's link (20-64 URL-safe characters)")
    return raw


@dataclass(frozen=True)
class Room:
    code: str
    step: int
    steps: str
    controls: dict[str, str]
    version: int
    created: float
    active: float
    ended: str | None  # None while open; else why it ended: "ended by the lecturer" or "idle for 2 h"


@dataclass(frozen=True)
class Question:
    """A question to the room: choices to pick one of, or a number in [low, high]; with its answers' count, and the
    answers themselves (choice indices or numbers) once revealed."""

    code: str
    id: int
    step: int
    text: str
    choices: tuple[str, ...]  # () for a number answer
    low: float | None
    high: float | None
    state: str  # "open" or "revealed"
    count: int = 0
    values: tuple[float, ...] = ()  # the answers, filled when revealed

    @property
    def revealed(self) -> bool:
        return self.state == "revealed"

    def check(self, raw: object) -> float:
        """An answer as stored: a choice's index (an int in range) or a number in [low, high]; ValueError otherwise."""
        if isinstance(raw, bool) or not isinstance(raw, (int, float)):
            raise ValueError(f"expected a number, got {type(raw).__name__}")
        if self.choices:
            if not isinstance(raw, int) or not 0 <= raw < len(self.choices):
                raise ValueError(f"expected a choice's index from 0 to {len(self.choices) - 1}, got {raw!r}")
            return float(raw)
        if not math.isfinite(raw) or not self.low <= raw <= self.high:
            raise ValueError(f"expected a number from {self.low:g} to {self.high:g}, got {raw!r}")
        return float(raw)

    def bars(self) -> list[tuple[str, int]]:
        """The answers counted: one bar a choice, or a number answer's range in at most 10 equal bins (one bin an
        integer when the range and every answer are integers and the range holds at most 10).

        >>> Question("C", 1, 1, "?", (), 0, 4, "revealed", 3, (0.0, 4.0, 4.0)).bars()[-1]
        ('4', 2)
        """
        if self.choices:
            return [(label, sum(1 for v in self.values if v == i)) for i, label in enumerate(self.choices)]
        low, high = self.low, self.high
        whole = all(v == int(v) for v in (low, high, *self.values))
        if whole and high - low < 10:
            return [(f"{k:g}", sum(1 for v in self.values if round(v) == k)) for k in range(int(low), int(high) + 1)]
        edges = [low + (high - low) * i / 10 for i in range(11)]
        counts = [0] * 10
        for v in self.values:
            counts[min(int((v - low) / (high - low) * 10), 9)] += 1
        return [(f"{edges[i]:.3g} to {edges[i + 1]:.3g}", counts[i]) for i in range(10)]

    def public(self) -> dict:
        """What a follower's page is sent: the question, its choices or range, its state and count, the bars once
        revealed (nothing about who answered)."""
        shown = {"id": self.id, "text": self.text, "choices": list(self.choices), "low": self.low, "high": self.high}
        return {**shown, "state": self.state, "count": self.count, "bars": self.bars() if self.revealed else None}


def question_of(
    text: str, choices: list[str] | tuple[str, ...] = (), low: float | None = None, high: float | None = None
) -> tuple[str, tuple[str, ...], float | None, float | None]:
    """A question's parts checked against the caps: 2 to MAX_CHOICES choices, or a finite range low < high."""
    text = limited(text.strip(), MAX_QUESTION, "a question")
    if not text:
        raise ValueError("expected a question, got an empty one")
    if choices:
        choices = tuple(limited(c.strip(), MAX_CHOICE, "a choice") for c in choices if c.strip())
        if not 2 <= len(choices) <= MAX_CHOICES:
            raise ValueError(f"expected 2 to {MAX_CHOICES} choices, got {len(choices)}")
        return text, choices, None, None
    if low is None or high is None:
        raise ValueError("expected choices, or a number answer's range (low and high)")
    low, high = float(low), float(high)
    if not (math.isfinite(low) and math.isfinite(high) and -MAX_NUMBER <= low < high <= MAX_NUMBER):
        raise ValueError(f"expected a range low < high within +-{MAX_NUMBER:g}, got {low:g} to {high:g}")
    return text, (), low, high


class Rooms:
    """The rooms in one SQLite file (several processes may open the same file)."""

    def __init__(
        self, path: Path | str | None = None, idle: float = IDLE, busy: float = BUSY, tries: int = TRIES
    ) -> None:
        self.path, self.idle, self.busy, self.tries = Path(path) if path else db_path(), idle, busy, tries
        self._local = threading.local()
        self._run(lambda db: None)  # UnsafeStore or an unusable file shows now, not at the first move

    def _open(self) -> sqlite3.Connection:
        """A new connection to the checked file, in WAL mode, with the schema: the one place the file is opened."""
        folder = self.path.parent
        if not folder.exists():
            folder.mkdir(mode=0o700, parents=True)
            folder.chmod(0o700)  # whatever the umask
        for path in (folder, self.path, *_companions(self.path)):
            check_owner(path)
        os.close(os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW, 0o600))  # SQLite copies this mode
        check_owner(self.path)
        db = sqlite3.connect(self.path, timeout=self.busy, isolation_level=None)  # transactions are explicit
        try:
            db.execute("PRAGMA journal_mode=WAL")
            db.execute("PRAGMA synchronous=NORMAL")  # WAL's safe setting: a crash may lose the last move, not the file
            db.executescript(_SCHEMA)
        except BaseException:
            db.close()
            raise
        return db

    def _connect(self) -> sqlite3.Connection:
        """This thread's connection, opened again when the file was deleted or replaced (one stat a call; opening
        costs more than a read, and SQLite connections stay in their thread)."""
        held = getattr(self._local, "held", None)
        try:
            inode = os.stat(self.path).st_ino
        except FileNotFoundError:
            inode = None
        if held is not None and held[1] == inode:
            return held[0]
        self._drop()
        db = self._open()
        self._local.held = (db, os.stat(self.path).st_ino)
        return db

    def _drop(self) -> None:
        held = getattr(self._local, "held", None)
        self._local.held = None
        if held is not None:
            held[0].close()

    def _run(self, work: Callable[[sqlite3.Connection], T], write: bool = False) -> T:
        """`work` in one transaction (a write: BEGIN IMMEDIATE, COMMIT or ROLLBACK), tried again on a fresh
        connection when it met a lock or a lost file; the last error is logged once (path and cause) and raised."""
        for attempt in range(self.tries):
            try:
                db = self._connect()
                if not write:
                    return work(db)
                db.execute("BEGIN IMMEDIATE")  # takes the write lock now, waiting up to `busy` s
                try:
                    result = work(db)
                except BaseException:
                    db.execute("ROLLBACK")
                    raise
                db.execute("COMMIT")
                return result
            except sqlite3.OperationalError as error:
                if attempt + 1 < self.tries and _passing(error):
                    self._drop()
                    continue
                _report(self.path, error)
                raise
            except (sqlite3.Error, OSError, UnsafeStore) as error:
                _report(self.path, error)
                raise
        raise AssertionError("unreachable")  # pragma: no cover

    def open(
        self, step: int, controls: dict[str, str], steps: str = "", now: float | None = None, address: str = ""
    ) -> tuple[Room, str]:
        """A new room at this step; returns it and the lecturer's secret (shown once, never stored). `address` (the
        client's) counts against OPENS_PER_HOUR; TooMany past it or past MAX_OPEN open rooms."""
        now = time.time() if now is None else now
        text, steps, secret = (
            _controls(controls),
            limited(steps, MAX_TEXT, "a deck (steps=)"),
            secrets.token_urlsafe(24),
        )

        def work(db: sqlite3.Connection) -> str:
            self._purge(db, now)
            if address:
                opened = db.execute("SELECT COUNT(*) FROM opened WHERE address = ?", (_hash(address),)).fetchone()[0]
                if opened >= OPENS_PER_HOUR:
                    raise TooMany(f"this address opened {opened} rooms in the last hour (at most {OPENS_PER_HOUR})")
                db.execute("INSERT INTO opened VALUES (?, ?)", (_hash(address), now))
            live = db.execute(
                "SELECT COUNT(*) FROM rooms WHERE ended IS NULL AND active >= ?", (now - self.idle,)
            ).fetchone()[0]
            if live >= MAX_OPEN:
                raise TooMany(f"{live} rooms are open on this server (at most {MAX_OPEN})")
            while True:
                code = "".join(secrets.choice(ALPHABET) for _ in range(CODE_LENGTH))
                if not db.execute("SELECT 1 FROM rooms WHERE code = ?", (code,)).fetchone():
                    break
            db.execute(
                "INSERT INTO rooms VALUES (?, ?, ?, ?, ?, 1, ?, ?, NULL)",
                (code, _hash(secret), step, steps, text, now, now),
            )
            return code

        code = self._run(work, write=True)
        return Room(code, step, steps, dict(controls), 1, now, now, None), secret

    def get(self, code: str, now: float | None = None) -> Room | None:
        """The room with this code (ended or not), or None when there is none: one SELECT, its own transaction."""
        query = "SELECT code, step, steps, controls, version, created, active, ended FROM rooms WHERE code = ?"
        row = self._run(lambda db: db.execute(query, (code,)).fetchone())
        return None if row is None else self._room(row, time.time() if now is None else now)

    def many(self, codes: list[str], now: float | None = None) -> dict[str, Room]:
        """The rooms among `codes` that exist, by code: one SELECT for all (a server's watcher reads every room its
        followers listen to at once)."""
        if not codes:
            return {}
        now = time.time() if now is None else now
        query = "SELECT code, step, steps, controls, version, created, active, ended FROM rooms WHERE code IN (%s)"
        rows = self._run(lambda db: db.execute(query % ",".join("?" * len(codes)), list(codes)).fetchall())
        return {row[0]: self._room(row, now) for row in rows}

    def report(self, process: str, counts: dict[str, tuple[int, int]], now: float | None = None) -> None:
        """Record this process's (follow, explore) counts per room, replacing its last report (a room left out has
        none here now)."""
        now = time.time() if now is None else now
        rows = [(code, process, int(f), int(e), now) for code, (f, e) in counts.items()]

        def work(db: sqlite3.Connection) -> None:
            db.execute("DELETE FROM audience WHERE process = ?", (process,))
            db.executemany("INSERT INTO audience VALUES (?, ?, ?, ?, ?)", rows)

        self._run(work, write=True)

    def audience(self, code: str, now: float | None = None) -> tuple[int, int]:
        """How many follow the room on the light page and how many explore, over every process that reported in the
        last AUDIENCE_TTL s."""
        now = time.time() if now is None else now
        query = "SELECT COALESCE(SUM(follow), 0), COALESCE(SUM(explore), 0) FROM audience WHERE code = ? AND at >= ?"
        row = self._run(lambda db: db.execute(query, (code, now - AUDIENCE_TTL)).fetchone())
        return int(row[0]), int(row[1])

    def is_lecturer(self, code: str, secret: str) -> bool:
        """True when `secret` is this room's lecturer secret."""
        row = self._run(lambda db: db.execute("SELECT secret_hash FROM rooms WHERE code = ?", (code,)).fetchone())
        return row is not None and hmac.compare_digest(row[0], _hash(secret))

    def move(
        self, code: str, secret: str, step: int, controls: dict[str, str], steps: str = "", now: float | None = None
    ) -> Room:
        """Move the room (the lecturer's step, controls and deck); PermissionError for a wrong secret,
        LookupError for a room that is gone or ended, ValueError for a string past its cap."""
        now = time.time() if now is None else now
        text, steps = _controls(controls), limited(steps, MAX_TEXT, "a deck (steps=)")

        def work(db: sqlite3.Connection) -> None:
            self._check(db, code, secret, now)
            db.execute(
                "UPDATE rooms SET step = ?, steps = ?, controls = ?, version = version + 1, active = ? WHERE code = ?",
                (step, steps, text, now, code),
            )

        self._run(work, write=True)
        return self.get(code, now)

    def touch(self, code: str, secret: str, now: float | None = None) -> None:
        """Keep the room alive (a lecturer's window loaded) without moving it."""
        now = time.time() if now is None else now

        def work(db: sqlite3.Connection) -> None:
            self._check(db, code, secret, now)
            db.execute("UPDATE rooms SET active = ? WHERE code = ?", (now, code))

        self._run(work, write=True)

    def end(self, code: str, secret: str, now: float | None = None) -> None:
        """End the room: followers are told so and stop moving."""
        now = time.time() if now is None else now

        def work(db: sqlite3.Connection) -> None:
            self._check(db, code, secret, now)
            db.execute("UPDATE rooms SET ended = ?, version = version + 1 WHERE code = ?", (now, code))
            self._purge(db, now)

        self._run(work, write=True)

    # -- questions to the room -------------------------------------------------------------------------------------
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

        def work(db: sqlite3.Connection) -> int:
            self._check(db, code, secret, now)
            last = db.execute("SELECT id FROM questions WHERE code = ?", (code,)).fetchone()
            number = 1 if last is None else last[0] + 1
            db.execute("DELETE FROM answers WHERE code = ?", (code,))
            db.execute(
                "INSERT OR REPLACE INTO questions VALUES (?, ?, ?, ?, ?, ?, ?, 'open', ?)",
                (code, number, int(step), text, json.dumps(list(choices)), low, high, now),
            )
            return number

        number = self._run(work, write=True)
        return Question(code, number, int(step), text, choices, low, high, "open")

    def reveal(self, code: str, secret: str, now: float | None = None) -> None:
        """Show the class's answers (the lecturer's secret only); the question takes no more answers."""
        self._question_state(code, secret, "UPDATE questions SET state = 'revealed' WHERE code = ?", now)

    def withdraw(self, code: str, secret: str, now: float | None = None) -> None:
        """Take the question away (the lecturer's secret only), with its answers."""
        self._question_state(code, secret, "DELETE FROM questions WHERE code = ?", now)

    def _question_state(self, code: str, secret: str, statement: str, now: float | None) -> None:
        now = time.time() if now is None else now

        def work(db: sqlite3.Connection) -> None:
            self._check(db, code, secret, now)
            if "DELETE" in statement:
                db.execute("DELETE FROM answers WHERE code = ?", (code,))
            db.execute(statement, (code,))

        self._run(work, write=True)

    def token(self, code: str) -> str:
        """A follower's anonymous answer token for this room: 16 random characters and their HMAC under the room's
        secret hash (which never leaves the server), so any server process can check it and no one can forge one.
        LookupError when there is no such room."""
        row = self._run(lambda db: db.execute("SELECT secret_hash FROM rooms WHERE code = ?", (code,)).fetchone())
        if row is None:
            raise LookupError(f"there is no room {show_code(code)}")
        nonce = secrets.token_urlsafe(12)
        return f"{nonce}.{_mac(row[0], code, nonce)}"

    def answer(self, code: str, token: str, question: int, raw: object, now: float | None = None) -> int:
        """A follower's answer to question `question`: one a token (a second replaces the first), at most MAX_ANSWERS.
        PermissionError for a token that is not this room's, LookupError when that question is not open,
        ValueError for an answer out of bounds. Returns the number answered."""
        now = time.time() if now is None else now
        found = _TOKEN.fullmatch(token) if isinstance(token, str) else None
        if found is None:
            raise PermissionError("expected the answer token this room's page gave (16 characters, a dot, 32 hex)")

        def work(db: sqlite3.Connection) -> int:
            row = db.execute(
                "SELECT r.secret_hash, r.ended, r.active, q.id, q.step, q.text, q.choices, q.low, q.high, q.state "
                "FROM rooms r LEFT JOIN questions q ON q.code = r.code WHERE r.code = ?",
                (code,),
            ).fetchone()
            if row is None or not hmac.compare_digest(_mac(row[0], code, found.group(1)), found.group(2)):
                raise PermissionError(f"that answer token is not one room {show_code(code)} gave")
            if row[1] is not None or row[2] < now - self.idle:
                raise LookupError(f"room {show_code(code)} has ended")
            if row[3] != question or row[9] != "open":
                raise LookupError(f"question {question} is not open in room {show_code(code)}")
            asked = Question(code, row[3], row[4], row[5], tuple(json.loads(row[6])), row[7], row[8], row[9])
            value, key = asked.check(raw), _hash(token)
            count = db.execute("SELECT COUNT(*) FROM answers WHERE code = ? AND question = ?", (code, question))
            count = count.fetchone()[0]
            again = db.execute(
                "SELECT 1 FROM answers WHERE code = ? AND question = ? AND token = ?", (code, question, key)
            ).fetchone()
            if again is None and count >= MAX_ANSWERS:
                raise ValueError(f"this question has its {MAX_ANSWERS} answers already")
            db.execute("INSERT OR REPLACE INTO answers VALUES (?, ?, ?, ?)", (code, question, key, value))
            return count + (again is None)

        return self._run(work, write=True)

    def questions(self, codes: list[str]) -> dict[str, Question]:
        """The current question of each room among `codes` that has one, with its count (and its answers when
        revealed): two SELECTs for all (the watcher's read, beside `many`)."""
        if not codes:
            return {}
        marks = ",".join("?" * len(codes))

        def work(db: sqlite3.Connection) -> dict[str, Question]:
            rows = db.execute(
                "SELECT q.code, q.id, q.step, q.text, q.choices, q.low, q.high, q.state, "
                f"(SELECT COUNT(*) FROM answers a WHERE a.code = q.code AND a.question = q.id) "
                f"FROM questions q WHERE q.code IN ({marks})",
                list(codes),
            ).fetchall()
            found = {}
            for code, number, step, text, choices, low, high, state, count in rows:
                values = ()
                if state == "revealed":
                    query = "SELECT value FROM answers WHERE code = ? AND question = ?"
                    values = tuple(v for (v,) in db.execute(query, (code, number)).fetchall())
                found[code] = Question(
                    code, number, step, text, tuple(json.loads(choices)), low, high, state, count, values
                )
            return found

        return self._run(work)

    def question(self, code: str) -> Question | None:
        """The room's current question (see `questions`), or None."""
        return self.questions([code]).get(code)

    def _purge(self, db: sqlite3.Connection, now: float) -> None:
        """Delete what has expired: a room KEEP s after it ended (by the lecturer, or idle for `idle` s) with whatever
        is kept for it (a table keyed by a room's code deletes its rows here, before the room's), openings after 1 h."""
        db.execute("DELETE FROM audience WHERE at < ?", (now - AUDIENCE_TTL,))
        expired = "SELECT code FROM rooms WHERE COALESCE(ended, active + ?) < ?"
        for table in ("answers", "questions"):  # a room's questions and answers go with it
            db.execute(f"DELETE FROM {table} WHERE code IN ({expired})", (self.idle, now - KEEP))
        db.execute("DELETE FROM rooms WHERE COALESCE(ended, active + ?) < ?", (self.idle, now - KEEP))
        db.execute("DELETE FROM opened WHERE at < ?", (now - 3600,))

    def _check(self, db: sqlite3.Connection, code: str, secret: str, now: float) -> None:
        row = db.execute("SELECT secret_hash, active, ended FROM rooms WHERE code = ?", (code,)).fetchone()
        if row is None or row[2] is not None or row[1] < now - self.idle:
            raise LookupError(f"room {show_code(code)} has ended or never existed")
        if not hmac.compare_digest(row[0], _hash(secret)):
            raise PermissionError(f"that is not the lecturer's secret for room {show_code(code)}")

    def _room(self, row: tuple, now: float) -> Room:
        code, step, steps, controls, version, created, active, ended = row
        why = "ended by the lecturer" if ended is not None else None
        if why is None and active < now - self.idle:
            why = f"idle for {self.idle / 3600:g} h" if self.idle >= 3600 else f"idle for {self.idle / 60:g} min"
        return Room(code, step, steps, json.loads(controls), version, created, active, why)


def plain(error: BaseException) -> str:
    """What went wrong with the rooms' file, in words for a page: no path, no exception's name (the log has both)."""
    text = str(error).lower()
    if getattr(error, "words", None):  # a store's own plain words (rooms_redis.RedisTrouble)
        return error.words
    if isinstance(error, UnsafeStore):
        return "the rooms file is not this server's own (its owner or permissions are wrong; the server log says which)"
    if isinstance(error, (TooMany, ValueError)):  # already in plain words
        return str(error)
    if "locked" in text or "busy" in text:
        return "the rooms file is busy (another process holds its write lock)"
    if "no such table" in text or "not a database" in text or "malformed" in text:
        return "the rooms file was replaced or damaged"
    if "readonly" in text:
        return "the rooms file cannot be written"
    if "unable to open" in text or isinstance(error, PermissionError):
        return "the rooms file cannot be opened"
    return "the rooms file cannot be used"


_REPORTED: set[tuple[str, str]] = set()


def _report(path: Path, error: BaseException) -> None:
    """Log a rooms error's file and cause once per process (a poll meets the same error every second)."""
    key = (str(path), f"{type(error).__name__}: {error}")
    if key not in _REPORTED:
        _REPORTED.add(key)
        _log.error("rooms file %s: %s", *key)


def _passing(error: sqlite3.OperationalError) -> bool:
    """True for an error another try may not meet: a lock held elsewhere, a file deleted or replaced meanwhile."""
    text = str(error).lower()
    return any(word in text for word in ("locked", "busy", "no such table", "readonly", "disk i/o"))


def _companions(path: Path) -> tuple[Path, Path]:
    return path.with_name(path.name + "-wal"), path.with_name(path.name + "-shm")


def _mac(secret_hash: str, code: str, nonce: str) -> str:
    return hmac.new(secret_hash.encode(), f"{code}.{nonce}".encode(), hashlib.sha256).hexdigest()[:32]


def _hash(secret: str) -> str:
    return hashlib.sha256(secret.encode()).hexdigest()
