"""Hostile links and text on every page: a short note and the defaults, never a traceback or a remote fetch."""

import ast
import re
import tomllib
from pathlib import Path

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

import ui
from tests.harness import PAGES

ROOT = Path(__file__).resolve().parents[1]
# ui.matrix_grid's own pictures are the one <img> allowed: a PNG data URI, an alt text and a style, nothing else
OWN_PICTURE = r"img src='data:image/png;base64,[A-Za-z0-9+/=]+' alt='[^'<>]*' style='[-a-z0-9:;.%# ]*'>"
UNESCAPED_TAG = re.compile(rf"(?<!\\)<(script|(?!{OWN_PICTURE})img)", re.IGNORECASE)
UNESCAPED_LINK = re.compile(r"(?<!\\)\]\(http")
HOSTILE = [
    "abc",
    "-1",
    "10**12",
    "1000000000000",
    "nan",
    "inf",
    "-inf",
    "",
    "x" * 5000,
    "ünïcödé 🧭 中文",
    "<script>alert(1)</script>",
    "![x](http://127.0.0.1:9/x.png)",
    "<img src=http://127.0.0.1:9/y.png>",
    "7",
    "0 0 1 2 3 4",
    "1e308",
    "[1, 2]",
]


def page_keys(name: str) -> list[str]:
    """The URL keys a page reads: the first argument of every ui.Param(...) in its source, the keys of ui's shared
    declarations it calls (ui.SHARED: each registers its keys), and the lecture's steps' and deck's."""
    tree = ast.parse((ROOT / "app_pages" / f"{name}.py").read_text())
    calls = [node for node in ast.walk(tree) if isinstance(node, ast.Call)]
    keys = [
        node.args[0].value
        for node in calls
        if getattr(node.func, "attr", "") == "Param" and node.args and isinstance(node.args[0], ast.Constant)
    ]
    keys += [key for node in calls for key in ui.SHARED.get(getattr(node.func, "attr", ""), ())]
    if name == "lecture":
        from posviz.lecture import STEPS

        keys += [step.url_key(c) for step in STEPS for c in step.controls]
        keys.append("steps")  # a deck (ui.decks reads it; posviz.lecture.decks parses it)
    return keys


def run(name: str, query: dict[str, str]) -> AppTest:
    at = AppTest.from_file(str(ROOT / "app_pages" / f"{name}.py"), default_timeout=60)
    for key, value in query.items():
        at.query_params[key] = value
    return at.run()


def assert_safe(at: AppTest) -> None:
    assert not at.exception, [e.message for e in at.exception]
    for element in list(at.markdown) + list(at.warning) + list(at.caption):
        text = element.value  # Markdown source: a backslash before < or ] makes it literal text
        assert not UNESCAPED_TAG.search(text), text[:200]
        assert not UNESCAPED_LINK.search(text), text[:200]


@pytest.mark.parametrize("value", HOSTILE, ids=range(len(HOSTILE)))
@pytest.mark.parametrize("name", PAGES)
def test_every_key_set_to_a_hostile_value(name, value):
    keys = page_keys(name) + ["presenter", "unknown_key"]
    at = run(name, dict.fromkeys(keys, value))
    assert_safe(at)


@pytest.mark.parametrize("name", PAGES)
def test_a_bad_value_for_each_key_is_reported_by_name(name):
    for key in page_keys(name):
        at = run(name, {key: "x" * 2000})
        assert_safe(at)
        assert any(ui.escape(key) in w.value for w in at.warning), (name, key)


@pytest.mark.parametrize(
    "text",
    [
        "![x](http://127.0.0.1:9/x.png) bites man",
        "<script>alert(1)</script> bites man",
        "**bold** _it_ `code` # heading",
        "man",
        " ".join(["dog"] * 70),
        "ünïcödé man 🧭",
    ],
)
def test_hostile_sentences_are_plain_text(text):
    for name in ("attention", "magnitude", "sentences"):
        at = run(name, {})
        at.text_input(key="s1").set_value(text).run()
        assert_safe(at)


def test_single_word_sentences_work():
    at = run("attention", {"s1": "man", "s2": "man"})
    assert_safe(at)
    assert not at.warning


def test_deploy_configuration_loads_and_hides_tracebacks():
    config = tomllib.loads((ROOT / ".streamlit" / "config.toml").read_text())
    assert config["client"]["showErrorDetails"] in ("type", "none")
    assert config["server"]["fileWatcherType"] == "none"
    assert config["browser"]["gatherUsageStats"] is False
    assert config["server"]["maxUploadSize"] <= 1
    from streamlit import config as st_config

    for section, values in config.items():
        for key, value in values.items():
            assert st_config.get_option(f"{section}.{key}") is not None
            st_config.set_option(f"{section}.{key}", value)


def test_image_cache_key_sees_every_value():
    """Streamlit hashes large arrays from a sample; the PNG cache's own key must not."""
    big = np.zeros((512, 1024))
    changed = big.copy()
    changed[301, 707] = 1e-9
    assert ui.pictures.digest(big) != ui.pictures.digest(changed)
    assert ui.pictures.digest(big) == ui.pictures.digest(big.copy())
    assert ui.pictures.digest(big) != ui.pictures.digest(big.reshape(1024, 512))


def test_the_server_runs_no_full_garbage_collection_after_every_script_run():
    """A room's polls run a fragment each second; Streamlit's collection after each rescanned every follow stream's
    objects (docs/performance.md, "A hall"). Python's own collector stays on."""
    config = tomllib.loads((ROOT / ".streamlit" / "config.toml").read_text())
    assert config["runner"]["postScriptGC"] is False
