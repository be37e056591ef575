"""The light follow page: a room's step drawn once as HTML (the offline copy's renderer), for every follower.

A room's state (`State`: its deck's `steps=` string, the step within the deck, the step's control values as URL
strings) names one slide. `Renderer` draws each state once, with the offline copy's `export.section` (charts as
inline SVG, pictures as PNG data URIs), and keeps the last `SIZE` drawn: a move costs one render whatever the number
of followers. `page` is the follower's whole page: the step, "explore this step" (the live lecture page at that step
and settings) and a small script that swaps in each new step the server sends (server-sent events).

    >>> State.of("ramp:scale=0.3", 1, {"ramp_scale": "0.3"}).explore()
    'step=1&steps=ramp%3Ascale%3D0.3&ramp_scale=0.3'
"""

from __future__ import annotations

import asyncio
import json
import threading
from collections import OrderedDict
from collections.abc import Mapping
from dataclasses import dataclass
from html import escape
from urllib.parse import urlencode

from posviz.lecture import decks, export, steps
from posviz.lecture.rooms import show_code

MAX_BODY = 512  # bytes of a follower's answer (a token, a question's number, a choice or a number)


class Listener:
    """One open event stream: the latest event of each kind not yet sent ("step", "ended"; another kind, such as a
    question to the room, gets its own slot), and a flag that wakes the stream to send them."""

    def __init__(self, explore: bool) -> None:
        self.explore, self.latest, self.wake = explore, {}, asyncio.Event()

    def give(self, kind: str, data: bytes) -> None:
        self.latest[kind] = data
        self.wake.set()


def read_answer(body: bytes) -> tuple[object, int, object]:
    """A follower's answer body, {"token", "question", "answer"} as JSON: (token, question, answer); a ValueError
    saying what was expected otherwise (the store checks the token and the answer's bounds).

    >>> read_answer(b'{"token": "t", "question": 2, "answer": 0}')
    ('t', 2, 0)
    """
    sent = json.loads(body)
    if not isinstance(sent, dict) or set(sent) != {"token", "question", "answer"}:
        raise ValueError("expected a JSON object with token, question and answer")
    if isinstance(sent["question"], bool) or not isinstance(sent["question"], int):
        raise ValueError(f"expected the question's number, got {type(sent['question']).__name__}")
    return sent["token"], sent["question"], sent["answer"]


SIZE = 64  # rendered steps kept per process (a deck has at most len(STEPS) steps; a few settings each)


@dataclass(frozen=True)
class State:
    """What a follower sees: the deck (`steps=`, '' for the whole lecture), the step in it, its controls' values."""

    steps: str
    step: int
    controls: tuple[tuple[str, str], ...]  # (URL key, URL string), sorted: one state, one spelling

    @classmethod
    def of(cls, steps_text: str, step: int, controls: Mapping[str, str]) -> State:
        return cls(steps_text, int(step), tuple(sorted((str(k), str(v)) for k, v in controls.items())))

    def where(self) -> tuple[int, int, decks.Entry]:
        """(place in the deck, the deck's length, the step as an Entry whose presets are every control's value).

        The deck is read leniently (decks.parse: a bad item is dropped), the step clamped into it; a control value
        that is not one of its options is left at the deck's preset.
        """
        deck = decks.parse(self.steps).deck if self.steps else decks.WHOLE
        place = min(max(self.step, 1), len(deck))
        entry = deck.entries[place - 1]
        values, given = entry.values(), dict(self.controls)
        for control in entry.step.controls:
            raw = given.get(entry.step.url_key(control))
            if raw is not None:
                try:
                    values[control.name] = decks.option(control, raw)
                except ValueError:
                    pass
        presets = tuple((c.name, values[c.name]) for c in entry.step.controls)
        return place, len(deck), decks.Entry(entry.key, presets)

    def explore(self) -> str:
        """The lecture page's query string for this step and settings (`/lecture?` + it opens the live step)."""
        place, _, entry = self.where()
        query = {"step": place, **({"steps": self.steps} if self.steps else {})}
        query.update(
            {
                entry.step.url_key(c): str(value)
                for c, (_, value) in zip(entry.step.controls, entry.presets, strict=True)
            }
        )
        return urlencode(query)


def render(state: State) -> str:
    """The state's step as one <section> (shown, not hidden): place, title, claim, numbers, verdict, figures."""
    place, total, entry = state.where()
    slide = steps.slide(entry.index, **entry.values())
    return export.section(place, total, entry, slide, False).replace(" hidden>", ">", 1)


class Renderer:
    """`render` with the last `size` states kept; one lock, so many callers asking for one new state render it once.

    >>> r = Renderer(render=lambda s: f"<p>{s.step}</p>")
    >>> [r(State.of("", 2, {})) for _ in range(3)], r.renders
    (['<p>2</p>', '<p>2</p>', '<p>2</p>'], 1)
    """

    def __init__(self, size: int = SIZE, render=render) -> None:
        self.size, self._render = size, render
        self._kept: OrderedDict[State, str] = OrderedDict()
        self._lock = threading.Lock()
        self.renders = 0  # states drawn so far (a cache hit draws nothing)

    def __call__(self, state: State) -> str:
        with self._lock:
            if state in self._kept:
                self._kept.move_to_end(state)
                return self._kept[state]
            html = self._render(state)
            self.renders += 1
            self._kept[state] = html
            while len(self._kept) > self.size:
                self._kept.popitem(last=False)
            return html


def event(version: int, state: State, html: str) -> bytes:
    """One server-sent event carrying a step: `id` the room's version, `data` one line of JSON (step, html, explore).

    >>> event(3, State.of("", 2, {}), "<p>x</p>").splitlines()[:2]
    [b'event: step', b'id: 3']
    """
    data = json.dumps({"version": version, "step": state.step, "html": html, "explore": state.explore()})
    return f"event: step\nid: {version}\ndata: {data}\n\n".encode()


def ended(why: str) -> bytes:
    """The event that tells followers the room ended (and why); their page stops moving."""
    return f"event: ended\ndata: {json.dumps(why)}\n\n".encode()


def question(asked: dict | None) -> bytes:
    """The event that brings the room's question (rooms.Question.public: text, choices or range, state, count, bars
    once revealed) to followers, or takes it away (null).

    >>> question(None)
    b'event: question\\ndata: null\\n\\n'
    """
    return f"event: question\ndata: {json.dumps(asked)}\n\n".encode()


def page(code: str, html: str, state: State, token: str = "") -> str:
    """The follower's page for room `code` (shown as ABCDE-FGHJK) at `state`, whose rendered step is `html`; `token`
    is this follower's anonymous answer token (rooms.Rooms.token), kept by the tab for the room's questions."""
    shown = escape(show_code(code))
    return (
        "<!doctype html><html lang='en'><head><meta charset='utf-8'>"
        f"<title>posviz: following room {shown}</title>"
        "<meta name='viewport' content='width=device-width, initial-scale=1'>"
        f"<style>{export.STYLE}{STYLE}</style></head><body>"
        f"<div class='bar'><span id='where'>Following the lecturer · room {shown}</span>"
        f"<a id='explore' href='../lecture?{escape(state.explore(), quote=True)}&amp;follow={escape(code)}'>"
        "Explore this step</a></div>"
        f"<div id='ask' hidden data-token='{escape(token, quote=True)}'><p id='ask-text'></p><div id='ask-choices'>"
        "</div><p id='ask-count'></p></div>"
        f"<main id='step'>{html}</main><script>{SCRIPT}{ASK_SCRIPT}</script></body></html>"
    )


# After the offline copy's STYLE: the page scrolls (the offline copy shows one screen a step), and on a phone the
# figures stack, the type shrinks and the margins narrow so the number and the first figure fit the first screen.
STYLE = """
html, body { height: auto; }
section.step { width: auto; height: auto; padding: 8px 24px 16px; overflow: visible; }
.bar { display: flex; justify-content: space-between; align-items: center; gap: 12px; padding: 6px 24px;
  font-size: 15px; background: #f0f2f6; position: sticky; top: 0; z-index: 1; }
.bar a { font-weight: 600; color: #1b4f8f; white-space: nowrap; }
.bar.ended { background: #fdeedd; color: #8a4b08; }
#ask { margin: 8px 24px; padding: 10px 14px; border: 2px solid #1b4f8f; border-radius: 8px; font-size: 18px; }
#ask p { margin: 4px 0; } #ask-text { font-weight: 600; }
#ask-choices { display: flex; flex-wrap: wrap; gap: 8px; margin: 6px 0; }
#ask button, #ask input { font-size: 18px; padding: 8px 14px; border-radius: 6px; border: 1px solid #1b4f8f;
  background: #fff; color: #1b4f8f; }
#ask button.mine { background: #1b4f8f; color: #fff; }
#ask .row { display: grid; grid-template-columns: minmax(4em, 40%) 1fr 3em; gap: 6px; align-items: center;
  width: 100%; }
#ask .fill { background: #1b4f8f; height: 18px; }
@media (max-width: 640px) {
  .bar { padding: 6px 10px; font-size: 14px; }
  #ask { margin: 6px 10px; padding: 8px 10px; font-size: 16px; }
  section.step { padding: 4px 10px 12px; }
  header { font-size: 13px; }
  h1.claim { font-size: 17px; margin-bottom: 6px; }
  .label { font-size: 14px; } .number { font-size: 32px; }
  .numbers { gap: 4px 24px; } .verdict { font-size: 14px; margin: 2px 0 6px; }
  .figures { flex-direction: column; gap: 8px; } .figure { width: 100%; }
  footer { font-size: 12px; }
}
"""

SCRIPT = """
(() => {
  const step = document.getElementById('step'), explore = document.getElementById('explore');
  const code = location.pathname.replace(/\\/+$/, '').split('/').pop();
  const source = window.followSource = new EventSource(code + '/events');  // ASK_SCRIPT listens too
  source.addEventListener('step', e => {
    const d = JSON.parse(e.data);
    step.innerHTML = d.html;
    explore.href = '../lecture?' + d.explore + '&follow=' + encodeURIComponent(code);
  });
  source.addEventListener('ended', e => {
    source.close();
    const bar = document.getElementById('where');
    bar.textContent = 'The room has ended (' + JSON.parse(e.data) + '); this page no longer moves.';
    bar.parentElement.classList.add('ended');
  });
})();
"""

# The question to the room: its text, a button a choice (or a number box), the count; the class's bars once revealed.
# An answer is sent with the tab's token (kept in localStorage for the room, so a reload is the same follower); a
# second answer replaces the first until the lecturer reveals. Every text from the server goes in as text, not HTML.
ASK_SCRIPT = """
(() => {
  const box = document.getElementById('ask'), text = document.getElementById('ask-text');
  const choices = document.getElementById('ask-choices'), count = document.getElementById('ask-count');
  const code = location.pathname.replace(/\\/+$/, '').split('/').pop();
  let token = box.dataset.token, mine = {};
  try {
    token = localStorage.getItem('posviz-token-' + code) || token;
    localStorage.setItem('posviz-token-' + code, token);
    mine = JSON.parse(localStorage.getItem('posviz-answers-' + code) || '{}');
  } catch (e) {}
  let asked = null;
  const button = (label, on) => {
    const b = document.createElement('button'); b.type = 'button'; b.textContent = label; b.onclick = on; return b;
  };
  const send = value => fetch(code + '/answer', {method: 'POST', headers: {'Content-Type': 'application/json'},
      body: JSON.stringify({token: token, question: asked.id, answer: value})})
    .then(r => r.text().then(t => {
      if (!r.ok) { count.textContent = t; return; }
      mine[asked.id] = value;
      try { localStorage.setItem('posviz-answers-' + code, JSON.stringify(mine)); } catch (e) {}
      count.textContent = 'Your answer is in (' + t.trim() + '); you may change it until the lecturer reveals.';
      draw();
    }));
  const draw = () => {
    box.hidden = !asked;
    if (!asked) return;
    text.textContent = asked.text;
    choices.replaceChildren();
    const answered = asked.id in mine;
    if (asked.state === 'revealed' && asked.bars) {
      const most = Math.max(1, ...asked.bars.map(b => b[1]));
      for (const [label, n] of asked.bars) {
        const row = document.createElement('div'), name = document.createElement('span');
        const fill = document.createElement('div'), num = document.createElement('span');
        row.className = 'row'; fill.className = 'fill'; fill.style.width = (100 * n / most) + '%';
        name.textContent = label; num.textContent = n; row.append(name, fill, num); choices.append(row);
      }
      count.textContent = asked.count + ' answered · revealed';
      return;
    }
    if (asked.choices.length) {
      asked.choices.forEach((label, i) => {
        const b = button(label, () => send(i));
        if (answered && mine[asked.id] === i) b.classList.add('mine');
        choices.append(b);
      });
    } else {
      const input = document.createElement('input');
      input.type = 'number'; input.min = asked.low; input.max = asked.high; input.step = 'any';
      input.setAttribute('aria-label', 'Your answer, from ' + asked.low + ' to ' + asked.high);
      if (answered) input.value = mine[asked.id];
      choices.append(input, button('Send', () => send(Number(input.value))));
    }
    count.textContent = answered ? 'Your answer is in; you may change it until the lecturer reveals.'
      : asked.count + ' answered so far';
  };
  window.followSource.addEventListener('question', e => { asked = JSON.parse(e.data); draw(); });
})();
"""
