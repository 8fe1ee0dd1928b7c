from __future__ import annotations

import sys
import types

import pytest

from harness.cell import devices


def test_with_device_count_adds_and_replaces() -> None:
    assert devices.with_device_count("", 8) == "--xla_force_host_platform_device_count=8"
    flags = devices.with_device_count("--xla_dump_to=/tmp --xla_force_host_platform_device_count=2", 8)
    assert flags == "--xla_dump_to=/tmp --xla_force_host_platform_device_count=8"


def test_flagged_count_reads_the_last_count_and_none_without_one() -> None:
    twice = "--xla_force_host_platform_device_count=2 --xla_force_host_platform_device_count=8"
    assert devices.flagged_count(twice) == 8
    assert devices.flagged_count("--xla_dump_to=/tmp") is None


def test_the_module_sets_nothing_and_warns_nothing() -> None:
    # The host asks in the process's environment (harness.host.runner.cell_environment): nothing here may warn, or a
    # project's -Werror turns it into an error.
    assert not hasattr(devices, "request_cpu_devices")


def _jax_with(monkeypatch: pytest.MonkeyPatch, num_cpu_devices: int) -> None:
    fake = types.ModuleType("jax")
    fake.config = types.SimpleNamespace(jax_num_cpu_devices=num_cpu_devices)  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "jax", fake)


def test_the_count_the_host_asked_for_is_not_the_projects(monkeypatch: pytest.MonkeyPatch) -> None:
    _jax_with(monkeypatch, -1)
    monkeypatch.setenv("XLA_FLAGS", "--xla_force_host_platform_device_count=8")
    assert not devices.chosen_by_project(8)


def test_a_project_that_sets_jax_num_cpu_devices_chose_its_own_count(monkeypatch: pytest.MonkeyPatch) -> None:
    _jax_with(monkeypatch, 2)
    monkeypatch.setenv("XLA_FLAGS", "--xla_force_host_platform_device_count=8")
    assert devices.chosen_by_project(8)


def test_a_project_that_rewrote_xla_flags_chose_its_own_count(monkeypatch: pytest.MonkeyPatch) -> None:
    _jax_with(monkeypatch, -1)
    monkeypatch.setenv("XLA_FLAGS", "--xla_force_host_platform_device_count=2")
    assert devices.chosen_by_project(8)


def test_describe_without_jax_gives_nones(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "jax", None)  # makes `import jax` raise ImportError
    assert devices.describe() == {"backend": None, "device_kind": None, "device_count": None}
