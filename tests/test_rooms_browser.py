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
        arg=[f"step {step} / {N} ·", f"Step {step} of {N} ·"],
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
    lecturer.locator(".st-key-room-code").wait_for()  # the room card
    code = lecturer.url.split("room=")[1].split("&")[0]
    lecturer.keyboard.press("Escape")
    lecturer.locator(".st-key-room-code").wait_for(state="detached")
    settle(lecturer)

    phone = window(app, f"/lecture?room={code}", size=(390, 844))
    on_step(phone, 1)
    menu = phone.locator("[data-testid='stExpandSidebarButton']").bounding_box()  # beside the room's line, clickable
    at = [menu["x"] + menu["width"] / 2, menu["y"] + menu["height"] / 2]
    assert phone.evaluate(
        "([x, y]) => !!document.elementFromPoint(x, y).closest(\"[data-testid='stExpandSidebarButton']\")", at
    )
    lecturer.keyboard.press("PageDown")
    on_step(phone, 2)
    settle(phone)
    scroll, client = phone.evaluate(MAIN_WIDTH)
    assert scroll <= client, f"the follower's page is {scroll} px wide in a {client} px screen"
    # the first figure shown: a compared step's toggle hides one panel on a phone (step 2 opens on its first)
    figure = phone.locator(f"{CHART}, [data-testid='stImage']").filter(visible=True).first.bounding_box()
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


def test_the_room_card_shows_the_code_for_the_back_row_and_the_qr_code_for_the_hall_then_dismisses(app):
    from tests.harness import settle

    lecturer = window(app, "/lecture?presenter=true&step=7")
    lecturer.locator("[data-testid='stExpandSidebarButton']").click()
    lecturer.get_by_role("button", name="Share with the room").click()
    card = lecturer.locator(".st-key-room-code p")
    card.wait_for()
    settle(lecturer)
    code = lecturer.url.split("room=")[1].split("&")[0]
    secret = lecturer.evaluate("k => sessionStorage.getItem(k)", f"posviz-room-{code.replace('-', '')}")
    assert secret and "secret=" not in lecturer.url  # the tab keeps it; the address bar does not show it
    assert card.inner_text() == code
    assert float(card.evaluate("e => getComputedStyle(e).fontSize").removesuffix("px")) >= 48
    left, right = card.evaluate("e => [e.getBoundingClientRect().right, e.parentElement.getBoundingClientRect().right]")
    assert left <= min(right, 1280), "the code fits its column"
    qr = lecturer.locator(".st-key-room-qr img").bounding_box()
    assert qr["height"] >= 0.75 * 720 and qr["y"] >= 0 and qr["y"] + qr["height"] <= 720, qr
    sidebar = lecturer.locator("[data-testid='stSidebar']")
    lecturer.wait_for_function(
        "s => document.querySelector(s).dataset.collapsed === 'true'", arg="[data-testid='stSidebar']"
    )
    assert sidebar.get_attribute("data-collapsed") == "true"  # closed again after sharing
    text = lecturer.locator("[data-testid='stMain']").inner_text()
    assert f"/lecture?room={code}" in text and secret not in text and "works on this machine only" in text
    assert f"/follow/{code}" in text  # the light follow page first
    lecturer.get_by_role("button", name="Back to the slide").click()
    on_step(lecturer, 7)
    settle(lecturer)
    assert lecturer.locator(".st-key-room-code").count() == 0
    height = lecturer.evaluate("document.querySelector(\"[data-testid='stMain']\").scrollHeight")
    assert height <= 720, f"the slide is {height} px tall after sharing"
    clean(lecturer)
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


def test_rejoin_is_clicked_with_a_mouse_on_a_laptop_screen(app):
    """At 1280 px the room's line lies under Streamlit's header band, whose toolbar took the click until the line was
    put above it: the test clicks the button's centre with the mouse, as a student would."""
    room, secret = app[2].open(1, {})
    laptop = window(app, f"/lecture?room={show_code(room.code)}")
    on_step(laptop, 1)
    laptop.keyboard.press("ArrowRight")  # the follower's own move: exploring
    on_step(laptop, 2)
    app[2].move(room.code, secret, 3, {})
    laptop.get_by_text("the lecturer is on step 3").wait_for(timeout=8_000)
    box = laptop.get_by_role("button", name="Rejoin the lecturer").bounding_box()
    x, y = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
    hit = laptop.evaluate("([x, y]) => document.elementFromPoint(x, y).closest('button')?.innerText ?? ''", [x, y])
    assert "Rejoin the lecturer" in hit, f"the mouse at ({x:.0f}, {y:.0f}) meets {hit!r}, not the button"
    menu = laptop.locator("[data-testid='stMainMenu'] button").bounding_box()  # the header band's menu: still clickable
    at = [menu["x"] + menu["width"] / 2, menu["y"] + menu["height"] / 2]
    assert laptop.evaluate("([x, y]) => !!document.elementFromPoint(x, y).closest(\"[data-testid='stMainMenu']\")", at)
    laptop.mouse.click(x, y)
    on_step(laptop, 3)
    laptop.get_by_text("Following the lecturer").wait_for(timeout=8_000)
    clean(laptop)
    laptop.context.close()


def test_the_lecturers_window_sends_no_referrer_that_would_carry_its_secret(app):
    room, secret = app[2].open(1, {})
    lecturer = window(app, f"/lecture?room={show_code(room.code)}&secret={secret}&presenter=true")
    sent = []

    def probe(route, request):
        sent.append(request.all_headers().get("referer"))
        route.fulfill(body="ok")

    lecturer.route("**/referrer-probe", probe)
    lecturer.evaluate("fetch('/referrer-probe').then(r => r.text())")  # a same-origin request, as a page script makes
    assert sent == [None], f"the request carried Referer {sent}"
    assert lecturer.evaluate("document.referrer") == ""
    clean(lecturer)
    lecturer.context.close()


def test_the_secret_leaves_the_address_bar_and_a_reload_keeps_the_lecturer_moving_the_room(app):
    from tests.harness import settle

    room, secret = app[2].open(1, {})
    lecturer = window(app, f"/lecture?room={show_code(room.code)}&secret={secret}&presenter=true")
    lecturer.wait_for_function("() => !location.search.includes('secret=')")
    lecturer.keyboard.press("PageDown")
    lecturer.wait_for_function("() => new URLSearchParams(location.search).get('step') === '2'")
    assert app[2].get(room.code).step == 2
    lecturer.reload()  # a new session: the tab's sessionStorage gives the secret back once
    settle(lecturer)
    lecturer.wait_for_function("() => !location.search.includes('secret=')")
    settle(lecturer)
    on_step(lecturer, 2)
    lecturer.keyboard.press("PageDown")
    on_step(lecturer, 3)
    lecturer.wait_for_function("() => new URLSearchParams(location.search).get('step') === '3'")
    assert app[2].get(room.code).step == 3 and secret not in lecturer.url
    follower = window(app, f"/lecture?room={show_code(room.code)}", context=None)  # another tab, another browser
    on_step(follower, 3)
    assert "secret=" not in follower.url
    clean(lecturer, follower)
    lecturer.context.close()
    follower.context.close()
