"""Cases found by reading source files, without importing them (usable where jax cannot even be installed)."""

from __future__ import annotations

import ast
import functools
from pathlib import Path

#: pytest's default test-file patterns, used for case folders given with --cases.
TEST_FILE_GLOBS = ("test_*.py", "*_test.py")


def parse(path: Path) -> ast.Module:
    """The syntax tree of a Python file, parsed once per content in a process: every cell of a matrix (nox runs them
    as threads of one process) reads the same case files from source, three times each, and parsing them took about
    a second of a cell's host time. The tree is shared: read it, never change it. Raises what reading and ast.parse
    raise."""
    return _parsed(str(path), Path(path).read_text(encoding="utf-8"))


@functools.lru_cache(maxsize=512)
def _parsed(filename: str, text: str) -> ast.Module:
    # Keyed on the text itself, not the file's time stamp: a file edited during a run is parsed anew.
    return ast.parse(text, filename=filename)


def case_files(folder: Path, builtin: bool) -> list[Path]:
    """The files pytest will collect from a folder: every public module of the shipped corpus, else test files."""
    if builtin:
        return sorted(p for p in folder.glob("*.py") if not p.name.startswith("_"))
    found = {p for pattern in TEST_FILE_GLOBS for p in folder.rglob(pattern)}
    return sorted(found)


def static_cases(path: Path) -> list[tuple[str, str | None]]:
    """(pytest name, declared family) of each test function in a module, read from its source alone."""
    try:
        tree = parse(path)
    except (SyntaxError, ValueError):  # not Python text: pytest records its collection error, which stands for it
        return []
    constants = {
        target.id: node.value.value
        for node in tree.body
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Constant)
        and isinstance(node.value.value, str)
        for target in node.targets
        if isinstance(target, ast.Name)
    }
    found: list[tuple[str, str | None]] = []
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name.startswith("test"):
            found.append((node.name, _declared_family(node, constants)))
        elif isinstance(node, ast.ClassDef) and node.name.startswith("Test"):
            for member in node.body:
                if isinstance(member, (ast.FunctionDef, ast.AsyncFunctionDef)) and member.name.startswith("test"):
                    found.append((f"{node.name}::{member.name}", _declared_family(member, constants)))
    return found


def _declared_family(node: ast.FunctionDef | ast.AsyncFunctionDef, constants: dict[str, str]) -> str | None:
    for decorator in node.decorator_list:
        if not isinstance(decorator, ast.Call):
            continue
        func = decorator.func
        name = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else ""
        if name != "case":
            continue
        args = [*decorator.args[:1], *(kw.value for kw in decorator.keywords if kw.arg == "family")]
        for arg in args:
            if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
                return arg.value
            if isinstance(arg, ast.Name) and arg.id in constants:
                return constants[arg.id]
    return None


