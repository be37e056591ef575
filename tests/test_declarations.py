"""ui.Param checks itself when it is declared: a missing bound or a wrong type fails there, saying what it expected."""

import inspect
import re
import typing

import pytest
from streamlit.testing.v1 import AppTest

import ui

BAD = [
    (dict(key="T", default=6, kind="int"), "expected lo and hi for kind 'int', got lo=None, hi=None"),
    (dict(key="T", default=6, kind="int", lo=2), "expected lo and hi for kind 'int', got lo=2, hi=None"),
    (dict(key="T", default=99, kind="int", lo=2, hi=64), "expected a default from 2 to 64, got 99"),
    (dict(key="T", default=6.0, kind="int", lo=2, hi=64), "expected an int for default, got 6.0 (float)"),
    (dict(key="T", default=True, kind="int", lo=0, hi=1), "expected an int for default, got True (bool)"),
    (dict(key="T", default=6, kind="int", lo=2, hi=64.0), "expected an int for hi, got 64.0 (float)"),
    (dict(key="d", default=7, kind="int", lo=2, hi=64, step=2), "expected a default in steps of 2 from lo=2, got 7"),
    (dict(key="d", default=0, kind="int", lo=0, hi=4, step=0), "expected a step above 0, got step=0"),
    (dict(key="zr", default=0, kind="int", lo=0, hi=9, nudge=1.5), "expected an int for nudge, got 1.5 (float)"),
    (dict(key="s", default=0.5, kind="float", lo=0, hi=1.0, step=0.1), "expected a float for lo, got 0 (int)"),
    (dict(key="s", default=1, kind="float", lo=0.0, hi=3.0, step=0.5), "expected a float for default, got 1 (int)"),
    (dict(key="s", default=0.5, kind="float", lo=0.0, hi=3.0), "expected a float for step, got 1 (int)"),
    (dict(key="s", default=0.5, kind="float", lo=0.0, hi=float("inf"), step=0.1), "a float for hi, got inf (float)"),
    (dict(key="s", default=0.5, kind="float", lo=1.0, hi=3.0, step=0.1), "expected a default from 1 to 3, got 0.5"),
    (dict(key="v", default="zoom", kind="choice", options=("auto", "image")),
     "expected a default among the options 'auto', 'image', got 'zoom'"),
    (dict(key="v", default="auto", kind="choice"), "expected options for kind 'choice', got none"),
    (dict(key="quiz", default="yes", kind="bool"), "expected a default of True or False, got 'yes' (str)"),
    (dict(key="s1", default=None, kind="text"), "expected a default text of at most 300 characters, got None"),
    (dict(key="s1", default="dog", kind="text", max_len=2), "at most 2 characters, got 'dog' (str)"),
    (dict(key="x", default=1, kind="integer"), "expected kind one of int, float, choice, bool, text, got 'integer'"),
]  # fmt: skip


@pytest.mark.parametrize(("declared", "message"), BAD, ids=[m for _, m in BAD])
def test_a_param_with_a_missing_bound_or_a_wrong_type_fails_when_declared(declared, message):
    with pytest.raises(ValueError, match=re.escape(message)) as raised:
        ui.Param(**declared)
    assert str(raised.value).startswith(f"Param {declared['key']!r} (kind {declared['kind']!r}): expected ")


def test_a_float_number_box_moves_by_its_nudge_and_every_kind_declares_cleanly():
    base = ui.Param("base", 10000.0, "float", 2.0, 1e7, nudge=1000.0, widget="number")  # step stays the int 1
    assert base.parse("20000") == 20000.0
    for declared in (
        ui.Param("T", 6, "int", 2, 64),
        ui.Param("d", 8, "int", 2, 64, step=2),
        ui.Param("step", 1, "int", 1, 3, widget="selectbox", options=(1, 2, 3)),
        ui.Param("base", 10_000.0, "choice", options=(10_000.0, 500_000.0)),
        ui.Param("quiz", False, "bool"),
        ui.Param("s1", "dog bites man", "text"),
    ):
        assert declared.parse(declared.format(declared.default)) == declared.default


def _override(value: int) -> None:
    import streamlit as st

    import ui

    st.session_state.setdefault("k", value)
    ui.control(ui.Param("k", 4, "int", 1, 64), hi=8)  # a bound from another control, as offsets' prefill <= T


def test_a_bound_overridden_for_one_draw_is_checked_around_the_current_value():
    k = ui.Param("k", 4, "int", 1, 64)
    assert (k.narrowed(5, hi=8).hi, k.narrowed(None, hi=8).default) == (8, 4)
    with pytest.raises(ValueError, match=re.escape("Param 'k' (kind 'int'): expected a default from 1 to 8, got 10")):
        k.narrowed(10, hi=8)  # the page must keep the value within the new bound first
    drawn = AppTest.from_function(_override, args=(5,)).run()
    assert not drawn.exception
    assert (drawn.slider[0].value, drawn.slider[0].max) == (5, 8)
    refused = AppTest.from_function(_override, args=(10,)).run()
    assert refused.exception[0].proto.type == "ValueError"  # its message is redacted (showErrorDetails)


def test_every_shared_declaration_is_registered_so_the_hostile_tests_reach_its_keys(monkeypatch):
    from ui import declarations

    def declares(f) -> bool:
        made = typing.get_type_hints(f).get("return")
        return made is ui.Param or typing.get_origin(made) is tuple

    functions = inspect.getmembers(declarations, inspect.isfunction)
    factories = {name for name, f in functions if f.__module__ == declarations.__name__ and declares(f)}
    assert factories == set(ui.SHARED) and {"seed_param", "sentence_params"} <= factories
    assert ui.SHARED["sentence_params"] == tuple(p.key for p in ui.sentence_params())
    monkeypatch.setattr(declarations, "SHARED", dict(declarations.SHARED))  # the registration below is undone
    with pytest.raises(ValueError, match=re.escape("quiz_param is registered with keys ('quiz',), got ('hint',)")):

        @declarations.shared("quiz")
        def quiz_param() -> ui.Param:
            return ui.Param("hint", False, "bool")

        quiz_param()
