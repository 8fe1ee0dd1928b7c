"""The stack a cell runs on, asked once per cell: jax first (devices, their compute capability and memory, the plugin
and pjrt distributions against jaxlib), nvidia-smi second (driver, model), and the settings that change what jax
computes (XLA_FLAGS, XLA_PYTHON_CLIENT_*, JAX_*, x64, the default matmul precision). harness.celldocuments writes it."""

from __future__ import annotations

import importlib.metadata
import os
import re
import shutil
import subprocess
import warnings
from collections.abc import Mapping
from typing import Any

from harness import vocabulary

#: Distributions that carry jax's compiled backends; each must be jaxlib's version, or jax may not load it.
_BACKEND_DISTRIBUTION = re.compile(r"^(jax[-_](cuda|rocm)\d*[-_](plugin|pjrt)|libtpu.*)$", re.I)
#: The environment variables that change how jax and XLA compute or allocate.
_SETTING = re.compile(r"^(XLA_FLAGS|XLA_PYTHON_CLIENT_\w+|JAX_\w+)$")
_NVIDIA_SMI_FIELDS = ("name", "driver_version", "memory.total", "compute_cap")


def distributions() -> dict[str, str]:
    """The versions of jax, jaxlib and every installed plugin or pjrt distribution, by distribution name."""
    found: dict[str, str] = {}
    for dist in importlib.metadata.distributions():
        name = dist.metadata["Name"] or ""
        if name.lower() in ("jax", "jaxlib") or _BACKEND_DISTRIBUTION.match(name):
            found[name.lower().replace("_", "-")] = dist.version
    return dict(sorted(found.items()))


def mismatched(found: Mapping[str, str]) -> list[str]:
    """The plugin and pjrt distributions whose version is not jaxlib's (harness.vocabulary's rule; none without a
    jaxlib, which the health check reports)."""
    return vocabulary.plugin_mismatches(found) if found.get("jaxlib") else []


def settings(environ: Mapping[str, str]) -> dict[str, str]:
    """XLA_FLAGS, XLA_PYTHON_CLIENT_* and JAX_* as the cell's process has them."""
    return {name: value for name, value in sorted(environ.items()) if _SETTING.match(name)}


def parse_nvidia_smi(text: str) -> list[dict[str, str]]:
    """`nvidia-smi --query-gpu=name,driver_version,memory.total,compute_cap --format=csv,noheader` as one row per
    GPU."""
    keys = [field.replace(".", "_") for field in _NVIDIA_SMI_FIELDS]
    return [dict(zip(keys, (part.strip() for part in line.split(",")), strict=False))
            for line in text.splitlines() if line.strip()]


def nvidia_smi() -> list[dict[str, str]] | None:
    """What nvidia-smi says of each GPU; None where it is absent or fails."""
    command = shutil.which("nvidia-smi")
    if command is None:
        return None
    try:
        done = subprocess.run([command, f"--query-gpu={','.join(_NVIDIA_SMI_FIELDS)}", "--format=csv,noheader"],
                              capture_output=True, text=True, timeout=30, check=False)
    except (OSError, subprocess.SubprocessError):
        return None
    return parse_nvidia_smi(done.stdout) if done.returncode == 0 else None


def _device(device: Any) -> dict[str, Any]:
    """One device as jax describes it: kind, compute capability (a GPU's), memory statistics (where kept)."""
    try:
        memory = device.memory_stats()
    except Exception:  # a backend without memory statistics raises, in one way or another
        memory = None
    capability = getattr(device, "compute_capability", None)
    return {"kind": getattr(device, "device_kind", None),
            "compute_capability": str(capability) if capability is not None else None,
            "memory_stats": {str(k): v for k, v in memory.items() if isinstance(v, int | float)}
            if isinstance(memory, dict) else None}


def describe() -> dict[str, Any]:
    """The stack, as machine.json holds it (harness.celldocuments.MACHINE_SCHEMA_VERSION); what cannot be asked is
    null."""
    found = distributions()
    stack: dict[str, Any] = {
        "jax": {"backend": None, "devices": [], "distributions": found, "mismatched": mismatched(found)},
        "nvidia_smi": nvidia_smi(),
        "settings": settings(os.environ),
        "x64": None,
        "matmul_precision": None,
    }
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            import jax

            stack["jax"]["backend"] = jax.default_backend()
            stack["jax"]["devices"] = [_device(device) for device in jax.devices()]
            stack["x64"] = bool(getattr(jax.config, "jax_enable_x64", False))
            precision = getattr(jax.config, "jax_default_matmul_precision", None)
            stack["matmul_precision"] = str(precision) if precision is not None else None
    except Exception:  # jax that does not import or start is the health check's to report, not this file's
        pass
    return stack
