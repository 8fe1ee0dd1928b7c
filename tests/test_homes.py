"""Where a project's own files live (harness/host/homes.py): outside its tree, one folder per checkout."""

from __future__ import annotations

from pathlib import Path

import pytest

from harness.host import homes


def test_a_projects_files_live_under_the_home_never_in_its_tree(tmp_path: Path) -> None:
    project = tmp_path / "trainer"
    assert homes.out_of(project).is_relative_to(homes.root()) and not homes.out_of(project).is_relative_to(project)
    assert homes.state_of(project).parent == homes.out_of(project).parent == homes.project_home(project)
    assert homes.project_home(project).name.startswith("trainer-")


def test_two_checkouts_of_one_project_have_two_homes(tmp_path: Path) -> None:
    assert homes.project_home(tmp_path / "a" / "trainer") != homes.project_home(tmp_path / "b" / "trainer")
    assert homes.project_home(tmp_path / "a" / "trainer") == homes.project_home(tmp_path / "a" / ".." / "a" / "trainer")


def test_the_home_follows_shardmatrix_home_else_xdg_state_home(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv(homes.HOME_ENV, str(tmp_path / "mine"))
    assert homes.root() == tmp_path / "mine"
    monkeypatch.delenv(homes.HOME_ENV)
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    assert homes.root() == tmp_path / "state" / "shardmatrix"
    monkeypatch.delenv("XDG_STATE_HOME")
    assert homes.root() == Path.home() / ".local" / "state" / "shardmatrix"


def test_a_folder_behind_a_file_is_refused_naming_the_file(tmp_path: Path) -> None:
    (tmp_path / "afile").write_text("x")
    with pytest.raises(homes.HomeError, match=r"^--out .*/afile/out: cannot be made: .*/afile is a file, not a folder"):
        homes.writable(tmp_path / "afile" / "out", "--out")


def test_a_folder_that_can_be_made_is_made(tmp_path: Path) -> None:
    assert homes.writable(tmp_path / "a" / "b", "--out").is_dir()
