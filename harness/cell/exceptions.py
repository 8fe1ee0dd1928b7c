"""What a record keeps of an exception: its type and first line, a name the cell lacks, an import hint."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from harness.cell import health, imports
from harness.cell.records import first_line


def exception_facts(exc: BaseException, module: Path) -> dict[str, Any]:
    """What a record keeps of an exception raised by a case or a test module's import: its type and first line, a
    name this cell lacks, what to do about a module it lacks."""
    data: dict[str, Any] = {"error_type": type(exc).__name__, "error_message": first_line(exc) or type(exc).__name__}
    missing = health.missing_name(exc)
    if missing is not None:
        data.update(missing_name=missing, error_message=missing)
    hint = imports.hint(exc, module)
    if hint is not None:
        data["import_hint"] = hint
    return data


#: pytest's wrappers of the error that stopped a module's or a conftest.py's import: the error is their cause.
IMPORT_WRAPPERS = ("CollectError", "ConftestImportFailure")


def unwrapped(exc: BaseException) -> BaseException:
    """The error behind pytest's wrapper of a failed import (the wrapper's text is pytest's, not the error's)."""
    if type(exc).__name__ in IMPORT_WRAPPERS and exc.__cause__ is not None:
        return exc.__cause__
    return exc
