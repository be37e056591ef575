"""The lecturer's side of a room: "Share with the room", the room card (the follow code and QR code full screen, in
place of the slide), the room's sidebar panel (the lecturer's links), and the speaker view (the step's number, its
headline and verdict, its notes, the next step, the clock), which the projected window never draws."""

from __future__ import annotations

import io
from collections.abc import Callable, Iterable, Sequence
from urllib.parse import urlencode, urlsplit

import segno
import streamlit as st

from posviz.lecture.notes import note as step_note
from posviz.lecture.rooms import IDLE, show_code
from posviz.lecture.steps import Slide, Step
from ui import rooms
from ui.ask import ask_dialog, ask_form
from ui.declarations import Param
from ui.text import Badge, escape, headlines, html_text, note

_SHARE = "_room_share"  # show the room card on the next run (the room was just opened)
_CARD = "_room_card"  # the step the room card was opened on: it stands in for that step's slide until dismissed
# Close the sidebar the lecturer just used (a click on its own collapse button, so the browser remembers it closed):
# the slide then has the whole 1280 px. Streamlit's initial_sidebar_state does not reach a sidebar the user opened.
_CLOSE_SIDEBAR = """<script>(() => {
  let tries = 20;
  const close = () => {
    const open = document.querySelector("[data-testid='stSidebar'][data-collapsed='false']");
    const button = document.querySelector("[data-testid='stSidebarCollapseButton'] button");
    if (open && button) button.click();
    else if (tries-- > 0) setTimeout(close, 50);
  };
  close();
})();</script>"""
# The card: the QR code as tall as the screen allows (its pixels kept square), the code in the back row's type.
_CARD_STYLE = """<style>.st-key-lecture-nav {display: none}
.st-key-room-qr img {max-height: calc(100vh - 2.5rem); width: auto !important; max-width: 100%;
  image-rendering: pixelated}
.st-key-room-code p {font-size: clamp(3rem, 8vw, 4rem); font-weight: 700; line-height: 1.1; white-space: nowrap;
  font-family: 'Source Code Pro', monospace; margin: 0}
.st-key-room-words p {font-size: 1.6rem; line-height: 1.35}</style>"""
LOCAL = ("localhost", "127.0.0.1", "::1", "0.0.0.0")


def room(
    member: rooms.Member | None,
    steps: Sequence[Step],
    step: int,
    controls: Iterable[Param],
    slide: Callable[[], Slide] | None = None,
) -> bool:
    """Keep the room (rooms.keep) and draw the lecturer's panel or the share button in the sidebar.

    `slide` computes the step's slide (the speaker view quotes its number and verdict). Returns True when this window
    drew the speaker view or the room card in place of the slide (the page then stops before the slide).
    """
    controls = list(controls)
    rooms.keep(member, step, controls)
    if member is None:
        _offer(step, controls)
        return False
    if member.lecturer:
        _panel(member, step, steps[step - 1].key)
    if member.speaker:
        speaker_view(steps, step, None if slide is None else slide(), member)
        return True
    if st.session_state.get(_CARD) not in (None, step):  # a step move dismissed the card (coming back keeps the slide)
        del st.session_state[_CARD]
    if member.lecturer and st.session_state.get(_CARD) == step:
        card(member.code)
        return True
    return False


def speaker_view(
    steps: Sequence[Step], step: int, slide: Slide | None = None, member: rooms.Member | None = None
) -> None:
    """The step's number, its headline number and verdict to quote (beside the notes) with its full source (lesson,
    exercise, file: the projected line says it shortly), the notes (say, ask, answer,
    misconception), the next step's title, and (in a room) the question to the room: asking, revealing, taking away."""
    current = steps[step - 1]
    st.markdown(f"### Step {step} of {len(steps)} · {escape(current.title)}")
    words, quote = st.columns([3, 2], gap="large")
    if slide is not None:
        with quote.container(key="speaker-quote"):
            slide_numbers(slide)
            st.caption(f"Where the number comes from: {escape(slide.source)}")  # the hall's line is a short one
    notes = step_note(current.key)
    with words:
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
    if member is not None and member.lecturer:
        with quote.expander("A question to the class", icon=":material/how_to_vote:", expanded=True):
            ask_form(member, step, "" if notes is None else notes.ask, "speaker")
    st.caption("This window holds the lecturer's secret: its keys move the room and the projected window.")


def slide_numbers(slide: Slide) -> None:
    """A slide's numbers in the headline's type and its verdict under the first: the projected slide's and the speaker
    view's quote."""
    tone = dict(state=slide.tone == "state", problem=slide.tone == "problem")
    headlines(slide.numbers, Badge(slide.ok, slide.verdict, slide.otherwise, **tone))


def card(code: str) -> None:
    """The room card, full screen in place of the slide: the follow QR code as tall as the screen, the follow code in
    type for the back row, the follow link in words. Nothing on it carries the lecturer's secret."""
    follow = follow_link(code)
    st.html(_CARD_STYLE)
    picture, words = st.columns([3, 2], gap="large", vertical_alignment="center")
    with picture.container(key="room-qr", horizontal_alignment="center"):
        st.image(qr_png(follow, scale=16, least=1080), width="stretch", alt=f"QR code of the follow link {follow}")
    with words:
        with st.container(key="room-words"):
            st.markdown("Follow the lecture on your phone: scan the code, or open this address")
        with st.container(key="room-code"):
            st.markdown(escape(show_code(code)))
        with st.container(key="room-words-link"):
            st.markdown(
                f"<div style='font-size:1.5rem;line-height:1.35;overflow-wrap:anywhere'>{html_text(follow)}</div>",
                unsafe_allow_html=True,
            )
        st.markdown(
            "<div style='font-size:0.9rem;opacity:0.7;overflow-wrap:anywhere'>Or the live page, with its controls: "
            f"{html_text(live_link(code))}</div>",
            unsafe_allow_html=True,
        )
        if is_local(follow):
            st.caption(
                "This address works on this machine only: phones need its network address (open the lecture at "
                "http://<this machine's IP>:<port>/lecture, `hostname -I` shows the IP, and share from there)."
            )
        st.button(
            "Back to the slide", icon=":material/close:", key="room-card-close", on_click=_dismiss, shortcut="Esc"
        )


def _dismiss() -> None:
    st.session_state.pop(_CARD, None)


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


def client_address() -> str:
    """The browser's address as the server sees it ('' when unknown): behind a proxy, the proxy's."""
    address = st.context.ip_address
    return address if isinstance(address, str) else ""


def qr_png(text: str, scale: int = 10, least: int = 0) -> bytes:
    """A QR code of `text` as a PNG (segno; medium error correction, `scale` pixels a module for a projector, more
    when the code would be under `least` pixels across: a short link makes a small code)."""
    buffer = io.BytesIO()
    qr = segno.make(text, error="m")
    scale = max(scale, -(-least // qr.symbol_size(border=2)[0]))
    qr.save(buffer, kind="png", scale=scale, border=2)
    return buffer.getvalue()


def follow_link(code: str) -> str:
    """The follow link: the light follow page (hall.py) at the server's root, with the room's code and no secret."""
    return f"{lecture_url().rsplit('/', 1)[0]}/follow/{show_code(code)}"


def live_link(code: str) -> str:
    """The older follow link, still open: the live lecture page following the room (a Streamlit session each)."""
    return f"{lecture_url()}?{urlencode({'room': show_code(code)})}"


def links(code: str, secret: str) -> dict[str, str]:
    """The room's addresses: the follow link (the light page), the live page's follow link, the lecturer's link, the
    speaker view."""
    base = lecture_url()
    lecturer = {"room": show_code(code), "secret": secret}
    return {
        "follow": follow_link(code),
        "live": live_link(code),
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
        opened, secret = rooms.store().open(step, state, q.get("steps", ""), address=client_address())
    except (*rooms.TROUBLE, ValueError) as error:
        note(f"A room could not be opened on this server: {rooms.plain(error)}.")
        return
    q["room"], q["secret"] = show_code(opened.code), secret  # the next run moves it to the session (rooms._hold)
    s[rooms._SEEN], s[rooms._STATE], s[_SHARE] = (opened.code, opened.version), (step, state), True
    st.rerun()


def _panel(member: rooms.Member, step: int, key: str) -> None:
    """The lecturer's sidebar: the room card, the lecturer's links, the speaker view, ending the room."""
    q, s = st.query_params, st.session_state
    with st.sidebar:
        st.markdown(f"**Room {show_code(member.code)}**")
        if not member.speaker and st.button("Show the room card", icon=":material/qr_code_2:", key="room-show"):
            s[_SHARE] = True
        if st.button("The lecturer's links", icon=":material/key:", key="room-links"):
            _share(member.code, member.secret)
        if not member.speaker:
            st.link_button(
                "Open the speaker view", links(member.code, member.secret)["speaker"], icon=":material/speaker_notes:"
            )
        if not member.speaker and st.button("A question to the class", icon=":material/how_to_vote:", key="room-ask"):
            ask_dialog(member, step, key)
        if st.button("End the room", icon=":material/logout:", key="room-end"):
            rooms._guard(lambda: rooms.store().end(member.code, member.secret))
            for key in ("room", "secret", "speaker"):
                if key in q:
                    del q[key]
            st.rerun()
    if s.pop(_SHARE, False) and not member.speaker:  # just shared, or asked for: the card, the sidebar closed
        s[_CARD] = step
        st.sidebar.html(_CLOSE_SIDEBAR, unsafe_allow_javascript=True)


@st.dialog("The lecturer's links", width="large")
def _share(code: str, secret: str) -> None:
    found = links(code, secret)
    st.caption(
        "Followers on the follow page have each of your steps about a quarter of a second after your key press "
        "(0.22 s median, 0.29 s at the slowest, with 300 followers on one quiet server; 0.30 s and 0.55 s under load: "
        "docs/performance.md); they can "
        f"explore on their own. The room ends when you end it (sidebar) or after {IDLE // 3600} h without a move."
    )
    st.caption(
        "This window's address no longer shows the secret (the window keeps it, and a reload finds it again); the "
        "links below carry it: open them only on your own screen."
    )
    with st.expander("Show the links: they carry the secret that moves the room; keep them off the projector"):
        st.code(found["lecturer"], language=None, wrap_lines=True)
        st.caption(
            "The speaker view (the step's number and verdict, notes, the next step, the clock), for a second screen:"
        )
        st.code(found["speaker"], language=None, wrap_lines=True)
