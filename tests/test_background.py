"""ui.background: work a page starts now and takes later; the same job for the same call; no CancelledError."""

import threading

import numpy as np
import pytest

from posviz.models.minilm import encoder
from ui import background


def test_a_curve_started_ahead_is_one_job_and_equals_the_curve_run_at_once():
    text = "dog bites man", "man bites dog"
    later = background.later(encoder.curve_texts, *text, 21, 10, rest=True)
    assert background.later(encoder.curve_texts, *text, 21, 10, rest=True) is later
    scales, cosines = later.result(timeout=60)
    now_scales, now_cosines = encoder.curve_texts(*text, 21, every=10, rest=True)
    np.testing.assert_array_equal(scales, now_scales)
    np.testing.assert_array_equal(cosines, now_cosines)


def test_a_failed_job_is_started_again_and_one_call_is_one_key_however_it_is_passed():
    failed = background.later(encoder.curve_texts, "dog bites man", "man bites dog", 1)  # 1 point: refused
    with pytest.raises(ValueError, match="points"):
        failed.result(timeout=60)
    assert background.later(encoder.curve_texts, "dog bites man", "man bites dog", 1) is not failed
    positional = background.later(encoder.curve_texts, "dog", "man", 21, 10, True)
    assert background.later(encoder.curve_texts, "dog", "man", 21, every=10, rest=1) is positional
    defaults = background.later(encoder.curve_texts, "dog", "man")
    assert background.later(encoder.curve_texts, "dog", "man", 21) is defaults


def test_a_held_curve_survives_more_pairs_than_are_kept():
    """A page holds its pair's job while other sessions queue more than KEPT pairs: the job is pushed out and
    cancelled before it starts, and the page still gets its curve (encoder.curve_later raised CancelledError)."""
    gate = threading.Event()

    def slow_curve(s1: str, s2: str, points: int = 21, every: int = 1, rest: bool = False) -> tuple[str, str]:
        gate.wait(30)
        return s1, s2

    busy = [background.later(slow_curve, f"busy {i}", "pair") for i in range(background.WORKERS)]  # threads taken
    held = background.later(slow_curve, "held", "pair")  # queued: the page holds it
    for i in range(background.KEPT + 1):
        background.later(slow_curve, f"sentence {i}", "pair")  # other sessions' pairs
    assert held.future.cancelled()  # pushed out before a thread took it
    gate.set()
    assert held.result(timeout=30) == ("held", "pair")
    assert [b.result(timeout=30) for b in busy] == [(f"busy {i}", "pair") for i in range(background.WORKERS)]
    assert background.later(slow_curve, "held", "pair") is not held  # asked again: started again


def test_importing_the_models_starts_no_thread():
    import subprocess
    import sys

    code = (
        "import threading, posviz.models.minilm, posviz.models.minilm.encoder, posviz.models.smollm2, ui.background;"
        "print(threading.active_count())"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "1"


def test_the_server_warms_the_lectures_first_step_before_the_models_and_at_a_lower_priority(monkeypatch):
    from posviz import lecture
    from posviz.drawing import engine
    from ui import startup

    order = []
    monkeypatch.setattr(startup.smollm2, "load", lambda: order.append(("smollm2", startup._niceness())))
    monkeypatch.setattr(startup.matched, "warm", lambda: order.append(("matched", startup._niceness())))
    engine._compiled.cache_clear()
    before = startup._niceness()
    thread = threading.Thread(target=startup.warm_server)  # as the server runs it: a thread of its own
    thread.start()
    thread.join(60)
    figures = [f for f in lecture.slide(0).figures if f.builder is not None]
    misses = engine._compiled.cache_info().misses
    for f, presenter in ((f, p) for f in figures for p in (False, "hall")):
        engine.compile(f.builder, len(f.frames), presenter=presenter, **engine.live_values(f.shape)[0])
    assert figures and engine._compiled.cache_info().misses == misses  # step 1's charts: compiled in both modes
    assert [name for name, _ in order] == ["smollm2", "matched"]
    assert all(nice == min(19, before + startup.WARM_NICE) for _, nice in order)  # nicer than this thread
    assert startup._niceness() == before  # only the warm-up's own thread was made nicer
