"""What a cell is made of: package versions, interpreter, platform, and the devices jax sees."""

from __future__ import annotations

import importlib.metadata
import platform

PACKAGES = ("jax", "jaxlib", "flax", "numpy")


def package_versions() -> dict[str, str | None]:
    """Installed versions of the packages every record names, read from metadata (nothing is imported)."""
    versions: dict[str, str | None] = {}
    for name in PACKAGES:
        try:
            versions[name] = importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            versions[name] = None
    return versions


def interpreter() -> dict[str, str]:
    """Python version and a short platform tag."""
    return {
        "python": platform.python_version(),
        "platform": f"{platform.system()}-{platform.machine()}",
    }
