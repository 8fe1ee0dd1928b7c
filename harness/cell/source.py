"""Cases found by reading source files, without importing them (usable where jax cannot even be installed)."""

from __future__ import annotations

import ast
import configparser
import functools
import sys
from pathlib import Path

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10 cells
    import tomli as tomllib

#: pytest's default test-file patterns, used for case folders given with --cases.
TEST_FILE_GLOBS = ("test_*.py", "*_test.py")
#: pytest's configuration files, in the order it reads them in one folder, with the section that holds its options.
PYTEST_INI = (("pytest.ini", "pytest"), ("pyproject.toml", "tool.pytest.ini_options"), ("tox.ini", "pytest"),
              ("setup.cfg", "tool:pytest"))


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
    """The files pytest will collect from a folder: every public module of the shipped corpus, else the files its
    `python_files` names (test files by default)."""
    if builtin:
        return sorted(p for p in folder.glob("*.py") if not p.name.startswith("_"))
    found = {p for pattern in file_globs(folder) for p in folder.rglob(pattern)}
    return sorted(found)


def file_globs(folder: Path) -> tuple[str, ...]:
    """The `python_files` of the pytest configuration that governs a folder: the first configuration file found in
    it or above it, as pytest finds its rootdir's; pytest's default where that file sets none or none is found.
    A folder whose pytest.ini collects `*.py` declares its changes in every module, not only in test_*.py."""
    for place in (folder.resolve(), *folder.resolve().parents):
        for name, section in PYTEST_INI:
            options = _pytest_options(place / name, section)
            if options is not None:
                globs = options.get("python_files")
                named = globs.split() if isinstance(globs, str) else globs if isinstance(globs, list) else []
                return tuple(str(glob) for glob in named) or TEST_FILE_GLOBS
    return TEST_FILE_GLOBS


def _pytest_options(path: Path, section: str) -> dict[str, object] | None:
    """pytest's options in one file, or None when the file is absent or holds no pytest section (pytest reads on)."""
    if not path.is_file():
        return None
    try:
        if path.suffix == ".toml":
            table: object = tomllib.loads(path.read_text(encoding="utf-8"))
            for key in section.split("."):
                table = table.get(key) if isinstance(table, dict) else None
            return table if isinstance(table, dict) else None
        parser = configparser.ConfigParser(interpolation=None)
        parser.read(path, encoding="utf-8")
    except (OSError, ValueError, configparser.Error):
        return None
    # pytest.ini is pytest's even with an empty [pytest] section, or none.
    if not parser.has_section(section):
        return {} if path.name == "pytest.ini" else None
    return dict(parser.items(section))


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


