"""Lecture: the three lessons' argument as numbered one-screen steps, driven by a clicker or the arrow keys."""

import streamlit as st

import ui
import ui.decks
from posviz import lecture

ui.page_setup()
DECK = ui.decks.deck_from_url()  # ?steps=shuffle,ramp:scale=0.3,norms: `step` counts within the deck
STEPS = DECK.steps
N = len(STEPS)
STEP = ui.Param(
    "step",
    1,
    "int",
    1,
    N,
    label="jump to step",
    widget="selectbox",
    options=tuple(range(1, N + 1)),
    names={k: f"{k} / {N} · {STEPS[k - 1].title}" for k in range(1, N + 1)},
)
CONTROLS = {
    step.key: [
        ui.Param(
            step.url_key(c),
            DECK.values(step.key)[c.name],  # the deck's preset, else the step's default
            "choice",
            options=c.options,
            label=c.label,
            widget="segmented",
            aliases=step.url_aliases(c),
            names=dict(c.names) or None,
        )
        for c in step.controls
    ]
    for step in STEPS
}
P = ui.params(STEP, *(p for params in CONTROLS.values() for p in params))
draw = st.cache_data(lecture.slide, max_entries=128)  # the real-model steps run a 6-layer encoder
ui.url_state(P, page="lecture")
s = st.session_state
room = ui.join_room(P)  # ?room=CODE follows a lecturer (?secret= moves the room; &speaker=1 is the speaker view)


def go(to: int) -> None:
    s.step = min(max(to, 1), N)


ui.lecture_style()
with st.container(horizontal=True, vertical_alignment="center", key="lecture-nav"):
    st.button("First", icon=":material/first_page:", on_click=go, args=(1,), shortcut="Home", key="lecture-first")
    st.button(
        "Previous",
        icon=":material/chevron_left:",
        on_click=go,
        args=(s.step - 1,),
        shortcut="PageUp",
        disabled=s.step == 1,
    )
    st.button(
        "Next",
        icon=":material/chevron_right:",
        on_click=go,
        args=(s.step + 1,),
        shortcut="PageDown",
        disabled=s.step == N,
        type="primary",
    )
    st.button("Last", icon=":material/last_page:", on_click=go, args=(N,), shortcut="End", key="lecture-last")
    ui.step_list(STEP, width=420)
with st.container(key="lecture-arrows"):  # the arrow keys, on buttons kept out of sight (one key per button)
    st.button("back", on_click=go, args=(s.step - 1,), shortcut="ArrowLeft")
    st.button("forward", on_click=go, args=(s.step + 1,), shortcut="ArrowRight")

step = STEPS[s.step - 1]
controls = CONTROLS[step.key]
ui.sync_url(P)
values = {c.name: p.default if s[p.key] is None else s[p.key] for c, p in zip(step.controls, controls, strict=True)}
index = DECK.indices[s.step - 1]  # the step's place in the whole lecture


def shown() -> lecture.Slide:
    if step.slow is not None:  # the matched models' curves: started when the server starts; a spinner if not done yet
        ui.result_of(ui.later(step.slow), step.slow_note)
    return ui.guarded(lambda: draw(index, **values), lambda: draw(index), f"Step {s.step}")


if ui.room(room, STEPS, s.step, controls, shown):  # the speaker view or the room card in place of the slide
    st.stop()
slide = shown()

ui.claim(slide.claim)
number, knobs = st.columns([3, 2], vertical_alignment="bottom")
# a hall's words (they say where the number comes from: one line in the right column), the full source on a desk
said = slide.projected_source if ui.presenter() else slide.source  # a source or how the number was made: no prefix
expected = f"step {s.step} / {N} · {said}"
with number:
    ui.slide_numbers(slide)
    if len(controls) > 1:  # two controls fill the right column: the line (20 px projected) goes under the headline
        ui.expected_line(expected)
held = ui.question_here(room, s.step)  # the room's question asked on this step: in the last figure's place
with knobs:
    if not held:
        ui.asked(room, s.step, held)  # shows nothing: runs the page again when a question comes to this step
    for p in controls:
        ui.control(p)
    if len(controls) <= 1:
        ui.expected_line(expected)
compared = step.key in lecture.COMPARED and not held  # on a phone: one panel at a time, with a toggle
figures = slide.figures[:-1] if held and len(slide.figures) > 1 else slide.figures
places = (
    ui.compared([f.title for f in figures], first=lecture.PHONE_FIRST.get(step.key, 1))
    if compared
    else st.columns(len(figures) + held)
)
if held:
    with places[-1]:
        ui.asked(room, s.step, held)  # the question, its count and the class's answers
for column, figure in zip(places, figures, strict=False):
    with column:
        ui.figure(
            figure,
            prefix="lecture-",
            downloads=False,
            details=False,  # no pixel counts, "every value shown" or Download menus: how a figure is drawn
            image_height=lecture.FIGURE_HEIGHT - 20,  # a picture's colour bar and its 20 px labels sit under it
            fill_images=True,
            in_columns=len(places),
        )
if slide.caption:  # what the figures need read with them, or a recap's links: in both modes
    with st.container(key="lecture-caption"):  # a caption: the one text under 20 px a projected step keeps
        ui.takeaway(slide.caption)
if not ui.presenter():
    ui.decks.tools(DECK)
