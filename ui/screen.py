"""Presenter mode and the page's opening: which screen a page is on (the shared 1280 x 720 one, or a desk) and what it
leaves out there."""

from __future__ import annotations

import re

import streamlit as st

# Every page, both modes (tests/test_access.py checks them with axe-core and at 390 px):
# - captions in a grey of 6.1:1 on white; Streamlit fades them to 60% opacity (3.9:1, and links inside to 2.8:1);
# - a focus ring on whatever the keyboard reaches;
# - on a phone, a chart sized in pixels for 1280 px (a row of panels, a facet) is scaled down to the column rather
#   than pushing it sideways, and a formula scrolls inside its own box.
ACCESS_CSS = (
    "<style>[data-testid='stCaptionContainer'], [data-testid='stImageCaption'] {opacity: 1; color: #5b5e66}"
    " :focus-visible {outline: 2px solid #0b57d0 !important; outline-offset: 2px}"
    # a verdict badge wraps inside its one box rather than ending in "…" (Streamlit cuts it at its column's edge)
    " .stMarkdownBadge {white-space: normal !important; overflow: visible !important; text-overflow: clip !important;"
    " max-width: 100%; display: inline-block !important; line-height: 1.35; vertical-align: top}"
    " @media (max-width: 640px) {"
    " [data-testid='stVegaLiteChart'], [data-testid='stVegaLiteChart'] .vega-embed {max-width: 100%}"
    " [data-testid='stVegaLiteChart'] canvas, [data-testid='stVegaLiteChart'] svg.marks"
    " {max-width: 100% !important; height: auto !important}"
    " [data-testid='stImageContainer'], [data-testid='stImageContainer'] img {max-width: 100% !important}"
    " .katex-display {overflow-x: auto; overflow-y: hidden}}"
    # wider screens: KaTeX's box can round 2 px past its column, a scrolling region no keyboard can reach
    " @media (min-width: 641px) {.katex-display {overflow: visible !important}}</style>"
)


def presenter() -> bool:
    """True when presenter mode is on (router toggle, or ?presenter=true when a page runs alone)."""
    if "presenter" in st.session_state:
        return bool(st.session_state["presenter"])
    return st.query_params.get("presenter", "").lower() in ("true", "1")


HALL = "posviz_hall"  # session key: the page being drawn is the lecture (ui.lecture_style), text in a hall's sizes


def hall() -> bool:
    """True while the lecture is drawn in presenter mode: its text is 20 px or more (a hall's back row)."""
    return presenter() and bool(st.session_state.get(HALL, False))


def chart_screen() -> bool | str:
    """The screen a chart's text is sized for (drawing.engine.SIZES): "hall", presenter mode, or a desk."""
    return "hall" if hall() else presenter()


def legend_side() -> str:
    """Where a heatmap's colour legend goes: under it, or at its right in presenter mode (height is scarcer)."""
    return "right" if presenter() else "bottom"


def fit(normal: int | None, presenting: int) -> int | None:
    """A chart height for this mode: `presenting` pixels in presenter mode, so the chart fits a 720 px screen."""
    return presenting if presenter() else normal


def intro(text: str) -> None:
    """Explanatory prose, hidden in presenter mode to leave room for charts."""
    if not presenter():
        st.markdown(text)


def takeaway(text: str) -> None:
    """The one line a chart needs read with it (what to take from it, or the caveat it depends on): kept in both modes.

    `intro` prose is dropped in presenter mode; a takeaway is not, so a chart never loses the sentence that says
    what it shows (a stand-in, two different quantities side by side).
    """
    st.markdown(text)


def expected_line(text: str) -> None:
    """A step's grey expected-value line (where its number comes from): a caption's colour, and 20 px in presenter
    mode (HALL_CSS), where it is read with the headline; "(seed 42)" and "d = 8" never split across lines (`glued`)."""
    with st.container(key="lecture-expected"):
        st.caption(glued(text))


# A short parenthesis, "(step 3)" or "(3)": wrapped with its words and the word before it, never "(step" / "3)".
_PARENTHESIS = re.compile(r" ?\([^()]{1,16}\)")


# A thing and its short number, "pair 3", "token 0", "layer 3", "family 1": one unit, never "pair / 3".
_NUMBERED = re.compile(
    r"\b(?:pair|token|layer|head|seed|family|position|row) \d{1,3}\b"  # a thing and its number: "layer 3"
    r"|\b\d{1,4} (?:tokens|texts|layers|heads|seeds|positions|rows|bytes)\b"  # a count and its unit: "19 tokens"
)


# A short equation or difference, "d = 8", "T = 6", "1 − cosine": one unit, never "d = / 8" or "1 / − cosine".
_EQUATION = re.compile(r"(?<!\S)\S{1,3} [=−] [^\s,;:()]{1,10}")


def glued(label: str, *, before: bool = True) -> str:
    """`label` with the spaces in and before each short parenthesis, in each short equation, between a thing and its
    short number ("pair 3", "family 1") and between a count and its unit ("19 tokens") made non-breaking (a narrow
    column wraps "wavelength, slowest pair (3)" as "wavelength, slowest / pair (3)", not "... pair / (3)").
    `before` False leaves the space before a parenthesis breakable: a sentence in large type (a claim) wrapped "its
    causal / mask (family 3)" a third of a line early. A number's exponent is never split from its sign.

    >>> glued("prints 4.44e-16 (seed 42)") == "prints 4.44e-\u206016\u00a0(seed\u00a042)"
    True
    """
    inside = _PARENTHESIS.sub(_unbroken, label) if before else _INSIDE.sub(_unbroken, label)
    return _EXPONENT.sub("\\1\u2060\\2", _NUMBERED.sub(_unbroken, _EQUATION.sub(_unbroken, inside)))


# A number's exponent, "4.44e-16": a word joiner after its sign, so that a phone never breaks it as "4.44e-" / "16"
# (a browser may break after a hyphen)
_EXPONENT = re.compile(r"(\de[-−+])(\d)")


_INSIDE = re.compile(r"\([^()]{1,16}\)")  # a short parenthesis alone, without the space before it


def _unbroken(match: re.Match) -> str:
    return match.group().replace(" ", "\u00a0")


def page_setup(doc: str | None = None, formula: str | None = None) -> None:
    """Call first on every page: the access CSS, and a tighter top margin in presenter mode.

    `doc`, the page's docstring (`ui.page_setup(__doc__)`), is its opening text: the first line is the title,
    each paragraph after it an `intro` (hidden in presenter mode), its lines joined by spaces. `formula`
    (LaTeX, also hidden in presenter mode) stands after the first paragraph.
    """
    st.html(ACCESS_CSS)
    st.session_state[HALL] = False  # every page starts on a desk's or a shared screen's sizes; the lecture says so
    if presenter():
        st.html(
            "<style>[data-testid='stMainBlockContainer'] {padding-top: 2rem}"
            " [data-testid='stImageCaption'] * {font-size: 1rem}</style>"  # a picture's caption reaches 16 px
        )
    if doc:
        title, *paragraphs = doc.strip().split("\n\n")
        st.title(title)
        for i, paragraph in enumerate(paragraphs):
            intro(" ".join(paragraph.split("\n")))
            if i == 0 and formula and not presenter():
                st.latex(formula)


# The lecture in a hall: a verdict badge (14 px by default) grows to 20 px, the grey expected-value line under the
# headline (a caption, 12 px) to 20 px, and a picture's bold title to a chart title's 24 px; captions stay smaller.
HALL_CSS = (
    "<style>[data-testid='stMain'] .stMarkdownBadge {font-size: 1.25rem !important}"
    " .st-key-lecture-expected [data-testid='stCaptionContainer'], .st-key-lecture-expected p"
    " {font-size: 1.25rem !important; line-height: 1.2}"
    " [data-testid='stMain'] [data-testid='stMarkdownContainer'] p > strong:only-child {font-size: 1.5rem}"
    # a picture's key ("dimension 0-383 →, position 0-511 ↓": its only axes) in a hall's 20 px too
    " [data-testid='stImageCaption'] * {font-size: 1.25rem !important}</style>"
)


# The lecture on a phone (<= 640 px): the navigation one row of about 40 px between the header's sidebar and menu
# buttons (Previous, Next as icons, their names kept for screen readers; the step list; First and Last, which the
# list and the Home and End keys also reach, left out; the step list showing its chosen step's whole name, and its
# opened list the screen's width), the claim in 20 px, several headline numbers side by side.
PHONE_LECTURE_CSS = (
    " @media (max-width: 640px) {"
    " .st-key-lecture-nav {flex-wrap: nowrap !important; gap: 0.375rem; padding: 0 2.25rem}"
    " .st-key-lecture-first, .st-key-lecture-last, .st-key-lecture-nav kbd {display: none !important}"
    " .st-key-lecture-nav button {min-height: 2.5rem; padding: 0 0.6rem}"
    " .st-key-lecture-nav button [data-testid='stMarkdownContainer'] {position: absolute; width: 1px; height: 1px;"
    " overflow: hidden; clip-path: inset(50%); white-space: nowrap}"
    " .st-key-lecture-nav [data-testid='stLayoutWrapper']:has(> .st-key-lecture-jump)"
    " {flex: 1 1 0; min-width: 0; width: auto !important}"
    " .st-key-lecture-jump {position: relative}"
    " .st-key-lecture-jump [data-testid='stElementContainer']:has(.posviz-jump) {position: static}"
    # the chosen step's whole name over the list's one-line field (ui.step_list), shown again when tapped to type
    " .st-key-lecture-jump .posviz-jump {display: flex; position: absolute; inset: 0 2rem 0 0; align-items: center;"
    " padding: 0 0 0 0.6rem; font-size: 0.8rem; line-height: 1.1; pointer-events: none; overflow: hidden}"
    " .st-key-lecture-jump [role='group'] {min-height: 2.75rem}"
    " .st-key-lecture-jump input {color: transparent !important}"
    " .st-key-lecture-jump:focus-within .posviz-jump {display: none}"
    " .st-key-lecture-jump:focus-within input {color: inherit !important}"
    # the opened list as wide as the screen, so every step's name shows whole (it is the list's width by default)
    " [data-testid='stSelectboxVirtualDropdown'] {width: calc(100vw - 2rem) !important; margin-left: 0.5rem}"
    " .st-key-claim div {font-size: 1.25rem !important}"
    " .st-key-headlines [data-testid='stColumn'] {min-width: 0 !important; flex: 1 1 0 !important}"
    " .st-key-headlines .posviz-number {font-size: 1.6rem !important}"
    # four numbers (steps 13, 21): two rows of two, each number in half the width (in a quarter they touched)
    " .st-key-headlines [data-testid='stHorizontalBlock']:has(> [data-testid='stColumn']:nth-child(4))"
    " {flex-wrap: wrap !important; row-gap: 0.5rem}"
    " .st-key-headlines [data-testid='stHorizontalBlock']:has(> [data-testid='stColumn']:nth-child(4))"
    " > [data-testid='stColumn'] {flex: 1 1 40% !important}"
    " .st-key-headlines {margin-bottom: 0.5rem}"
    # the line under the headline holds definitions a phone gives nowhere else: a caption's 16 px, the text's colour
    # (it was 14 px grey, smaller and fainter than the caption under the figures)
    " .st-key-lecture-expected [data-testid='stCaptionContainer'], .st-key-lecture-expected p"
    " {font-size: 1rem !important; color: inherit !important}"
    # labels of two lines or one: the numbers on one baseline
    " .st-key-headlines [data-testid='stColumn'] .posviz-label {min-height: 3.2em; display: flex; align-items: end}}"
)


def lecture_style() -> None:
    """The lecture's screen: a tighter top margin, the arrow-key buttons kept out of sight, and in presenter mode
    every text a hall reads in 20 px or more (`hall`)."""
    st.session_state[HALL] = True
    if presenter():
        st.html(HALL_CSS)
    st.html(
        "<style>.st-key-lecture-arrows, .posviz-jump {display: none}"
        # the arrows' hidden block would still take a gap (16 px) above the claim in its wrapper: that goes too
        " [data-testid='stLayoutWrapper']:has(> .st-key-lecture-arrows) {display: none}"
        " [data-testid='stMainBlockContainer'] {padding-top: 0.75rem; padding-bottom: 0.25rem}"
        # the header band stays (its sidebar and menu buttons sit at the edges) but lets the step use the screen
        " [data-testid='stHeader'] {background: transparent; pointer-events: none}"
        " [data-testid='stHeader'] button, [data-testid='stHeader'] a {pointer-events: auto}"
        " .st-key-lecture-nav {gap: 0.5rem; position: relative; z-index: 999991}"
        f"{PHONE_LECTURE_CSS}</style>"
    )
