"""harness.host.adhoc: the venvs of cells made on the command line."""

from __future__ import annotations

from pathlib import Path

import pytest

from harness.host import adhoc, envbuild, matrix

CELL = matrix.parse('[[cell]]\njax="0.4.38"\njaxlib="0.4.38"\nflax="0.10.2"\npython="3.11"\n')[0]


def test_an_existing_venv_is_taken_as_it_is(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    python = envbuild.venv_python(tmp_path / f"adhoc-{CELL.id}")
    python.parent.mkdir(parents=True)
    python.write_text("")
    monkeypatch.setattr(adhoc.subprocess, "run", lambda *a, **k: pytest.fail("uv was run"))
    assert adhoc.ensure_venv(CELL, tmp_path) == (tmp_path / f"adhoc-{CELL.id}", None)


def test_a_venv_uv_cannot_make_says_why(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    failed = type("Done", (), {"returncode": 2, "stderr": "error: No interpreter found for Python 3.11", "stdout": ""})
    monkeypatch.setattr(adhoc.subprocess, "run", lambda *a, **k: failed())
    venv, problem = adhoc.ensure_venv(CELL, tmp_path)
    assert venv == tmp_path / f"adhoc-{CELL.id}"
    assert problem is not None and problem.startswith("interpreter python3.11: ")
