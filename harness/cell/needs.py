"""What a case needs from its cell, as data: an API path, a parameter of a callable, a version range.

Each need answers `unmet()` with None when satisfied, or a reason naming what is missing. Only a genuinely
absent API counts as unmet: a module that exists but fails to import is a broken cell, and the case is left to
run and fail with the real error rather than be hidden as not applicable.
"""

from __future__ import annotations

import functools
import importlib
import importlib.metadata
import inspect
from dataclasses import dataclass
from typing import Any, Protocol

from packaging.requirements import Requirement


class Need(Protocol):
    def unmet(self) -> str | None: ...


class _Absent(LookupError):
    """Raised by resolve() when a dotted path names something this cell does not have."""


def resolve(path: str) -> Any:
    """Import the longest module prefix of a dotted path and walk the rest as attributes."""
    parts = path.split(".")
    for split in range(len(parts), 0, -1):
        module_name = ".".join(parts[:split])
        try:
            obj: Any = importlib.import_module(module_name)
        except ModuleNotFoundError as exc:
            # Only "this very module does not exist" means absent; a missing *dependency* is a broken cell.
            if exc.name is not None and module_name.startswith(exc.name) and split > 1:
                continue
            if exc.name is not None and module_name.startswith(exc.name):
                raise _Absent(f"{path} is absent (no module {exc.name})") from exc
            raise
        for i, attr in enumerate(parts[split:], start=split):
            try:
                obj = getattr(obj, attr)
            except AttributeError:
                raise _Absent(f"{'.'.join(parts[: i + 1])} is absent") from None
        return obj
    raise _Absent(f"{path} is absent")


@dataclass(frozen=True)
class Api:
    """The cell must have the object at `path` (e.g. "jax.shard_map")."""

    path: str

    def unmet(self) -> str | None:
        return _probe(self.path, None)


@dataclass(frozen=True)
class Accepts:
    """The callable at `path` must take a parameter called `parameter` (e.g. nnx.shard_map's "graph")."""

    path: str
    parameter: str

    def unmet(self) -> str | None:
        return _probe(self.path, self.parameter)


@dataclass(frozen=True)
class Version:
    """An installed distribution must satisfy a PEP 508 requirement (e.g. "jax>=0.6.1")."""

    requirement: str

    def unmet(self) -> str | None:
        req = Requirement(self.requirement)
        try:
            installed = importlib.metadata.version(req.name)
        except importlib.metadata.PackageNotFoundError:
            return f"needs {self.requirement}, {req.name} is not installed"
        if req.specifier.contains(installed, prereleases=True):
            return None
        return f"needs {self.requirement}, cell has {req.name} {installed}"


@functools.cache
def _probe(path: str, parameter: str | None) -> str | None:
    try:
        obj = resolve(path)
    except _Absent as exc:
        return str(exc)
    except Exception:
        return None
    if parameter is None:
        return None
    try:
        params = inspect.signature(obj).parameters
    except (TypeError, ValueError):
        return None  # no introspectable signature: let the case itself tell
    if parameter in params or any(p.kind is p.VAR_KEYWORD for p in params.values()):
        return None
    return f"{path} does not accept {parameter!r}"


def api(path: str) -> Api:
    """Need the object at a dotted path."""
    return Api(path)


def accepts(path: str, parameter: str) -> Accepts:
    """Need the callable at a dotted path to take a named parameter."""
    return Accepts(path, parameter)


def version(requirement: str) -> Version:
    """Need an installed distribution to satisfy a requirement string."""
    return Version(requirement)


def first_unmet(needs: tuple[Need, ...]) -> str | None:
    """The reason of the first unmet need, or None when all are met."""
    for need in needs:
        reason = need.unmet()
        if reason is not None:
            return reason
    return None
