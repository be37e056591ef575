"""Screenshots of every page at 1280x720 (normal and presenter mode), or of every lecture step on a phone, for looking
at with your eyes.

python tools/screenshots.py [out_dir] [extra query string]
python tools/screenshots.py --lecture [out_dir] [first-last]: every lecture step (or steps first-last) at 1280x720 in
presenter mode, as a projector shows it, each chart drawn first
python tools/screenshots.py out_dir --phone [extra query string]   every lecture step at 390x844 (lecture-NN.png, the
                                                                    first screen; lecture-NN-tall.png, the whole step)
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from posviz.experiments.matched import DEFAULT_WINDOWS  # noqa: E402
from tests.harness import PAGES, browser, serve, settle  # noqa: E402

# The matched models' numbers as a user's server computes them (the tests' servers evaluate 1 window, for speed: a
# screenshot of those is a screen no user sees)
PRODUCT = {"POSVIZ_MATCHED_WINDOWS": str(DEFAULT_WINDOWS)}

PHONE = {"width": 390, "height": 844}


def pages(b, base: str, out: Path, extra: str) -> None:
    for presenter in (False, True):
        page = b.new_page(viewport={"width": 1280, "height": 720})
        for name in PAGES:
            query = "&".join(q for q in ("presenter=true" if presenter else "", extra) if q)
            page.goto(f"{base}/{name}" + (f"?{query}" if query else ""))
            settle(page)
            page.wait_for_timeout(800)
            path = out / f"{name}{'-presenter' if presenter else ''}.png"
            page.screenshot(path=str(path))
            if not presenter:
                page.set_viewport_size({"width": 1280, "height": 2600})
                page.wait_for_timeout(1200)
                page.screenshot(path=str(out / f"{name}-tall.png"))
                page.set_viewport_size({"width": 1280, "height": 720})
            errors = page.locator("[data-testid='stException']").count()
            print(path, "exceptions:", errors)
        page.close()


def phone(b, base: str, out: Path, extra: str) -> None:
    import posviz.lecture

    page = b.new_page(viewport=PHONE, device_scale_factor=1, is_mobile=True, has_touch=True)
    for step in range(1, len(posviz.lecture.STEPS) + 1):
        page.goto(f"{base}/lecture?step={step}" + (f"&{extra}" if extra else ""))
        settle(page)
        page.wait_for_timeout(800)
        path = out / f"lecture-{step:02d}.png"
        page.screenshot(path=str(path))
        page.set_viewport_size({**PHONE, "height": 2400})  # Streamlit scrolls inside its own box: a taller window
        page.wait_for_timeout(800)
        page.screenshot(path=str(out / f"lecture-{step:02d}-tall.png"))
        page.set_viewport_size(PHONE)
        errors = page.locator("[data-testid='stException']").count()
        print(path, "exceptions:", errors)
    page.close()


def lecture(out: Path, steps: range) -> None:
    """Step k of the lecture in presenter mode at 1280x720 to out/lecture-step-kk.png."""
    from posviz.lecture import STEPS

    out.mkdir(parents=True, exist_ok=True)
    with serve(env=PRODUCT) as (base, _), browser() as b:
        page = b.new_page(viewport={"width": 1280, "height": 720})
        for step in steps if steps else range(1, len(STEPS) + 1):
            page.goto(f"{base}/lecture?presenter=true&step={step}")
            settle(page)
            charts = page.locator("[data-testid='stVegaLiteChart']")
            for i in range(charts.count()):
                charts.nth(i).locator("svg, canvas").first.wait_for(timeout=60_000)
            page.wait_for_timeout(500)
            path = out / f"lecture-step-{step:02d}.png"
            page.screenshot(path=str(path))
            print(path, "exceptions:", page.locator("[data-testid='stException']").count())


def main() -> None:
    if sys.argv[1:2] == ["--lecture"]:
        first, _, last = (sys.argv[3] if len(sys.argv) > 3 else "").partition("-")
        steps = range(int(first), int(last or first) + 1) if first else range(0)
        lecture(Path(sys.argv[2] if len(sys.argv) > 2 else "screenshots"), steps)
        return
    args = [a for a in sys.argv[1:] if a != "--phone"]
    out = Path(args[0] if args else "screenshots")
    extra = args[1] if len(args) > 1 else ""
    out.mkdir(parents=True, exist_ok=True)
    with serve(env=PRODUCT) as (base, _), browser() as b:
        (phone if "--phone" in sys.argv else pages)(b, base, out, extra)


if __name__ == "__main__":
    main()
