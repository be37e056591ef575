"""Once a process and once a page: the garbage collector's startup heap, and the end of Streamlit's legacy pages/ mode.

Both touch the runtime, not the page: the router calls `freeze_startup_heap`, every page `page_setup`, which
calls `end_legacy_pages_mode`.
"""

from __future__ import annotations

import gc

import streamlit as st

_frozen = False


def freeze_startup_heap() -> None:
    """Take the objects alive now (numpy, pandas, Streamlit's modules) out of the garbage collector's sight.

    Streamlit runs a full collection after every script run; its cost grows with every live object,
    and most of those are modules imported once: about 0.1 s per run, holding the GIL, measured as
    half of the server's time under load. Garbage that later script runs make is still collected.
    The router calls this on its first run; later calls do nothing.
    """
    global _frozen
    if not _frozen:
        gc.collect()
        gc.freeze()
        _frozen = True


def legacy_pages_flag() -> tuple[type, str]:
    """Where Streamlit records that an app runs as a legacy pages/ app (a private attribute: tested on upgrade)."""
    from streamlit.runtime.pages_manager import PagesManager

    return PagesManager, "uses_pages_directory"


def end_legacy_pages_mode() -> None:
    """Hand a deep link opened before the router ever ran back to the router.

    Streamlit treats an app with a pages/ folder as a legacy multipage app until its main script
    calls st.navigation. So the first visitor of a freshly started server who opens /order directly
    gets pages/order.py without the router (no presenter switch, no wide layout, file-name
    navigation). Here we end that legacy mode and rerun, and the router serves the same URL. If a
    Streamlit upgrade removes the flag, this does nothing (tests/test_app.py fails loudly instead).
    """
    owner, flag = legacy_pages_flag()
    if getattr(owner, flag, False):
        setattr(owner, flag, False)
        st.rerun()
