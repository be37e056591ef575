"""Project hygiene: lint, and the layering: every import in posviz runs downward, none reaches streamlit."""

import ast
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
CORE = ROOT / "posviz"

# The layers from the bottom up; a module may import its own layer and the ones below it.
LAYERS = ("maths", "models", "experiments", "drawing", "lecture")
# What each layer may import from outside the standard library and posviz.
THIRD_PARTY = {
    "maths": {"numpy"},
    "models": {"numpy", "tokenizers", "gguf"},
    "experiments": {"numpy"},
    "drawing": {"numpy", "pandas", "altair", "PIL", "vl_convert"},
    "lecture": {"numpy", "pandas", "altair"},
}
APP = {"streamlit", "ui", "router", "shell", "app_pages"}


def imports(path: Path) -> set[str]:
    """Every module name a file imports (absolute names; posviz's files use no relative imports)."""
    names = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            names |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom):
            assert node.level == 0, f"{path}: relative import"
            base = node.module or ""
            names.add(base)
            if base == "posviz":
                names |= {f"posviz.{a.name}" for a in node.names}
    return names


def layer_of(path: Path) -> str | None:
    parts = path.relative_to(CORE).parts
    return parts[0] if len(parts) > 1 and parts[0] in LAYERS else None


def core_files() -> list[Path]:
    return sorted(p for p in CORE.rglob("*.py") if "data" not in p.relative_to(CORE).parts)


@pytest.mark.skipif(shutil.which("ruff") is None, reason="ruff is not installed (pip install -r requirements-dev.txt)")
def test_ruff_is_clean():
    lint = subprocess.run(["ruff", "check", str(ROOT)], capture_output=True, text=True, check=False)
    assert lint.returncode == 0, lint.stdout
    fmt = subprocess.run(["ruff", "format", "--check", str(ROOT)], capture_output=True, text=True, check=False)
    assert fmt.returncode == 0, fmt.stdout


def test_every_core_module_lives_in_a_layer_but_the_package_face():
    loose = {p.name for p in CORE.glob("*.py")}
    assert loose == {"__init__.py", "__main__.py"}
    assert {p.name for p in CORE.iterdir() if p.is_dir() and p.name != "__pycache__"} == {*LAYERS, "data"}


def test_no_core_module_imports_streamlit_or_the_app():
    for path in core_files():
        reached = {name.split(".")[0] for name in imports(path)}
        assert not reached & APP, f"{path.relative_to(ROOT)} imports {reached & APP}"


# Finer than the order above: drawing sits over models but never runs one; it draws the results experiments hand it.
BARRED = {"drawing": {"models"}}


def upward(path: Path, core: Path = CORE) -> list[str]:
    """What a core module imports against the layering: a higher layer, a layer barred to it (BARRED), or a package
    its layer may not use."""
    layer = path.relative_to(core).parts[0]
    wrong = []
    for name in sorted(imports(path)):
        parts = name.split(".")
        if parts[0] == "posviz":
            if len(parts) < 2 or parts[1] not in LAYERS or LAYERS.index(parts[1]) > LAYERS.index(layer):
                wrong.append(name)
            elif parts[1] in BARRED.get(layer, set()):
                wrong.append(name)
        elif (
            parts[0] not in sys.stdlib_module_names and parts[0] != "__future__" and parts[0] not in THIRD_PARTY[layer]
        ):
            wrong.append(name)
    return wrong


def test_imports_in_the_core_only_run_downward():
    for path in core_files():
        if layer_of(path) is not None:
            assert upward(path) == [], path.relative_to(ROOT)


def test_the_layering_check_catches_an_upward_import(tmp_path):
    bad = tmp_path / "posviz" / "maths" / "bad.py"
    bad.parent.mkdir(parents=True)
    bad.write_text(
        "import json\nimport numpy\nimport pandas\nfrom posviz.drawing import frames\nfrom posviz.maths import grids\n"
    )
    assert upward(bad, tmp_path / "posviz") == ["pandas", "posviz.drawing"]


def test_the_layering_check_catches_drawing_importing_a_model(tmp_path):
    bad = tmp_path / "posviz" / "drawing" / "bad.py"
    bad.parent.mkdir(parents=True)
    bad.write_text(
        "from typing import TYPE_CHECKING\nimport altair\nfrom posviz.experiments import decoder\n"
        "from posviz.models import smollm2\nif TYPE_CHECKING:\n    from posviz.models.minilm import PositionTable\n"
    )
    assert upward(bad, tmp_path / "posviz") == ["posviz.models", "posviz.models.minilm"]


def test_ui_never_imports_a_page_or_the_router():
    for path in sorted((ROOT / "ui").glob("*.py")):
        reached = {name.split(".")[0] for name in imports(path)}
        assert not reached & {"app_pages", "router", "shell"}, path


def test_no_app_module_is_over_300_lines():
    app = [
        *sorted((ROOT / "ui").glob("*.py")),
        ROOT / "router.py",
        ROOT / "shell.py",
        *sorted(ROOT.glob("app_pages/*.py")),
    ]
    long = {str(p.relative_to(ROOT)): n for p in app if (n := len(p.read_text().splitlines())) > 300}
    assert long == {}
