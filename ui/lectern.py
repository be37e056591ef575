"""The lecturer's side of a room: "Share with the room" (the follow link, its QR code, the lecturer's link), the room's
sidebar panel, and the speaker view (the step's notes, the next step, the clock), which the projected window never
draws."""

from __future__ import annotations

import io
from collections.abc import Iterable, Sequence
from urllib.parse import urlencode, urlsplit

import segno
import streamlit as st

from posviz.lecture.notes import note as step_note
from posviz.lecture.rooms import IDLE, show_code
from posviz.lecture.steps import Step
from ui import rooms
from ui.declarations import Param
from ui.text import escape, note

_SHARE = "_room_share"  # open the share dialog on the next run (the room was just opened)
LOCAL = ("localhost", "127.0.0.1", "::1", "0.0.0.0")


def room(member: rooms.Member | None, steps: Sequence[Step], step: int, controls: Iterable[Param]) -> bool:
    """Keep the room (rooms.keep) and draw the lecturer's panel or the share button in the sidebar.

    Returns True when this window is the speaker view, which it has drawn (the page then stops before the slide).
    """
    controls = list(controls)
    rooms.keep(member, step, controls)
    if member is None:
        _offer(step, controls)
        return False
    if member.lecturer:
        _panel(member)
    if member.speaker:
        speaker_view(steps, step)
    return member.speaker


def speaker_view(steps: Sequence[Step], step: int) -> None:
    """The current step's notes (say, ask, answer, misconception) and the next step's title."""
    current = steps[step - 1]
    st.markdown(f"### Step {step} / {len(steps)} · {escape(current.title)}")
    notes = step_note(current.key)
    if notes is None:
        st.info("No notes for this step.")
    else:
        for label, text in (
            ("Say", notes.say),
            ("Ask the room", notes.ask),
            ("Answer", notes.answer),
            ("The usual misconception", notes.misconception),
        ):
            st.markdown(f"**{label}.** {escape(text)}")
    after = f"step {step + 1} · {escape(steps[step].title)}" if step < len(steps) else "the end of the deck"
    st.markdown(f"**Next:** {after}")
    st.caption("This window holds the lecturer's secret: its keys move the room and the projected window.")


def lecture_url() -> str:
    """The lecture page's address as this browser reached the server (st.context.url, else the Host header)."""
    url = st.context.url
    if not url:
        host = st.context.headers.get("host") or "localhost:8501"
        url = f"http://{host}/lecture"
    return url.split("?", 1)[0]


def is_local(url: str) -> bool:
    """True for an address only this machine can open (localhost, 127.x)."""
    host = urlsplit(url).hostname or ""
    return host in LOCAL or host.startswith("127.")


def qr_png(text: str) -> bytes:
    """A QR code of `text` as a PNG (segno; medium error correction, big modules for a projector)."""
    buffer = io.BytesIO()
    segno.make(text, error="m").save(buffer, kind="png", scale=10, border=2)
    return buffer.getvalue()


def links(code: str, secret: str) -> dict[str, str]:
    """The room's three addresses: the follow link, the lecturer's link, the speaker view."""
    base = lecture_url()
    lecturer = {"room": show_code(code), "secret": secret}
    return {
        "follow": f"{base}?{urlencode({'room': show_code(code)})}",
        "lecturer": f"{base}?{urlencode(lecturer)}",
        "speaker": f"{base}?{urlencode({**lecturer, 'speaker': '1'})}",
    }


def _offer(step: int, controls: list[Param]) -> None:
    """The sidebar's "Share with the room": open a room at this step and turn this window into the lecturer's."""
    s, q = st.session_state, st.query_params
    if not st.sidebar.button("Share with the room", icon=":material/qr_code_2:", key="room-share"):
        return
    state = {p.key: p.format(s[p.key]) for p in controls if s.get(p.key) is not None}
    try:
        opened, secret = rooms.store().open(step, state, q.get("steps", ""))
    except rooms.TROUBLE as error:
        note(f"A room could not be opened on this server ({type(error).__name__}).")
        return
    q["room"], q["secret"] = show_code(opened.code), secret
    s[rooms._SEEN], s[rooms._STATE], s[_SHARE] = (opened.code, opened.version), (step, state), True
    st.rerun()


def _panel(member: rooms.Member) -> None:
    """The lecturer's sidebar: the follow link again, the speaker view, ending the room."""
    q = st.query_params
    with st.sidebar:
        st.markdown(f"**Room {show_code(member.code)}**")
        if st.button("Show the follow link and QR code", icon=":material/qr_code_2:", key="room-show"):
            _share(member.code, member.secret)
        if not member.speaker:
            st.link_button(
                "Open the speaker view", links(member.code, member.secret)["speaker"], icon=":material/speaker_notes:"
            )
        if st.button("End the room", icon=":material/logout:", key="room-end"):
            rooms._guard(lambda: rooms.store().end(member.code, member.secret))
            for key in ("room", "secret", "speaker"):
                if key in q:
                    del q[key]
            st.rerun()
    if st.session_state.pop(_SHARE, False):
        _share(member.code, member.secret)


@st.dialog("Share with the room", width="large")
def _share(code: str, secret: str) -> None:
    found = links(code, secret)
    picture, words = st.columns([2, 3])
    picture.image(qr_png(found["follow"]), caption="Scan to follow", width=300)
    words.markdown(f"Follow code **{show_code(code)}**; the follow link:")
    words.code(found["follow"], language=None, wrap_lines=True)
    if is_local(found["follow"]):
        words.warning(
            "This address works on this machine only. Phones need the machine's network address: open the lecture "
            "at http://<this machine's IP>:<port>/lecture (`hostname -I` shows the IP) and share again from there."
        )
    words.caption(
        f"Followers move with your steps within about {rooms.POLL + 1:g} s and can explore on their own. The room "
        f"ends when you end it (sidebar) or after {IDLE // 3600} h without a move."
    )
    with st.expander("The lecturer's links: they carry the secret that moves the room; keep them off the projector"):
        st.caption("This window has it in its address: use full screen (F11) so the address bar is not projected.")
        st.code(found["lecturer"], language=None, wrap_lines=True)
        st.caption("The speaker view (notes, the next step, the clock) for a second screen:")
        st.code(found["speaker"], language=None, wrap_lines=True)
