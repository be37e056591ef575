"""posviz: the router. Pages live in app_pages/; this file wires them up with the presenter switch.

streamlit_app.py serves it (`streamlit run streamlit_app.py`); tests run it directly with AppTest.
"""

import streamlit as st

import ui

ui.freeze_startup_heap()  # once per process: Streamlit's after-run garbage collection stops rescanning it
# A shared screen needs every pixel: presenter mode starts with the sidebar collapsed (it can still be opened).
sidebar = "collapsed" if ui.presenter() else "auto"
st.set_page_config(page_title="posviz", page_icon=":material/explore:", layout="wide", initial_sidebar_state=sidebar)

# The default page is served at "/" and its url_path is not a route of its own (a link to it would open
# "Page not found"). So "/" is a hidden copy of the overview, and the listed Overview has its own /overview.
home = st.Page("app_pages/overview.py", title="Overview", url_path="home", default=True, visibility="hidden")
pages = [
    st.Page("app_pages/lecture.py", title="Lecture", icon=":material/co_present:", url_path="lecture"),
    st.Page("app_pages/overview.py", title="Overview", icon=":material/home:", url_path="overview"),
    st.Page("app_pages/order.py", title="Order blindness", icon=":material/shuffle:", url_path="order"),
    st.Page("app_pages/sinusoids.py", title="Sinusoids", icon=":material/waves:", url_path="sinusoids"),
    st.Page(
        "app_pages/attention.py", title="Before and after position", icon=":material/grid_on:", url_path="attention"
    ),
    st.Page("app_pages/magnitude.py", title="Position magnitude", icon=":material/tune:", url_path="magnitude"),
    st.Page("app_pages/rotary.py", title="Learned and rotary", icon=":material/rotate_right:", url_path="rotary"),
    st.Page("app_pages/offsets.py", title="Start offsets", icon=":material/skip_next:", url_path="offsets"),
    st.Page("app_pages/causal.py", title="Causal mask", icon=":material/change_history:", url_path="causal"),
    st.Page("app_pages/layouts.py", title="Layouts", icon=":material/swap_horiz:", url_path="layouts"),
    st.Page("app_pages/bugs.py", title="Spot the bug", icon=":material/bug_report:", url_path="bugs"),
    st.Page(
        "app_pages/minilm.py", title="MiniLM: a trained encoder", icon=":material/model_training:", url_path="minilm"
    ),
    st.Page("app_pages/sentences.py", title="MiniLM: word order", icon=":material/sort:", url_path="sentences"),
    st.Page("app_pages/longer.py", title="Longer contexts", icon=":material/expand:", url_path="longer"),
    st.Page("app_pages/biases.py", title="Relative biases", icon=":material/linear_scale:", url_path="biases"),
    st.Page("app_pages/llm.py", title="SmolLM2: a RoPE decoder", icon=":material/neurology:", url_path="llm"),
    st.Page("app_pages/matched.py", title="What each scheme buys", icon=":material/science:", url_path="matched"),
]
page = st.navigation({"The lessons": [home, *pages[:6]], "Beyond the lessons": pages[6:]}, expanded=True)
st.sidebar.toggle(
    "Presenter mode",
    key="presenter",
    bind="query-params",
    help="For a shared screen at 1280x720: bigger chart text, key numbers first, less prose.",
)
page.run()
