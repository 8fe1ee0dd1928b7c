"""Module names tell modules apart: no two of our modules share a name, and no two names differ by a single letter
(`host/output.py` beside `harness/outputs.py` was read as one module by every newcomer)."""

from __future__ import annotations

from itertools import combinations
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
#: Where our modules live; a package's __init__ and __main__ are named by their folder.
PACKAGES = ("harness", "reports", "shardmatrix")
SPECIAL = {"__init__", "__main__"}


def modules(root: Path = ROOT) -> list[Path]:
    """Our modules, by path relative to `root`."""
    return sorted(path.relative_to(root) for package in PACKAGES for path in (root / package).rglob("*.py")
                  if path.stem not in SPECIAL and "__pycache__" not in path.parts)


def one_letter_apart(a: str, b: str) -> bool:
    """Whether `b` is `a` with one letter added, dropped or changed (equal names count too)."""
    if abs(len(a) - len(b)) > 1:
        return False
    if len(a) == len(b):
        return sum(x != y for x, y in zip(a, b, strict=True)) <= 1
    short, long = sorted((a, b), key=len)
    return any(long[:i] + long[i + 1:] == short for i in range(len(long)))


def confusable(paths: list[Path]) -> list[tuple[str, str]]:
    """Every pair of modules whose names are equal or one letter apart."""
    return [(str(a), str(b)) for a, b in combinations(paths, 2) if one_letter_apart(a.stem, b.stem)]


def test_no_two_modules_share_a_name_or_differ_by_one_letter() -> None:
    assert confusable(modules()) == []


@pytest.mark.parametrize(("a", "b", "expected"), [
    ("matrix", "matrix", True), ("output", "outputs", True), ("source", "sources", True), ("cache", "catch", False),
    ("change", "changes", True), ("frontier", "frontier_render", False), ("runner", "runners", True),
    ("plan", "planned", False), ("grid", "gird", False),
])
def test_one_letter_apart_is_one_letter_added_dropped_or_changed(a: str, b: str, expected: bool) -> None:
    assert one_letter_apart(a, b) is expected


def test_the_check_finds_two_modules_of_one_name(tmp_path: Path) -> None:
    moved = "/".join(("reports", "data", "matrix.py"))  # built from parts: no reader of this text follows it
    for path in ("harness/host/matrix.py", moved, "reports/data/load.py", "shardmatrix/__init__.py",
                 "reports/__init__.py"):
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / path).write_text("", encoding="utf-8")
    assert confusable(modules(tmp_path)) == [("harness/host/matrix.py", moved)]
