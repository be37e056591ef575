"""The wheel from scratch: built from this checkout, installed into a fresh venv outside it (dependencies
from PyPI), then `posviz verify` and the example notebook run there against the installed package.

Slow (a venv and a pip install): deselect locally with `-m "not package"`; CI runs it.
"""

import json
import os
import re
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from posviz.experiments.claims import claims

ROOT = Path(__file__).resolve().parents[1]
# Left out of the copy the wheel is built from: a stale build/ or egg-info would hide a packaging mistake.
NOT_SOURCES = shutil.ignore_patterns(
    ".git",
    "build",
    "dist",
    "*.egg-info",
    "__pycache__",
    ".pytest_cache",
    ".ruff_cache",
    ".hypothesis",
    ".benchmarks",
    "venv",
    ".venv",
)
NOTEBOOK = ROOT / "examples" / "posviz_tour.ipynb"

pytestmark = pytest.mark.package


def _clean_env() -> dict[str, str]:
    """This process's environment without anything that would let the checkout leak into the venv."""
    return {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV", "PYTHONHOME")}


def _run(args: list, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([str(a) for a in args], cwd=cwd, env=_clean_env(), capture_output=True, text=True)


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """A fresh venv, outside the checkout, with the wheel built from a clean copy of it (and ipykernel)."""
    base = tmp_path_factory.mktemp("posviz-package")
    assert not base.resolve().is_relative_to(ROOT)
    source, dist, venv, work = base / "source", base / "dist", base / "venv", base / "work"
    work.mkdir()
    shutil.copytree(ROOT, source, ignore=NOT_SOURCES)
    built = _run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--quiet", "--wheel-dir", dist, source], cwd=work)
    assert built.returncode == 0, built.stderr
    (wheel,) = dist.glob("posviz-*.whl")
    made = _run([sys.executable, "-m", "venv", venv], cwd=work)
    assert made.returncode == 0, made.stderr
    python = venv / "bin" / "python"
    pip = _run([python, "-m", "pip", "install", "--quiet", wheel, "ipykernel"], cwd=work)
    assert pip.returncode == 0, pip.stderr
    return {"wheel": wheel, "venv": venv, "python": python, "work": work}


def test_wheel_holds_the_core_and_every_data_file_and_nothing_else(installed):
    names = set(zipfile.ZipFile(installed["wheel"]).namelist())
    packages = {name.split("/")[0] for name in names if not name.startswith("posviz-")}
    assert packages == {"posviz"}
    data = {p.relative_to(ROOT).as_posix() for p in (ROOT / "posviz" / "data").rglob("*") if p.is_file()}
    assert data and data <= names
    modules = {p.relative_to(ROOT).as_posix() for p in (ROOT / "posviz").glob("*.py")}
    assert modules <= names


def test_installed_posviz_verify_prints_the_claims_table_and_exits_0(installed):
    verify = _run([installed["venv"] / "bin" / "posviz", "verify"], cwd=installed["work"])
    assert verify.returncode == 0, verify.stdout + verify.stderr
    lines = verify.stdout.splitlines()
    assert lines[0].split() == ["#", "check", "expected", "expected", "from", "reproduced", "tolerance", "pass"]
    assert lines[-1] == f"{len(claims())} of {len(claims())} claims pass"
    assert sum(line.rstrip().endswith("PASS") for line in lines) >= len(claims())


def test_installed_package_reads_its_own_data_and_tokenizer(installed):
    script = (
        "import posviz, posviz.models.minilm as m; print(posviz.__file__); print(m.DATA);"
        "print(m.load_minilm().position.shape); print(' '.join(m.tokenize('dog bites man').tokens))"
    )
    probe = _run([installed["python"], "-c", script], cwd=installed["work"])
    assert probe.returncode == 0, probe.stderr
    module, data, shape, tokens = probe.stdout.splitlines()
    site = Path(installed["venv"]).resolve()
    assert Path(module).resolve().is_relative_to(site) and Path(data).resolve().is_relative_to(site)
    assert shape == "(512, 384)"
    assert tokens == "[CLS] dog bites man [SEP]"


def test_readme_example_runs_against_the_installed_package(installed):
    section = (ROOT / "README.md").read_text().split("## Use the core in Python or Jupyter")[1].split("\n## ")[0]
    example, figures = re.findall(r"```python\n(.*?)```", section, flags=re.DOTALL)
    checked = figures + "\nfor chart in (engine.style(heatmaps.grid_heatmap(table, title='t', row_title='t', "
    checked += "col_title='d')), before | after):\n    chart.to_dict()  # Altair validates the spec\n"
    drawn = _run([installed["python"], "-c", checked], cwd=installed["work"])
    assert drawn.returncode == 0, drawn.stderr
    run = _run([installed["python"], "-c", example], cwd=installed["work"])
    assert run.returncode == 0, run.stderr
    printed = run.stdout.splitlines()
    assert len(printed) == 3 and printed[2] == "(64, 16)"
    assert float(printed[0]) < 1e-15 and float(printed[1]) == pytest.approx(3.4998, abs=5e-5)  # the comments


def test_example_notebook_runs_against_the_installed_package(installed, tmp_path):
    import nbformat
    from jupyter_client.kernelspec import KernelSpecManager
    from jupyter_client.manager import KernelManager
    from nbclient import NotebookClient

    spec = tmp_path / "kernels" / "posviz-venv"
    spec.mkdir(parents=True)
    argv = [str(installed["python"]), "-m", "ipykernel_launcher", "-f", "{connection_file}"]
    (spec / "kernel.json").write_text(json.dumps({"argv": argv, "display_name": "posviz venv", "language": "python"}))
    kernels = KernelSpecManager(kernel_dirs=[str(spec.parent)])
    manager = KernelManager(kernel_name="posviz-venv", kernel_spec_manager=kernels)
    notebook = nbformat.read(NOTEBOOK, as_version=4)
    client = NotebookClient(notebook, km=manager, timeout=300, resources={"metadata": {"path": str(installed["work"])}})
    client.execute(env=_clean_env())  # raises CellExecutionError if any cell raises
    code = [cell for cell in notebook.cells if cell.cell_type == "code"]
    assert code and all(cell.execution_count for cell in code)
    assert not [o for cell in code for o in cell.outputs if o.output_type == "error"]
    results = [o.data for cell in code for o in cell.outputs if o.output_type == "execute_result"]
    figures = [data for data in results if data["text/plain"].startswith("alt.")]
    assert figures and all("vegaEmbed" in data.get("text/html", "") for data in figures)
