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
    with pytest.raises(corpus.CorpusError, match="--cases nowhere: no such folder"):
        corpus.case_paths(["nowhere"])


def test_expected_cases_from_folder(tmp_path: Path) -> None:
    expected = [("test_one::test_a", "test_one"), ("test_one::test_b", "test_one")]
    assert corpus.expected_cases([folder_of_two_cases(tmp_path)]) == expected


def test_one_folder_given_twice_is_one_corpus(tmp_path: Path) -> None:
    folder = str(folder_of_two_cases(tmp_path))
    assert corpus.case_paths([folder, folder]) == [tmp_path / "mine"]


def test_two_case_files_of_one_name_across_folders_are_refused(tmp_path: Path) -> None:
    # Case ids are <file stem>::<test>: two test_one.py would share ids, and one would stand for the other.
    folder_of_two_cases(tmp_path)
    other = tmp_path / "theirs"
    other.mkdir()
    (other / "test_one.py").write_text("def test_a(): ...\n")
    with pytest.raises(corpus.CorpusError) as refused:
        corpus.case_paths([str(tmp_path / "mine"), str(other)])
    message = str(refused.value)
    assert "two case files named test_one.py" in message
    assert str(tmp_path / "mine" / "test_one.py") in message and str(other / "test_one.py") in message
    assert "\n" not in message


def test_two_case_files_of_one_name_in_one_folder_are_refused(tmp_path: Path) -> None:
    folder = folder_of_two_cases(tmp_path)
    (folder / "deeper").mkdir()
    (folder / "deeper" / "test_one.py").write_text("def test_c(): ...\n")
    with pytest.raises(corpus.CorpusError, match=r"two case files named test_one\.py"):
        corpus.case_paths([str(folder)])


def test_expected_cases_of_a_node_id_is_that_one_case(tmp_path: Path) -> None:
    folder = folder_of_two_cases(tmp_path)
    node = Path(f"{folder / 'test_one.py'}::test_b")
    assert corpus.expected_cases([node]) == [("test_one::test_b", "test_one")]
