"""Accessibility in a real browser: axe-core on every page and lecture step (plain and presenter mode, 1280x720),
no sideways scrolling on a phone (390x844), one page walked by keyboard alone; and the text alternatives the ui
helpers write for charts and pictures.

axe-core comes bundled in `axe-playwright-python` (its axe.min.js; version in AXE_VERSION). One server and one
browser for the module; every view once per mode, no control sweeps.
"""

from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pytest

import posviz.lecture
import ui.text
from tests.test_browser import MISSING

LECTURE_STEPS = len(posviz.lecture.STEPS)
VIEWS = [f"/{name}" for name in __import__("tests.harness", fromlist=["PAGES"]).PAGES] + [
    f"/lecture?step={step}"
    for step in range(2, LECTURE_STEPS + 1)  # step 1 is /lecture itself
]
SERIOUS = ("serious", "critical")
# Streamlit's own sidebar navigation is a <ul> whose items sit in <div>s (axe: `list`, `listitem`); a bare
# st.navigation app shows the same (test_a_bare_streamlit_navigation_has_the_list_violations_we_exclude).
# Exactly these two rules, on exactly the elements inside this list, are left out.
NAV = "[data-testid='stSidebarNavItems']"
NAV_RULES = ("list", "listitem")
CHART = "[data-testid='stVegaLiteChart']"


def axe_version() -> str:
    from axe_playwright_python.base import AXE_SCRIPT

    return re.search(r"axe v([\d.]+)", AXE_SCRIPT[:200]).group(1)


@pytest.fixture(scope="module")
def app():
    from tests.harness import browser, serve

    with serve() as (base, _), browser() as b:
        yield base, b


def opened(b, base: str, path: str, size: tuple[int, int] = (1280, 720)):
    from tests.harness import settle

    context = b.new_context(viewport={"width": size[0], "height": size[1]})
    page = context.new_page()
    page.goto(base + path)
    settle(page)
    return context, page


def visit(page, url: str) -> None:
    from tests.harness import settle

    page.goto(url)
    settle(page)
    charts = page.locator(CHART)
    for i in range(charts.count()):  # axe reads what is drawn: wait for every shown chart's canvas (a compared
        # panel hidden on a phone, ui.compared, is drawn when shown)
        if charts.nth(i).evaluate("e => e.getClientRects().length > 0"):
            charts.nth(i).locator("canvas, svg").first.wait_for(timeout=30_000)
    assert page.locator("[data-testid='stException']").count() == 0, url


def in_navigation(page, node: dict) -> bool:
    return page.evaluate(f't => !!document.querySelector(t)?.closest("{NAV}")', node["target"][0])


def serious(page) -> list[tuple[str, str, str]]:
    """Serious and critical axe violations on the page: (rule, impact, the element's HTML), Streamlit's navigation
    markup (NAV_RULES inside NAV) left out."""
    from axe_playwright_python.sync_playwright import Axe

    found = []
    for v in Axe().run(page).response["violations"]:
        if v["impact"] not in SERIOUS:
            continue
        for node in v["nodes"]:
            if not (v["id"] in NAV_RULES and in_navigation(page, node)):
                found.append((v["id"], v["impact"], node["html"][:120]))
    return found


@pytest.mark.browser
@pytest.mark.parametrize("mode", ["plain", "presenter"])
def test_every_page_and_lecture_step_has_no_serious_axe_violation(app, mode):
    if MISSING:
        pytest.skip("; ".join(MISSING))
    base, b = app
    context, page = opened(b, base, "/overview")
    try:
        found = {}
        for view in VIEWS:
            query = ("&" if "?" in view else "?") + "presenter=true" if mode == "presenter" else ""
            visit(page, base + view + query)
            if bad := serious(page):
                found[view + query] = bad
        assert found == {}, f"axe-core {axe_version()}: {found}"
    finally:
        context.close()


@pytest.mark.browser
def test_a_bare_streamlit_navigation_has_the_list_violations_we_exclude(app):
    """The exclusion is Streamlit's markup, not posviz's: a two-page st.navigation app with nothing else in it shows
    `list` and `listitem` on its sidebar navigation, and nothing else serious."""
    if MISSING:
        pytest.skip("; ".join(MISSING))
    from axe_playwright_python.sync_playwright import Axe

    from tests.harness import serve

    _, b = app  # the module's browser; a second, bare server
    with serve("tests/bare_navigation.py") as (base, _):
        context, page = opened(b, base, "/")
        try:
            violations = Axe().run(page).response["violations"]
            rules = {v["id"] for v in violations if v["impact"] in SERIOUS}
            assert rules == set(NAV_RULES), rules
            assert all(in_navigation(page, n) for v in violations if v["id"] in NAV_RULES for n in v["nodes"])
        finally:
            context.close()


# A verdict badge that ends in "…" (Streamlit's own style), runs past the screen's edge instead of wrapping, or wraps
# as an inline box split over lines (two coloured boxes that read as two badges): one badge is one box.
BADGES_CUT = """() => [...document.querySelectorAll("[data-testid='stMain'] .stMarkdownBadge")].filter(b =>
  getComputedStyle(b).textOverflow === 'ellipsis' || b.scrollWidth > b.clientWidth + 1
  || b.getClientRects().length > 1 || [...b.getClientRects()].some(r => r.right > 392))
  .map(b => b.textContent.slice(0, 40))"""


@pytest.mark.browser
def test_no_page_or_lecture_step_scrolls_sideways_on_a_phone(app):
    """At 390x844 the document and the main column are no wider than the screen (2 px for rounding), and no badge
    is cut with "…": it wraps."""
    if MISSING:
        pytest.skip("; ".join(MISSING))
    base, b = app
    context, page = opened(b, base, "/overview", (390, 844))
    try:
        wide = {}
        for view in VIEWS:
            visit(page, base + view)
            widths = page.evaluate(
                "() => [document.documentElement.scrollWidth,"
                " document.querySelector(\"[data-testid='stMainBlockContainer']\").scrollWidth,"
                " document.querySelector(\"[data-testid='stMain']\").scrollWidth]"
            )
            if max(widths) > 392:
                wide[view] = widths
            cut = page.evaluate(BADGES_CUT)
            if cut:
                wide[view] = cut
        assert wide == {}, f"wider than 390 px (document, main block, main), or badges cut: {wide}"
    finally:
        context.close()


@pytest.mark.browser
def test_the_sinusoids_page_works_by_keyboard_alone(app):
    """Tab reaches the width control with a visible focus ring; ArrowUp and Enter change it, the page reruns with the
    new width and the link keeps it."""
    if MISSING:
        pytest.skip("; ".join(MISSING))
    from tests.harness import settle

    base, b = app
    context, page = opened(b, base, "/sinusoids")
    try:
        label = "() => document.activeElement.getAttribute('aria-label') || ''"
        for _ in range(60):
            page.keyboard.press("Tab")
            if page.evaluate(label).startswith("width d"):
                break
        else:
            pytest.fail("Tab never reached the width control")
        ring = page.evaluate(
            "() => { const s = getComputedStyle(document.activeElement); return [s.outlineStyle,"
            " parseFloat(s.outlineWidth)]; }"
        )
        assert ring[0] != "none" and ring[1] >= 2, ring
        before = page.evaluate("() => document.activeElement.value")
        page.keyboard.press("ArrowUp")
        page.keyboard.press("Enter")
        settle(page)
        after = page.locator("input[aria-label^='width d']").input_value()
        assert after != before, (before, after)
        assert f"d={after}" in page.url, page.url
        assert page.locator("[data-testid='stException']").count() == 0
    finally:
        context.close()


def test_a_chart_says_what_it_shows_and_its_value_range():
    from ui.chart import chart_alt

    table = pd.DataFrame({"query": ["a", "a", "b"], "key": ["a", "b", "b"], "weight": [0.25, 0.75, 1.0]})
    text = chart_alt("Attention\nweights", table, "w")
    assert text == "Attention weights: chart of 3 rows of query, key, weight; weight from 0.25 to 1"
    assert chart_alt(None, table.assign(weight=np.nan), "w") == "w: chart of 3 rows of query, key, weight"


def test_a_picture_says_its_size_and_value_range():
    from ui.pictures import bar_alt, picture_alt

    values = np.array([[0.0, -2.5, np.nan], [1.0, 3.0, 0.5]])
    assert picture_alt("Scores", values, "key →, query ↓") == (
        "Scores: picture of 2 x 3 values, key →, query ↓; values from -2.5 to 3"
    )
    assert bar_alt((-1.0, 1.0), "score") == "colour bar: score from -1 to 1"


# The lecture on a phone. Vega draws into SVG here (Streamlit's renderer), or on a canvas: the SVG's texts are read, and
# every text written on a canvas is recorded (fillText) from the page's start, so a chart title or label Vega cut
# with "…" is seen as drawn.
CHART_TEXT = f'() => [...document.querySelectorAll("{CHART} svg text")].map(t => t.textContent)'
CANVAS_TEXT = """(() => {
  window.posvizDrawn = [];
  const fill = CanvasRenderingContext2D.prototype.fillText;
  CanvasRenderingContext2D.prototype.fillText = function (text, ...rest) {
    window.posvizDrawn.push(String(text));
    return fill.call(this, text, ...rest);
  };
})();"""
SHOWN = "(s) => [...document.querySelectorAll(s)].filter(e => e.getClientRects().length > 0).length"
# Which compared panel a phone shows (1 or 2, null if neither or both) and the bold title above it.
SHOWN_PANEL = """() => {
  const shown = [1, 2].filter(i => document.querySelector(`.st-key-compared-${i}`)?.getClientRects().length > 0);
  if (shown.length !== 1) return null;
  const title = document.querySelector(`.st-key-compared-${shown[0]} strong`)
    || document.querySelector(`.st-key-compared-${shown[0]} .role-title-text`);
  return [shown[0], title ? title.textContent : null];
}"""
# How a figure is drawn, shown in the lecture's main column: a picture's pixel count, "every value shown", a Download
# menu or button (the offline deck's button, under the step, is the lecture's own).
DETAILS = """() => {
  const main = document.querySelector("[data-testid='stMain']");
  const text = [...main.querySelectorAll('*')].filter(e => e.children.length === 0 && e.getClientRects().length > 0)
    .map(e => e.textContent).filter(t => /pixels|every value shown|each value in the CSV/.test(t));
  const buttons = [...main.querySelectorAll('button')].filter(b => b.getClientRects().length > 0)
    .map(b => b.textContent).filter(t => /Download|CSV|SVG/.test(t) && !/Offline copy/.test(t));
  return [...text, ...buttons];
}"""
# A headline label's short parenthesis and the word before it ("only (step 3)") split over two lines.
# The verdict badge and the headline numbers' boxes: [left, top] of the badge, [left, top, bottom] of each number
BADGE_PLACE = """() => {
  const main = document.querySelector("[data-testid='stMain']");
  const badge = main.querySelector(".st-key-headlines .stMarkdownBadge");
  const numbers = [...main.querySelectorAll(".st-key-headlines .posviz-number")].map(n => n.getBoundingClientRect());
  if (!badge || !numbers.length) return null;
  const b = badge.getBoundingClientRect();
  return {badge: [b.left, b.top], numbers: numbers.map(r => [r.left, r.top, r.bottom])};
}"""

SPLIT_PARENTHESES = """() => [...document.querySelectorAll('.posviz-label')].flatMap(label => {
  const node = label.firstChild;
  if (!node || node.nodeType !== Node.TEXT_NODE) return [];
  return [...node.textContent.matchAll(/\\S+[\\s]\\([^()]{1,16}\\)/g)].filter(m => {
    const range = document.createRange();
    range.setStart(node, m.index);
    range.setEnd(node, m.index + m[0].length);
    return new Set([...range.getClientRects()].map(r => Math.round(r.top))).size > 1;
  }).map(m => m[0]);
})"""
NAV_HEIGHT = "() => document.querySelector('.st-key-lecture-nav').getBoundingClientRect().height"
# The line under the headline (where a phone's definitions stand): its font size and colour, beside the caption's
# size under the figures and the claim's colour (the text's)
LINE_STYLE = """() => {
  const line = document.querySelector('.st-key-lecture-expected p');
  const caption = document.querySelector('.st-key-lecture-caption p');
  const claim = document.querySelector('.st-key-claim div');
  if (!line) return null;
  const s = getComputedStyle(line);
  return [parseFloat(s.fontSize), caption ? parseFloat(getComputedStyle(caption).fontSize) : null, s.color,
          getComputedStyle(claim).color];
}"""
# The step list's chosen name as a phone shows it (ui.step_list): the text drawn over the field, whether all of it
# shows, its font size; and the field's own value (the name it stands for).
JUMP_SHOWN = """() => {
  const shown = document.querySelector('.st-key-lecture-jump .posviz-jump');
  const field = document.querySelector('.st-key-lecture-jump input');
  const arrow = document.querySelector('.st-key-lecture-jump button svg');
  const r = shown.getBoundingClientRect();
  const whole = shown.scrollHeight <= shown.clientHeight + 1 && shown.scrollWidth <= shown.clientWidth + 1
    && r.right <= arrow.getBoundingClientRect().left;
  return [shown.textContent, field.value, r.width > 0 && whole, parseFloat(getComputedStyle(shown).fontSize)];
}"""
COMPARED = sorted(i + 1 for i, s in enumerate(posviz.lecture.STEPS) if s.key in posviz.lecture.COMPARED)
# Every shown chart text (SVG) with the size it is drawn at: its font size times its chart's scale (a chart wider
# than a phone's column is scaled down to it, its text with it).
CHART_TEXT_PX = f"""() => [...document.querySelectorAll("{CHART} svg text")]
  .filter(t => t.getClientRects().length > 0 && t.textContent.trim() && getComputedStyle(t).opacity !== "0"
    && t.getAttribute("opacity") !== "0" && t.parentElement.getAttribute("opacity") !== "0")
  .map(t => {{
    const svg = t.ownerSVGElement, w = svg.width.baseVal.value;
    return [t.textContent, parseFloat(getComputedStyle(t).fontSize) * (w ? svg.getBoundingClientRect().width / w : 1)];
  }})"""


@pytest.fixture(scope="module")
def phone_lecture(app) -> dict[int, dict[str, object]]:
    """Every lecture step at 390x844, once: the chart texts and badges cut with "…", the navigation's height, and
    how many of the compared panels' toggles and panels are shown."""
    if MISSING:
        pytest.skip("; ".join(MISSING))
    base, b = app
    context = b.new_context(viewport={"width": 390, "height": 844})
    context.add_init_script(CANVAS_TEXT)
    page = context.new_page()
    seen = {}
    try:
        for step in range(1, LECTURE_STEPS + 1):
            visit(page, f"{base}/lecture?step={step}")
            page.wait_for_timeout(300)  # the charts' last paint
            seen[step] = {
                "cut": [t for t in page.evaluate(CHART_TEXT) + page.evaluate("() => window.posvizDrawn") if "…" in t]
                + page.evaluate(BADGES_CUT),
                "nav": page.evaluate(NAV_HEIGHT),
                "line": page.evaluate(LINE_STYLE),
                "jump": page.evaluate(JUMP_SHOWN),
                "first": page.evaluate(FIRST_FIGURE),
                "toggles": page.evaluate(SHOWN, ".posviz-flip"),
                "panels": page.evaluate(SHOWN, ".st-key-compared-1, .st-key-compared-2"),
                "shown panel": page.evaluate(SHOWN_PANEL),
                "details": page.evaluate(DETAILS),
                "split": page.evaluate(SPLIT_PARENTHESES),
                "badge": page.evaluate(BADGE_PLACE),
                "text px": page.evaluate(CHART_TEXT_PX),
            }
    finally:
        context.close()
    return seen


@pytest.mark.browser
def test_no_chart_text_or_badge_is_cut_on_a_phone_on_any_lecture_step(phone_lecture):
    """At 390 px a chart's title wraps (engine.wrapped_title) and a badge wraps inside its one box: nothing Vega or
    Streamlit draws on a lecture step ends in "…", and no badge splits into two boxes."""
    cut = {step: seen["cut"] for step, seen in phone_lecture.items() if seen["cut"]}
    assert cut == {}, cut


@pytest.mark.browser
def test_the_line_under_the_headline_is_as_large_as_a_caption_and_not_grey_on_a_phone(phone_lecture):
    """It holds definitions ("attention sink: a key that takes weight whatever the query") in a caption's form, which
    drew it 14 px grey, smaller and fainter than the caption under the figures: on a phone it is 16 px or more, at
    least the caption's size, in the claim's colour."""
    lines = {step: seen["line"] for step, seen in phone_lecture.items()}
    wrong = {
        step: line
        for step, line in lines.items()
        if line is None or line[0] < 16 or (line[1] is not None and line[0] < line[1]) or line[2] != line[3]
    }
    assert wrong == {}, wrong


@pytest.mark.browser
def test_the_lectures_navigation_is_one_row_of_about_40_px_on_a_phone(phone_lecture):
    heights = {step: seen["nav"] for step, seen in phone_lecture.items()}
    assert all(36 <= h <= 48 for h in heights.values()), heights


@pytest.mark.browser
def test_every_steps_first_figure_starts_on_a_phones_first_screen(phone_lecture):
    """At 390x844 the claim, the headline numbers, the controls and the expected-value line leave at least 100 px of
    the first figure on the first screen, on every step but the listed exceptions."""
    tops = {step: seen["first"] for step, seen in phone_lecture.items() if step not in FIRST_SCREEN_EXCEPTIONS}
    assert {step: top for step, top in tops.items() if top is None or top > 844 - 100} == {}, tops


@pytest.mark.browser
def test_the_step_list_shows_the_chosen_steps_whole_name_on_a_phone(phone_lecture):
    """The one-line field would cut "17 / 22 · What each scheme buys past its trained length" after about 20
    characters; the name drawn over it shows whole, in 12 px or more, on every step."""
    shown = {step: seen["jump"] for step, seen in phone_lecture.items()}
    wrong = {step: j for step, j in shown.items() if not (j[0] == j[1] and j[2] and j[3] >= 12)}
    assert wrong == {}, wrong


@pytest.mark.browser
def test_the_opened_step_list_shows_every_steps_whole_name_on_a_phone(app):
    if MISSING:
        pytest.skip("; ".join(MISSING))
    base, b = app
    longest = max(range(LECTURE_STEPS), key=lambda i: len(posviz.lecture.STEPS[i].title)) + 1
    context, page = opened(b, base, f"/lecture?step={longest}", (390, 844))
    try:
        page.locator(".st-key-lecture-jump button").click()
        options = page.locator("[data-testid='stSelectboxVirtualDropdown'] [role='option']")
        options.first.wait_for()
        cut = page.evaluate(
            "() => [...document.querySelectorAll(\"[data-testid='stSelectboxVirtualDropdown'] [role='option']\")]"
            ".filter(o => [o, ...o.children].some(e => e.scrollWidth > e.clientWidth + 1"
            " || e.getBoundingClientRect().right > 390))"
            ".map(o => o.textContent)"
        )
        assert options.count() >= 5 and cut == [], cut
        assert page.locator("[aria-selected='true']").inner_text().endswith(posviz.lecture.STEPS[longest - 1].title)
    finally:
        context.close()


# The top of a step's first figure (a chart, a picture, a table of words), in px from the top of the screen.
FIRST_FIGURE = """() => {
  const shown = [...document.querySelectorAll("[data-testid='stMain'] :is([data-testid='stVegaLiteChart'],"
    + " [data-testid='stImage'], .posviz-text-grid, table)")].filter(e => e.getClientRects().length > 0
    && !e.closest('.st-key-lecture-nav, .st-key-headlines'));
  return shown.length ? Math.min(...shown.map(e => e.getBoundingClientRect().top)) : null;
}"""
# Steps whose first figure may start below a phone's first screen, and why (none today: the longest claim, its
# headline, verdict, controls and expected-value line end above 600 px on every step).
FIRST_SCREEN_EXCEPTIONS: dict[int, str] = {}


# A chart's title as Vega draws it in SVG: a <text>, one <tspan> a line once it is wrapped.
TITLE_LINES = f"""() => {{
  const t = document.querySelector("{CHART} .role-title-text text");
  return t ? [...t.querySelectorAll('tspan')].map(s => s.textContent) : null;
}}"""


@pytest.mark.browser
def test_a_chart_title_wraps_again_when_the_window_narrows_or_widens(app):
    """The title's text is a Vega expression on windowSize() (engine.wrapped_title), evaluated again only when a
    signal it reads changes: it reads the view's width, which a container-wide chart updates on the window's resize
    event. So a phone turned sideways (or a window narrowed) gets its titles wrapped, or unwrapped, without a reload."""
    if MISSING:
        pytest.skip("; ".join(MISSING))
    base, b = app
    step = next(i for i, s in enumerate(posviz.lecture.STEPS, 1) if s.key == "pairs")  # one long-titled chart
    title = posviz.lecture.slide(step - 1).figures[0].title
    context, page = opened(b, base, f"/lecture?step={step}", (1280, 720))
    try:
        page.locator(f"{CHART} svg").first.wait_for(timeout=30_000)
        assert page.evaluate(TITLE_LINES) == []  # one line: the text itself, no tspans
        page.set_viewport_size({"width": 390, "height": 844})
        page.wait_for_function(f"({TITLE_LINES})()?.length > 1", timeout=10_000)
        assert " ".join(page.evaluate(TITLE_LINES)) == title
        page.set_viewport_size({"width": 1280, "height": 720})
        page.wait_for_function(f"({TITLE_LINES})()?.length === 0", timeout=10_000)
    finally:
        context.close()


@pytest.mark.browser
def test_compared_steps_show_one_panel_and_a_toggle_on_a_phone(phone_lecture):
    """A step whose two panels exist to be compared shows its toggle and one panel at 390 px (the second is one tap
    away, not below the first screen); every other step has no toggle."""
    shown = {step: (seen["toggles"], seen["panels"]) for step, seen in phone_lecture.items()}
    assert {step: s for step, s in shown.items() if step in COMPARED} == {step: (1, 1) for step in COMPARED}
    assert {step: s for step, s in shown.items() if step not in COMPARED and s[0]} == {}


# The steps whose second panel makes the comparison's point, shown first on a phone (lecture.PHONE_FIRST): the
# constant's zero difference (6), MiniLM's cosine map (15). Step 2 opens on its first: its headline, 0, is that panel's
# (on the ramp panel, a headline of 0 sat over two rows that differ).
SECOND_FIRST = {"offset", "real"}


@pytest.mark.browser
def test_each_compared_step_opens_on_the_panel_that_makes_its_point_on_a_phone(phone_lecture):
    """Steps 6 and 15 open on their second panel (the result: the zero difference, the cosine map), the others on
    their first; the title above the shown panel is that figure's."""
    shown = {step: phone_lecture[step]["shown panel"] for step in COMPARED}
    expected = {}
    for step in COMPARED:
        first = 2 if posviz.lecture.STEPS[step - 1].key in SECOND_FIRST else 1
        expected[step] = [first, "".join(posviz.lecture.slide(step - 1).figures[first - 1].title.split())]
    # compared without white space: a wrapped chart title's lines are <tspan>s, read with no space between
    assert {step: [s[0], "".join((s[1] or "").split())] if s else s for step, s in shown.items()} == expected


@pytest.mark.browser
def test_no_lecture_step_shows_how_its_figures_are_drawn_on_a_phone(phone_lecture):
    """No pixel count ("128 x 384 pixels, each a mean of 4 x 1"), "every value shown" or Download menu on a phone's
    lecture step: those belong to the pages."""
    found = {step: seen["details"] for step, seen in phone_lecture.items() if seen["details"]}
    assert found == {}, found


@pytest.mark.browser
def test_each_steps_badge_sits_under_its_first_headline_number_on_a_phone(phone_lecture):
    """The verdict is the first number's: its badge starts at that number's left, below it, and above any number of a
    later row (four numbers sit two by two: a badge drawn after the grid stood under the third, "unchanged" under
    step 13's 5.3514)."""
    misplaced = {}
    for step, seen in phone_lecture.items():
        if seen["badge"] is None:
            continue
        (left, top), numbers = seen["badge"]["badge"], seen["badge"]["numbers"]
        first = numbers[0]
        later = [n for n in numbers if n[1] >= first[2]]  # a number whose top is below the first's bottom
        if abs(left - first[0]) > 8 or top < first[2] - 2 or any(top >= n[1] for n in later):
            misplaced[step] = seen["badge"]
    assert misplaced == {}, misplaced
    assert sum(len(seen["badge"]["numbers"]) == 4 for seen in phone_lecture.values() if seen["badge"]) >= 2  # 13, 21


@pytest.mark.browser
def test_a_headline_labels_parenthesis_wraps_with_its_words_on_a_phone(phone_lecture):
    """A short parenthesis in a headline's label stays on the line of the word before it: "tokens / only (step 3)",
    never "tokens only (step / 3)" or "... pair / (3)"."""
    split = {step: seen["split"] for step, seen in phone_lecture.items() if seen["split"]}
    assert split == {}, split


def test_a_grid_cell_writes_its_measured_numbers_in_bold_and_its_step_numbers_plain():
    """The recap's numbers sat in 18 px regular type among their words: a back row finds them bold."""
    cell = ui.text._cell_lines("max change 5.6e-15 (step 13)\nALiBi: loss +0.30..+0.36, d = 16, 512 rows")
    assert cell.count("<strong>") == 2 and "<strong>5&#46;6e-15</strong>" not in cell  # html_text keeps "." here
    assert "<strong>5.6e-15</strong>" in cell and "<strong>+0.30..+0.36</strong>" in cell
    assert "13" in cell and "<strong>13" not in cell and "<strong>16" not in cell and "<strong>512" not in cell
    assert "<strong>0</strong>" in ui.text._cell_lines("max change 0 (step 13)")


def test_glued_makes_a_short_parenthesis_and_the_space_before_it_non_breaking():
    assert ui.text.glued("tokens only (step 3)") == "tokens only\u00a0(step\u00a03)"
    assert ui.text.glued("wavelength, slowest pair (3)") == "wavelength, slowest pair\u00a0(3)"
    long = "a (parenthesis far too long to keep on one line)"
    assert ui.text.glued(long) == long
    assert ui.text.glued("the width d = 8, seed 42") == "the width d\u00a0=\u00a08, seed\u00a042"
    assert ui.text.glued("step 3 / 22 · pairs (seed 42)") == "step 3 / 22 · pairs\u00a0(seed\u00a042)"
    assert ui.text.glued("an even split, 19 tokens") == "an even split, 19\u00a0tokens"  # a count and its unit
    assert "<span>−0.065</span>" in ui.pictures.bar_labels((-0.065, 0.065), "value")  # a minus, as Vega's axes
    assert ui.text.glued("RoPE off: 1 − cosine") == "RoPE off: 1\u00a0−\u00a0cosine"  # a short difference
    assert ui.text.glued("wavelength, pair 3") == "wavelength, pair\u00a03"  # a phone's column: never "pair / 3"
    assert ui.text.glued("differ: family 1.") == "differ: family\u00a01."
    assert ui.text.glued("pairs 3") == "pairs 3"  # a word that only ends like one is left alone
    # a claim's sentence may break before a parenthesis (it broke "its causal / mask (family 3)"), never inside
    said = "its causal mask (family 3) alone"
    assert ui.text.glued(said, before=False) == "its causal mask (family\u00a03) alone"


@pytest.mark.browser
def test_the_toggle_flips_the_compared_panels_by_keyboard_without_a_rerun(app):
    if MISSING:
        pytest.skip("; ".join(MISSING))
    base, b = app
    context, page = opened(b, base, f"/lecture?step={COMPARED[0]}", (390, 844))
    try:
        visible = "() => ['.st-key-compared-1', '.st-key-compared-2'].map(s => document.querySelector(s)"
        visible += ".getClientRects().length > 0)"
        assert page.evaluate(visible) == [True, False]
        page.locator(".posviz-flip input").first.focus()
        page.keyboard.press("ArrowRight")
        assert page.evaluate(visible) == [False, True]
        assert page.locator("[data-testid='stApp'][data-test-script-state='notRunning']").count() == 1
        assert page.locator(".posviz-flip label").all_inner_texts() == [
            f.title for f in posviz.lecture.slide(COMPARED[0] - 1).figures
        ]
    finally:
        context.close()


@pytest.mark.browser
def test_compared_steps_show_both_panels_side_by_side_on_a_wide_screen(app):
    if MISSING:
        pytest.skip("; ".join(MISSING))
    base, b = app
    context, page = opened(b, base, "/overview")
    try:
        found = {}
        for step in COMPARED:
            visit(page, f"{base}/lecture?step={step}")
            boxes = page.evaluate(
                "() => ['.st-key-compared-1', '.st-key-compared-2'].map(s => {"
                " const r = document.querySelector(s).getBoundingClientRect(); return [r.left, r.top, r.width]; })"
            )
            (left1, top1, width1), (left2, top2, width2) = boxes
            found[step] = (page.evaluate(SHOWN, ".posviz-flip"), left1 + width1 <= left2, abs(top1 - top2) < 2)
        assert found == {step: (0, True, True) for step in COMPARED}, found
    finally:
        context.close()


@pytest.mark.browser
def test_no_lecture_charts_text_is_drawn_under_12_px_on_a_phone(phone_lecture):
    """At 390 px a square chart sized for a laptop was scaled down to the column, its 12 px ticks to 9 px (step 20's
    map; steps 8 and 15 to 11 px): off the projector a square is at most ui.figures.DESK_SQUARE px, its legend under
    it, and every chart text of every step is drawn at 12 px or more."""
    small = {
        step: sorted({(round(px, 1), text) for text, px in seen["text px"] if px < 11.95})[:5]
        for step, seen in phone_lecture.items()
    }
    assert {step: texts for step, texts in small.items() if texts} == {}
    assert all(seen["text px"] for step, seen in phone_lecture.items() if step != LECTURE_STEPS)  # the recap: a table
