"""Every module path a docstring, a comment or a docs page names resolves: the docstrings are how one finds one's way
in this codebase, so a room that moved must not be named where it used to be."""

from __future__ import annotations

import ast
import io
import re
import tokenize
from collections.abc import Iterator
from functools import cache
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

#: A file path under one of the project's folders, as prose writes it ("reports/verdicts/compare.py").
PATH_REFERENCE = re.compile(
    r"(?<![\w./-])((?:harness|reports|cases|tests|benchmarks|docs)/[\w./-]*\w\.(?:py|toml|md|json))"
)
#: The same in a docs page, where `tests/...` may be another project's test file (the ecosystem list names them).
PAGE_PATH_REFERENCE = re.compile(
    r"(?<![\w./-])((?:harness|reports|cases|benchmarks|docs)/[\w./-]*\w\.(?:py|toml|md|json))"
)
#: A dotted module path of ours ("reports.verdicts.documented.label"): a module, then at most one name in it is checked.
DOTTED_REFERENCE = re.compile(r"(?<![\w./-])((?:harness|reports)(?:\.[A-Za-z_]\w*)+)")
#: Folders that hold no prose of ours (environments, builds) and the history, which names rooms as they were then.
SKIPPED_PARTS = {".venv", ".nox", ".git", "site", "build", "dist", "out", "node_modules"}
SKIPPED_FILES = {"CHANGELOG.md"}


def prose_lines(path: Path) -> Iterator[tuple[int, str]]:
    """(line number, text) of a file's prose: every line of a Markdown page; a Python file's comments and docstrings."""
    text = path.read_text(encoding="utf-8")
    if path.suffix == ".md":
        yield from enumerate(text.splitlines(), 1)
        return
    for token in tokenize.generate_tokens(io.StringIO(text).readline):
        if token.type == tokenize.COMMENT:
            yield token.start[0], token.string
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            docstring = ast.get_docstring(node, clean=False)
            if docstring:
                first = node.body[0].lineno
                yield from ((first + offset, line) for offset, line in enumerate(docstring.splitlines()))


def references(line: str, page: bool = False) -> list[str]:
    """The file paths and dotted module paths of ours a line of prose names (`page`: a line of a docs page)."""
    found = [match.group(1) for match in (PAGE_PATH_REFERENCE if page else PATH_REFERENCE).finditer(line)]
    return found + [match.group(1) for match in DOTTED_REFERENCE.finditer(line)]


def _module_file(root: Path, parts: list[str]) -> Path | None:
    base = root.joinpath(*parts)
    for candidate in (base.with_suffix(".py"), base / "__init__.py"):
        if candidate.is_file():
            return candidate
    return None


@cache
def _top_level_names(module: Path) -> frozenset[str]:
    names: set[str] = set()
    for node in ast.walk(ast.parse(module.read_text(encoding="utf-8"))):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, ast.Assign):
            names.update(n.id for target in node.targets for n in ast.walk(target) if isinstance(n, ast.Name))
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names.add(node.target.id)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names.update((alias.asname or alias.name).split(".")[0] for alias in node.names)
    return frozenset(names)


def resolves(reference: str, root: Path = ROOT) -> bool:
    """Whether a reference names a file that exists, or a module of ours (and, if it goes on, a name defined in it)."""
    if "/" in reference:
        return (root / reference).exists()
    parts = reference.split(".")
    for length in range(len(parts), 0, -1):
        module = _module_file(root, parts[:length])
        if module is not None:
            return length == len(parts) or parts[length] in _top_level_names(module)
    return False


def _prose_files(root: Path) -> Iterator[Path]:
    for pattern in ("*.py", "*.md"):
        for path in sorted(root.rglob(pattern)):
            if SKIPPED_PARTS.isdisjoint(path.relative_to(root).parts) and path.name not in SKIPPED_FILES:
                yield path


#: Rooms that do not exist, built from parts so that a reader of this file's text follows no such name.
MOVED_FILE, OLD_FILE = "reports/" + "compare.py", "reports/" + "old.py"


def test_a_path_that_exists_resolves_and_a_moved_one_does_not():
    assert resolves("reports/verdicts/compare.py")
    assert not resolves(MOVED_FILE)


def test_a_dotted_module_and_a_name_in_it_resolve_and_a_moved_or_missing_one_does_not():
    assert resolves("reports.verdicts.documented")
    assert resolves("reports.verdicts.documented.label")
    assert not resolves("reports.changes.label")
    assert not resolves("reports.verdicts.documented.no_such_name")


def test_a_page_names_another_projects_test_files_without_claiming_them():
    assert references("haliax's `tests/test_partitioning.py`", page=True) == []
    assert references("haliax's `tests/test_partitioning.py`") == ["tests/test_partitioning.py"]
    assert references(f"see `{MOVED_FILE}`", page=True) == [MOVED_FILE]


def test_references_are_read_from_comments_and_docstrings_not_code(tmp_path):
    module = tmp_path / "sample.py"
    module.write_text(
        '"""Drawn by reports/views/grid.py."""\n'
        "# decided in reports.compat\n"
        f'PATH = "{OLD_FILE}"  # a string in code is not prose\n'
    )
    found = {(number, ref) for number, line in prose_lines(module) for ref in references(line)}
    assert found == {(1, "reports/views/grid.py"), (2, "reports.compat")}


def test_every_module_path_named_in_prose_resolves():
    unresolved = [
        f"{path.relative_to(ROOT)}:{number}: {reference}"
        for path in _prose_files(ROOT)
        for number, line in prose_lines(path)
        for reference in references(line, page=path.suffix == ".md")
        if not resolves(reference.rstrip("."))
    ]
    assert not unresolved, "prose names rooms that do not exist:\n" + "\n".join(unresolved)
