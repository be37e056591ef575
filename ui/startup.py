"""Once a process: what a new server computes before anyone asks (`warm_server`, started by streamlit_app.py) and
the garbage collector's startup heap (the router calls `freeze_startup_heap`).

It touches the runtime, not the page. The pages live in app_pages/, not pages/: Streamlit treats an app beside a
folder named pages/ as a legacy multipage app until its main script calls st.navigation (a deep link opened first
on a fresh server would then run the page without the router), so no patch of Streamlit's private flag is needed.
"""

from __future__ import annotations

import gc
import os
import threading

from posviz import lecture
from posviz.drawing import engine
from posviz.experiments import decoder, matched
from posviz.models import smollm2

_frozen = False
WARM_NICE = 10  # how much nicer the warm-up thread is than the server (Linux): sessions get the cores first


def warm_server() -> None:
    """Run once in a background thread at launch: the lecture's first step (its modules, its slide and its charts
    compiled in both modes: what a lecturer opens first on a new server), then SmolLM2's layers (~2-3 s to
    dequantize) and step 19's rerounded runs (~10 s), then the matched family's held-out curves (tens of seconds
    with 8 windows), all but the first at a lower CPU priority so that the first visitors' sessions are not slowed."""
    for fig in lecture.slide(0).figures:
        if fig.builder is not None:
            for presenter in (False, "hall"):  # a desk, and the lecture projected (ui.screen.chart_screen)
                engine.chart_spec(fig.builder, *fig.frames, presenter=presenter, **fig.shape)
    try:  # Linux gives each thread its own niceness; elsewhere the warm-up runs at the server's priority
        os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), min(19, _niceness() + WARM_NICE))
    except (AttributeError, OSError):
        pass
    smollm2.load()
    decoder.rerounding()  # step 19's claim: its layers rounded again, 20 times (about 10 s)
    matched.warm()


def _niceness() -> int:
    """The calling thread's niceness (Linux: each thread has its own)."""
    return os.getpriority(os.PRIO_PROCESS, threading.get_native_id())


def freeze_startup_heap() -> None:
    """Take the objects alive now (numpy, pandas, Streamlit's modules) out of the garbage collector's sight.

    A full collection's cost grows with every live object, and most of those are modules imported once:
    when Streamlit still ran one after every script run (now off: .streamlit/config.toml's
    runner.postScriptGC) it took about 0.1 s per run, holding the GIL, half of the server's time under
    load. Python's own full collections skip the frozen heap too. Garbage that later script runs make is
    still collected. The router calls this on its first run; later calls do nothing.
    """
    global _frozen
    if not _frozen:
        gc.collect()
        gc.freeze()
        _frozen = True
