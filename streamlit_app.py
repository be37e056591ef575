"""posviz: the server. `streamlit run streamlit_app.py` serves router.py (the pages and the presenter switch)
through this st.App, whose extra routes are shell.PageShell (each page's URL answered with a page that tells
Streamlit's frontend where the server is: no failed health check and 100 ms wait on a page opened by its URL) and
hall.Hall (a room's light follow page and its event stream, /follow/CODE)."""

import os

# One BLAS thread a server process, set before numpy loads OpenBLAS: the models' products are small (64 tokens), and
# on two cores shared with the browser and other sessions OpenBLAS's second thread spins against them. Cold first
# views, in one benchmark run each way on a loaded machine (python benchmarks/browser_bench.py --pages
# sentences,minilm,llm): word order 0.69 -> 0.55 of the baseline, MiniLM's sentences 0.51 -> 0.31, the RoPE
# model's ablations 0.36 -> 0.28. An operator's own setting wins.
for _blas in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_blas, "1")

import threading  # noqa: E402
from pathlib import Path  # noqa: E402

import streamlit as st  # noqa: E402

import hall  # noqa: E402
import shell  # noqa: E402
import ui.startup  # noqa: E402

# What the first visitors need, computed once in the background from the start (ui.startup.warm_server): the
# lecture's first step, then the real RoPE model's layers and the matched family's held-out curves, probes and
# scaled RoPE curves (tens of seconds on two cores with the default 8 windows), those two at a lower priority.
threading.Thread(target=ui.startup.warm_server, name="posviz-warm", daemon=True).start()

app = st.App(Path(__file__).with_name("router.py"), routes=[shell.PageShell(), hall.Hall()])
