"""The smoke subset: the cases whose `@case(...)` says `smoke=True`, read from source (nothing is imported).

The subset is data on the cases themselves; `nox -s frontier` runs it in every (jax, flax) pair it probes.
"""

from __future__ import annotations

import ast
from pathlib import Path

from harness.formats import ShardmatrixError
from harness.host import corpus


class SmokeError(ShardmatrixError, ValueError):
    """A corpus with no smoke case, phrased as one line."""


def smoke_nodes(cases: list[str]) -> dict[str, Path]:
    """{case id: pytest node path} of every smoke case in the corpus; SmokeError when there is none."""
    found: dict[str, Path] = {}
    for entry in corpus.case_paths(cases):
        files = [entry] if entry.is_file() else sorted(entry.rglob("*.py"))
        for file in files:
            for name in smoke_tests(file):
                found[f"{file.stem}::{name}"] = Path(f"{file}::{name}")
    if not found:
        raise SmokeError(f"no smoke case in --cases {', '.join(cases)} (mark one per family with @case(..., "
                         "smoke=True))")
    return found


def smoke_tests(path: Path) -> list[str]:
    """Names of the module-level test functions of one file decorated with `case(..., smoke=True)`."""
    try:
        tree = ast.parse(Path(path).read_text(encoding="utf-8"), filename=str(path))
    except (SyntaxError, ValueError) as exc:  # not UTF-8 (a UnicodeDecodeError), a NUL byte, not Python
        raise SmokeError(f"{path}: not a Python module ({type(exc).__name__}: {exc})") from None
    return [node.name for node in tree.body
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name.startswith("test")
            and any(_is_smoke(decorator) for decorator in node.decorator_list)]


def _is_smoke(decorator: ast.expr) -> bool:
    if not isinstance(decorator, ast.Call):
        return False
    func = decorator.func
    name = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else ""
    return name == "case" and any(
        kw.arg == "smoke" and isinstance(kw.value, ast.Constant) and kw.value.value is True
        for kw in decorator.keywords)
