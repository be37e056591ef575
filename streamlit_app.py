"""posviz: the router. Pages live in pages/; this file only wires them up."""

import streamlit as st

st.set_page_config(page_title="posviz", page_icon="🧭", layout="wide")

pages = [
    st.Page("pages/overview.py", title="Overview", url_path="overview", default=True),
]
st.navigation(pages).run()
