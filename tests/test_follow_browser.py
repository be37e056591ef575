"""The light follow page in real browsers: a lecturer moves, a laptop and a phone follow, explore and come back."""

from __future__ import annotations

from posviz.lecture import STEPS
from posviz.lecture.rooms import show_code
from tests import test_rooms_browser
from tests.test_browser import CHART, pytestmark  # noqa: F401  (the browser mark and its skip)
from tests.test_rooms_browser import clean, on_step, window

N = len(STEPS)
app = test_rooms_browser.app  # the rooms' server and browser, one per module
SIDEWAYS = "() => [document.documentElement.scrollWidth, document.documentElement.clientWidth]"


def light(app, code: str, size: tuple[int, int]):
    base, b, _ = app
    page = b.new_context(viewport={"width": size[0], "height": size[1]}).new_page()
    page.errors = []
    page.on("pageerror", lambda error: page.errors.append(str(error)))
    page.goto(f"{base}/follow/{code}")
    return page


def test_a_laptop_and_a_phone_on_the_light_page_follow_the_lecturer_explore_and_come_back(app):
    store = app[2]
    room, secret = store.open(1, {})
    code = show_code(room.code)
    lecturer = window(app, f"/lecture?room={code}&secret={secret}&speaker=1")  # the speaker view shows the count
    laptop, phone = light(app, code, (1280, 720)), light(app, code, (390, 844))
    for page in (laptop, phone):
        page.wait_for_function("t => document.body.innerText.includes(t)", arg=f"step 1 / {N}")
    lecturer.wait_for_function("() => document.body.innerText.includes('2 follow')", timeout=15_000)

    lecturer.keyboard.press("PageDown")
    on_step(lecturer, 2)
    for page in (laptop, phone):
        page.wait_for_function("t => document.body.innerText.includes(t)", arg=f"step 2 / {N}", timeout=10_000)

    wide, shown = phone.evaluate(SIDEWAYS)
    assert wide <= shown, "the phone's page scrolls sideways"
    number = phone.locator(".number").first.bounding_box()
    figure = phone.locator(".figure").first.bounding_box()
    assert number["y"] + number["height"] <= 844 and figure["y"] < 844, (number, figure)  # both on the first screen
    assert phone.locator(".figure svg, .figure img").count() >= 1

    laptop.get_by_role("link", name="Explore this step").click()
    laptop.wait_for_url("**/lecture?step=2**follow=*")
    on_step(laptop, 2, timeout=30_000)
    laptop.locator("#posviz-back").wait_for()
    lecturer.wait_for_function("() => document.body.innerText.includes('1 explore')", timeout=20_000)
    lecturer.keyboard.press("PageDown")
    on_step(lecturer, 3)
    laptop.wait_for_function("() => document.getElementById('posviz-lecturer').textContent === 'step 3'")
    assert "step 2 / " in laptop.locator("[data-testid='stMain']").inner_text()  # exploring: the page stays
    laptop.locator("#posviz-back").click()
    laptop.wait_for_url(f"**/follow/{code}")
    laptop.wait_for_function("t => document.body.innerText.includes(t)", arg=f"step 3 / {N}")
    phone.wait_for_function("t => document.body.innerText.includes(t)", arg=f"step 3 / {N}")
    clean(lecturer)
    assert laptop.errors == [] and phone.errors == []
