"""Whether a cell can run cases at all, and what an ImportError inside a case means once it can.

Checked once per process, before any case runs: jax and flax import, and jax's backend starts. When either does
not, no case can tell anything about the API it tests, so every case of the cell is `error` with the reason.
Once they do, an ImportError inside a case is a name the case uses that this cell lacks: a `failed` answer.
"""

from __future__ import annotations

import functools
import importlib
import importlib.metadata
import importlib.util
import platform
import re
import sys
import warnings
from dataclasses import dataclass

from harness.vocabulary import BACKEND_FAILED, PACKAGES_FAILED

#: The packages every case of the corpus stands on.
PACKAGES = ("jax", "flax")


@dataclass(frozen=True)
class Unusable:
    """Why no case of this cell can run: the reason every case records, and the exception behind it."""

    reason: str
    cause: BaseException


class CellUnusable(Exception):
    """Raised in a case's setup when the cell cannot run cases; carries the cell's problem."""

    def __init__(self, problem: Unusable) -> None:
        super().__init__(problem.reason)
        self.problem = problem


def check(packages: tuple[str, ...] = PACKAGES) -> Unusable | None:
    """The cell's problem, or None: each installed package must import, then jax's backend must start.

    A package that is not installed at all is not checked (the harness's own tests run cases without jax). The check
    runs under no warning filter of the cases': a project whose settings make warnings errors (-Werror) fails the
    tests that import a warning package, not the cell that checks it (flax is in every cell, used or not)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return _check(packages)


def _check(packages: tuple[str, ...]) -> Unusable | None:
    for name in packages:
        if importlib.util.find_spec(name) is None:
            continue
        try:
            importlib.import_module(name)
        except Exception as exc:
            return Unusable(f"{PACKAGES_FAILED}: {name}: {_describe(exc)}", exc)
    jax = sys.modules.get("jax")
    if jax is not None and "jax" in packages:
        try:
            jax.devices()
        except Exception as exc:
            return Unusable(f"{BACKEND_FAILED}: {_describe(exc)}", exc)
    return None


def missing_name(exc: BaseException) -> str | None:
    """'jax.sharding has no use_mesh (jax 0.4.30)' for an ImportError of a name (or submodule) absent from a
    module that imports; None for anything else (a package that is not installed at all, a broken import)."""
    if not isinstance(exc, ImportError):
        return None
    found = re.match(r"cannot import name '([^']+)' from '([^']+)'", str(exc))
    if found:
        name, module = found.groups()
    elif isinstance(exc, ModuleNotFoundError) and exc.name and "." in exc.name:
        module, _, name = exc.name.rpartition(".")
    else:
        return None
    if "partially initialized" in str(exc) or not _imports(module):
        return None
    version = installed_version(module.split(".")[0])
    return f"{module} has no {name}" + (f" ({version})" if version else "")


def installed_version(top_level: str) -> str | None:
    """'jax 0.4.30' for the distribution that provides a top-level module, 'python 3.11.9' for the standard
    library, None when neither says."""
    dists = _distributions().get(top_level)
    if dists:
        try:
            return f"{dists[0]} {importlib.metadata.version(dists[0])}"
        except importlib.metadata.PackageNotFoundError:
            return None
    if top_level in getattr(sys, "stdlib_module_names", ()):
        return f"python {platform.python_version()}"
    return None


@functools.cache
def _distributions() -> dict[str, list[str]]:
    return dict(importlib.metadata.packages_distributions())


def _imports(module: str) -> bool:
    try:
        importlib.import_module(module)
    except Exception:
        return False
    return True


def _describe(exc: BaseException) -> str:
    lines = [line.strip() for line in str(exc).splitlines() if line.strip()]
    return f"{type(exc).__name__}: {lines[0][:500]}" if lines else type(exc).__name__
