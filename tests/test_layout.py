"""The two runtimes stay apart: code that runs inside a cell never imports the host side, the tools or pandas
(reports/ importing only the vocabulary is checked in test_reports_build.py)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
IN_CELL = sorted([*(ROOT / "harness" / "cell").glob("*.py"), ROOT / "harness" / "case.py",
                  ROOT / "harness" / "change.py", ROOT / "harness" / "vocabulary.py", ROOT / "harness" / "formats.py",
                  ROOT / "harness" / "results.py", ROOT / "harness" / "outputs.py"])


def imports_of(path: Path) -> set[str]:
    """Every module a file imports, anywhere in it (functions included)."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module:
            found.add(node.module)
            found |= {f"{node.module}.{alias.name}" for alias in node.names}
    return found


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
