"""The `case` decorator: how a corpus function declares its family, devices, needs, time limit, the upstream
change it documents and the public reports it reproduces."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TypeVar

import pytest

from harness.cell.needs import Need, accepts, api, version
from harness.change import Change, ChangeError

__all__ = ["MARKER", "Change", "accepts", "api", "case", "version"]

MARKER = "shardmatrix"

F = TypeVar("F", bound=Callable[..., object])


def case(
    family: str,
    *,
    devices: int = 1,
    needs: Iterable[Need] = (),
    timeout: float | None = None,
    smoke: bool = False,
    changed: Change | None = None,
    cites: Iterable[str] = (),
) -> Callable[[F], F]:
    """Mark a test function as a shardmatrix case of `family` needing `devices` devices and `needs`.

    `smoke=True` puts it in the smoke subset that `nox -s frontier` runs per (jax, flax) pair; the host reads that
    flag from the source (shardmatrix.smoke), so it must be written as a literal.

    `changed=Change(...)` declares the upstream change the case was written to catch (harness.change): each record
    of the case carries it, and the host reads it from source, so it is written with literals too.

    `cites=("google/flax#5112",)` names the public reports (cases/census.toml) the case reproduces; the host reads
    them from source (harness.census.cited), so they are string literals as well."""

    if changed is not None and not isinstance(changed, Change):
        # The plugin writes changed.as_record() into every record: anything else would fail there, case by case.
        raise ChangeError(f"@case({family!r}): changed= must be a Change(...) or None, not {type(changed).__name__}")

    def mark(fn: F) -> F:
        extra: dict[str, object] = {"smoke": True} if smoke else {}
        if changed is not None:
            extra["changed"] = changed
        if cites:
            extra["cites"] = tuple(cites)
        marked = pytest.mark.shardmatrix(family=family, devices=devices, needs=tuple(needs), **extra)(fn)
        if timeout is not None:
            marked = pytest.mark.timeout(timeout)(marked)
        return marked  # type: ignore[no-any-return]

    return mark
