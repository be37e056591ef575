"""A bare two-page Streamlit app with st.navigation in sections (as router.py) and nothing else: tests/test_access.py
runs axe-core on it to show which violations are Streamlit's own navigation markup."""

import streamlit as st


def first() -> None:
    st.title("First")


def second() -> None:
    st.title("Second")


# sections, as router.py has them
st.navigation({"One": [st.Page(first, title="First")], "Two": [st.Page(second, title="Second")]}).run()
