"""posviz: the server. `streamlit run streamlit_app.py` serves router.py (the pages and the presenter switch)
through this st.App, whose one extra route (shell.PageShell) answers each page's URL with a page that tells
Streamlit's frontend where the server is: no failed health check and 100 ms wait on a page opened by its URL."""

import threading
from pathlib import Path

import streamlit as st

import shell
from posviz.models import smollm2

# The real RoPE model's page and lecture steps need its layers (~2-3 s to dequantize): read them once in the
# background when the server starts, so that a student's first view does not wait (smollm2.load is lru_cached).
threading.Thread(target=smollm2.load, name="posviz-warm-smollm2", daemon=True).start()

app = st.App(Path(__file__).with_name("router.py"), routes=[shell.PageShell()])
