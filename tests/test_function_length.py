"""No function of ours is over 60 lines (benchmarks aside, whose figures read top to bottom): a longer one holds a
second story, which a name of its own would tell."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
LIMIT = 60
#: Where our Python lives, benchmarks/ left out.
FOLDERS = ("harness", "reports", "shardmatrix", "cases", "tests", "docs")
TOP_LEVEL = ("noxfile.py", "hatch_build.py")


def sources(root: Path = ROOT) -> list[Path]:
    """Our Python files outside benchmarks/."""
    found = [path for folder in FOLDERS for path in sorted((root / folder).rglob("*.py"))
             if "__pycache__" not in path.parts]
    return found + [root / name for name in TOP_LEVEL if (root / name).is_file()]


def too_long(path: Path, limit: int = LIMIT) -> list[str]:
    """`name:first line (lines)` of each function in `path` longer than `limit` lines, decorators left out."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return [f"{node.name}:{node.lineno} ({node.end_lineno - node.lineno + 1})" for node in ast.walk(tree)
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.end_lineno is not None
            and node.end_lineno - node.lineno + 1 > limit]


def test_no_function_is_over_sixty_lines() -> None:
    found = {str(path.relative_to(ROOT)): long for path in sources() if (long := too_long(path))}
    assert found == {}


@pytest.mark.parametrize(("body_lines", "expected"), [(LIMIT - 1, []), (LIMIT, ["f:1 (61)"])])
def test_the_measure_counts_the_def_line_and_the_body(body_lines: int, expected: list[str], tmp_path: Path) -> None:
    module = tmp_path / "module.py"
    module.write_text("def f():\n" + "    x = 1\n" * body_lines + "\n\nasync def g():\n    pass\n", encoding="utf-8")
    assert too_long(module) == expected
