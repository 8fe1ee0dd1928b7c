from __future__ import annotations

import sys

import pytest

from harness.cell import devices


def test_with_device_count_adds_and_replaces() -> None:
    assert devices.with_device_count("", 8) == "--xla_force_host_platform_device_count=8"
    flags = devices.with_device_count("--xla_dump_to=/tmp --xla_force_host_platform_device_count=2", 8)
    assert flags == "--xla_dump_to=/tmp --xla_force_host_platform_device_count=8"


def test_request_sets_flags_before_jax_import(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delitem(sys.modules, "jax", raising=False)
    monkeypatch.setenv("XLA_FLAGS", "")
    devices.request_cpu_devices(4)
    import os

    assert os.environ["XLA_FLAGS"] == "--xla_force_host_platform_device_count=4"


def test_request_after_jax_import_warns_and_leaves_flags(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "jax", object())
    monkeypatch.setenv("XLA_FLAGS", "")
    with pytest.warns(UserWarning, match="jax was imported before"):
        devices.request_cpu_devices(4)
    import os

    assert os.environ["XLA_FLAGS"] == ""


def test_describe_without_jax_gives_nones(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "jax", None)  # makes `import jax` raise ImportError
    assert devices.describe() == {"backend": None, "device_kind": None, "device_count": None}
