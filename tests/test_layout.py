"""What may import what: code that runs inside a cell never imports the host side, the tools or pandas; the harness
never imports reports/ at module level; reports/ imports nothing of the harness but its dependency-free modules."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
IN_CELL = sorted([*(ROOT / "harness" / "cell").glob("*.py"), ROOT / "harness" / "case.py",
                  ROOT / "harness" / "change.py", ROOT / "harness" / "vocabulary.py", ROOT / "harness" / "formats.py"])


def imports_of(path: Path, module_level: bool = False) -> set[str]:
    """Every module a file imports, anywhere in it (functions included), or only outside functions; a `from a import
    b` counts as both `a` and `a.b`, as b may be a module."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    inside = {id(node) for function in ast.walk(tree) if isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef))
              for node in ast.walk(function)} if module_level else set()
    found: set[str] = set()
    for node in ast.walk(tree):
        if id(node) in inside:
            continue
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            found.add(node.module)
            found |= {f"{node.module}.{alias.name}" for alias in node.names}
    return found


def _in(name: str, package: str) -> bool:
    return name == package or name.startswith(f"{package}.")


def forbidden_in_cell(path: Path) -> list[str]:
    """What an in-cell module imports that does not exist in a cell: the host side, the tools, pandas."""
    return [name for name in imports_of(path)
            if name.split(".")[0] == "pandas" or name.startswith(("harness.host", "harness.tools"))]


@pytest.mark.parametrize("path", IN_CELL, ids=lambda p: str(p.relative_to(ROOT)))
def test_in_cell_code_imports_nothing_from_the_host_the_tools_or_pandas(path: Path) -> None:
    assert not forbidden_in_cell(path)


def test_the_layout_check_catches_an_in_cell_import_of_the_host(tmp_path: Path) -> None:
    bad = tmp_path / "bad.py"
    bad.write_text("import pandas\n\ndef f():\n    from harness.host import runner\n")
    assert sorted(forbidden_in_cell(bad)) == ["harness.host", "harness.host.runner", "pandas"]


# --- the harness and reports/ -----------------------------------------------------------------------------------

HARNESS = sorted((ROOT / "harness").rglob("*.py"))
REPORTS = sorted((ROOT / "reports").rglob("*.py"))
#: What reports/ may import of the harness: the modules that import nothing but the standard library (statuses,
#: record fields and paths; how a file is read and written; the results files' reader).
DEPENDENCY_FREE = ("harness.vocabulary", "harness.formats", "harness.results")


def reports_at_module_level(path: Path) -> list[str]:
    """What a module imports of reports/ outside its functions (a function-level import loads pandas only when run)."""
    return sorted(name for name in imports_of(path, module_level=True) if _in(name, "reports"))


def harness_beyond_dependency_free(path: Path) -> list[str]:
    """What a reports/ module imports of the harness beyond its dependency-free modules, anywhere in it."""
    found = imports_of(path)
    allowed = {name for name in found if any(_in(name, free) for free in DEPENDENCY_FREE)}
    # `from harness import vocabulary` names the package and its module: the package alone is no import of more.
    return sorted(name for name in found - allowed if _in(name, "harness")
                  and not (name == "harness" and any(other.startswith("harness.") for other in allowed)))


@pytest.mark.parametrize("path", HARNESS, ids=lambda p: str(p.relative_to(ROOT)))
def test_no_harness_module_imports_reports_at_module_level(path: Path) -> None:
    assert not reports_at_module_level(path)


def test_the_check_catches_a_module_level_import_of_reports_and_allows_one_in_a_function(tmp_path: Path) -> None:
    bad = tmp_path / "bad.py"
    bad.write_text("from reports import compat\nimport reports.load as load\n\ndef f():\n    import reports.matrix\n")
    assert reports_at_module_level(bad) == ["reports", "reports.compat", "reports.load"]
    good = tmp_path / "good.py"
    good.write_text("import reportlab\n\ndef judge():\n    from reports import frontier_judge\n")
    assert reports_at_module_level(good) == []


@pytest.mark.parametrize("path", REPORTS, ids=lambda p: str(p.relative_to(ROOT)))
def test_reports_imports_nothing_of_the_harness_but_its_dependency_free_modules(path: Path) -> None:
    assert not harness_beyond_dependency_free(path)


def test_the_check_catches_an_import_of_the_harness_beyond_its_dependency_free_modules(tmp_path: Path) -> None:
    good = tmp_path / "good.py"
    good.write_text("from harness import vocabulary, formats\nfrom harness.results import read\nimport harnessed\n")
    assert harness_beyond_dependency_free(good) == []
    bad = tmp_path / "bad.py"
    bad.write_text("from harness import vocabulary, runner\n\ndef f():\n    import harness.tools.frontier_search\n")
    assert harness_beyond_dependency_free(bad) == ["harness.runner", "harness.tools.frontier_search"]
