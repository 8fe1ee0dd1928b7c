"""The jax-side user-style case files: in the shipped corpus, in their family, each case dated to a jax release."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from harness.cell.source import case_files, static_cases

CASES = Path(__file__).resolve().parents[1] / "cases"
USER_FILES = {"sharded_gathers_user.py": "sharded_gathers", "shard_map_modes_user.py": "shard_map_modes"}

# "Changes in jax 0.9.0", "Deprecated in jax 0.10.1", "... warns from jax 0.8.0": a release with all three numbers,
# and the cells that show it.
RELEASE = re.compile(r"\bjax \d+\.\d+\.\d+")

# "Cells: warns 0.8.1 to 0.8.3, fails 0.9.2": the first cell that warns and the first that fails.
WARNS = re.compile(r"\bwarns\D*(\d+(?:\.\d+)+)")
FAILS = re.compile(r"\bfails\D*(\d+(?:\.\d+)+)")


def undated_cases(path: Path) -> list[str]:
    """The test functions of a case file whose docstring names no jax release or no cells that show it."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    undated = []
    for node in tree.body:
        if isinstance(node, ast.FunctionDef) and node.name.startswith("test_"):
            doc = ast.get_docstring(node) or ""
            if not RELEASE.search(doc) or "Cells:" not in doc:
                undated.append(node.name)
    return undated


def _release(text: str) -> tuple[int, ...]:
    return tuple(int(part) for part in text.split("."))


def warned_breaks(path: Path) -> dict[str, tuple[str, str]]:
    """Cases whose docstring's "Cells:" names a cell that warns and a later one that fails: {name: (warns, fails)}."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    breaks = {}
    for node in tree.body:
        if isinstance(node, ast.FunctionDef) and node.name.startswith("test_"):
            cells = (ast.get_docstring(node) or "").partition("Cells:")[2]
            warns, fails = WARNS.search(cells), FAILS.search(cells)
            if warns and fails and _release(warns[1]) < _release(fails[1]):
                breaks[node.name] = (warns[1], fails[1])
    return breaks


def test_a_warning_before_the_break_is_found(tmp_path: Path) -> None:
    path = tmp_path / "warned.py"
    path.write_text(
        'def test_x():\n    """Title.\n\n    Cells: silent in 0.4.30, warns 0.4.38 to 0.7.2, fails 0.8.1."""\n'
    )
    assert warned_breaks(path) == {"test_x": ("0.4.38", "0.8.1")}


def one_case(folder: Path, doc: str) -> Path:
    """A case file holding one case, test_x, whose docstring is `doc`."""
    path = folder / "cases.py"
    path.write_text(f'def test_x():\n    """{doc}"""\n')
    return path


@pytest.mark.parametrize(
    "cells",
    [
        "Cells: passes 0.9.2, fails 0.10.0.",
        "Cells: silent in 0.7.2, warns from 0.8.1.",
        "Cells: fails 0.7.2, warns 0.8.1.",
    ],
)
def test_no_warning_before_a_break_is_not_counted(tmp_path: Path, cells: str) -> None:
    assert warned_breaks(one_case(tmp_path, f"Title.\n\n    {cells}")) == {}


def test_user_cases_show_four_deprecations_before_their_break() -> None:
    # Distinct (first warning, first failure) cell pairs: the make_mesh cases share one deprecation, so count pairs.
    pairs = {pair for name in USER_FILES for pair in warned_breaks(CASES / name).values()}
    assert len(pairs) >= 4, sorted(pairs)


def test_a_dated_case_passes(tmp_path: Path) -> None:
    doc = "Title.\n\n    Changes in jax 0.9.0: ... Cells: passes 0.8.3, fails 0.9.2.\n    "
    assert undated_cases(one_case(tmp_path, doc)) == []


@pytest.mark.parametrize(
    "doc",
    [
        "Title only.",
        "Title.\n\n    Changes in jax 0.9: no patch number. Cells: 0.8.3",
        "Title.\n\n    jax 0.9.0, no cells.",
    ],
)
def test_an_undated_case_is_named(tmp_path: Path, doc: str) -> None:
    assert undated_cases(one_case(tmp_path, doc)) == ["test_x"]


@pytest.mark.parametrize("name", sorted(USER_FILES))
def test_user_file_is_in_the_builtin_corpus(name: str) -> None:
    assert CASES / name in case_files(CASES, builtin=True)


@pytest.mark.parametrize("name", sorted(USER_FILES))
def test_user_cases_declare_their_family(name: str) -> None:
    cases = static_cases(CASES / name)
    assert cases, f"{name} has no cases"
    assert {family for _, family in cases} == {USER_FILES[name]}


@pytest.mark.parametrize("name", sorted(USER_FILES))
def test_user_cases_name_their_release(name: str) -> None:
    assert undated_cases(CASES / name) == []
