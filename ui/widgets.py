"""A `Param`'s widget, drawn from its declaration and bound to its key (so its value lives in session state)."""

from __future__ import annotations

import html
from collections.abc import Collection, Iterable
from dataclasses import fields

import streamlit as st

from ui.declarations import Param
from ui.screen import presenter

WIDGETS = {
    "slider": lambda p, label, **kw: st.slider(label, p.lo, p.hi, step=p.step, **kw),
    "number": lambda p, label, **kw: st.number_input(
        label, p.lo, p.hi, step=p.nudge or p.step, format=p.number_format, **kw
    ),
    "selectbox": lambda p, label, **kw: st.selectbox(label, p.options, **kw),
    "radio": lambda p, label, **kw: st.radio(label, p.options, **kw),
    "horizontal": lambda p, label, **kw: st.radio(label, p.options, horizontal=True, **kw),
    "select_slider": lambda p, label, **kw: st.select_slider(label, p.options, **kw),
    "segmented": lambda p, label, **kw: st.segmented_control(label, p.options, **kw),
    "toggle": lambda p, label, **kw: st.toggle(label, **kw),
    "text": lambda p, label, **kw: st.text_input(label, max_chars=p.max_len, **kw),
}
_PARAM_FIELDS = frozenset(f.name for f in fields(Param))
DEFAULT_WIDGET = {"int": "slider", "float": "slider", "choice": "selectbox", "bool": "toggle", "text": "text"}


def control(p: Param, **override: object) -> object:
    """Draw `p`'s widget, bound to its key, from its declaration.

    `override` changes a declared field for this draw only (a bound that depends on another control:
    `control(P["prefill"], hi=s.T)`), and the declaration drawn checks itself around the control's current value
    (the page keeps that value within the new bounds); other keywords go to the widget (`disabled=True`).
    """
    changed = {k: v for k, v in override.items() if k in _PARAM_FIELDS}
    if changed:
        p = p.narrowed(st.session_state.get(p.key), **changed)
    widget_options = {k: v for k, v in override.items() if k not in _PARAM_FIELDS}
    kind = p.widget or DEFAULT_WIDGET[p.kind]
    extra = {"format_func": lambda v: p.names.get(v, str(v))} if p.names else {}
    if kind in ("select_slider", "segmented") and not p.names and p.kind == "choice":
        extra = {"format_func": lambda v: f"{v:g}" if isinstance(v, float) else str(v)}
    return WIDGETS[kind](p, p.label or p.key, key=p.key, help=p.help, **extra, **widget_options)


def part(p: Param) -> str:
    """A page's part switch (a segmented choice at the top, `required`: one part is always picked).

    In presenter mode its label is left out (the buttons say enough), so the part keeps the screen's height.
    """
    return control(p, label_visibility="collapsed" if presenter() else "visible", required=True)


def controls(declared: Iterable[Param], *, disabled: Collection[str] = ()) -> None:
    """Draw every control in `declared`, in order; those whose key is in `disabled` greyed out."""
    for p in declared:
        control(p, **({"disabled": True} if p.key in disabled else {}))


def step_list(p: Param, width: int) -> object:
    """The lecture's step list (a selectbox, `width` pixels on a wide screen) with its chosen step's whole name.

    Streamlit shows a selectbox's value in a one-line text field, cut at its edge: in a phone's navigation row only
    about 20 characters show. On a phone (ui.screen.PHONE_LECTURE_CSS) the field's own text is hidden and the name is
    drawn over it in up to three lines; a tap (focus) shows the field again, to type in. Screen readers read the
    field, not the drawing.
    """
    with st.container(key="lecture-jump", width=width, gap=None):
        chosen = control(p, label_visibility="collapsed", width="stretch")
        name = p.names.get(chosen, str(chosen))
        st.html(f"<div class='posviz-jump' aria-hidden='true'>{html.escape(name)}</div>")
    return chosen
