"""A bare two-page Streamlit app with st.navigation and nothing else: tests/test_access.py runs axe-core on it to show
which violations are Streamlit's own navigation markup."""

import streamlit as st


def first() -> None:
    st.title("First")


def second() -> None:
    st.title("Second")


st.navigation([st.Page(first, title="First"), st.Page(second, title="Second")]).run()
