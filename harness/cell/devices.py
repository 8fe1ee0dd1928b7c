"""Simulated devices: the host asks for them in the cell process's XLA_FLAGS before its interpreter starts
(harness.host.runner.cell_environment), so a project's conftest, plugin or sitecustomize may import jax first; this
module reads back, after the fact, what the process really has."""

from __future__ import annotations

import os
import re
import sys
import warnings

_FLAG = "--xla_force_host_platform_device_count"


def with_device_count(xla_flags: str, count: int) -> str:
    """Return XLA_FLAGS with the host device count set to `count`, replacing any earlier value."""
    kept = re.sub(rf"{_FLAG}=\S*", "", xla_flags).split()
    return " ".join([*kept, f"{_FLAG}={count}"])


def flagged_count(xla_flags: str) -> int | None:
    """The host device count XLA_FLAGS names (the last one wins, as in XLA), or None where it names none."""
    found = re.findall(rf"{_FLAG}=(\d+)", xla_flags)
    return int(found[-1]) if found else None


def chosen_by_project(asked: int) -> bool:
    """Whether the process chose its own CPU device count over the `asked` one the host put in XLA_FLAGS: jax's
    `jax_num_cpu_devices` set (the harness never sets it; it wins over XLA_FLAGS), or XLA_FLAGS changed in-process."""
    config = getattr(sys.modules.get("jax"), "config", None)
    try:
        own = getattr(config, "jax_num_cpu_devices", -1)
    except Exception:  # a jax too old to know the option may raise anything from its config's __getattr__
        own = -1
    if isinstance(own, int) and not isinstance(own, bool) and own >= 0:
        return True
    return flagged_count(os.environ.get("XLA_FLAGS", "")) != asked


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
