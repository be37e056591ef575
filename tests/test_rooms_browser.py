"""A room in real browsers: a lecturer and followers (Chromium contexts) against one server."""

from __future__ import annotations

import os

import pytest

from posviz.lecture import STEPS
from posviz.lecture.rooms import Rooms, show_code
from tests.test_browser import CHART, pytestmark  # noqa: F401  (the browser mark and its skip)

N = len(STEPS)
MAIN_WIDTH = (
    "() => { const m = document.querySelector(\"[data-testid='stMain']\"); return [m.scrollWidth, m.clientWidth]; }"
)


@pytest.fixture(scope="module")
def app(tmp_path_factory):
    from tests.harness import browser, serve

    path = str(tmp_path_factory.mktemp("rooms") / "rooms.sqlite3")
    before = os.environ.get("POSVIZ_ROOMS_DB")
    os.environ["POSVIZ_ROOMS_DB"] = path
    try:
        with serve() as (base, _), browser() as b:
            yield base, b, Rooms(path)
    finally:
        if before is None:
            del os.environ["POSVIZ_ROOMS_DB"]
        else:
            os.environ["POSVIZ_ROOMS_DB"] = before


def window(app, path: str, size=(1280, 720), context=None):
    from tests.harness import settle

    base, b, _ = app
    context = context or b.new_context(viewport={"width": size[0], "height": size[1]})
    page = context.new_page()
    page.errors = []
    page.on("pageerror", lambda error: page.errors.append(str(error)))
    page.goto(base + path)
    settle(page)
    return page


def on_step(page, step: int, timeout: float = 8_000) -> None:
    """Wait until the page shows `step` (its caption, or the speaker view's heading)."""
    page.wait_for_function(
        "t => document.body.innerText.includes(t[0]) || document.body.innerText.includes(t[1])",
        arg=[f"step {step} / {N} ·", f"Step {step} / {N} ·"],
        timeout=timeout,
    )


def clean(*pages) -> None:
    for page in pages:
        assert page.locator("[data-testid='stException']").count() == 0
        assert page.errors == []


def test_a_phone_follower_moves_with_the_lecturer_explores_and_rejoins_without_scrolling_sideways(app):
    from tests.harness import settle

    lecturer = window(app, "/lecture?presenter=true")
    lecturer.locator("[data-testid='stExpandSidebarButton']").click()
    lecturer.get_by_role("button", name="Share with the room").click()
    dialog = lecturer.get_by_role("dialog")
    dialog.get_by_text("Scan to follow").wait_for()
    assert dialog.locator("img").count() == 1  # the QR code
    dialog.get_by_text("Phones need the machine's network address", exact=False).wait_for()
    code = lecturer.url.split("room=")[1].split("&")[0]
    assert "secret=" in lecturer.url and f"?room={code}" in dialog.inner_text()
    lecturer.keyboard.press("Escape")
    settle(lecturer)

    phone = window(app, f"/lecture?room={code}", size=(390, 844))
    on_step(phone, 1)
    lecturer.keyboard.press("PageDown")
    on_step(phone, 2)
    settle(phone)
    scroll, client = phone.evaluate(MAIN_WIDTH)
    assert scroll <= client, f"the follower's page is {scroll} px wide in a {client} px screen"
    figure = phone.locator(f"{CHART}, [data-testid='stImage']").first.bounding_box()
    assert figure["y"] + figure["height"] <= 844, figure
    claim = phone.locator(".st-key-claim [data-testid='stMarkdownContainer'] div").first  # ui.claim's sentence
    assert claim.evaluate("e => getComputedStyle(e).fontSize") == "18.4px"  # 1.15rem on a phone, 1.5rem elsewhere
    phone.keyboard.press("ArrowRight")  # the follower's own move: exploring, the room stays
    on_step(phone, 3)
    phone.get_by_text("the lecturer is on step 2").wait_for(timeout=8_000)
    assert app[2].get(code.replace("-", "")).step == 2
    assert lecturer.get_by_text(f"step 2 / {N} ·").count() == 1
    lecturer.keyboard.press("PageUp")
    phone.get_by_text("the lecturer is on step 1").wait_for(timeout=8_000)
    phone.get_by_role("button", name="Rejoin the lecturer").click()
    on_step(phone, 1)
    phone.get_by_text("Following the lecturer").wait_for(timeout=8_000)
    clean(lecturer, phone)
    phone.context.close()
    lecturer.context.close()


def test_the_speaker_view_follows_the_projected_window_and_drives_it(app):
    room, secret = app[2].open(1, {})
    lecturer = f"/lecture?room={show_code(room.code)}&secret={secret}"
    projected = window(app, lecturer + "&presenter=true")
    speaker = window(app, lecturer + "&speaker=1", context=projected.context)
    speaker.get_by_text("since the lecture started").wait_for()
    projected.keyboard.press("PageDown")
    on_step(speaker, 2)
    following = speaker.get_by_text(f"Next: step 3 · {STEPS[2].title}")
    following.wait_for(timeout=8_000)  # the heading comes first in the speaker view's run, this line later
    assert following.count() == 1
    speaker.keyboard.press("PageDown")
    on_step(projected, 3)
    for words in ("No notes for this step", "Ask the room", "since the lecture started", "Next:"):
        assert projected.get_by_text(words).count() == 0, words
    clean(projected, speaker)
    projected.context.close()
