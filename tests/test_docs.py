"""The README and docs/ against the tree: the module tables name every module, and every link leads somewhere."""

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
DOCS = ROOT / "docs"
ARCHITECTURE = DOCS / "architecture.md"
# The two commands a newcomer types; .ci/run runs the second one from a clean clone.
COMMANDS = (
    "pip install -r requirements.txt && streamlit run streamlit_app.py",
    "pip install -r requirements-dev.txt && python -m pytest",
)
MODULE = re.compile(r"`((?:posviz|ui)/[\w/]+\.py)`")
LINK = re.compile(r"\]\(([^)#\s]*)(?:#([^)\s]*))?\)")


def tree_modules() -> set[str]:
    """Every module of posviz/ and ui/ as a path from the root; __init__.py only gathers, data/ holds no code."""
    found = set()
    for top in ("posviz", "ui"):
        for path in (ROOT / top).rglob("*.py"):
            rel = path.relative_to(ROOT)
            if path.name != "__init__.py" and "data" not in rel.parts and "__pycache__" not in rel.parts:
                found.add(rel.as_posix())
    return found


def table_modules(text: str) -> set[str]:
    """Every module named in the first backticked path of a table row (the row's own module)."""
    listed = set()
    for line in text.splitlines():
        if line.startswith("|") and (match := MODULE.search(line)):
            listed.add(match.group(1))
    return listed


def test_the_module_tables_list_every_module_of_posviz_and_ui_and_no_other():
    listed, tree = table_modules(ARCHITECTURE.read_text()), tree_modules()
    missing, stale = sorted(tree - listed), sorted(listed - tree)
    assert not missing and not stale, (
        f"docs/architecture.md's module tables are out of date.\n"
        f"  modules with no row (add one: | layer | `path` | purpose |): {missing}\n"
        f"  rows naming no file (rename or remove): {stale}"
    )


def test_table_modules_reads_a_row_and_ignores_prose():
    text = "| maths | `posviz/maths/a.py` | see `ui/b.py` |\nprose `posviz/maths/c.py`\n"
    assert table_modules(text) == {"posviz/maths/a.py"}


def anchors(text: str) -> set[str]:
    """The fragment GitHub gives each heading: lower case, punctuation but - and _ dropped, spaces as hyphens."""
    return {re.sub(r"[^\w\- ]", "", h.strip().lower()).replace(" ", "-") for h in re.findall(r"^#+ (.*)$", text, re.M)}


def test_anchors_follow_githubs_heading_slugs():
    assert anchors("## A class's load (`load_test.py`, `load_protocol.py`)") == {
        "a-classs-load-load_testpy-load_protocolpy"
    }


def test_every_link_in_the_readme_and_docs_leads_to_a_file_and_heading():
    broken = []
    for page in [README, *sorted(DOCS.glob("*.md"))]:
        for target, fragment in LINK.findall(page.read_text()):
            if re.match(r"[a-z]+:", target):
                continue
            file = page.parent / target if target else page
            if not file.exists() or (fragment and fragment not in anchors(file.read_text())):
                broken.append(f"{page.relative_to(ROOT)} -> {target}#{fragment}")
    assert not broken, f"links to missing files or headings: {broken}"


def test_the_readme_links_every_page_of_docs():
    linked = {Path(t).name for t, _ in LINK.findall(README.read_text()) if t.startswith("docs/")}
    unlinked = sorted(p.name for p in DOCS.glob("*.md") if p.name not in linked)
    assert not unlinked, f"docs/ pages the README does not link: {unlinked}"


def test_the_readme_keeps_the_two_commands_and_stays_short():
    lines = README.read_text().splitlines()
    for command in COMMANDS:
        assert command in lines, f"the README lost its command line: {command}"
    assert len(lines) < 400, f"the README is {len(lines)} lines; long material belongs in docs/"
