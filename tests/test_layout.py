"""What may import what, read from the source (imports inside functions count, unless a rule says otherwise):

- in-cell: code that runs inside a cell imports nothing of the host side, the tools or pandas;
- harness-above-reports: no module of harness/ imports reports/ at module level (a function-level import, which
  loads pandas only when it runs, is allowed);
- reports-alone: reports/ imports nothing of the harness but its dependency-free modules (DEPENDENCY_FREE).
"""

from __future__ import annotations

import ast
from collections.abc import Callable
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
IN_CELL = sorted([*(ROOT / "harness" / "cell").glob("*.py"), ROOT / "harness" / "case.py",
                  ROOT / "harness" / "change.py", ROOT / "harness" / "vocabulary.py", ROOT / "harness" / "formats.py"])
HARNESS = sorted((ROOT / "harness").rglob("*.py"))
REPORTS = sorted((ROOT / "reports").rglob("*.py"))
#: What reports/ may import of the harness: the modules that import nothing but the standard library (statuses,
#: record fields and paths; how a file is read and written; the results files' reader).
DEPENDENCY_FREE = ("harness.vocabulary", "harness.formats", "harness.results")


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
    return sorted(name for name in imports_of(path)
                  if _in(name, "pandas") or _in(name, "harness.host") or _in(name, "harness.tools"))


def reports_at_module_level(path: Path) -> list[str]:
    """What a module imports of reports/ outside its functions."""
    return sorted(name for name in imports_of(path, module_level=True) if _in(name, "reports"))


def harness_beyond_dependency_free(path: Path) -> list[str]:
    """What a reports/ module imports of the harness beyond its dependency-free modules, anywhere in it."""
    found = imports_of(path)
    allowed = {name for name in found if any(_in(name, free) for free in DEPENDENCY_FREE)}
    # `from harness import vocabulary` names the package and its module: the package alone is no import of more.
    return sorted(name for name in found - allowed if _in(name, "harness")
                  and not (name == "harness" and any(other.startswith("harness.") for other in allowed)))


#: rule: the files it covers, and what it finds wrong in one file.
RULES: dict[str, tuple[list[Path], Callable[[Path], list[str]]]] = {
    "in-cell": (IN_CELL, forbidden_in_cell),
    "harness-above-reports": (HARNESS, reports_at_module_level),
    "reports-alone": (REPORTS, harness_beyond_dependency_free),
}


@pytest.mark.parametrize(("rule", "path"), [(rule, path) for rule, (paths, _) in RULES.items() for path in paths],
                         ids=lambda value: str(value.relative_to(ROOT)) if isinstance(value, Path) else value)
def test_every_module_keeps_to_the_layout(rule: str, path: Path) -> None:
    assert RULES[rule][1](path) == []


#: rule, a module's source, and what the rule finds wrong in it: each rule with a passing and a failing input.
SAMPLES = [
    ("in-cell", "import json\nfrom harness import vocabulary\n", []),
    ("in-cell", "import pandas\n\ndef f():\n    from harness.host import runner\n",
     ["harness.host", "harness.host.runner", "pandas"]),
    ("harness-above-reports", "import reportlab\n\ndef judge():\n    from reports import frontier_judge\n", []),
    ("harness-above-reports", "from reports import thing\nimport reports.stuff\n\ndef f():\n    import reports.x\n",
     ["reports", "reports.stuff", "reports.thing"]),
    ("reports-alone", "from harness import vocabulary, formats\nfrom harness.results import read\nimport harnessed\n",
     []),
    ("reports-alone", "from harness import vocabulary, runner\n\ndef f():\n    import harness.tools.frontier_search\n",
     ["harness.runner", "harness.tools.frontier_search"]),
]


@pytest.mark.parametrize(("rule", "source", "expected"), SAMPLES)
def test_each_rule_finds_exactly_what_breaks_it(rule: str, source: str, expected: list[str], tmp_path: Path) -> None:
    module = tmp_path / "module.py"
    module.write_text(source)
    assert RULES[rule][1](module) == expected
