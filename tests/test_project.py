"""Project hygiene: lint, and the core's promise never to import streamlit."""

import ast
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.skipif(shutil.which("ruff") is None, reason="ruff is not installed (pip install -r requirements-dev.txt)")
def test_ruff_is_clean():
    lint = subprocess.run(["ruff", "check", str(ROOT)], capture_output=True, text=True, check=False)
    assert lint.returncode == 0, lint.stdout
    fmt = subprocess.run(["ruff", "format", "--check", str(ROOT)], capture_output=True, text=True, check=False)
    assert fmt.returncode == 0, fmt.stdout


def test_core_never_imports_streamlit():
    for path in (ROOT / "posviz").glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else []
            if isinstance(node, ast.ImportFrom):
                names = [node.module or ""]
            assert not any(n.split(".")[0] == "streamlit" for n in names), path
