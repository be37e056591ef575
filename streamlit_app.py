"""posviz: the router. Pages live in pages/; this file wires them up with the presenter switch."""

import streamlit as st

st.set_page_config(page_title="posviz", page_icon=":material/explore:", layout="wide")

pages = [
    st.Page("pages/overview.py", title="Overview", icon=":material/home:", url_path="overview", default=True),
    st.Page("pages/order.py", title="Order blindness", icon=":material/shuffle:", url_path="order"),
    st.Page("pages/sinusoids.py", title="Sinusoids", icon=":material/waves:", url_path="sinusoids"),
    st.Page("pages/attention.py", title="Before and after position", icon=":material/grid_on:", url_path="attention"),
    st.Page("pages/magnitude.py", title="Position magnitude", icon=":material/tune:", url_path="magnitude"),
]
page = st.navigation(pages)
st.sidebar.toggle(
    "Presenter mode",
    key="presenter",
    bind="query-params",
    help="For a shared screen at 1280x720: bigger chart text, key numbers first, less prose.",
)
page.run()
