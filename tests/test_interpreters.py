from __future__ import annotations

import sys
from pathlib import Path

from harness.host import interpreters


def fake_pyenv(root: Path, versions: list[str], default: str | None) -> None:
    for version in versions:
        (root / "versions" / version / "bin").mkdir(parents=True)
        (root / "versions" / version / "bin" / "python").write_text("")
    if default:
        (root / "version").write_text(default + "\n")


def test_versions_keep_the_global_default_first(tmp_path: Path) -> None:
    fake_pyenv(tmp_path, ["2.7.18", "3.10.13", "3.11.7", "3.12.1", "3.13.0"], "3.11.7")
    assert interpreters.pyenv_versions(tmp_path) == ["3.11.7", "3.13.0", "3.12.1", "3.10.13"]


def test_expose_lists_every_version_keeping_the_current_choice_first(tmp_path: Path) -> None:
    fake_pyenv(tmp_path, ["3.11.7", "3.12.1"], "3.11.7")
    env = {"PYENV_ROOT": str(tmp_path)}
    assert interpreters.expose_pyenv_versions(env) == "3.11.7:3.12.1"
    assert env["PYENV_VERSION"] == "3.11.7:3.12.1"
    # pyenv's shim sets PYENV_VERSION to one version in the processes it starts: extend, never replace.
    chosen = {"PYENV_ROOT": str(tmp_path), "PYENV_VERSION": "3.12.1"}
    assert interpreters.expose_pyenv_versions(chosen) == "3.12.1:3.11.7"
    complete = {"PYENV_ROOT": str(tmp_path), "PYENV_VERSION": "3.12.1:3.11.7"}
    assert interpreters.expose_pyenv_versions(complete) is None


def test_no_pyenv_no_change(tmp_path: Path) -> None:
    env = {"PYENV_ROOT": str(tmp_path / "absent")}
    assert interpreters.expose_pyenv_versions(env) is None
    assert "PYENV_VERSION" not in env


def test_available_pythons_are_those_uv_finds_without_downloading() -> None:
    finds_only_3_11 = [sys.executable, "-c",
                       "import sys; sys.exit(0 if sys.argv[-2:] == ['--no-python-downloads', '3.11'] else 1)"]
    assert interpreters.available(("3.10", "3.11", "3.12"), uv=finds_only_3_11) == ["3.11"]
