"""Real-browser tests: `streamlit run` headless, driven by Playwright through Debian's Chromium."""

from __future__ import annotations

import importlib.util
import os

import pytest

import posviz
import posviz.lecture
from tests.harness import PAGES, chromium_path

MISSING = [
    why
    for why, missing in (
        ("Debian's chromium is not installed (apt-get install chromium)", chromium_path() is None),
        (
            "playwright is not installed (pip install -r requirements-dev.txt)",
            importlib.util.find_spec("playwright") is None,
        ),
    )
    if missing
]
if MISSING and os.environ.get("POSVIZ_REQUIRE_BROWSER"):
    raise RuntimeError("browser tests are required here (POSVIZ_REQUIRE_BROWSER is set): " + "; ".join(MISSING))
pytestmark = [pytest.mark.browser, pytest.mark.skipif(bool(MISSING), reason="; ".join(MISSING))]

CHART = "[data-testid='stVegaLiteChart']"


@pytest.fixture(scope="module")
def app():
    from tests.harness import browser, serve

    with serve() as (base, _), browser() as b:
        yield base, b


@pytest.fixture
def page(app):
    base, b = app
    context = b.new_context(viewport={"width": 1280, "height": 720})
    p = context.new_page()
    p.base = base
    p.errors = []
    p.on("pageerror", lambda error: p.errors.append(str(error)))
    yield p
    context.close()


def visit(page, path: str) -> None:
    from tests.harness import settle

    page.goto(page.base + path)
    settle(page)


def no_exception(page) -> None:
    """No Streamlit exception box and no JavaScript error (a chart Vega refuses fails only in the console)."""
    assert page.locator("[data-testid='stException']").count() == 0
    assert page.errors == []


def charts_drawn(page) -> None:
    """Every chart element holds a drawn Vega view, not just an empty frame."""
    charts = page.locator(CHART)
    for i in range(charts.count()):
        charts.nth(i).locator("canvas, svg").first.wait_for(timeout=30_000)


def test_a_deep_link_on_a_fresh_server_gets_the_router(page):
    visit(page, "/order?T=7&perm_mode=shuffle")  # the first visit this server sees
    no_exception(page)
    assert page.get_by_text("Presenter mode").count() == 1
    assert page.locator("input[type='range'][aria-label='tokens T']").input_value() == "7"


@pytest.mark.parametrize("name", PAGES)
def test_every_page_renders_charts_without_exceptions(page, name):
    visit(page, f"/{name}")
    no_exception(page)
    if name == "overview":
        total = len(posviz.claims())
        assert page.get_by_text(f"{total} of {total}").count() == 1
    else:
        page.wait_for_selector(f"{CHART}, [data-testid='stImage']", timeout=30_000)
        assert page.locator(f"{CHART}, [data-testid='stImage']").count() >= 1
        charts_drawn(page)
        no_exception(page)


def test_moving_a_slider_changes_the_number_and_the_chart(page):
    from tests.harness import settle

    visit(page, "/magnitude")
    chart = page.locator(CHART).nth(1)
    before_png = chart.screenshot()
    assert page.get_by_text("12.53666").count() == 1
    thumb = page.locator("input[type='range']").first
    thumb.focus()
    thumb.press("ArrowLeft")  # 0.5 -> 0.45
    settle(page)
    page.wait_for_timeout(500)
    no_exception(page)
    assert page.get_by_text("12.53666").count() == 0
    assert "scale=0.45" in page.url
    assert chart.screenshot() != before_png


def test_a_sidebar_move_to_a_page_sharing_controls_starts_at_its_defaults(page):
    from tests.harness import settle

    visit(page, "/order?T=9&seed=7")
    page.locator("[data-testid='stSidebarNav'] a[href$='/causal']").click()
    page.wait_for_url("**/causal*")
    settle(page)
    no_exception(page)
    assert page.locator("input[type='range'][aria-label='tokens T']").input_value() == "6"
    assert "T=" not in page.url and "seed=" not in page.url
    assert page.get_by_text("1.6508").count() == 1  # lesson 000's masked number at its defaults
    charts_drawn(page)


def test_a_large_table_draws_its_checks_on_request(page):
    from tests.harness import settle

    visit(page, "/sinusoids?length=4096&width=1024")
    assert page.locator(CHART).count() == 0 and page.locator("[data-testid='stImage']").count() == 2
    page.get_by_role("button", name="Draw the check charts").click()
    page.wait_for_selector(CHART, timeout=30_000)
    settle(page)
    charts_drawn(page)
    no_exception(page)


def test_downloads_are_written_when_clicked(page):
    from pathlib import Path

    visit(page, "/magnitude")
    page.locator("[data-testid='stPopover'] button").first.click()  # not the charts' "Download as PNG"
    with page.expect_download(timeout=30_000) as csv:
        page.get_by_role("button", name="data (CSV)").click()
    text = Path(csv.value.path()).read_text()
    assert text.splitlines()[0] == "component,vector,value" and len(text.splitlines()) == 13
    with page.expect_download(timeout=30_000) as svg:
        page.get_by_role("button", name="chart (SVG)").click()
    assert "<svg" in Path(svg.value.path()).read_text()[:500]
    no_exception(page)


def test_a_shared_link_restores_the_view(page):
    visit(page, "/sinusoids?length=300&width=32&base=500&check=dimensions+over+position&dims=2%205")
    no_exception(page)
    assert page.get_by_label("length T (1 to 8192)").input_value() == "300"
    assert page.get_by_label("width d (even, 2 to 2048)").input_value() == "32"
    assert page.get_by_label("dimensions to draw (up to 6)").input_value() == "2 5"


def test_a_hostile_link_shows_a_note_not_a_traceback(page):
    image = "%21%5Bx%5D%28http%3A%2F%2F127.0.0.1%3A9%2Fx.png%29"  # ![x](http://127.0.0.1:9/x.png)
    visit(page, f"/attention?s1={image}%20bites%20man&s2=man%20bites%20{image}&word={image}&pscale=nan&d=7")
    no_exception(page)
    assert page.locator("[data-testid='stAlert']").count() >= 1
    assert page.locator("img[src*='127.0.0.1:9']").count() == 0
    visit(page, f"/magnitude?s1={image}%20bites%20man&s2=man%20bites%20{image}&word={image}")
    no_exception(page)
    assert page.get_by_text("![x](http://127.0.0.1:9/x.png)").count() >= 1
    assert page.locator("img[src*='127.0.0.1:9']").count() == 0


def test_presenter_mode_holds_across_pages(page):
    visit(page, "/order?presenter=true")
    assert page.locator("[data-testid='stSidebar']").get_attribute("data-collapsed") == "true"
    page.locator("[data-testid='stExpandSidebarButton']").click()  # presenter mode starts with it collapsed
    page.get_by_role("link", name="Sinusoids").click()
    page.wait_for_url("**/sinusoids**")
    from tests.harness import settle

    settle(page)
    assert "presenter=true" in page.url
    assert page.get_by_role("switch", name="Presenter mode").is_checked()


def test_the_real_model_page_moves_its_scale_and_keeps_it_in_the_url(page):
    from posviz import encoder
    from tests.harness import settle

    visit(page, "/sentences")
    charts_drawn(page)
    model = encoder.compare_texts("dog bites man", "man bites dog")
    assert page.get_by_text(f"{model.cosine:.4f}", exact=True).count() == 1
    thumb = page.locator("input[type='range'], [role='slider']").first
    thumb.focus()
    thumb.press("ArrowLeft")  # 1 -> 0.95
    settle(page)
    page.wait_for_timeout(500)
    no_exception(page)
    assert "scale=0.95" in page.url
    lower = encoder.compare_texts("dog bites man", "man bites dog", 0.95)
    assert page.get_by_text(f"{lower.cosine:.4f}", exact=True).count() == 1


LECTURE_STEPS = len(posviz.lecture.STEPS)


@pytest.mark.parametrize("size", [(1280, 720), (1920, 1080)])
def test_every_lecture_step_fits_the_screen_in_presenter_mode(app, size):
    """No scrolling at a projector's size, sidebar collapsed, every chart drawn, no error."""
    from tests.harness import settle

    base, b = app
    context = b.new_context(viewport={"width": size[0], "height": size[1]})
    p = context.new_page()
    errors = []
    p.on("pageerror", lambda error: errors.append(str(error)))
    try:
        for step in range(1, LECTURE_STEPS + 1):
            p.goto(f"{base}/lecture?presenter=true&step={step}")
            settle(p)
            charts = p.locator(CHART)
            for i in range(charts.count()):
                charts.nth(i).locator("canvas, svg").first.wait_for(timeout=30_000)
            scroll, client = p.evaluate(
                "() => { const m = document.querySelector(\"[data-testid='stMain']\");"
                " return [m.scrollHeight, m.clientHeight]; }"
            )
            assert scroll <= client, f"step {step} at {size}: content {scroll} px in a {client} px screen"
            assert p.locator("[data-testid='stSidebar']").get_attribute("data-collapsed") == "true"
            assert p.locator("[data-testid='stException']").count() == 0, step
        assert errors == []
    finally:
        context.close()


def test_clicker_and_arrow_keys_move_the_lecture_and_its_url(page):
    from tests.harness import settle

    visit(page, "/lecture?presenter=true&step=3")
    for key, step in (("PageDown", 4), ("ArrowRight", 5), ("PageUp", 4), ("ArrowLeft", 3), ("End", LECTURE_STEPS)):
        page.keyboard.press(key)
        settle(page)
        assert f"step={step}" in page.url, (key, page.url)
        assert page.get_by_text(f"step {step} / {LECTURE_STEPS} ·").count() == 1
    page.keyboard.press("Home")
    settle(page)
    assert "step=" not in page.url and "presenter=true" in page.url
    no_exception(page)


def test_a_prepared_lecture_link_opens_its_step_with_its_settings(page):
    visit(page, "/lecture?presenter=true&step=3&ramp_scale=1.2")
    no_exception(page)
    value = posviz.lecture.slide(2, scale=1.2).shown
    assert page.get_by_text(value, exact=True).count() == 1
