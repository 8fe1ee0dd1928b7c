"""harness.cell.stack: the stack a cell runs on, asked of jax, then nvidia-smi, with jax's settings."""

from __future__ import annotations

from pathlib import Path

import pytest

from harness.cell import stack

ENVIRONMENT = Path(__file__).parent / "data" / "h200-2026-11-26" / "environment.txt"


def test_a_plugin_of_jaxlib_s_version_is_no_mismatch() -> None:
    found = {"jax": "0.11.2", "jaxlib": "0.11.2", "jax-cuda13-plugin": "0.11.2", "jax-cuda13-pjrt": "0.11.2"}
    assert stack.mismatched(found) == []


def test_a_plugin_of_another_version_than_jaxlib_is_named() -> None:
    found = {"jax": "0.11.2", "jaxlib": "0.11.2", "jax-cuda13-plugin": "0.11.1", "jax-cuda13-pjrt": "0.11.2"}
    assert stack.mismatched(found) == ["jax-cuda13-plugin"]


def test_jax_and_xla_settings_are_kept() -> None:
    environ = {"XLA_FLAGS": "--xla_force_host_platform_device_count=8", "XLA_PYTHON_CLIENT_PREALLOCATE": "false",
               "JAX_DEFAULT_MATMUL_PRECISION": "highest", "JAX_ENABLE_X64": "1"}
    assert stack.settings(environ) == dict(sorted(environ.items()))


def test_other_variables_are_left_out() -> None:
    assert stack.settings({"HOME": "/root", "XLA_FLAGSX": "x", "MY_JAX_THING": "1", "PATH": "/bin"}) == {}


def test_the_h200_s_nvidia_smi_line_reads_as_its_fields() -> None:
    # The query's answer as environment.txt recorded it on the H200 (its header line dropped, as noheader does).
    text = ENVIRONMENT.read_text(encoding="utf-8")
    line = next(line for line in text.splitlines() if line.startswith("NVIDIA H200,"))
    assert stack.parse_nvidia_smi(line) == [{"name": "NVIDIA H200", "driver_version": "580.159.04",
                                             "memory_total": "143771 MiB", "compute_cap": "9.0"}]


def test_no_nvidia_smi_reads_as_none(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(stack.shutil, "which", lambda name: None)
    assert stack.nvidia_smi() is None and stack.parse_nvidia_smi("\n") == []


def test_a_process_without_jax_still_describes_its_settings(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("JAX_DEFAULT_MATMUL_PRECISION", "highest")
    described = stack.describe()
    assert described["settings"]["JAX_DEFAULT_MATMUL_PRECISION"] == "highest"
    assert set(described) == {"jax", "nvidia_smi", "settings", "x64", "matmul_precision"}
