"""Project hygiene: lint, and the layering: every import in posviz runs downward, none reaches streamlit."""

import ast
import io
import shutil
import subprocess
import sys
import tokenize
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
    "lecture": {"numpy", "pandas", "altair", "redis"},  # redis: rooms_redis only, imported lazily
}
APP = {"streamlit", "ui", "router", "shell", "hall", "app_pages"}


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
        assert not reached & {"app_pages", "router", "shell", "hall"}, path


def test_no_app_module_is_over_300_lines():
    app = [
        *sorted((ROOT / "ui").glob("*.py")),
        ROOT / "router.py",
        ROOT / "shell.py",
        ROOT / "hall.py",
        *sorted(ROOT.glob("app_pages/*.py")),
    ]
    long = {str(p.relative_to(ROOT)): n for p in app if (n := len(p.read_text().splitlines())) > 300}
    assert long == {}


# `# fmt: skip` keeps a data table's aligned rows; everywhere else the formatter decides. A table is an assignment (or
# a pytest.mark.parametrize decorator) whose value is a list, tuple, set or dict display of plain data.
RECORDS = {"dict", "tuple", "frozenset", "float", "int"}


def plain(node: ast.AST) -> bool:
    """Data, not code: constants, names, displays, f-strings, and record constructors (a capitalised type, dict,
    float) over data."""
    match node:
        case ast.Constant() | ast.Name():
            return True
        case ast.Attribute(value=inner) | ast.UnaryOp(operand=inner) | ast.FormattedValue(value=inner):
            return plain(inner)
        case ast.BinOp(left=left, right=right):
            return plain(left) and plain(right)
        case ast.JoinedStr(values=parts) | ast.List(elts=parts) | ast.Tuple(elts=parts) | ast.Set(elts=parts):
            return all(plain(p) for p in parts)
        case ast.Dict(keys=keys, values=values):
            return all(k is not None and plain(k) for k in keys) and all(plain(v) for v in values)
        case ast.Call(func=ast.Name(id=name) | ast.Attribute(attr=name), args=args, keywords=keywords):
            made = name[0].isupper() or name in RECORDS
            return made and plain(node.func) and all(plain(a) for a in [*args, *(k.value for k in keywords)])
    return False


def is_table(node: ast.AST) -> bool:
    """A list, tuple, set or dict display of two or more rows of plain data."""
    rows = node.keys if isinstance(node, ast.Dict) else getattr(node, "elts", [])
    return isinstance(node, ast.List | ast.Tuple | ast.Set | ast.Dict) and len(rows) >= 2 and plain(node)


def table_value(node: ast.AST) -> ast.AST | None:
    """The value a statement or decorator lays out: an assignment's value, a parametrize decorator's cases."""
    if isinstance(node, ast.Assign | ast.AnnAssign):
        return node.value
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "parametrize":
        return node.args[1] if len(node.args) > 1 else None
    return None


def misplaced_skips(path: Path) -> list[int]:
    """The lines of a file whose `# fmt: skip` closes anything but a data table (is_table)."""
    text = path.read_text()
    marked = [
        t.start[0]
        for t in tokenize.generate_tokens(io.StringIO(text).readline)
        if t.type == tokenize.COMMENT and t.string.startswith("# fmt: skip")
    ]
    closed: dict[int, ast.AST] = {}
    for node in ast.walk(ast.parse(text)):
        for part in [node, *getattr(node, "decorator_list", [])] if isinstance(node, ast.stmt) else []:
            closed.setdefault(part.end_lineno, part)  # the outermost statement ending on a line
    return [line for line in marked if not is_table(table_value(closed.get(line)))]


def python_files() -> list[Path]:
    return sorted(p for p in ROOT.rglob("*.py") if not any(part.startswith(".") for part in p.relative_to(ROOT).parts))


def test_fmt_skip_only_keeps_data_tables():
    wrong = [f"{p.relative_to(ROOT)}:{line}" for p in python_files() for line in misplaced_skips(p)]
    assert wrong == [], "fmt: skip on something other than a data table (let ruff format it):\n" + "\n".join(wrong)


def test_the_fmt_skip_check_catches_a_wrapped_call(tmp_path):
    bad = tmp_path / "bad.py"
    bad.write_text(
        'import pytest\nPALETTE = ("#1f77b4", "#ff7f0e",\n           "#2ca02c")  # fmt: skip\n'
        "ROWS = {'a': Row(1, -2.5, f'{X}'), 'b': Row(3, 4.0, 'y')}  # fmt: skip\n"
        "total = sum(a,\n            b)  # fmt: skip\n"
        "@pytest.mark.parametrize(('x', 'y'), [(1, 2), (3, 4)])  # fmt: skip\ndef test_x(x, y):\n"
        "    print('a',\n          'b')  # fmt: skip\n"
        "    rows = [f(x) for x in y]  # fmt: skip\n    call = [g(1), g(2)]  # fmt: skip\n"
    )
    assert misplaced_skips(bad) == [6, 10, 11, 12]
