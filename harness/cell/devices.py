"""Simulated devices: requested once per cell process, before anything imports jax."""

from __future__ import annotations

import os
import re
import sys
import warnings

_FLAG = "--xla_force_host_platform_device_count"


def request_cpu_devices(count: int) -> None:
    """Ask XLA for `count` host devices; only works before jax is imported, so warn if it is too late."""
    if "jax" in sys.modules:
        warnings.warn(
            f"jax was imported before shardmatrix could request {count} CPU devices; "
            "the device count is whatever the backend already has",
            stacklevel=2,
        )
        return
    os.environ["XLA_FLAGS"] = with_device_count(os.environ.get("XLA_FLAGS", ""), count)


def with_device_count(xla_flags: str, count: int) -> str:
    """Return XLA_FLAGS with the host device count set to `count`, replacing any earlier value."""
    kept = re.sub(rf"{_FLAG}=\S*", "", xla_flags).split()
    return " ".join([*kept, f"{_FLAG}={count}"])


def describe() -> dict[str, object]:
    """Backend, device kind and device count as jax sees them; None values where jax cannot start. Asked under no
    warning filter of the cases' (a project's -Werror fails its tests, not this question)."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            import jax

            devices = jax.devices()
        return {
            "backend": jax.default_backend(),
            "device_kind": devices[0].device_kind,
            "device_count": len(devices),
        }
    except Exception:
        return {"backend": None, "device_kind": None, "device_count": None}
