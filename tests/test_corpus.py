"""harness.host.corpus: what --cases entries resolve to, read from source."""

from __future__ import annotations

from pathlib import Path

import pytest

from harness.host import corpus


def folder_of_two_cases(tmp_path: Path) -> Path:
    folder = tmp_path / "mine"
    folder.mkdir()
    (folder / "test_one.py").write_text("def test_a(): ...\ndef test_b(): ...\n")
    return folder


def test_case_paths_builtin_and_folder(tmp_path: Path) -> None:
    paths = corpus.case_paths(["builtin", str(folder_of_two_cases(tmp_path))])
    assert all(p.suffix == ".py" and p.parent.name == "cases" for p in paths[:-1])
    assert paths[-1] == tmp_path / "mine"
    with pytest.raises(FileNotFoundError, match="--cases nowhere: no such folder"):
        corpus.case_paths(["nowhere"])


def test_expected_cases_from_folder(tmp_path: Path) -> None:
    expected = [("test_one::test_a", "test_one"), ("test_one::test_b", "test_one")]
    assert corpus.expected_cases([folder_of_two_cases(tmp_path)]) == expected
