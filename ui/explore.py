"""A follower of the light page exploring on the live lecture page: the lecturer's step as it moves, and the way back.

The light follow page (hall.py) links "Explore this step" to `/lecture?step=N&...&follow=CODE`. That page then holds
the room's event stream open as an explorer (`events?explore=1`: the lecturer's window counts explorers apart), says
which step the lecturer is on as it moves, and links "Back to the lecturer" to the follow page. Nothing here moves
a room or needs its secret.
"""

from __future__ import annotations

import json
from collections.abc import Callable

import streamlit as st

from posviz.lecture.rooms import Rooms, parse_code, show_code
from ui.text import note

# One stream a tab however often the page reruns (the script runs again with each rerun's element).
_BAR = """<style>.st-key-follow-back {position: relative; z-index: 999991}</style>
<div>You are exploring on your own; the lecturer is on <b id='posviz-lecturer'>step %(step)s</b>.
<a id='posviz-back' href='follow/%(code)s' target='_self'>Back to the lecturer</a></div>
<script>(() => {
  if (window.__posvizExplore) return;
  const source = new EventSource(%(events)s + '?explore=1');
  window.__posvizExplore = source;
  source.addEventListener('step', e => {
    const where = document.getElementById('posviz-lecturer');
    if (where) where.textContent = 'step ' + JSON.parse(e.data).step;
  });
  source.addEventListener('ended', () => source.close());
})();</script>"""


def back(raw: str, rooms: Callable[[], Rooms]) -> None:
    """The explorer's line for the room `raw` names (a follow= value): the lecturer's step, "Back to the lecturer"."""
    try:
        code = parse_code(raw)
    except ValueError as error:
        note(f"follow={raw[:40]!r}: {error}; there is no room to go back to.")
        return
    shown = show_code(code)
    try:
        room, known = rooms().get(code), True
    except Exception:  # the store's trouble: the line without the step (the server log says what went wrong)
        room, known = None, False
    if known and (room is None or room.ended):
        why = "there is no such room" if room is None else f"it has ended ({room.ended})"
        note(f"Room {shown}: {why}, so there is no lecturer to go back to; you explore on your own.")
        return
    values = {"step": "?" if room is None else room.step, "code": shown, "events": json.dumps(f"follow/{shown}/events")}
    with st.container(key="follow-back"):
        st.html(_BAR % values, unsafe_allow_javascript=True)
