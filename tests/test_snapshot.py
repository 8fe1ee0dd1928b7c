"""Keeping case sources beside results."""

from __future__ import annotations

from pathlib import Path

from harness.cell.snapshot import snapshot
from harness.cellrecord import CellFiles


def test_a_case_file_brings_its_folder_and_a_node_id_its_file(tmp_path: Path) -> None:
    corpus = tmp_path / "cases"
    corpus.mkdir()
    for name in ("a.py", "_support.py", "__init__.py", "notes.txt"):
        (corpus / name).write_text("x = 1\n")
    target = CellFiles(tmp_path / "out", "r1", "cell").sources
    copied = snapshot([f"{corpus / 'a.py'}::test_x"], target)
    assert sorted(p.name for p in copied) == ["_support.py", "a.py"]
    assert target == tmp_path / "out" / "results" / "r1" / "cell" / "cases"


def test_a_folder_brings_its_tree_and_the_first_of_a_name_wins(tmp_path: Path) -> None:
    (tmp_path / "mine" / "deep").mkdir(parents=True)
    (tmp_path / "mine" / "test_a.py").write_text("first\n")
    (tmp_path / "mine" / "deep" / "test_a.py").write_text("second\n")
    target = tmp_path / "kept"
    snapshot([str(tmp_path / "mine")], target)
    assert (target / "test_a.py").read_text() in ("first\n", "second\n")
    assert [p.name for p in target.iterdir()] == ["test_a.py"]
