"""Rooms: a lecture that a class follows on its own devices, kept in SQLite so that server processes share it.

A room holds where the lecturer is (the step, the deck's `steps=` string passed through as it came, and the step's
control values as URL strings) and a version that goes up with every move, so a follower's poll compares one integer.
Anyone with the follow code reads the room; only the lecturer's secret moves or ends it. Only the secret's SHA-256 is
stored: the secret is 24 random bytes (`secrets.token_urlsafe`), so its hash needs no salt or stretching.

The file is `POSVIZ_ROOMS_DB` (default: posviz-rooms.sqlite3 in the system temp dir), in WAL mode; every read and
write is one short transaction on its own connection, so two server processes on one host see the same rooms.

Why a follow code cannot be guessed: a code is 10 symbols of Crockford's base 32 (digits, and letters but I, L, O,
U; a typed O reads as 0, an I or L as 1): 32**10 = 1.1e15 codes. With 1,000 rooms alive and an attacker trying 1,000
codes a second (one Streamlit process runs a few hundred pages a second at most), a hit takes 32**10 / (1,000 *
1,000) s = 1.1e9 s on average, about 36 years; and a room ends after `IDLE` seconds (2 h) without a lecturer's move.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import re
import secrets
import sqlite3
import tempfile
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

ALPHABET = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"  # Crockford's base 32: no I, L, O, U
CODE_LENGTH = 10
IDLE = 2 * 60 * 60  # seconds without a lecturer's move (or page load) after which a room ends
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
)
"""


def db_path() -> Path:
    """The rooms' SQLite file: $POSVIZ_ROOMS_DB, or posviz-rooms.sqlite3 in the system temp dir."""
    return Path(os.environ.get("POSVIZ_ROOMS_DB") or Path(tempfile.gettempdir()) / "posviz-rooms.sqlite3")


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


class Rooms:
    """The rooms in one SQLite file (several processes may open the same file)."""

    def __init__(self, path: Path | str | None = None, idle: float = IDLE) -> None:
        self.path, self.idle, self._local = Path(path) if path else db_path(), idle, threading.local()
        db = self._connect()
        db.execute("PRAGMA journal_mode=WAL")
        db.execute(_SCHEMA)

    def _connect(self) -> sqlite3.Connection:
        """This thread's connection (opening one costs more than a read; SQLite connections stay in their thread)."""
        db = getattr(self._local, "db", None)
        if db is None:
            db = sqlite3.connect(self.path, timeout=5, isolation_level=None)  # transactions are explicit
            db.execute("PRAGMA synchronous=NORMAL")  # WAL's safe setting: a crash may lose the last move, not the file
            self._local.db = db
        return db

    @contextmanager
    def _write(self) -> Iterator[sqlite3.Connection]:
        """One short write transaction: BEGIN IMMEDIATE (takes the write lock now), COMMIT, or ROLLBACK on error."""
        db = self._connect()
        db.execute("BEGIN IMMEDIATE")
        try:
            yield db
        except BaseException:
            db.execute("ROLLBACK")
            raise
        db.execute("COMMIT")

    def open(self, step: int, controls: dict[str, str], steps: str = "", now: float | None = None) -> tuple[Room, str]:
        """A new room at this step; returns it and the lecturer's secret (shown once, never stored)."""
        now = time.time() if now is None else now
        secret = secrets.token_urlsafe(24)
        with self._write() as db:
            db.execute("DELETE FROM rooms WHERE ended IS NOT NULL OR active < ?", (now - self.idle - 86400,))
            while True:
                code = "".join(secrets.choice(ALPHABET) for _ in range(CODE_LENGTH))
                if not db.execute("SELECT 1 FROM rooms WHERE code = ?", (code,)).fetchone():
                    break
            db.execute(
                "INSERT INTO rooms VALUES (?, ?, ?, ?, ?, 1, ?, ?, NULL)",
                (code, _hash(secret), step, steps, json.dumps(controls), now, now),
            )
        return Room(code, step, steps, dict(controls), 1, now, now, None), secret

    def get(self, code: str, now: float | None = None) -> Room | None:
        """The room with this code (ended or not), or None when there is none: one SELECT, its own transaction."""
        row = (
            self._connect()
            .execute(
                "SELECT code, step, steps, controls, version, created, active, ended FROM rooms WHERE code = ?", (code,)
            )
            .fetchone()
        )
        return None if row is None else self._room(row, time.time() if now is None else now)

    def is_lecturer(self, code: str, secret: str) -> bool:
        """True when `secret` is this room's lecturer secret."""
        row = self._connect().execute("SELECT secret_hash FROM rooms WHERE code = ?", (code,)).fetchone()
        return row is not None and hmac.compare_digest(row[0], _hash(secret))

    def move(
        self, code: str, secret: str, step: int, controls: dict[str, str], steps: str = "", now: float | None = None
    ) -> Room:
        """Move the room (the lecturer's step, controls and deck); PermissionError for a wrong secret,
        LookupError for a room that is gone or ended."""
        now = time.time() if now is None else now
        with self._write() as db:
            self._check(db, code, secret, now)
            db.execute(
                "UPDATE rooms SET step = ?, steps = ?, controls = ?, version = version + 1, active = ? WHERE code = ?",
                (step, steps, json.dumps(controls), now, code),
            )
        return self.get(code, now)

    def touch(self, code: str, secret: str, now: float | None = None) -> None:
        """Keep the room alive (a lecturer's window loaded) without moving it."""
        now = time.time() if now is None else now
        with self._write() as db:
            self._check(db, code, secret, now)
            db.execute("UPDATE rooms SET active = ? WHERE code = ?", (now, code))

    def end(self, code: str, secret: str, now: float | None = None) -> None:
        """End the room: followers are told so and stop moving."""
        now = time.time() if now is None else now
        with self._write() as db:
            self._check(db, code, secret, now)
            db.execute("UPDATE rooms SET ended = ?, version = version + 1 WHERE code = ?", (now, code))

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


def _hash(secret: str) -> str:
    return hashlib.sha256(secret.encode()).hexdigest()
