"""Decks and the offline copy: a deck's link round-trips, bad `steps=` values are dropped with a note, and the
exported file holds every step of its deck with nothing loaded from the network."""

from __future__ import annotations

import importlib.util
import re
import subprocess
import sys
from html import escape
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from streamlit.testing.v1 import AppTest

from posviz import lecture
from posviz.lecture import decks, export
from tests.harness import chromium_path
from tests.test_app import headline_values
from tests.test_hostile import assert_safe

ROOT = Path(__file__).resolve().parents[1]
STEPS = lecture.STEPS
needs_svg = pytest.mark.skipif(not export.available(), reason=f"vl-convert is not installed: {export.INSTALL}")


@st.composite
def any_deck(draw) -> decks.Deck:
    """A deck of distinct steps in any order, each control preset to any of its options."""
    order = draw(st.permutations(range(len(STEPS))))
    picked = order[: draw(st.integers(1, len(STEPS)))]
    entries = []
    for i in picked:
        step = STEPS[i]
        values = ((c.name, draw(st.sampled_from(c.options)), c.default) for c in step.controls)
        entries.append(decks.Entry(step.key, tuple((name, v) for name, v, default in values if v != default)))
    return decks.Deck(tuple(entries))


@settings(max_examples=200, deadline=None)
@given(any_deck())
def test_a_deck_parses_back_from_its_encoding(deck):
    parsed = decks.parse(decks.encode(deck))
    assert parsed.deck == deck and parsed.problems == () and not parsed.whole


def test_a_deck_counts_its_own_steps_and_keeps_their_presets():
    deck = decks.read("norms:d=16,shuffle,ramp:scale=0.3")
    assert len(deck) == 3 and deck.indices == tuple(decks.BY_KEY[k] for k in ("norms", "shuffle", "ramp"))
    assert deck.values("norms") == {"d": 16} and deck.values("ramp") == {"scale": 0.3}
    table = next(s for s in lecture.STEPS if s.key == "table")
    assert deck.values("table") == table.defaults()  # a step outside the deck: its defaults


def test_a_preset_at_its_default_and_an_old_control_name_have_one_spelling():
    spelled = decks.encode(decks.read("ramp:scale=0.6,table:width=32,offset:scale=-1"))
    assert spelled == "ramp,table:d=32,offset:scale=-1.0"


@pytest.mark.parametrize(
    ("text", "kept", "problem"),
    [
        ("", None, "empty item"),
        ("nope", None, "got 'nope'"),
        ("ramp,nope,ramp", "ramp", "already in the deck"),
        ("ramp:scale=0.5,norms", "norms", "must be one of 0.0, 0.1, 0.3, 0.6, 1.2, got '0.5'"),
        ("ramp:scale=nan", None, "got 'nan'"),
        ("forgot:seed=1", None, "has no controls"),
        ("norms:d=16:d=8", None, "set twice"),
        ("," * 10_000, None, "at most 2000 characters"),
        ("," * 1_000 + "norms", "norms", "more items not understood"),
    ],
)
def test_a_bad_steps_value_names_its_problem_and_keeps_what_is_valid(text, kept, problem):
    parsed = decks.parse(text)
    assert any(problem in p for p in parsed.problems), parsed.problems
    assert len(parsed.problems) <= 4  # a short note, however many items were bad
    assert parsed.whole == (kept is None)
    assert decks.encode(parsed.deck) == (kept or decks.encode(decks.WHOLE))
    with pytest.raises(ValueError, match="step keys: shuffle, twins"):
        decks.read(text)


def test_an_entry_checks_its_step_control_and_value():
    with pytest.raises(ValueError, match="expected a step key"):
        decks.Entry("nope")
    with pytest.raises(ValueError, match="must be one of"):
        decks.Entry("ramp", (("scale", 0.5),))
    with pytest.raises(ValueError, match="has controls scale"):
        decks.Entry("ramp", (("d", 8),))


# ----- the lecture page follows the deck ----------------------------------------------------------------------------


def lecture_page(**query: str) -> AppTest:
    at = AppTest.from_file(str(ROOT / "app_pages" / "lecture.py"), default_timeout=60)
    for key, value in query.items():
        at.query_params[key] = value
    return at.run()


def test_a_composed_decks_link_opens_its_first_step_counting_one_of_n():
    presets = {"norms": (("d", 4),), "shuffle": (), "ramp": (("scale", 0.3),)}
    deck = decks.Deck(tuple(decks.Entry(key, values) for key, values in presets.items()))
    at = lecture_page(steps=decks.encode(deck))
    assert not at.exception and not at.warning
    assert any(c.value.startswith("step 1 / 3 ·") for c in at.caption)
    assert at.selectbox(key="step").options[0] == "1 / 3 · Every row the same length"
    assert at.segmented_control(key="norms_d").value == 4 and "norms_d" not in at.query_params  # a preset, no key
    shown = [text for _, text in lecture.slide(10, d=4).numbers]  # the deviation, then d/2
    assert headline_values(at) == shown != [text for _, text in lecture.slide(10).numbers]  # d = 4, not 8
    at.selectbox(key="step").set_value(3).run()  # the deck's third step: ramp at its preset scale 0.3
    assert any(c.value.startswith("step 3 / 3 ·") for c in at.caption)
    assert headline_values(at) == [lecture.slide(2, scale=0.3).shown]


def test_the_composer_makes_the_link_of_the_steps_picked():
    at = lecture_page()
    at.multiselect(key="deck-steps").select("ramp").select("shuffle").run()
    at.segmented_control(key="deck-ramp-scale").set_value(1.2).run()
    links = [c.value for c in at.code]
    assert links == ["/lecture?steps=ramp:scale=1.2,shuffle"]


@pytest.mark.parametrize(
    ("value", "count"),
    [
        ("", None),
        ("nope", None),
        ("ramp,ramp,norms", 2),
        ("," * 10_000, None),
        ("ramp:scale=9", None),
        ("<b>x</b>", None),
    ],  # None: the whole lecture
)
def test_a_hostile_deck_link_gets_a_note_and_a_fallback(value, count):
    count = count or len(lecture.STEPS)
    at = lecture_page(steps=value)
    assert_safe(at)
    assert any("steps=" in w.value for w in at.warning)
    assert any(c.value.startswith(f"step 1 / {count} ·") for c in at.caption)
    assert len(at.warning) == 1 and len(at.warning[0].value) < 600  # one short note


# ----- the offline copy ---------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def small_deck() -> tuple[decks.Deck, str]:
    deck = decks.read("shuffle,table:d=32,real")  # charts, a heatmap drawn as one picture, PNG pictures
    return deck, export.page(deck, with_notes=True)


@needs_svg
def test_the_offline_copy_holds_every_steps_claim_number_and_figures(small_deck):
    deck, html = small_deck
    for place, e in enumerate(deck.entries, start=1):
        slide = lecture.slide(e.index, **e.values())
        assert escape(slide.claim) in html and f">{escape(slide.shown)}<" in html
        assert f"step {place} / {len(deck)}" in html
    charts = sum(f.image is None for e in deck.entries for f in lecture.slide(e.index, **e.values()).figures)
    assert html.count("<svg") == charts == 5  # shuffle's 2, table's 2, real's cosine map
    assert html.count("class='picture'") == 1 and "data:image/png;base64," in html  # real's table
    assert html.count("<aside class='notes' hidden>") == 3


@needs_svg
def test_the_offline_copy_projects_each_sources_hall_words_and_keeps_the_full_one_in_the_notes(small_deck):
    deck, html = small_deck
    footers, asides = re.findall(r"<footer>(.*?)</footer>", html), re.findall(r"<aside.*?</aside>", html)
    for e, footer, aside in zip(deck.entries, footers, asides, strict=True):
        slide = lecture.slide(e.index, **e.values())
        assert escape(slide.hall) in footer and escape(slide.source) not in footer, footer
        assert f"<b>Source:</b> {escape(slide.source)}" in aside


@needs_svg
def test_the_offline_copy_loads_nothing_from_elsewhere(small_deck):
    _, html = small_deck
    assert "<script src" not in html and "<link" not in html and "@import" not in html
    assert not re.search(r"""(src|href)\s*=\s*["']?(https?:)?//""", html)
    assert not re.search(r"url\(\s*['\"]?(https?:)?//", html)
    ids = re.findall(r'id="([^"]+)"', html)
    assert len(ids) == len(set(ids))  # two charts' gradients and clips do not share an id


def run_export(steps: str, out: Path) -> subprocess.CompletedProcess:
    """`python -m posviz lecture export --steps <steps> -o <out>`, run from the repository."""
    command = [sys.executable, "-m", "posviz", "lecture", "export", "--steps", steps, "-o", str(out)]
    return subprocess.run(command, capture_output=True, text=True, check=False, cwd=ROOT)


@needs_svg
def test_the_export_command_writes_the_deck_and_says_its_size_and_time(tmp_path):
    out = tmp_path / "deck.html"
    run = run_export("norms:d=16,shuffle", out)
    assert run.returncode == 0, run.stderr
    assert re.search(r"2 steps, [\d.]+ MB \([\d,]+ bytes\) in [\d.]+ s", run.stdout), run.stdout
    html = out.read_text()
    assert escape(lecture.slide(10, d=16).claim) in html and "step 2 / 2" in html
    bad = run_export("nope", out)
    assert bad.returncode == 2 and "got 'nope'" in bad.stderr


BROWSER_MISSING = chromium_path() is None or importlib.util.find_spec("playwright") is None


@pytest.mark.browser
@needs_svg
@pytest.mark.skipif(BROWSER_MISSING, reason="needs Debian's chromium and playwright")
def test_the_offline_file_shows_every_step_and_its_keys_work_with_the_network_blocked(small_deck, tmp_path):
    from tests.harness import browser

    deck, html = small_deck
    path = tmp_path / "deck.html"
    path.write_text(html, encoding="utf-8")
    asked = []

    def only_files(route):
        asked.append(route.request.url)
        route.continue_() if route.request.url.startswith(("file:", "data:")) else route.abort()

    with browser() as b:
        page = b.new_page(viewport={"width": 1280, "height": 720})
        page.route("**/*", only_files)
        page.goto(path.as_uri())
        shown = lambda: page.locator("section.step:not([hidden])")  # noqa: E731
        for place in range(1, len(deck) + 1):
            assert shown().count() == 1 and shown().get_attribute("id") == f"step-{place}"
            bottom = page.evaluate(
                "() => document.querySelector('section.step:not([hidden]) footer').getBoundingClientRect().bottom"
            )
            assert bottom <= 720 - 40, (place, bottom)  # above the nav bar, on a 1280 x 720 screen
            page.keyboard.press("PageDown")
        assert shown().get_attribute("id") == f"step-{len(deck)}"  # PageDown at the end stays
        page.keyboard.press("Home")
        assert shown().get_attribute("id") == "step-1"
        page.keyboard.press("End")
        assert shown().get_attribute("id") == f"step-{len(deck)}"
        page.keyboard.press("PageUp")
        assert shown().get_attribute("id") == f"step-{len(deck) - 1}"
        assert page.locator("#count").text_content() == f"{len(deck) - 1} / {len(deck)}"
    assert [u for u in asked if not u.startswith(("file:", "data:"))] == []


@pytest.mark.browser
@pytest.mark.skipif(BROWSER_MISSING, reason="needs Debian's chromium and playwright")
def test_a_deck_link_in_the_browser_counts_within_the_deck_and_its_keys_follow_it():
    from tests.harness import browser, serve, settle

    with serve() as (base, _), browser() as b:
        page = b.new_page(viewport={"width": 1280, "height": 720})
        page.goto(f"{base}/lecture?presenter=true&steps=norms,ramp:scale=0.3,shuffle")
        settle(page)
        assert page.get_by_text("step 1 / 3 ·").count() == 1
        page.keyboard.press("End")
        settle(page)
        assert "step=3" in page.url and page.get_by_text("step 3 / 3 ·").count() == 1
        page.keyboard.press("PageUp")
        settle(page)
        assert page.get_by_text(lecture.slide(2, scale=0.3).shown, exact=True).count() == 1  # ramp at its preset
        assert page.locator("[data-testid='stException']").count() == 0
