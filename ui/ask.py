"""Questions to the room: the lecturer asks one on a step (the speaker view's form, or the sidebar's dialog), reveals
it or takes it away; the projected step shows it in the place of its last figure, with its live count and, revealed,
the class's answers as bars. Followers answer on the light follow page (hall.py); the store is posviz.lecture.rooms
or rooms_redis (ask, answer, ...)."""

from __future__ import annotations

import html

import pandas as pd
import streamlit as st

from posviz.drawing import lines_bars
from posviz.lecture import rooms as core
from posviz.lecture.notes import note as step_note
from posviz.lecture.rooms import MAX_QUESTION
from posviz.lecture.steps import FIGURE_HEIGHT
from ui import rooms
from ui.chart import show_chart
from ui.text import escape, note

# The question on the projected step, in the place of its last figure: 20 px text (a hall's back row), its words in at
# most two lines, then the count; the class's answers under them once revealed, within the figure's height.
_QUESTION = """<div class='room-question' style='font-size: 1.25rem; line-height: 1.3'>
<div style='display: -webkit-box; -webkit-line-clamp: 2; -webkit-box-orient: vertical; overflow: hidden'>%s</div>
<div><b>%d answered</b>%s</div></div>"""


@st.dialog("A question to the class", width="large")
def ask_dialog(member: rooms.Member, step: int, key: str) -> None:
    found = step_note(key)
    ask_form(member, step, "" if found is None else found.ask, "dialog")


def ask_form(member: rooms.Member, step: int, text: str, where: str) -> None:
    """The lecturer's question to the room on this step: its words (the notes' question to start from), then choices
    typed one a line or a number's range; and, once asked, Reveal and Take away."""
    current = question(member.code)
    if current is not None:
        what = "revealed" if current.revealed else "open"
        st.markdown(f"**Asked** on step {current.step} ({what}): {escape(current.text)} · **{current.count} answered**")
        left, right = st.columns(2)
        reveal = not current.revealed and left.button("Reveal", icon=":material/bar_chart:", key=f"ask-reveal-{where}")
        if reveal:
            rooms._guard(lambda: rooms.store().reveal(member.code, member.secret))
            st.rerun()
        if right.button("Take away", icon=":material/close:", key=f"ask-withdraw-{where}"):
            rooms._guard(lambda: rooms.store().withdraw(member.code, member.secret))
            st.rerun()
    with st.form(f"ask-form-{where}", border=False):
        words = st.text_area("Question", text, max_chars=MAX_QUESTION, height=80, key=f"ask-text-{where}")
        kind = st.radio("Answered by", ("choices", "a number"), horizontal=True, key=f"ask-kind-{where}")
        choices = st.text_area("Choices, one a line (2 to 6)", "Yes\nNo", height=80, key=f"ask-choices-{where}")
        low, high = st.columns(2)
        low = low.number_input("A number from", value=0.0, key=f"ask-low-{where}")
        high = high.number_input("to", value=10.0, key=f"ask-high-{where}")
        if not st.form_submit_button("Ask the class", icon=":material/how_to_vote:", type="primary"):
            return
    parts = (words, choices.splitlines()) if kind == "choices" else (words, (), low, high)
    try:
        made = rooms._guard(lambda: rooms.store().ask(member.code, member.secret, step, *parts))
    except ValueError as error:
        note(f"The question was not asked: {error}.")
        return
    if made is not None:
        st.rerun()


def question_here(member: rooms.Member | None, step: int) -> bool:
    """True on the projected step (the lecturer's window) when the room's question was asked on this step: the page
    then gives the question the place of its last figure, so the step's figures stay on a 720 px screen."""
    if member is None or not member.lecturer or member.speaker:
        return False
    found = question(member.code)
    return found is not None and found.step == step


def asked(member: rooms.Member | None, step: int, held: bool) -> None:
    """On the projected step: `held` (`question_here` said so when the page ran), the room's question, its count live
    and once revealed the class's answers as bars, in a figure's place; not held, nothing shown. Either way a poll each
    second runs the page again when a question comes to this step or leaves it."""
    if member is not None and member.lecturer and not member.speaker:
        _asked(member.code, step, held)


@st.fragment(run_every=rooms.POLL)
def _asked(code: str, step: int, held: bool) -> None:
    found = question(code)
    if (found is not None and found.step == step) != held:
        st.rerun(scope="app")
    if not held:
        return
    st.html(_QUESTION % (html.escape(found.text), found.count, " · the class's answers" if found.revealed else ""))
    if found.revealed:
        bars = pd.DataFrame(found.bars(), columns=["answer", "answered"])
        bars["n"] = bars["answered"].astype(str)
        show_chart(
            lines_bars.bars,
            bars,
            name="class-answers",
            downloads=False,
            x="answer",
            y="answered",
            title="",
            x_title="",
            y_title="answered",
            text="n",
            height=FIGURE_HEIGHT - 100,  # the question's two lines and its count above, in the figure's height
        )


def question(code: str) -> core.Question | None:
    """The room's question to the class, or None (none asked, or the store unreadable just now)."""
    store = rooms.store()
    try:
        return store.question(code)
    except rooms.TROUBLE:
        return None
