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
# The listed pages: each one's file in app_pages/ and its url_path share a name (tests/test_shell.py checks it).
PAGES = (  # (name, title, icon)
    ("lecture", "Lecture", ":material/co_present:"),
    ("overview", "Overview", ":material/home:"),
    ("order", "Order blindness", ":material/shuffle:"),
    ("sinusoids", "Sinusoids", ":material/waves:"),
    ("attention", "Before and after position", ":material/grid_on:"),
    ("magnitude", "Position magnitude", ":material/tune:"),
    ("rotary", "Learned and rotary", ":material/rotate_right:"),
    ("offsets", "Start offsets", ":material/skip_next:"),
    ("causal", "Causal mask", ":material/change_history:"),
    ("layouts", "Layouts", ":material/swap_horiz:"),
    ("bugs", "Spot the bug", ":material/bug_report:"),
    ("minilm", "MiniLM: a trained encoder", ":material/model_training:"),
    ("sentences", "MiniLM: word order", ":material/sort:"),
    ("longer", "Longer contexts", ":material/expand:"),
    ("biases", "Relative biases", ":material/linear_scale:"),
    ("llm", "SmolLM2: a RoPE decoder", ":material/neurology:"),
    ("matched", "What each scheme buys", ":material/science:"),
    ("yourmodel", "Your model (GGUF)", ":material/folder_open:"),
)
pages = [st.Page(f"app_pages/{name}.py", title=title, icon=icon, url_path=name) for name, title, icon in PAGES]
page = st.navigation({"The lessons": [home, *pages[:6]], "Beyond the lessons": pages[6:]}, expanded=True)
st.sidebar.toggle(
    "Presenter mode",
    key="presenter",
    bind="query-params",
    help="For a shared screen at 1280x720: bigger chart text, key numbers first, less prose.",
)
page.run()
