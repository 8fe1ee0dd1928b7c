from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from harness import matrix, runner
from harness.options import Options

CELL = matrix.parse('[[cell]]\njax="0.4.38"\njaxlib="0.4.38"\nflax="0.10.2"\npython="3.11"\n')[0]


def read(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def corpus(tmp_path: Path) -> Path:
    folder = tmp_path / "mine"
    folder.mkdir()
    (folder / "test_one.py").write_text("def test_a(): ...\ndef test_b(): ...\n")
    return folder


def test_installer_message_picks_the_reason() -> None:
    uv_output = (
        "  × No solution found when resolving dependencies:\n"  # noqa: RUF001
        "  ╰─▶ Because there is no version of jax==99.0 and you require jax==99.0, we can conclude that your\n"
        "      requirements are unsatisfiable.\n"
    )
    assert runner.installer_message(uv_output).startswith("Because there is no version of jax==99.0")
    assert runner.installer_message("error: No interpreter found for Python 3.99") == (
        "error: No interpreter found for Python 3.99"
    )
    assert runner.installer_message("") == "installer failed without output"


def test_case_paths_builtin_and_folder(tmp_path: Path) -> None:
    paths = runner.case_paths(["builtin", str(corpus(tmp_path))])
    assert all(p.suffix == ".py" and p.parent.name == "cases" for p in paths[:-1])
    assert paths[-1] == tmp_path / "mine"
    with pytest.raises(FileNotFoundError, match="--cases nowhere: no such folder"):
        runner.case_paths(["nowhere"])


def test_expected_cases_from_folder(tmp_path: Path) -> None:
    expected = [("test_one::test_a", "test_one"), ("test_one::test_b", "test_one")]
    assert runner.expected_cases([corpus(tmp_path)]) == expected


def test_record_unrun_writes_every_case_with_pins(tmp_path: Path) -> None:
    opts = Options(out=tmp_path / "out", run_id="r")
    runner.record_unrun(CELL, opts, [corpus(tmp_path)], "install_error", "InstallError", "Because no wheel")
    records = read(tmp_path / "out" / "results" / "r" / f"{CELL.id}.jsonl")
    assert [r["case_id"] for r in records] == ["test_one::test_a", "test_one::test_b"]
    assert {r["status"] for r in records} == {"install_error"}
    assert records[0]["jax"] == "0.4.38" and records[0]["flax"] == "0.10.2" and records[0]["python"] == "3.11"
    assert records[0]["error_message"] == "Because no wheel"


def test_record_unrun_only_missing_keeps_what_was_recorded(tmp_path: Path) -> None:
    opts = Options(out=tmp_path / "out", run_id="r")
    target = tmp_path / "out" / "results" / "r" / f"{CELL.id}.jsonl"
    target.parent.mkdir(parents=True)
    target.write_text(json.dumps({"case_id": "test_one::test_a", "status": "passed"}) + "\n{corrupt\n")
    runner.record_unrun(CELL, opts, [corpus(tmp_path)], "crashed", "CellProcessDied", "killed by SIGSEGV",
                        only_missing=True)
    statuses = [(r.get("case_id"), r.get("status")) for r in map(json.loads, target.read_text().splitlines()[::2])]
    assert statuses == [("test_one::test_a", "passed"), ("test_one::test_b", "crashed")]


def test_record_missing_cells_names_the_interpreter(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    opts = Options(out=tmp_path / "out", run_id="r", cases=[str(corpus(tmp_path))])
    ghost = matrix.parse('[[cell]]\njax="0.4.38"\njaxlib="0.4.38"\nflax="0.10.2"\npython="3.99"\n')[0]
    assert runner.record_missing_cells([ghost], opts) == [ghost.id]
    record = read(tmp_path / "out" / "results" / "r" / f"{ghost.id}.jsonl")[0]
    assert record["status"] == "install_error"
    assert record["error_message"].startswith("interpreter python3.99 not found")


def test_record_missing_cells_leaves_cells_that_ran(tmp_path: Path) -> None:
    opts = Options(out=tmp_path / "out", run_id="r")
    done = tmp_path / "out" / "results" / "r" / f"{CELL.id}.jsonl"
    done.parent.mkdir(parents=True)
    done.write_text("")
    assert runner.record_missing_cells([CELL], opts) == []


def test_exit_description() -> None:
    assert runner.exit_description(-11) == "cell process killed by SIGSEGV"
    assert runner.exit_description(3) == "pytest exited with code 3"


def test_cell_environment_requests_devices_and_cpu(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XLA_FLAGS", "--xla_force_host_platform_device_count=2")
    monkeypatch.setenv("PYTHONPATH", "/somewhere")
    env = runner.cell_environment(CELL, Options(devices=4))
    assert env["XLA_FLAGS"] == "--xla_force_host_platform_device_count=4"
    assert env["JAX_PLATFORMS"] == "cpu" and "PYTHONPATH" not in env
    assert "=8" in runner.cell_environment(CELL, Options())["XLA_FLAGS"]


def test_pytest_command_records_under_run_and_cell(tmp_path: Path) -> None:
    command = runner.pytest_command(CELL, tmp_path, Options(out=tmp_path / "o", run_id="r", workers=2), [tmp_path])
    assert command[:3] == [str(tmp_path / "bin" / "python"), "-m", "pytest"]
    joined = " ".join(command)
    assert f"--shardmatrix-cell {CELL.id}" in joined and "--shardmatrix-run r" in joined and "-n 2" in joined


def test_install_resolves_once_then_syncs_and_skips_an_unchanged_venv(tmp_path: Path) -> None:
    venv = tmp_path / "venv"
    subprocess.run([*runner.uv_command(), "venv", "-q", "-p", sys.executable, str(venv)], check=True)
    tiny = matrix.parse('[[cell]]\njax="0.4.38"\njaxlib="0.4.38"\nflax="0.10.2"\npython="3.11"\n')[0]
    log = tmp_path / "install.log"
    assert runner.install(tiny, venv, log) is None
    assert "pip compile" in log.read_text() and "pip sync" in log.read_text()
    assert list((tmp_path / ".shardmatrix-locks").glob("*.txt"))
    assert runner.install(tiny, venv, log) is None
    assert "nothing to do" in log.read_text()
    fresh = tmp_path / "fresh"
    subprocess.run([*runner.uv_command(), "venv", "-q", "-p", sys.executable, str(fresh)], check=True)
    assert runner.install(tiny, fresh, log) is None
    assert "pip compile" not in log.read_text()  # the lock beside the venvs was reused


def test_install_failure_is_reported_with_uv_reason(tmp_path: Path) -> None:
    venv = tmp_path / "venv"
    subprocess.run([*runner.uv_command(), "venv", "-q", "-p", sys.executable, str(venv)], check=True)
    impossible = matrix.parse('[[cell]]\njax="99.0.0"\njaxlib="99.0.0"\nflax="0.10.2"\npython="3.11"\n')[0]
    message = runner.install(impossible, venv, tmp_path / "install.log")
    assert message is not None and "jax==99.0.0" in message
    assert "jax==99.0.0" in (tmp_path / "install.log").read_text()


def test_infrastructure_problems_pair(tmp_path: Path) -> None:
    opts = Options(out=tmp_path / "out", run_id="r")
    target = tmp_path / "out" / "results" / "r" / f"{CELL.id}.jsonl"
    target.parent.mkdir(parents=True)
    target.write_text(json.dumps({"status": "passed"}) + "\n" + json.dumps({"status": "failed"}) + "\n")
    assert runner.infrastructure_problems([CELL], opts) == []
    with target.open("a") as handle:
        handle.write(json.dumps({"status": "timeout"}) + "\n" + json.dumps({"status": "crashed"}) + "\n")
    assert runner.infrastructure_problems([CELL], opts) == [f"{CELL.id}: 1 crashed, 1 timeout"]


GPU_CELL = matrix.parse('[[cell]]\njax="0.8.3"\njaxlib="0.8.3"\nflax="0.12.3"\npython="3.11"\nbackend="cuda12"\n')[0]


def test_accelerator_cell_uses_real_devices_and_names_its_platform(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("XLA_FLAGS", raising=False)
    env = runner.cell_environment(GPU_CELL, Options(devices=4))
    assert "XLA_FLAGS" not in env and env["JAX_PLATFORMS"] == "cuda,cpu"
    assert runner.devices_for(GPU_CELL, Options(devices=4)) == 0  # the plugin leaves XLA_FLAGS alone


def test_cpu_cell_simulates_devices_on_the_cpu_only(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("XLA_FLAGS", raising=False)
    env = runner.cell_environment(CELL, Options())
    assert env["JAX_PLATFORMS"] == "cpu" and runner.devices_for(CELL, Options()) == 8


def test_tpu_cell_installs_with_libtpu_find_links(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    seen: list[list[str]] = []

    def fake_run(command: list[str], **kwargs: object) -> subprocess.CompletedProcess[str]:
        seen.append([*command, *str(kwargs.get("input") or "").split()])  # pins reach uv pip compile on stdin
        return subprocess.CompletedProcess(command, 0, "", "")

    monkeypatch.setattr(runner.subprocess, "run", fake_run)
    tpu = matrix.parse('[[cell]]\njax="0.8.3"\njaxlib="0.8.3"\nflax="0.12.3"\npython="3.11"\nbackend="tpu"\n')[0]
    assert runner.install(tpu, tmp_path, tmp_path / "log") is None
    compile_tpu, sync_tpu = seen[0], seen[1]
    assert "jax[tpu]==0.8.3" in compile_tpu and matrix.LIBTPU_RELEASES in compile_tpu
    assert matrix.LIBTPU_RELEASES in sync_tpu
    assert runner.install(CELL, tmp_path, tmp_path / "log") is None
    assert all(matrix.LIBTPU_RELEASES not in command for command in seen[2:])
