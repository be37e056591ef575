"""Real-browser tests: `streamlit run` headless, driven by Playwright through Debian's Chromium."""

from __future__ import annotations

import importlib.util
import os

import pytest

import posviz
import posviz.lecture
from tests.harness import PAGES, chromium_path, settle

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


def slider_left(page, thumb) -> None:
    """Move a slider one step left with the keyboard, wait for the rerun, and check it raised nothing."""
    from tests.harness import settle

    thumb.focus()
    thumb.press("ArrowLeft")
    settle(page)
    page.wait_for_timeout(500)
    no_exception(page)


def whole_drawn(page) -> None:
    """A page drawing a slow part twice (ui.quick_then_whole) has drawn its whole version and rerun: the first screen
    is measured as a reader sees it once the page is done, not while the whole version's spinner sits above a chart."""
    if page.locator("[class*='st-key-quick-'], [class*='st-key-whole-']").count():
        page.locator(f"[class*='st-key-whole-'] {CHART}").first.wait_for(timeout=60_000)
        settle(page)


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


def opened_cleanly(page, name: str) -> None:
    """The page's own route ran: no "Page not found" dialog, the URL kept its path, a title and no exception."""
    assert page.get_by_text("Page not found").count() == 0, name
    assert page.url.split("?")[0].rstrip("/").endswith(f"/{name}"), page.url
    assert page.locator("h1").count() >= 1 or name == "lecture"
    assert page.get_by_role("switch", name="Presenter mode").count() == 1  # the router ran, with its shared widget
    no_exception(page)


@pytest.mark.parametrize("name", PAGES)
def test_every_page_opens_cleanly_from_its_own_link_twice(page, name):
    """Opening a page's link a second time once showed "Page not found" for the overview (the default page)."""
    for _ in range(2):
        visit(page, f"/{name}")
        opened_cleanly(page, name)


@pytest.mark.parametrize("path", ["/", "/attention?presenter=true"])
def test_a_page_opened_by_its_url_asks_the_server_root_for_health_first(page, path):
    """shell.py tells the frontend where the server is; without it, /attention first pinged
    /attention/_stcore/health, got a 404 and waited 100 ms before trying the root ("/" guards the root)."""
    asked = []
    page.on("request", lambda request: asked.append(request.url.removeprefix(page.base)))
    visit(page, path)
    no_exception(page)
    pings = [url for url in asked if url.endswith("_stcore/health")]
    assert pings and pings[0] == "/_stcore/health", pings
    assert any(url.startswith("/_stcore/host-config") for url in asked)


def test_the_root_shows_the_overview_and_the_sidebar_links_to_overview(page):
    visit(page, "/")
    no_exception(page)
    assert page.get_by_text("Page not found").count() == 0
    assert page.locator("h1").first.inner_text() == "Why attention needs position"
    links = page.locator("[data-testid='stSidebarNav'] a")
    hrefs = [links.nth(i).get_attribute("href").removeprefix(page.base) for i in range(links.count())]
    assert "/overview" in hrefs and "/home" not in hrefs


@pytest.mark.parametrize("start", ["/", "/overview"])
def test_the_claims_table_page_links_open_cleanly(page, start):
    """The table's links are relative ("./order"); from the root and from /overview each must reach its page."""
    from urllib.parse import urljoin

    targets = sorted({row["page"] for row in posviz.claim_rows(posviz.claims())})
    assert targets
    for target in targets:
        visit(page, start)
        visit(page, urljoin(page.url, f"./{target}").removeprefix(page.base))
        name, _, part = target.partition("?")
        opened_cleanly(page, name)
        assert part in page.url  # a claim shown in a page's second part opens that part


def test_moving_a_slider_changes_the_number_and_the_chart(page):
    visit(page, "/magnitude")
    chart = page.locator(CHART).nth(1)
    before_png = chart.screenshot()
    assert page.locator(".posviz-number").first.inner_text() == "12.537"
    slider_left(page, page.locator("input[type='range']").first)  # 0.5 -> 0.45
    assert page.locator(".posviz-number").first.inner_text() != "12.537"
    assert "scale=0.45" in page.url
    assert chart.screenshot() != before_png


def test_the_relative_bias_matrices_load_as_pictures_in_one_block(page):
    """ui.matrix_grid: five matrices and their colour bars as data-URI PNGs that the browser decodes."""
    visit(page, "/biases")
    pictures = page.locator("[data-testid='stMarkdown'] img[src^='data:image/png;base64,']")
    page.wait_for_function(
        "() => [...document.querySelectorAll(\"img[src^='data:image/png']\")].every(i => i.complete)", timeout=10_000
    )
    sizes = pictures.evaluate_all("imgs => imgs.map(i => [i.naturalWidth, i.getBoundingClientRect().width])")
    assert len(sizes) == 10  # a picture and a colour bar for each of the five biases
    assert all(natural > 0 and shown > 200 for natural, shown in sizes)  # decoded, and a third of the page wide


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

    visit(page, "/sinusoids?T=4096&d=1024")
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
    visit(page, "/sinusoids?T=300&d=32&base=500&check=dimensions+over+position&dims=2%205")
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


FIRST = f"{CHART}, [data-testid='stImage'], [data-testid='stDataFrame']"
# The comparison each page exists for: how many of its first charts must be on the first screen together (the four
# panels of attention and order are one faceted chart while small, a chart each when large: either way on screen).
TOGETHER = {"attention": 4, "order": 4, "causal": 2, "bugs": 3, "layouts": 2, "rotary": 2, "magnitude": 2}
TOGETHER.update({"matched?part=attention": 2, "matched?part=magnitude": 2})  # the two curves a part compares


# Each page at its first part, and every other part of the pages in parts.
PARTS = ["order?part=twins", "order?part=pairs", "offsets?part=sinks", "rotary?part=learned", "rotary?part=alibi",
         "longer?part=scores", "longer?part=decay", "minilm?part=sentences", "llm?part=distance", "llm?part=sink",
         "llm?part=pairs", "llm?part=ablations", "llm?part=longer", "matched?part=scaling", "matched?part=probe",
         "matched?part=attention", "matched?part=magnitude", "yourmodel?part=heads", "yourmodel?part=distance",
         "yourmodel?part=sink", "yourmodel?part=pairs", "yourmodel?part=ablations"]  # fmt: skip


@pytest.mark.parametrize("name", [p for p in PAGES if p != "lecture"] + PARTS)
def test_presenter_mode_fits_the_headline_and_first_chart_on_a_1280x720_screen(page, name):
    """Measured boxes, not screenshots: the headline (one line of number) and the first chart or image end above 720 px,
    and the with/without panels a page compares are all on that first screen. A part with no headline number (the
    learned table, ALiBi) is held to its first chart."""
    visit(page, f"/{name}{'&' if '?' in name else '?'}presenter=true")
    no_exception(page)
    page.wait_for_selector(FIRST, timeout=30_000)
    whole_drawn(page)  # CI once measured the sentences page while its curve was still computing (its chart at 771 px)
    charts_drawn(page)
    page.wait_for_timeout(500)
    if page.locator(".posviz-number").count():
        value = page.locator(".posviz-number").first
        number = value.bounding_box()
        assert 0 <= number["y"] and number["y"] + number["height"] <= 720, (name, number)
        for i in range(page.locator(".posviz-number").count()):
            box = page.locator(".posviz-number").nth(i).bounding_box()
            assert box["y"] > 720 or box["height"] < 90, (name, "a headline number on the first screen wraps", box)
        label = value.locator("xpath=preceding-sibling::div[1]").bounding_box()
        assert label["height"] < 2.5 * 28, (name, "the headline label runs past two lines", label)
    boxes = [b for b in (page.locator(FIRST).nth(i).bounding_box() for i in range(page.locator(FIRST).count())) if b]
    first = boxes[0]
    assert first["y"] < 720 and first["y"] + first["height"] <= 720, (name, first)
    for box in boxes[: TOGETHER.get(name, 1)]:
        assert box["y"] + box["height"] <= 720, (name, box)


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
    from posviz.drawing.display import number
    from posviz.models.minilm import encoder

    thumb = page.locator("input[type='range'], [role='slider']").first
    boxes = page.locator("[data-testid='stSidebar'] textarea, [data-testid='stSidebar'] input[type='text']")
    for _ in range(3):  # the first view may be cold; the later ones are warm, and their fragment rerun comes sooner
        visit(page, "/sentences")
        charts_drawn(page)
        # its fragment run ends in a rerun (during which the old container may stand beside the new one: seen once)
        page.locator(".st-key-whole-sentence-curve").first.wait_for(timeout=30_000)
        settle(page)
        # after that rerun the browser still shows the session's values (RESEND_CONTROLS), not the widgets' defaults
        assert thumb.get_attribute("aria-valuetext") == "1"
        assert [boxes.nth(i).input_value() for i in range(boxes.count())] == ["dog bites man", "man bites dog"]
    model = encoder.compare_texts("dog bites man", "man bites dog")
    assert page.get_by_text(number(model.cosine), exact=True).count() == 1
    slider_left(page, thumb)  # 1 -> 0.95
    assert "scale=0.95" in page.url
    lower = encoder.compare_texts("dog bites man", "man bites dog", 0.95)
    assert page.get_by_text(number(lower.cosine), exact=True).count() == 1


LECTURE_STEPS = len(posviz.lecture.STEPS)
SCROLL = (  # the main column's content height and its visible height
    "() => { const m = document.querySelector(\"[data-testid='stMain']\"); return [m.scrollHeight, m.clientHeight] }"
)

# Every chart's drawing (Vega's svg or canvas, a picture's img) against its own box, cut further by any ancestor that
# hides its overflow; an svg's texts (titles, axis titles) against the box too. The main column's scroll height misses
# a chart cut inside its own box (step 13's axis title once was, while the step still fit the screen).
CLIPPED = """() => {
  const cut = [];
  const inside = (r, box, slack = 1) => r.left >= box.left - slack && r.right <= box.right + slack
    && r.top >= box.top - slack && r.bottom <= box.bottom + slack;
  const charts = document.querySelectorAll("[data-testid='stVegaLiteChart'], [data-testid='stImage']");
  charts.forEach((chart, i) => {
    let box = chart.getBoundingClientRect();
    for (let el = chart.parentElement; el && el.dataset.testid !== "stMain"; el = el.parentElement) {
      const style = getComputedStyle(el);
      if (style.overflowX === "visible" && style.overflowY === "visible") continue;
      const r = el.getBoundingClientRect();
      box = {left: Math.max(box.left, r.left), right: Math.min(box.right, r.right),
             top: Math.max(box.top, r.top), bottom: Math.min(box.bottom, r.bottom)};
    }
    const drawn = chart.querySelector("canvas, svg.marks, svg, img");
    if (!drawn) return;
    const r = drawn.getBoundingClientRect();
    if (!inside(r, box)) cut.push(`chart ${i}: ${drawn.tagName} ${Math.round(r.width)}x${Math.round(r.height)}`);
    if (drawn.tagName.toLowerCase() !== "svg") return;
    drawn.querySelectorAll("text").forEach((t) => {
      const tr = t.getBoundingClientRect();
      // a text's box is its line's, taller than its letters: a quarter of its line may stand out, no letter does
      const slack = 0.25 * Math.min(tr.width, tr.height);
      if (t.textContent.trim() && tr.width > 0 && !inside(tr, box, slack)) {
        const by = [box.left - tr.left, tr.right - box.right, box.top - tr.top, tr.bottom - box.bottom];
        cut.push(`chart ${i}: text '${t.textContent}' by ${by.map((v) => Math.round(v)).join(" ")} px`);
      }
    });
  });
  return cut;
}"""


def test_the_fit_check_sees_a_chart_cut_inside_its_own_box(page):
    """The check above on step 13 as drawn (nothing cut), then with its first chart's box 40 px shorter and hiding its
    overflow, as a chart whose axis title is cut: the check names it, while the main column still fits the screen."""
    page.set_viewport_size({"width": 1280, "height": 720})
    visit(page, "/lecture?presenter=true&step=13")
    chart = page.locator(CHART).first
    chart.locator("svg, canvas").first.wait_for(timeout=30_000)
    assert page.evaluate(CLIPPED) == []
    shorten = "c => { const h = c.getBoundingClientRect().height; c.style.height = (h - 40) + 'px';"
    chart.evaluate(shorten + " c.style.overflow = 'hidden'; }")
    cut = page.evaluate(CLIPPED)
    assert cut and cut[0].startswith("chart 0:"), cut
    scroll, client = page.evaluate(SCROLL)
    assert scroll <= client  # the scroll height alone would pass this cut chart


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
            scroll, client = p.evaluate(SCROLL)
            assert scroll <= client, f"step {step} at {size}: content {scroll} px in a {client} px screen"
            assert p.evaluate(CLIPPED) == [], f"step {step} at {size}: a chart drawn past its own box"
            assert p.locator("[data-testid='stSidebar']").get_attribute("data-collapsed") == "true"
            assert p.locator("[data-testid='stException']").count() == 0, step
        assert errors == []
    finally:
        context.close()


# Every text node of the main column in a font smaller than a hall reads (20 px), and how many were read: captions
# (but the expected-value line under the headline, which is read with it), the navigation, the controls' own labels
# and icons are the lecturer's, not the slide's, and may be smaller.
SMALL_TEXT = """() => {
  const main = document.querySelector("[data-testid='stMain']");
  const skip = "[data-testid='stCaptionContainer'], [data-testid='stImageCaption'], .st-key-lecture-caption,"
    + " .st-key-lecture-nav, [data-testid='stIconMaterial'], span[role='img'], [data-testid='stWidgetLabel'],"
    + " [data-testid='stButtonGroup'], button, .st-key-lecture-arrows";
  const small = [];
  let read = 0;
  const walker = document.createTreeWalker(main, NodeFilter.SHOW_TEXT);
  while (walker.nextNode()) {
    const text = walker.currentNode.textContent.trim();
    const el = walker.currentNode.parentElement;
    const kept = el.closest(".st-key-lecture-expected");  // a caption in form, but a line the hall reads
    if (!text || (el.closest(skip) && !kept) || el.getBoundingClientRect().width === 0) continue;
    read += 1;
    const size = parseFloat(getComputedStyle(el).fontSize);
    if (size < 20) small.push(`${size}px: ${text.slice(0, 40)}`);
  }
  return [small, read];
}"""


def test_no_projected_lecture_text_is_under_20_px_but_captions(page):
    """Presenter mode at 1280x720: the claim, every headline and badge, chart titles, axes, ticks, legends, values in
    cells, picture titles and colour bars, the recap's table: 20 px or more (a chart's text is SVG, read too)."""
    for step in range(1, LECTURE_STEPS + 1):
        small, read = _projected_small_text(page, f"step={step}")
        assert read > 5 and small == [], (step, small)


def _projected_small_text(page, query: str) -> tuple[list, int]:
    """The lecture at `query` in presenter mode at 1280x720, every chart drawn: (texts under 20 px, texts read)."""
    page.set_viewport_size({"width": 1280, "height": 720})
    visit(page, f"/lecture?presenter=true&{query}")
    charts = page.locator(CHART)
    for i in range(charts.count()):
        charts.nth(i).locator("svg, canvas").first.wait_for(timeout=30_000)
    return page.evaluate(SMALL_TEXT)


@pytest.mark.parametrize(
    "query",
    ["step=3&ramp_scale=1.2", "step=10&table_d=64", "step=11&norms_d=4", "step=12&shift_k=20", "step=6&offset_scale=0"],
)
def test_no_projected_chart_text_is_under_20_px_at_a_steps_other_settings(page, query):
    """As above, at settings other than the defaults (more pairs' bars, longer labels, an all-zero panel)."""
    small, read = _projected_small_text(page, query)
    assert read > 5 and small == [], (query, small)


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


def test_the_llm_page_shows_its_heads_and_number_on_a_projector_and_a_phone(page):
    """Presenter mode at 1280x720: the headline and the nine heads (one chart) end on the first screen; at 390 px the
    page opens without an error."""
    visit(page, "/llm?presenter=true")
    no_exception(page)
    charts_drawn(page)
    assert page.get_by_text("1.2, 2.1", exact=True).count() == 1
    chart = page.locator(CHART).first.bounding_box()
    assert chart["y"] + chart["height"] <= 720 and chart["width"] <= 1280, chart
    page.set_viewport_size({"width": 390, "height": 844})
    visit(page, "/llm")
    no_exception(page)
    charts_drawn(page)
