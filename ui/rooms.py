"""The room on the lecture page: joining from the link, the lecturer's moves written, every member's poll.

Streamlit has no push between sessions, so each member of a room (follower, projected window, speaker view) reads
the room every `POLL` seconds in a fragment; a read is one SQLite SELECT, and the page reruns only when the room's
version moved. A follower who touches a control or a step is exploring: the poll then only says where the lecturer
is, until "Rejoin the lecturer". The store is posviz.lecture.rooms (no Streamlit there): its errors reach the server
log once (path and cause) and the page in plain words (`rooms.plain`). A lecturer's move the store could not write
is kept and sent again by the lecturer's poll.
"""

from __future__ import annotations

import json
import sqlite3
import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

import streamlit as st

from posviz.lecture.rooms import Room, Rooms, TooMany, UnsafeStore, parse_code, parse_secret, plain, show_code
from posviz.lecture.rooms_redis import RedisRooms, connect, where
from ui import explore
from ui.declarations import Param
from ui.screen import presenter
from ui.text import note

POLL = 1.0  # seconds between a member's reads of the room: a move shows within POLL + one page run
_SEEN = "_room_seen"  # (code, version) this session last applied or wrote
_STATE = "_room_state"  # (step, controls) this session last applied or wrote
_PENDING = "_room_pending"  # a Room the poll saw move, applied at the top of the next run
_APPLIED = "_room_applied"  # this run took the room's state: keep() records the session's state as following
_DECK = "_room_deck"  # the steps= string this session last set from a room (one rerun per deck)
_UNSENT = "_room_unsent"  # a lecturer's (step, controls) the store could not take yet: the poll sends it again
_UNSENT_BY = "_room_unsent_by"  # the secret that sends it (the poll holds only the code)
SECRETS = "_room_secrets"  # {code: the lecturer's secret} this session holds, out of the window's address
# The lecturer's secret leaves the address bar after the first load (the session holds it); the tab's sessionStorage
# keeps it, so a reload of the lecturer's window (which starts a new session) puts it back into the link once.
_REMEMBER = """<script>sessionStorage.setItem(%s, %s);</script>"""
_RECALL = """<script>(() => {
  const secret = sessionStorage.getItem(%s), url = new URL(location.href);
  if (secret && !url.searchParams.has("secret")) { url.searchParams.set("secret", secret); location.replace(url.href); }
})();</script>"""
TROUBLE = (sqlite3.Error, OSError, UnsafeStore, TooMany)  # the store's troubles (PermissionError: a wrong secret)


# A follower's phone: no step buttons (the room moves it; its controls and "Rejoin" stay) and, out of presenter mode,
# the claim (ui.claim's container) in smaller type, so the number and the first figure are on the first screen; the
# room's line clear of the sidebar button. At every width the room's buttons sit above Streamlit's header band, whose
# toolbar (fixed, on top) would otherwise take the clicks on "Rejoin the lecturer"; the rest of the line lets clicks
# through to the header's own buttons. Each rule finds its element by the st-key-* class of a keyed container.
_PHONE = """<style>.st-key-room-slot {position: relative; z-index: 999991; pointer-events: none}
.st-key-room-slot button, .st-key-room-slot [data-testid='stTooltipIcon'] {pointer-events: auto}
@media (max-width: 640px) {
.st-key-lecture-nav {display: none}
.st-key-room-slot {padding-left: 2rem}%s}</style>"""
# (more specific than the lecture's own phone claim, ui.screen.PHONE_LECTURE_CSS, whichever comes later)
_PHONE_CLAIM = "\n[data-testid='stMain'] .st-key-claim div {font-size: 1.15rem !important}"


def store() -> Rooms | RedisRooms:
    """This process's handle on the rooms' store: Redis at $POSVIZ_ROOMS_REDIS, else the SQLite file
    $POSVIZ_ROOMS_DB (rooms_redis.where, read at each call: tests change it)."""
    return _store(where())


@st.cache_resource(max_entries=4)
def _store(place: str) -> Rooms | RedisRooms:
    return connect(place)


@dataclass(frozen=True)
class Member:
    code: str
    secret: str | None  # the lecturer's windows hold it; a follower's is None
    speaker: bool
    slot: object  # the container at the top of the page where the poll writes

    @property
    def lecturer(self) -> bool:
        return self.secret is not None


def join(params: Mapping[str, Param]) -> Member | None:
    """The room this link belongs to (room=, secret=, speaker=), with its state applied to the session's controls.

    Call after `url_state` and before the controls are drawn. A bad or unknown code, or a secret that is not the
    lecturer's, gets a note: the plain lecture, or following without moving the room.
    """
    q, s = st.query_params, st.session_state
    raw = q.get("room")
    if raw is None:
        if "follow" in q:  # a light-page follower exploring: the lecturer's step and the way back
            explore.back(q["follow"], store)
        if "secret" in q or "speaker" in q:
            note("A speaker view or a lecturer's secret needs its room: open one with 'Share with the room'.")
        return None
    try:
        code = parse_code(raw)
        room = store().get(code)
    except ValueError as error:
        note(f"room={_short(raw)!r}: {error}; showing the plain lecture.")
        return None
    except TROUBLE as error:
        note(f"Rooms are unavailable on this server: {plain(error)}. Showing the plain lecture.")
        return None
    if room is None or room.ended:
        why = "there is no such room" if room is None else f"it has ended ({room.ended})"
        note(f"Room {show_code(code)}: {why}; showing the plain lecture.")
        return None
    secret = _secret(code, q.get("secret") or s.get(SECRETS, {}).get(code))
    _hold(code, secret)
    speaker = q.get("speaker", "").lower() in ("1", "true")
    if speaker and secret is None:
        note("The speaker view opens from the lecturer's link (with its secret); here you follow the room.")
    pending = s.pop(_PENDING, None)
    if s.get(_SEEN, (None,))[0] != code:  # arriving in this room: take its state
        pending = room
        if secret is not None:
            _guard(lambda: store().touch(code, secret))
        if secret is not None and "step" in q:  # a lecturer's link that names a step: the room moves there (keep())
            s[_SEEN], s[_STATE], pending = (code, room.version), (room.step, dict(room.controls)), None
    if pending is not None:
        _apply(pending, params)
    speaker = speaker and secret is not None
    slot = None if secret is not None and not speaker else st.container(key="room-slot")  # none on the projector
    return Member(code, secret, speaker, slot)


def keep(member: Member | None, step: int, controls: Iterable[Param]) -> None:
    """After the controls: a lecturer's move is written to the room; a follower's own move makes them explore.
    Then the poll, drawn in the member's slot (the lecturer's in the sidebar, off the projected screen)."""
    if member is None:
        return
    s = st.session_state
    state = (step, {p.key: p.format(s[p.key]) for p in controls if s.get(p.key) is not None})
    if s.pop(_APPLIED, False):
        s[_STATE] = state
    if member.lecturer and state != s.get(_STATE):
        s[_UNSENT] = state
        _send(member)
    exploring = not member.lecturer and state != s.get(_STATE)
    if member.lecturer and not member.speaker:
        with st.sidebar:
            _poll(member.code, True, False, False)
    else:
        if not member.lecturer:
            st.html(_PHONE % ("" if presenter() else _PHONE_CLAIM))
        with member.slot:
            _poll(member.code, member.lecturer, exploring, member.speaker)


@st.fragment(run_every=POLL)
def _poll(code: str, lecturer: bool, exploring: bool, clock: bool) -> None:
    """One read of the room: rerun the page when it moved (unless exploring); say where the lecturer is."""
    s = st.session_state
    if lecturer and _UNSENT in s:  # a move the store could not take: try again each poll
        _send(Member(code, s[_UNSENT_BY], False, None), quiet=True)
    try:
        room = store().get(code)
    except TROUBLE as error:
        st.caption(f"The room cannot be read just now: {plain(error)}. Trying again.")
        return
    if room is None or room.ended:
        why = "it is gone" if room is None else room.ended
        st.caption(f"Room {show_code(code)} has ended ({why}); this window no longer moves with it.")
        return
    moved = room.version != s.get(_SEEN, (None, None))[1]
    if moved and not exploring:
        s[_PENDING] = room
        st.rerun()
    if clock:
        minutes, seconds = divmod(int(time.time() - room.created), 60)
        st.markdown(
            f"**{minutes // 60}:{minutes % 60:02d}:{seconds:02d}** since the lecture started · room {show_code(code)}"
            f" · {audience(code)}"
        )
    elif lecturer and _UNSENT in s:
        st.caption(f"Your last move has not reached room {show_code(code)} yet; sending it again.")
    elif lecturer:
        st.caption(
            f"Room {show_code(code)} is open ({audience(code)}); it ends when you end it or after 2 h without a move."
        )
    elif exploring:
        left, right = st.columns([3, 1], vertical_alignment="center")
        left.markdown(f"You are exploring on your own; the lecturer is on **step {room.step}**.")
        if right.button("Rejoin the lecturer", key="room-rejoin", icon=":material/group:", type="primary"):
            s[_PENDING] = room
            st.rerun()
    else:
        st.caption(f"Following the lecturer · room {show_code(code)}", help="Touch a control to explore on your own.")


def audience(code: str) -> str:
    """'N follow · M explore · K answered': the light follow page's listeners on every server process (the store's
    count), and the answers to the room's question when one is asked."""
    try:
        following, exploring = store().audience(code)
        asked = store().question(code)
    except TROUBLE:
        return "followers not counted just now"
    answered = "" if asked is None else f" · {asked.count} answered"
    return f"{following} follow" + (f" · {exploring} explore" if exploring else "") + answered


def _apply(room: Room, params: Mapping[str, Param]) -> None:
    """Set the session's step and controls to the room's (values the page cannot take are skipped)."""
    q, s = st.query_params, st.session_state
    if room.steps != q.get("steps", "") and s.get(_DECK) != room.steps:  # the lecturer's deck: rerun with it
        s[_DECK], s[_PENDING] = room.steps, room
        for key in params:  # seeded again on the rerun from the link, else from the deck's presets
            s.pop(key, None)
        if room.steps:
            q["steps"] = room.steps
        else:
            del q["steps"]
        st.rerun()
    if "step" in params and room.step in params["step"].options:
        s["step"] = room.step
    for key, raw in room.controls.items():
        if key in params:
            try:
                s[key] = params[key].parse(raw)
            except ValueError:
                pass
    s[_SEEN], s[_STATE] = (room.code, room.version), (room.step, dict(room.controls))
    s[_APPLIED] = True  # keep() takes the state after this as the room's (controls the room left out at defaults)


def _hold(code: str, secret: str | None) -> None:
    """A lecturer's window: the secret into the session and the tab's sessionStorage, out of the address bar. A
    window arriving without one: take the tab's stored secret back (the lecturer's window reloaded)."""
    q, s = st.query_params, st.session_state
    key = json.dumps(f"posviz-room-{code}")
    if secret is None:
        if s.get(_SEEN, (None,))[0] != code:
            st.sidebar.html(_RECALL % key, unsafe_allow_javascript=True)
        return
    s[SECRETS] = {**s.get(SECRETS, {}), code: secret}
    if "secret" in q:
        del q["secret"]
        st.sidebar.html(_REMEMBER % (key, json.dumps(secret)), unsafe_allow_javascript=True)


def _secret(code: str, raw: str | None) -> str | None:
    """The lecturer's secret from the link, or None (with a note when the link carried a wrong one)."""
    if raw is None:
        return None
    try:
        secret = parse_secret(raw)
        if store().is_lecturer(code, secret):
            return secret
    except ValueError:
        pass
    except TROUBLE:
        return None
    note(f"This link's secret is not the lecturer's for room {show_code(code)}: you follow the room, not move it.")
    return None


def _send(member: Member, quiet: bool = False) -> None:
    """Write the lecturer's unsent move to the room; kept for the poll while the store cannot take it."""
    s = st.session_state
    step, controls = s[_UNSENT]
    try:
        room = store().move(member.code, member.secret, step, controls, st.query_params.get("steps", ""))
    except TROUBLE as error:
        s[_UNSENT_BY] = member.secret
        if not quiet:
            note(f"Your move has not reached the room yet ({plain(error)}); it is sent again every second.")
        return
    except (LookupError, PermissionError, ValueError) as error:  # gone, not the lecturer's, or past a cap
        s.pop(_UNSENT, None)
        note(
            f"{error}; the room did not move."
            if isinstance(error, ValueError)
            else f"{error}; this window no longer moves the room."
        )
        return
    s.pop(_UNSENT)
    s[_SEEN], s[_STATE] = (room.code, room.version), (step, controls)


def _guard(action):
    """Run a store write; an ended room or a lost file becomes a note, not a traceback."""
    try:
        return action()
    except (LookupError, PermissionError) as error:
        note(f"{error}; this window no longer moves the room.")
    except TROUBLE as error:
        note(f"The room could not be written: {plain(error)}.")
    return None


def _short(raw: str, limit: int = 40) -> str:
    return raw if len(raw) <= limit else raw[:limit] + "…"
