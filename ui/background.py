"""Work a page starts now and takes in a later run: one small pool of threads, shared by every session.

A page draws a quick view at once and starts the slow rest here (`later`); a later run (ui.quick_then_whole's
fragment) takes it with `.result()`. The same call with the same arguments gets the same job, from any session, so
a second visitor of a sentence pair finds its curve computed or running. The last KEPT jobs are remembered; one
pushed out before it has started is cancelled (the pool would otherwise queue work nobody waits for), and a page
that still holds it runs it in its own thread when it asks for the result, instead of failing.

The pool is made at the first job, not at import. The core starts no thread at import either: MiniLM's two-halves
pass makes its pool at its first pass (posviz.models.minilm.encoder.halves_pool).
"""

from __future__ import annotations

import inspect
import threading
from collections import OrderedDict
from collections.abc import Callable
from concurrent.futures import CancelledError, Future, ThreadPoolExecutor
from functools import lru_cache

import streamlit as st

KEPT = 32  # jobs remembered, finished or not; a class typing its own sentences reaches this many pairs
WORKERS = 2  # jobs run at once, each in a thread of its own, so that none waits for a pass it is part of

_JOBS: OrderedDict[tuple, Later] = OrderedDict()
_LOCK = threading.Lock()


@lru_cache(maxsize=1)
def pool() -> ThreadPoolExecutor:
    """The background threads, made at the first job."""
    return ThreadPoolExecutor(max_workers=WORKERS, thread_name_prefix="posviz-later")


class Later:
    """A call started in the background: `done()` says whether its result is there, `result()` waits for it (or
    runs the call here, if it was cancelled before it started)."""

    def __init__(self, fn: Callable, args: tuple, kwargs: dict) -> None:
        self.fn, self.args, self.kwargs = fn, args, kwargs
        self.future: Future = pool().submit(fn, *args, **kwargs)

    def done(self) -> bool:
        return self.future.done()

    def result(self, timeout: float | None = None) -> object:
        """The call's value; its exception if it raised; computed in this thread if the job was cancelled."""
        try:
            return self.future.result(timeout)
        except CancelledError:  # pushed out of the last KEPT before a thread took it
            return self.fn(*self.args, **self.kwargs)

    def stale(self) -> bool:
        """Cancelled, or failed: the next `later` call with these arguments starts it again."""
        return self.future.cancelled() or (self.future.done() and self.future.exception() is not None)


def key(fn: Callable, *args: object, **kwargs: object) -> tuple:
    """One key however the arguments are passed: positionally, by name, or left at their defaults."""
    bound = inspect.signature(fn).bind(*args, **kwargs)
    bound.apply_defaults()
    return (fn, *((name, value) for name, value in bound.arguments.items()))


def later(fn: Callable, *args: object, **kwargs: object) -> Later:
    """fn(*args, **kwargs) started in the background at the first call; the same Later returned to every later call
    with the same arguments (hashable ones) while it is among the last KEPT. A failed or cancelled job starts again."""
    k = key(fn, *args, **kwargs)
    with _LOCK:
        job = _JOBS.get(k)
        if job is None or job.stale():
            job = _JOBS[k] = Later(fn, args, kwargs)
        _JOBS.move_to_end(k)
        while len(_JOBS) > KEPT:
            _JOBS.popitem(last=False)[1].future.cancel()  # a no-op once it runs; its holder then runs it itself
    return job


def result_of(job: Later, note: str) -> object:
    """A background job's result; while it runs, a spinner with `note` (what is computed and how long it takes)."""
    if job.done():
        return job.result()
    with st.spinner(note):
        return job.result()
