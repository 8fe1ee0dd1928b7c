from __future__ import annotations

import json
from pathlib import Path

import pytest

from harness.host import cache, matrix, runner
from harness.host.options import Options
from harness.vocabulary import done_path, log_path, results_path

SETTINGS = {"devices": 8, "backend": "cpu", "timeout": 300.0, "reruns": 1, "hard_grace": 10.0}
CELL = matrix.parse('[[cell]]\njax="0.4.38"\njaxlib="0.4.38"\nflax="0.10.2"\npython="3.11"\n')[0]


def cases_folder(tmp_path: Path) -> Path:
    folder = tmp_path / "cases"
    folder.mkdir()
    (folder / "test_a.py").write_text("def test_a(): ...\n")
    return folder


def test_fingerprint_is_stable_and_sees_every_input(tmp_path: Path) -> None:
    folder = cases_folder(tmp_path)
    base = cache.fingerprint("jax==0.4.38\n", "3.11.7", [folder], SETTINGS)
    assert base == cache.fingerprint("jax==0.4.38\n", "3.11.7", [folder], SETTINGS)
    assert base != cache.fingerprint("jax==0.4.37\n", "3.11.7", [folder], SETTINGS)
    assert base != cache.fingerprint("jax==0.4.38\n", "3.12.1", [folder], SETTINGS)
    assert base != cache.fingerprint("jax==0.4.38\n", "3.11.7", [folder], {**SETTINGS, "devices": 4})
    (folder / "test_a.py").write_text("def test_a(): assert False\n")
    assert base != cache.fingerprint("jax==0.4.38\n", "3.11.7", [folder], SETTINGS)


def test_find_and_reuse_pair(tmp_path: Path) -> None:
    out = tmp_path / "out"
    old = results_path(out, "r1", "c")
    old.parent.mkdir(parents=True)
    old.write_text(json.dumps({"run_id": "r1", "case_id": "m::t", "status": "passed"}) + "\n{torn\n")
    done_path(out, "r1", "c").write_text(json.dumps({"fingerprint": "k", "returncode": 1}))
    (old.with_suffix("") / "cases").mkdir(parents=True)
    (old.with_suffix("") / "cases" / "fam.py").write_text("def test_t(): ...\n")
    assert cache.find(out, "c", "other-key", "r2") is None
    hit = cache.find(out, "c", "k", "r2")
    assert hit is not None and hit.run_id == "r1"
    target = results_path(out, "r2", "c")
    assert cache.reuse(hit, target, "r2") == 1
    assert json.loads(target.read_text()) == {"run_id": "r2", "case_id": "m::t", "status": "passed"}
    assert (target.with_suffix("") / "cases" / "fam.py").exists()  # reproducers of r2 find the case source


def test_interrupted_run_is_never_a_hit(tmp_path: Path) -> None:
    out = tmp_path / "out"
    results_path(out, "r1", "c").parent.mkdir(parents=True)
    results_path(out, "r1", "c").write_text("")
    assert cache.find(out, "c", "k", "r2") is None  # no done marker: interrupted


def test_runner_reuses_unchanged_cell_and_force_reruns(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    ran: list[str] = []
    monkeypatch.setattr(runner, "install", lambda *a, **k: None)
    monkeypatch.setattr(runner, "freeze", lambda venv, dest: "jax==0.4.38\n")

    def fake_run(cell, venv, options, paths, fingerprint=None, started=None):  # type: ignore[no-untyped-def]
        ran.append(options.run_id)
        target = results_path(options.out, options.run_id, cell.id)
        target.parent.mkdir(parents=True, exist_ok=True)
        record = {"run_id": options.run_id, "case_id": "test_a::test_a", "status": "passed"}
        target.write_text(json.dumps(record) + "\n")
        runner.finish(cell, options, 0, fingerprint=fingerprint)
        return 0

    monkeypatch.setattr(runner, "run_installed", fake_run)
    folder = str(cases_folder(tmp_path))
    runner.run(CELL, tmp_path, Options(out=tmp_path / "out", run_id="r1", cases=[folder]))
    runner.run(CELL, tmp_path, Options(out=tmp_path / "out", run_id="r2", cases=[folder]))
    assert ran == ["r1"]
    said = capsys.readouterr().out.splitlines()
    assert said[-1].startswith(f"{CELL.id}: 1/1 cases, ")
    assert ", reused from run r1 (--force reruns): 1 passed (log: " in said[-1]
    assert "its output is in" in log_path(tmp_path / "out", "r2", CELL.id).read_text()
    marker = json.loads(done_path(tmp_path / "out", "r2", CELL.id).read_text())
    assert marker["reused_from"] == "r1"
    record = json.loads(results_path(tmp_path / "out", "r2", CELL.id).read_text())
    assert record["run_id"] == "r2"
    runner.run(CELL, tmp_path, Options(out=tmp_path / "out", run_id="r3", cases=[folder], force=True))
    assert ran == ["r1", "r3"]
