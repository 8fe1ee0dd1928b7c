"""harness.host.runner: the pytest command and environment of a cell."""

from __future__ import annotations

from pathlib import Path

import pytest

from harness.host import matrix, runner
from harness.host.options import Options

GPU_CELL = matrix.parse('[[cell]]\njax="0.8.3"\njaxlib="0.8.3"\nflax="0.12.3"\npython="3.11"\nbackend="cuda12"\n')[0]
CELL = matrix.parse('[[cell]]\njax="0.4.38"\njaxlib="0.4.38"\nflax="0.10.2"\npython="3.11"\n')[0]


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


def test_accelerator_cell_uses_real_devices_and_names_its_platform(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("XLA_FLAGS", raising=False)
    env = runner.cell_environment(GPU_CELL, Options(devices=4))
    assert "XLA_FLAGS" not in env and env["JAX_PLATFORMS"] == "cuda,cpu"
    assert runner.devices_for(GPU_CELL, Options(devices=4)) == 0  # the plugin leaves XLA_FLAGS alone


def test_cpu_cell_simulates_devices_on_the_cpu_only(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("XLA_FLAGS", raising=False)
    env = runner.cell_environment(CELL, Options())
    assert env["JAX_PLATFORMS"] == "cpu" and runner.devices_for(CELL, Options()) == 8
