"""The light follow channel: a room's followers served by the app's own server, one render per move for all of them.

Two routes beside Streamlit's (streamlit_app.py hands `Hall` to st.App):
- `/follow/CODE`: the follower's page (posviz.lecture.follow.page), the room's step already in it;
- `/follow/CODE/events`: server-sent events, one `step` event (the step's HTML) at each move of the room, `ended`
  when it ends, `question` when the lecturer asks, reveals or takes away a question to the room (and as answers
  arrive); `?explore=1` is the same stream held by a follower exploring on the live lecture page (counted apart);
- `/follow/CODE/answer` (POST): a follower's answer to the room's question, with the anonymous token its page got
  (Rooms.token); one answer a token, a second replacing the first until the reveal. No route asks or reveals: only
  the lecturer's window, with the secret, does (ui.lectern).

How the server learns of a move: the lecturer's page writes the move to the rooms' store as before; one watcher task
a process (started with the first listener, stopped with the last) reads every room that has listeners in one
SELECT every `TICK` s, and when a room's version moved, renders its step once (follow.Renderer, in a worker thread)
and hands the same bytes to every listener: a listener keeps only the latest event, so a slow phone skips steps
instead of queueing them. On Redis (rooms_redis), the watcher's wait between reads ends at once when a move is
published, so the read that finds it does not wait for the tick. The watcher also reports each room's (follow,
explore) counts to the store (Rooms.report), which the lecturer's window reads ("N follow"), whichever process
holds the connections.

A code that is not a room's gets a 404 with a plain sentence; nothing here needs the lecturer's secret.
"""

from __future__ import annotations

import asyncio
import logging
import os
import re
import socket
import time
import uuid
from collections.abc import AsyncIterator, Callable

from starlette.requests import Request
from starlette.responses import HTMLResponse, PlainTextResponse, Response, StreamingResponse
from starlette.routing import BaseRoute, Match, NoMatchFound
from starlette.types import Receive, Scope, Send
from streamlit import config

from posviz.lecture import follow
from posviz.lecture.follow import MAX_BODY, Listener
from posviz.lecture.rooms import Room, Rooms, parse_code, plain, show_code
from posviz.lecture.rooms_redis import RedisRooms, connect, where
from shell import REFERRER_POLICY

TICK = 0.25  # seconds between the watcher's reads of the store: a move reaches followers within TICK + one render
BEAT = 15.0  # seconds between comments on a quiet stream: proxies keep it open (a closed one ends at once)
REPORT = 10.0  # seconds between reports of unchanged counts (the store forgets a report after AUDIENCE_TTL)
HEADERS = {
    "Cache-Control": "no-store",
    "Referrer-Policy": REFERRER_POLICY,
    # the page needs nothing from elsewhere: its own inline style and script, data: pictures, its event stream
    "Content-Security-Policy": "default-src 'none'; img-src data:; style-src 'unsafe-inline'; "
    "script-src 'unsafe-inline'; connect-src 'self'; base-uri 'none'; form-action 'none'",
}
_log = logging.getLogger(__name__)
_STORES: dict[str, Rooms | RedisRooms] = {}


def store() -> Rooms | RedisRooms:
    """This process's handle on the rooms' store (rooms_redis.where, read at each call, as ui.rooms.store does)."""
    place = where()
    if place not in _STORES:
        _STORES[place] = connect(place)
    return _STORES[place]


class Hall(BaseRoute):
    """The follow routes and the one watcher of this process (see the module's docstring)."""

    def __init__(
        self,
        rooms: Callable[[], Rooms] = store,
        tick: float = TICK,
        base_url_path: str | None = None,
        renderer: follow.Renderer | None = None,
    ) -> None:
        self.rooms, self.tick, self.base_url_path = rooms, tick, base_url_path
        self.renderer = renderer or follow.Renderer()
        self.listeners: dict[str, set[Listener]] = {}
        self.events: dict[str, tuple[int, bytes]] = {}  # code -> (version, the event every listener was given)
        self.asked: dict[str, tuple[tuple, bytes]] = {}  # code -> (the question's id, state and count; its event)
        self.process = f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:6]}"
        self._pattern: re.Pattern | None = None
        self._watcher: asyncio.Task | None = None
        self._locks: dict[str, asyncio.Lock] = {}
        self._reported: tuple[dict, float] = ({}, 0.0)

    # -- routing ---------------------------------------------------------------------------------------------------
    def pattern(self) -> re.Pattern:
        if self._pattern is None:
            base = config.get_option("server.baseUrlPath") if self.base_url_path is None else self.base_url_path
            prefix = "/" + base.strip("/") if base.strip("/") else ""
            self._pattern = re.compile(re.escape(prefix) + r"/follow/([^/]{1,64})(/events|/answer)?")
        return self._pattern

    def matches(self, scope: Scope) -> tuple[Match, Scope]:
        found = self.pattern().fullmatch(scope["path"]) if scope["type"] == "http" else None
        kind = (found.group(2) or "") if found else ""
        wanted = ("POST",) if kind == "/answer" else ("GET", "HEAD")  # an answer is a POST, the rest GETs
        if found is None or scope["method"] not in wanted:
            return Match.NONE, {}
        return Match.FULL, {"path_params": {"code": found.group(1), "events": kind == "/events", "answer": kind}}

    def url_path_for(self, name: str, /, **path_params: object):  # nothing links to it by name
        raise NoMatchFound(name, path_params)

    async def handle(self, scope: Scope, receive: Receive, send: Send) -> None:
        request = Request(scope, receive)
        raw, events = scope["path_params"]["code"], scope["path_params"]["events"]
        if scope["path_params"].get("answer") == "/answer":
            await (await self.answer(request, raw))(scope, receive, send)
            return
        try:
            code = parse_code(raw)
            room = await asyncio.to_thread(lambda: self.rooms().get(code))
        except ValueError as error:
            response: Response = _plain(404, f"No such room: {error}.")
        except Exception as error:  # the store's trouble, in words (the log has its path and cause)
            response = _plain(503, f"Rooms are unavailable on this server: {plain(error)}.")
        else:
            if room is None:
                response = _plain(404, f"There is no room {show_code(code)} on this server.")
            elif events:
                response = self.stream(room, request.query_params.get("explore") == "1")
            elif room.ended:
                response = _plain(410, f"Room {show_code(code)} has ended ({room.ended}).")
            else:
                state = _state(room)
                html = await asyncio.to_thread(self.renderer, state)
                try:
                    token = await asyncio.to_thread(self.rooms().token, code)
                except Exception:  # a store without questions, or in trouble: the page still follows the lecturer
                    token = ""
                response = HTMLResponse(follow.page(code, html, state, token), headers=HEADERS)
        await response(scope, receive, send)

    async def answer(self, request: Request, raw: str) -> Response:
        """A follower's answer: a JSON body {"token", "question", "answer"} of at most MAX_BODY bytes. 200 with the
        count; 400 for anything malformed or out of bounds, 403 for a token this room did not give, 409 when the
        question is not open; each with a plain sentence."""
        try:
            code = parse_code(raw)
        except ValueError as error:
            return _plain(404, f"No such room: {error}.")
        body = b""
        async for chunk in request.stream():
            body += chunk
            if len(body) > MAX_BODY:
                return _plain(400, f"An answer is at most {MAX_BODY} bytes of JSON.")
        try:
            count = await asyncio.to_thread(self.rooms().answer, code, *follow.read_answer(body))
        except PermissionError as error:
            return _plain(403, f"{error}.")
        except LookupError as error:
            return _plain(409, f"{error}.")
        except ValueError as error:  # json's errors are ValueErrors too
            return _plain(400, f"Not an answer: {error}.")
        except Exception as error:  # the store's trouble, in words (the log has its path and cause)
            return _plain(503, f"Rooms are unavailable on this server: {plain(error)}.")
        return PlainTextResponse(f"{count} answered\n", headers=HEADERS)

    # -- listeners -------------------------------------------------------------------------------------------------
    def stream(self, room: Room, explore: bool) -> StreamingResponse:
        listener = Listener(explore)
        return StreamingResponse(self._events(room, listener), media_type="text/event-stream", headers=HEADERS)

    async def _events(self, room: Room, listener: Listener) -> AsyncIterator[bytes]:
        code = room.code
        self.listeners.setdefault(code, set()).add(listener)
        self._start()
        try:
            yield b"retry: 1000\n\n"
            listener.give("ended" if room.ended else "step", await self.event(room))
            if code in self.asked:
                listener.give("question", self.asked[code][1])
            while True:
                try:
                    await asyncio.wait_for(listener.wake.wait(), BEAT)
                except TimeoutError:
                    yield b": still here\n\n"
                    continue
                listener.wake.clear()
                sent, listener.latest = listener.latest, {}
                for kind, data in sent.items():
                    yield data
                    if kind == "ended":
                        return
        finally:
            kept = self.listeners.get(code, set())
            kept.discard(listener)
            if not kept:
                self.listeners.pop(code, None)
                self.events.pop(code, None)
                self.asked.pop(code, None)
                self._locks.pop(code, None)  # a room nobody follows keeps no render lock

    async def event(self, room: Room) -> bytes:
        """The room's current event, rendered once per version (concurrent callers wait for the one render)."""
        if room.ended:
            return follow.ended(room.ended)
        async with self._locks.setdefault(room.code, asyncio.Lock()):
            kept = self.events.get(room.code)
            if kept is None or kept[0] != room.version:
                state = _state(room)
                html = await asyncio.to_thread(self.renderer, state)
                kept = (room.version, follow.event(room.version, state, html))
                self.events[room.code] = kept
            return kept[1]

    def counts(self) -> dict[str, tuple[int, int]]:
        """(follow, explore) listeners per room on this process."""
        found = {}
        for code, listeners in self.listeners.items():
            explore = sum(1 for listener in listeners if listener.explore)
            found[code] = (len(listeners) - explore, explore)
        return found

    # -- the watcher -----------------------------------------------------------------------------------------------
    def _start(self) -> None:
        if self._watcher is None or self._watcher.done():
            self._watcher = asyncio.get_running_loop().create_task(self.watch())

    async def watch(self) -> None:
        """Read every listened-to room each `tick` s; a moved room's event goes to all its listeners; report counts."""
        while True:
            try:
                await self.once()
            except Exception as error:  # the store's trouble: said once in the log (rooms._report), tried again
                _log.debug("follow watcher: %s", error)
            if not self.listeners:  # no await between this check and the end: a new listener starts a new watcher
                self._watcher = None
                return
            await self._pause()

    async def _pause(self) -> None:
        """Wait `tick` s before the next read; a store that publishes its moves (Redis: `wait`) ends the wait at the
        move, so the next read comes at once."""
        wait = getattr(self.rooms(), "wait", None)
        if wait is None:
            await asyncio.sleep(self.tick)
            return
        try:
            await asyncio.to_thread(wait, self.tick)
        except Exception as error:  # Redis's trouble, logged once by the store: poll as SQLite does
            _log.debug("follow watcher: %s", error)
            await asyncio.sleep(self.tick)

    async def once(self) -> None:
        codes = list(self.listeners)
        found = await asyncio.to_thread(self.rooms().many, codes) if codes else {}
        for code in codes:
            room = found.get(code)
            kept = self.events.get(code)
            if room is not None and not room.ended and kept is not None and kept[0] == room.version:
                continue
            data = follow.ended("it is gone") if room is None else await self.event(room)
            kind = "ended" if room is None or room.ended else "step"
            for listener in list(self.listeners.get(code, ())):
                listener.give(kind, data)
        try:  # apart from the steps: a store without questions still moves its followers
            await self._questions(codes)
        except Exception as error:
            _log.debug("follow watcher, questions: %s", error)
        await self._report()

    async def _questions(self, codes: list[str]) -> None:
        """Each room's question to its listeners when it was asked, answered, revealed or withdrawn."""
        found = await asyncio.to_thread(self.rooms().questions, codes) if codes else {}
        for code in codes:
            asked = found.get(code)
            key = None if asked is None else (asked.id, asked.state, asked.count)
            if key == self.asked.get(code, (None,))[0]:
                continue
            data = follow.question(None if asked is None else asked.public())
            if asked is None:
                self.asked.pop(code, None)
            else:
                self.asked[code] = (key, data)
            for listener in list(self.listeners.get(code, ())):
                listener.give("question", data)

    async def _report(self) -> None:
        counts, now = self.counts(), time.time()
        last, at = self._reported
        if counts == last and now - at < REPORT:
            return
        self._reported = (counts, now)
        await asyncio.to_thread(self.rooms().report, self.process, counts)


def _state(room: Room) -> follow.State:
    return follow.State.of(room.steps, room.step, room.controls)


def _plain(status: int, text: str) -> PlainTextResponse:
    return PlainTextResponse(text + "\n", status_code=status, headers=HEADERS)
