"""posviz: the server. `streamlit run streamlit_app.py` serves router.py (the pages and the presenter switch)
through this st.App, whose routes answer each page's URL with a page that tells Streamlit's frontend where the
server is (shell.py: saves a failed health check and a 100 ms wait on every page opened by its URL)."""

import streamlit as st

import shell

app = st.App("router.py", routes=shell.routes(st.get_option("server.baseUrlPath")))
