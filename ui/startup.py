"""Once a process: the garbage collector's startup heap (the router calls `freeze_startup_heap`).

It touches the runtime, not the page. The pages live in app_pages/, not pages/: Streamlit treats an app beside a
folder named pages/ as a legacy multipage app until its main script calls st.navigation (a deep link opened first
on a fresh server would then run the page without the router), so no patch of Streamlit's private flag is needed.
"""

from __future__ import annotations

import gc

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
