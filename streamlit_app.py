"""posviz: the server. `streamlit run streamlit_app.py` serves router.py (the pages and the presenter switch)
through this st.App, whose one extra route (shell.PageShell) answers each page's URL with a page that tells
Streamlit's frontend where the server is: no failed health check and 100 ms wait on a page opened by its URL."""

from pathlib import Path

import streamlit as st

import shell

app = st.App(Path(__file__).with_name("router.py"), routes=[shell.PageShell()])
