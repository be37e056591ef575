"""URL state: each control seeded from the link on arrival at a page (bad values reported), written back when it
differs from its default, so a view can be shared."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING

import streamlit as st

from ui.declarations import RESEND_CONTROLS, Param
from ui.text import note
from ui.widgets import controls, part

if TYPE_CHECKING:  # an internal module path: only type checkers read it
    from streamlit.runtime.state import SessionStateProxy


_PAGE_KEY = "_posviz_page"  # the page whose controls the session state holds


def url_state(params: Iterable[Param], *, page: str) -> SessionStateProxy:
    """Seed each control's session value from the URL (first run of the page), reporting bad values.

    Call before the widgets (draw them with `control`); `page` names the calling page.
    Returns the session state, where the page reads its controls' values (`s.seed`).

    Pages share some keys (seed, T, ...). Streamlit keeps a widget's value across a move to another
    page when that page has a widget with the same key, but the new widget is a different one and
    would start at its minimum. So on arriving at a page (its first run, or a move from another page
    in the sidebar) every control is seeded again from the URL, or its default.
    """
    params = _each(params)
    arrived = st.session_state.get(_PAGE_KEY) != page
    st.session_state[_PAGE_KEY] = page
    resend = st.session_state.pop(RESEND_CONTROLS, False)
    problems = []
    for p in params:
        if p.key in st.session_state and not arrived:
            if resend:  # assigned through the state API, the value goes to the browser with the widget (a
                # workaround: see RESEND_CONTROLS for the frontend behaviour and the upstream issue it waits on)
                st.session_state[p.key] = st.session_state[p.key]
            continue
        value = p.default
        key = next((k for k in (p.key, *p.aliases) if k in st.query_params), p.key)
        raw = st.query_params.get(key)
        if raw is not None:
            try:
                value = p.parse(raw)
            except ValueError as error:
                problems.append(f"{key}={_short(raw)!r}: {error}; using {p.format(p.default)}")
        st.session_state[p.key] = value
    if problems:
        note("Some link settings were not understood and fell back to defaults:\n" + "\n".join(problems))
    return st.session_state


def sidebar(
    params: Mapping[str, Param], *, page: str, keys: Iterable[str] | Mapping[str, Iterable[str]] | None = None
) -> SessionStateProxy:
    """A page's usual start: `url_state`, the controls named by `keys` (default: all) in the sidebar, `sync_url`.

    A page in parts (a `part` control) draws its part switch first, and `keys` maps each part to its controls.
    Returns the session state, as `url_state` does (`state.part` is the part drawn).
    """
    state = url_state(params, page=page)
    if "part" in params:
        keys = keys[part(params["part"])]
    with st.sidebar:
        controls(params[k] for k in (params if keys is None else keys))
    sync_url(params)
    return state


def sync_url(params: Iterable[Param]) -> None:
    """Write every non-default control value into the URL so the view can be shared (old alias keys go)."""
    params = _each(params)
    for p in params:
        for alias in p.aliases:
            if alias in st.query_params:
                del st.query_params[alias]
        value = st.session_state.get(p.key, p.default)
        if value == p.default or value is None:  # None: a segmented control with nothing picked
            if p.key in st.query_params:
                del st.query_params[p.key]
        else:
            st.query_params[p.key] = p.format(value)


def _each(params: Mapping[str, Param] | Iterable[Param]) -> list[Param]:
    return list(params.values()) if isinstance(params, Mapping) else list(params)


def _short(raw: str, limit: int = 40) -> str:
    return raw if len(raw) <= limit else raw[:limit] + "…"
