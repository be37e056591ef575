"""An offline copy of a deck: one HTML file that needs no network and no server, one step on screen at a time.

Each step shows its number, claim, live number and verdict, and its figures: charts as inline SVG (drawn by
vl-convert from the same Vega-Lite specs the app sends, at the lecture screen's type sizes), pictures as PNG
data URIs. A small inline script gives the lecture's keys: PageDown / PageUp, the arrow keys, Home / End
(and N to show or hide the speaker notes, when the file has them). Nothing in the file loads from elsewhere.

    >>> speaker_notes("ramp").startswith("<aside class='notes' hidden>")
    True
"""

from __future__ import annotations

import importlib.util
import re
from html import escape

from posviz.drawing import engine, frames, heatmaps, images
from posviz.drawing.display import number
from posviz.drawing.figures import Figure
from posviz.drawing.layout import AXIS_WIDTH, COLUMN_GAP, PICTURE_CELLS, PRESENTER_WIDTH
from posviz.lecture import decks, notes, steps
from posviz.maths import grids

WIDTH, GAP = PRESENTER_WIDTH, COLUMN_GAP  # the lecture's main column in presenter mode; between two figures (px)
INSTALL = "pip install vl-convert-python  (or: pip install 'posviz[svg]')"


def available() -> bool:
    """True when vl-convert (the SVG renderer) is installed."""
    return importlib.util.find_spec("vl_convert") is not None


def page(deck: decks.Deck = decks.WHOLE, *, with_notes: bool = False, title: str = "posviz: the lecture") -> str:
    """The deck as one self-contained HTML document (a string); `with_notes` adds each step's speaker notes,
    hidden until N is pressed. Needs vl-convert (`available()`); ValueError when it is missing."""
    if not available():
        raise ValueError(f"the offline copy draws its charts with vl-convert, which is not installed: {INSTALL}")
    sections = [
        section(place, len(deck), e, steps.slide(e.index, **e.values()), with_notes)
        for place, e in enumerate(deck.entries, start=1)
    ]
    return (
        f"<!doctype html><html lang='en'><head><meta charset='utf-8'><title>{escape(title)}</title>"
        f"<meta name='viewport' content='width=device-width, initial-scale=1'><style>{STYLE}</style></head><body>"
        + "".join(sections)
        + "<nav><button id='prev' title='PageUp'>◀ Previous</button><span id='count'></span>"
        + "<button id='next' title='PageDown'>Next ▶</button>"
        + ("<button id='notes-switch' title='N'>Notes</button>" if with_notes else "")
        + f"</nav><script>{SCRIPT}</script></body></html>"
    )


def section(place: int, total: int, entry: decks.Entry, slide: steps.Slide, with_notes: bool) -> str:
    """One step as a <section>: its place and title, the claim, the number and its verdict, the figures."""
    shown = slide.verdict if slide.ok else slide.otherwise
    tone = "problem" if slide.tone == "problem" else "state" if slide.tone == "state" else "ok" if slide.ok else "no"
    width = (WIDTH - GAP * (len(slide.figures) - 1)) // max(1, len(slide.figures))
    figures = "".join(
        f"<div class='figure'>{figure(f, width, f'{entry.key}-{i}')}</div>" for i, f in enumerate(slide.figures)
    )
    return (
        f"<section class='step' id='step-{place}' data-key='{entry.key}' hidden>"
        f"<header><span class='place'>step {place} / {total}</span> · {escape(entry.step.title)}</header>"
        f"<h1 class='claim'>{escape(slide.claim)}</h1>"
        + "<div class='numbers'>"
        + "".join(
            f"<div><div class='label'>{escape(label)}</div><div class='number'>{escape(value)}</div></div>"
            for label, value in slide.numbers
        )
        + "</div>"
        f"<div class='verdict {tone}'>{escape(shown)}</div>"
        f"<div class='figures'>{figures}</div>"
        f"<footer>{escape(slide.projected_source)}{_settings(entry)}</footer>"  # a hall's words
         + (speaker_notes(entry.key, slide.source) if with_notes else "") + "</section>"
    )


def speaker_notes(key: str, source: str = "") -> str:
    """A step's notes as a hidden <aside> (N shows it), ending with `source`, the number's full source (the footer
    projects it shortly); a step without notes says so."""
    n = notes.note(key)
    if n is None:
        body = "<p>No notes for this step yet.</p>"
    else:
        parts = (("Say", n.say), ("Ask", n.ask), ("Answer", n.answer), ("Misconception", n.misconception))
        body = "".join(f"<p><b>{label}:</b> {escape(text)}</p>" for label, text in parts)
    if source:
        body += f"<p><b>Source:</b> {escape(source)}</p>"
    return f"<aside class='notes' hidden>{body}</aside>"


def figure(fig: Figure, width: int, name: str) -> str:
    """A figure `width` px wide: a picture as PNG data URIs with its colour bar, anything else as inline SVG."""
    if fig.image is not None:
        return picture(fig.image, width, **fig.shape)
    if fig.cells is not None:
        return svg(heatmap_spec(fig, width), name)
    spec = engine.chart_spec(fig.builder, *fig.frames, presenter="hall", **fig.shape)
    if spec.get("width") == "container":  # the app's charts fill their column; here the column is `width`
        spec = {**spec, "width": width}
    return svg(spec, name)


def heatmap_spec(fig: Figure, width: int) -> dict:
    """A reduced matrix's heatmap spec: a mark a cell while small, else one picture on the same axes."""
    reduced = fig.cells
    shape = {k: v for k, v in fig.shape.items() if k != "subtitle"}
    shape.update(legend=shape.get("legend", "right"), subtitle=reduced.note if reduced.aggregated else None)
    if reduced.values.size <= PICTURE_CELLS:
        spec = engine.chart_spec(heatmaps.grid_heatmap, frames.reduced_frame(reduced), presenter="hall", **shape)
    else:
        domain = tuple(shape.get("domain", (-1.0, 1.0)))
        box = (shape.get("height", 320), max(1, width - AXIS_WIDTH))
        png = images.matrix_png(reduced.values, str(shape.get("scheme", images.SIGNED_SCHEME)), domain, box=box)
        data = (frames.picture_frame(png), frames.extent_frame(reduced, domain))
        spec = engine.chart_spec(heatmaps.picture_heatmap, *data, presenter="hall", **shape)
    return spec if shape.get("square") else {**spec, "width": width}  # a square plot keeps its width


def svg(spec: dict, name: str) -> str:
    """The spec drawn as SVG text to inline: ids made unique to the figure (two charts' 'gradient_0' would
    clash in one page), and an image's data URL dropped from its aria-label (it doubled the file)."""
    text = engine.to_svg(spec)
    text = re.sub(r' aria-label="[^"]*data:image[^"]*"', "", text)
    for found in sorted(set(re.findall(r'id="([^"]+)"', text)), key=len, reverse=True):
        text = re.sub(rf'(id="|#){re.escape(found)}(?=["\)])', rf"\g<1>{name}-{found}", text)
    return text


def picture(
    reduced: grids.Reduced,
    width: int,
    *,
    title: str,
    domain: tuple[float, float],
    value_title: str,
    what: str,
    scheme: str = images.SIGNED_SCHEME,
    square: bool = False,
) -> str:
    """A matrix as a PNG `width` x FIGURE_HEIGHT px (as the lecture draws it; FIGURE_HEIGHT wide too when `square`),
    its colour bar and what it shows."""
    height = steps.FIGURE_HEIGHT
    width = min(width, height) if square else width
    fitted = grids.fit_picture(reduced, height, width)
    png = images.matrix_png(fitted.values, scheme, tuple(domain), box=(height, width))
    bar = images.colour_bar_png(tuple(domain), scheme)
    lo, hi = (float(b) for b in domain)
    ticks = "".join(f"<span>{escape(number(t, digits=2))}</span>" for t in (lo, (lo + hi) / 2, hi))
    return (
        f"<div class='picture-title'>{escape(title)}</div>"
        f"<img class='picture' src='{_uri(png)}' alt='{escape(title, quote=True)}' style='height:{height}px'>"
        f"<div class='what'>{escape(what)}</div>"
        f"<img class='bar' src='{_uri(bar)}' alt='colour bar: {escape(value_title, quote=True)}'>"
        f"<div class='ticks'>{ticks}</div><div class='what'>{escape(value_title)}</div>"
    )


def _settings(entry: decks.Entry) -> str:
    """The step's control values, as the app's controls would show them (none for a step without controls)."""
    labels = {c.name: c.label for c in entry.step.controls}
    shown = ", ".join(f"{labels[name]} {value}" for name, value in entry.values().items())
    return f" · {escape(shown)}" if shown else ""


def _uri(png: bytes) -> str:
    return frames.picture_frame(png)["url"][0]


STYLE = """
* { box-sizing: border-box; }
html, body { margin: 0; height: 100%; background: #fff; color: #1f2430;
  font-family: "Source Sans Pro", "Segoe UI", Helvetica, Arial, sans-serif; }
section.step { width: 100vw; height: 100vh; padding: 12px 80px 56px; overflow: hidden; }
header { font-size: 16px; opacity: 0.7; margin-bottom: 6px; }
h1.claim { font-size: 28px; font-weight: 600; line-height: 1.25; margin: 0 0 10px; }
.label { font-size: 19px; opacity: 0.75; }
.numbers { display: flex; flex-wrap: wrap; gap: 8px 48px; align-items: flex-end; }
.number { font-size: 48px; font-weight: 700; line-height: 1.1; font-variant-numeric: tabular-nums; }
.verdict { display: inline-block; font-size: 17px; padding: 2px 10px; border-radius: 6px; margin: 4px 0 10px; }
.verdict.ok { background: #e3f4e8; color: #176a32; }
.verdict.no, .verdict.problem { background: #fdeedd; color: #8a4b08; }
.verdict.state { background: #e3eefb; color: #1b4f8f; }
.figures { display: flex; gap: 16px; align-items: flex-start; }
.figure { flex: 1 1 0; min-width: 0; } .figure svg { max-width: 100%; height: auto; }
.picture-title { font-weight: 700; font-size: 20px; margin-bottom: 4px; }
img.picture { width: 100%; object-fit: fill; image-rendering: pixelated; display: block; }
img.bar { width: 100%; height: 12px; display: block; margin-top: 6px; }
.ticks { display: flex; justify-content: space-between; font-size: 15px; }
.what { font-size: 15px; opacity: 0.75; text-align: center; }
footer { font-size: 15px; opacity: 0.7; margin-top: 6px; }
aside.notes { position: fixed; left: 80px; right: 80px; bottom: 52px; max-height: 45vh; overflow: auto;
  background: #fffbe6; border: 1px solid #e0c96b; border-radius: 8px; padding: 4px 16px; font-size: 17px; }
nav { position: fixed; bottom: 10px; left: 80px; right: 80px; display: flex; gap: 12px; align-items: center; }
nav button { font-size: 15px; padding: 4px 12px; } #count { font-size: 16px; min-width: 5em; text-align: center; }
"""

SCRIPT = """
const steps = Array.from(document.querySelectorAll('section.step'));
let at = 0, notesOn = false;
function show(k) {
  at = Math.max(0, Math.min(steps.length - 1, k));
  steps.forEach((s, j) => { s.hidden = j !== at; });
  document.getElementById('count').textContent = (at + 1) + ' / ' + steps.length;
  try { history.replaceState(null, '', '#' + (at + 1)); } catch (e) {}
}
function toggleNotes() {
  notesOn = !notesOn;
  document.querySelectorAll('aside.notes').forEach(a => { a.hidden = !notesOn; });
}
const moves = {PageDown: 1, ArrowRight: 1, ArrowDown: 1, ' ': 1, PageUp: -1, ArrowLeft: -1, ArrowUp: -1};
document.addEventListener('keydown', e => {
  if (e.key in moves) show(at + moves[e.key]);
  else if (e.key === 'Home') show(0);
  else if (e.key === 'End') show(steps.length - 1);
  else if ((e.key === 'n' || e.key === 'N') && document.getElementById('notes-switch')) toggleNotes();
  else return;
  e.preventDefault();
});
document.getElementById('prev').onclick = () => show(at - 1);
document.getElementById('next').onclick = () => show(at + 1);
const ns = document.getElementById('notes-switch'); if (ns) ns.onclick = toggleNotes;
show((parseInt(location.hash.slice(1), 10) || 1) - 1);
"""
