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


HOLD = """
import sys, time
from pathlib import Path
from harness.host import adhoc
with adhoc.held(Path(sys.argv[1]), say=lambda line: None):
    print("held", flush=True)
    time.sleep(float(sys.argv[2]))
"""


def test_a_second_run_of_the_same_cell_waits_for_the_first_and_says_so(tmp_path: Path) -> None:
    import subprocess
    import sys
    import time

    venv = tmp_path / f"adhoc-{CELL.id}"
    first = subprocess.Popen([sys.executable, "-c", HOLD, str(venv), "1.5"], stdout=subprocess.PIPE, text=True)
    assert first.stdout is not None and first.stdout.readline() == "held\n"
    said: list[str] = []
    started = time.monotonic()
    with adhoc.held(venv, say=said.append):
        waited = time.monotonic() - started
    first.wait(timeout=30)
    assert waited > 0.5 and said == [f"adhoc-{CELL.id}: another run is using this cell's venv; waiting for it"]


def test_a_run_alone_holds_its_venv_at_once_and_says_nothing(tmp_path: Path) -> None:
    said: list[str] = []
    with adhoc.held(tmp_path / f"adhoc-{CELL.id}", say=said.append):
        pass
    with adhoc.held(tmp_path / f"adhoc-{CELL.id}", say=said.append):  # released: held again at once
        pass
    assert said == []
