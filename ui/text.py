"""Words on the page: escaped notes, badges, headlines, claims, HTML tables, and the sentence boxes' limits."""

from __future__ import annotations

import contextlib
import html
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import NamedTuple

import pandas as pd
import streamlit as st

from posviz.drawing.display import number
from ui.declarations import MAX_WORDS, Param
from ui.screen import glued, hall, presenter

_MARKDOWN_SPECIALS = set("\\`*_{}[]()#+-.!|<>~$:&")


def escape(text: str) -> str:
    """`text` with every Markdown/HTML special character backslash-escaped, so it shows literally."""
    return "".join("\\" + c if c in _MARKDOWN_SPECIALS else c for c in text)


def html_text(text: str) -> str:
    """`text` for an HTML snippet: HTML-escaped, and Markdown punctuation as character references."""
    return "".join(f"&#{ord(c)};" if c in "[]()!*_`\\" else c for c in html.escape(text))


def note(message: str) -> None:
    """A short visible warning. The message is escaped: text from a URL or a text box stays plain."""
    st.warning("  \n".join(escape(line) for line in message.split("\n")), icon="⚠️")


def claim(text: str) -> None:
    """A step's claim: one sentence in large type, with no heading margin to spare the screen.

    Once a page: it stands in a container keyed "claim", which CSS finds by its `st-key-claim` class (ui.rooms).
    """
    size, gap = ("1.85rem", "0.25rem") if presenter() else ("1.5rem", "0.5rem")
    with st.container(key="claim"):
        st.markdown(
            f"<div style='font-size:{size};font-weight:600;line-height:1.25;margin:0 0 {gap}'>"
            f"{html_text(glued(text, before=False))}</div>",  # "family 1" never split; "mask / (family 3)" may
            unsafe_allow_html=True,
        )


def badge(ok: bool, yes: str, no: str, *, state: bool = False, problem: bool = False) -> None:
    """The verdict in words. Green with a check when `ok`: the outcome the experiment sets out to show, or a
    check that passes; orange (`no`) only for a problem. `state=True`: a state the controls set, good either
    way (np.allclose at a chosen scale, a difference the page describes), in blue."""
    if problem:  # the outcome shown is itself a mistake to recognise (a test's bug), whatever `ok` says
        st.badge(yes if ok else no, color="orange", icon=":material/warning:")
    elif state:
        st.badge(yes if ok else no, color="blue", icon=":material/info:")
    else:
        st.badge(yes if ok else no, color="green" if ok else "orange", icon=":material/check:" if ok else None)


COMPACT = 4  # headline numbers in a row from which each is drawn smaller: four 7-character numbers fit a 660 px row


def headline(label: str, value: str, help_text: str | None = None, *, compact: bool = False) -> None:
    """The page's key number, large enough for the back row; `compact`, one of COMPACT or more in a row: 2.6 rem
    projected (42 px, over twice a caption's 20 px)."""
    size, label_size = ("3.4rem", "1.25rem") if presenter() else ("2.4rem", "0.95rem")
    if compact:
        size = "2.6rem" if presenter() else "2rem"
    st.markdown(
        f"<div class='posviz-label' style='font-size:{label_size};opacity:0.75' title='{html_text(help_text or '')}'>"
        f"{html_text(glued(label))}</div>"
        f"<div class='posviz-number' style='font-size:{size};font-weight:700;line-height:1.15;white-space:nowrap;"
        "font-variant-numeric:tabular-nums'>"  # never "5.6e-" / "15" in a phone's quarter column
        f"{html_text(value)}</div>",
        unsafe_allow_html=True,
    )


GRID = 4  # headline numbers a phone sets two by two (ui.screen.PHONE_LECTURE_CSS: a fourth column wraps the row)


def headlines(numbers: Sequence[tuple[str, str]], verdict: Badge) -> None:
    """Numbers a claim rests on, (label, value), each in the headline's type, side by side in columns, with the
    verdict under the first: under the whole row, from its left, for up to three (in a third of the row a badge
    wrapped to two lines); in the first column for four, which a phone sets two by two (ui.screen.PHONE_LECTURE_CSS:
    under the row it stood under the third number). Once a page: a container keyed "headlines"."""
    box = st.container(key="headlines")
    columns = box.columns(_widths(numbers)) if len(numbers) > 1 else [box]
    row = len(numbers) < GRID
    for i, (column, (label, value)) in enumerate(zip(columns, numbers, strict=True)):
        with column:
            headline(label, value, compact=len(numbers) >= COMPACT)
            if i == 0 and not row:
                badge(verdict.ok, verdict.yes, verdict.no, state=verdict.state, problem=verdict.problem)
    if row:
        with box:
            badge(verdict.ok, verdict.yes, verdict.no, state=verdict.state, problem=verdict.problem)


def _widths(numbers: Sequence[tuple[str, str]]) -> list[float]:
    """Each headline's share of its row: what its label or its number needs, whichever is wider, in a label's
    characters (a number's is about 2.5 of them at 2.6 rem bold, 3.2 at 3.4 rem: `headline`'s sizes), so that a
    long label ("highest, 3-4, mask off") is not wrapped in a quarter while a short one leaves room (equal
    columns set their numbers on different lines). A phone sets them equal again (ui.screen.PHONE_LECTURE_CSS).

    >>> _widths([("lowest, layers 3-4", "0.28"), ("an even split", "0.098")])
    [18, 16.0]
    """
    digit = 2.5 if len(numbers) >= COMPACT else 3.2
    return [max(len(label), digit * len(value)) for label, value in numbers]


class Badge(NamedTuple):
    """A verdict in words under a headline: `badge`'s arguments, named."""

    ok: bool
    yes: str
    no: str = ""
    state: bool = False
    problem: bool = False


class Reading(NamedTuple):
    """A key number of a page: the headline's label and value (a float is written by display.number, text as it is),
    its verdict under it (a `Badge`, or several side by side), a caption line, the headline's tooltip."""

    label: str
    value: float | str
    badge: Badge | tuple[Badge, ...] = ()
    caption: str = ""
    help: str | None = None


def reading(r: Reading) -> None:
    """Draw one `Reading`: its headline, its badges, its caption."""
    headline(r.label, r.value if isinstance(r.value, str) else number(r.value), r.help)
    badges = (r.badge,) if isinstance(r.badge, Badge) else r.badge
    with st.container(horizontal=True, gap="small") if len(badges) > 1 else contextlib.nullcontext():
        for b in badges:
            badge(b.ok, b.yes, b.no, state=b.state, problem=b.problem)
    if r.caption:
        st.caption(r.caption)


def readings(row: Sequence[Reading], spec: int | Sequence[float] | None = None) -> None:
    """Readings side by side, one a column; `spec` as st.columns takes it (default: equal columns, one a reading)."""
    for column, r in zip(st.columns(spec or len(row)), row, strict=True):
        with column:
            reading(r)


def html_table(frame: pd.DataFrame, *, height: int | None = None) -> None:
    """A small read-only table as HTML: a header that stays in view, numbers aligned right, scrolling past `height`
    pixels. Streamlit's interactive dataframe (sorting, search) took a page ~0.13 s of first paint in an A/B for a
    few dozen rows that nobody sorts; a table's values are written as given (format them first)."""
    # a column of numbers, or of numbers already written as text (display.number), is aligned right
    numeric = [pd.to_numeric(frame[c], errors="coerce").notna().all() for c in frame.columns]
    size = "1rem" if presenter() else "0.9rem"
    cell = f"padding:0.15rem 0.5rem;font-size:{size}"
    wrap = {True: "white-space:nowrap", False: "overflow-wrap:anywhere"}  # words wrap on a phone; numbers stay whole
    head = "".join(
        f"<th style='{cell};white-space:normal;position:sticky;top:0;background:white;"
        f"text-align:{'right' if n else 'left'}'>"
        f"{html_text(str(c))}</th>"
        for c, n in zip(frame.columns, numeric, strict=True)
    )
    body = "".join(
        "<tr>"
        + "".join(
            f"<td style='{cell};{wrap[bool(n)]};text-align:{'right' if n else 'left'}'>{html_text(str(v))}</td>"
            for v, n in zip(row, numeric, strict=True)
        )
        + "</tr>"
        for row in frame.itertuples(index=False)
    )
    box = f"max-height:{height}px;overflow-y:auto;" if height else ""
    # a box that scrolls takes the keyboard's focus (arrow keys scroll it) and says what it holds
    focus = f" tabindex='0' role='region' aria-label='{html_text('table: ' + ', '.join(map(str, frame.columns)))}'"
    st.markdown(
        f"<div{focus if height else ''} style='{box}font-variant-numeric:tabular-nums'>"
        f"<table style='border-collapse:collapse;width:100%;margin:0'><thead><tr>{head}</tr></thead>"
        f"<tbody>{body}</tbody></table></div>",
        unsafe_allow_html=True,
    )


def guarded(
    action: Callable[[], object], fallback: Callable[[], object], what: str, instead: str = "showing the defaults"
) -> object:
    """Run `action`; on the core's ValueError/TypeError show its message and run `fallback` instead."""
    try:
        return action()
    except (ValueError, TypeError) as error:
        note(f"{what}: {error}. {instead[:1].upper()}{instead[1:]} instead.")
        return fallback()


def token_notes(pairs: Iterable[tuple[object, str]], max_tokens: int) -> None:
    """Notes for sentences the real model read differently from what was typed: [UNK] pieces, or cut at
    `max_tokens`. `pairs`: (posviz.models.tokens.Tokens, label) for each sentence, of either real model."""
    for tokens, label in pairs:
        if tokens.unknown:
            note(f"{label}: the vocabulary has no piece for {', '.join(tokens.unknown)}; the model reads [UNK].")
        if tokens.cut:
            note(f"{label} is longer than {max_tokens} tokens; the rest is cut.")


def capped_sentence(text: str, label: str, default: str) -> str:
    """`text` cut to its first MAX_WORDS words, or `default` if it has none; says so when it changes it."""
    words = text.split()
    if not words:
        note(f"{label} is empty; using {default!r}.")
        return default
    if len(words) > MAX_WORDS:
        note(f"{label} has {len(words)} words; using the first {MAX_WORDS}.")
    return " ".join(words[:MAX_WORDS])


def capped_sentences(state: Mapping[str, object], params: Mapping[str, Param]) -> tuple[str, str]:
    """Sentences 1 and 2 (controls `s1`, `s2`) each passed through `capped_sentence`."""
    first, second = (capped_sentence(state[k], f"Sentence {k[1]}", params[k].default) for k in ("s1", "s2"))
    return first, second


# Under 640 px a table of words is a card a row: its row's name, then each cell under its column's name (columns of
# 60 px had cut the recap's words to a word a line); the column headings stay for a screen reader, off screen.
PHONE_GRID_CSS = (
    "<style>@media (max-width: 640px) {"
    " .posviz-text-grid, .posviz-text-grid tbody, .posviz-text-grid tr, .posviz-text-grid th,"
    " .posviz-text-grid td {display: block; width: 100%; box-sizing: border-box}"
    " .posviz-text-grid thead {position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0)}"
    " .posviz-text-grid {font-size: 1rem !important}"
    " .posviz-text-grid tbody th {text-align: left !important; padding: 0.6rem 0.5rem 0.2rem !important}"  # as a cell's
    " .posviz-text-grid td {text-align: left !important; padding: 0.3rem 0.5rem !important; margin-bottom: 3px}"
    " .posviz-text-grid td::before {content: attr(data-label); display: block; font-size: 0.8rem; font-weight: 600;"
    " color: #31333f}}</style>"
)


def _cell_lines(text: str) -> str:
    """A grid cell's lines as HTML, its measured numbers in bold (what a back row reads; "(step 13)" stays plain)."""

    def bold(line: str) -> str:
        pieces, at = [], 0
        for found in _MEASURED.finditer(line):
            pieces += [html_text(line[at : found.start()]), f"<strong>{html_text(found.group())}</strong>"]
            at = found.end()
        return "".join([*pieces, html_text(line[at:])])

    return "<br>".join(bold(line) for line in text.split("\n"))


# a measured number: a decimal ("+1.306", "5.6e-15"), a range of two ("+0.20..+0.26"), a change of 0; not a step's
# number or a count ("step 13", "d = 16", "512 rows": no decimal point)
_MEASURED = re.compile(r"[+−-]?\d+\.\d+(?:e-\d+)?(?:\.\.[+−-]?\d+\.\d+)?|(?<=change )0\b")


def text_grid(cells: pd.DataFrame, *, title: str = "", row_title: str = "", **_: object) -> None:
    """A table of words (`frames.cells_frame`: row, column, text) as an HTML table: a screen reader reads it
    cell by cell, and its cells wrap on a phone instead of overlapping as a chart's text marks do. A cell's line
    break stays a line break; rows and columns keep the frame's order."""
    rows = list(dict.fromkeys(cells["row"]))
    columns = list(dict.fromkeys(cells["column"]))
    text = {(r, c): t for r, c, t in zip(cells["row"], cells["column"], cells["text"], strict=True)}
    size = "1.25rem" if hall() else "1.05rem" if presenter() else "0.95rem"  # 20 px for the lecture in a hall
    # in a hall the type is larger and the screen 720 px: cells a little tighter (the recap's table then fits)
    pad, line, head_pad = (
        ("0.1rem 0.4rem", "1.15", "0.15rem 0.5rem") if hall() else ("0.2rem 0.4rem", "1.2", "0.3rem 0.5rem")
    )
    cell = f"padding:{pad};background:#f0f2f6;text-align:center;vertical-align:middle;line-height:{line}"
    # explicit roles: the phone's layout below makes the cells blocks, and a block drops a table's meaning in the
    # accessibility tree unless its role says it
    head = f"<td role='cell'>{html_text(row_title)}</td>" + "".join(
        f"<th role='columnheader' scope='col' style='padding:{head_pad};text-align:center'>{html_text(str(c))}</th>"
        for c in columns
    )
    body = "".join(
        f"<tr role='row'><th role='rowheader' scope='row' style='padding:{head_pad};text-align:right'>"
        f"{html_text(str(r))}</th>"
        + "".join(
            f"<td role='cell' data-label='{html_text(str(c))}' style='{cell}'>"
            f"{_cell_lines(str(text.get((r, c), '')))}</td>"
            for c in columns
        )
        + "</tr>"
        for r in rows
    )
    caption = f"<caption style='caption-side:top;font-weight:600'>{html_text(title)}</caption>" if title else ""
    st.markdown(
        f"<table role='table' class='posviz-text-grid' style='width:100%;border-collapse:separate;"
        f"border-spacing:3px;font-size:{size};margin:0'>{caption}<thead role='rowgroup'><tr role='row'>{head}</tr>"
        f"</thead><tbody role='rowgroup'>{body}</tbody></table>{PHONE_GRID_CSS}",
        unsafe_allow_html=True,
    )
