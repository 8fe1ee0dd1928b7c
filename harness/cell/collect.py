"""Collection that survives a broken cell: a case module that cannot be imported still yields its cases.

When a case module fails to import, every case of the module is reported carrying the import error, found by
reading the module's source instead of importing it, so the cell does not vanish. A module whose cases its source
does not show (classes that inherit their tests, a syntax error) stays one collection error, its cause chained for
the record; the runner's --continue-on-collection-errors lets every other module run. The deprecation warnings
raised while importing a module are kept on it: they count for each of its cases.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

import pytest

from harness.case import MARKER
from harness.cell import deprecations
from harness.cell.source import static_cases

#: The deprecation warnings raised while importing a module (harness.cell.deprecations texts).
IMPORT_WARNINGS = pytest.StashKey[list[str]]()


class ResilientModule(pytest.Module):
    """A pytest Module that, when its import fails, yields one erroring item per case in its source."""

    def collect(self) -> Iterable[pytest.Item | pytest.Collector]:
        try:
            self._import()
        except pytest.skip.Exception:
            raise
        except Exception as exc:
            cause = exc.__cause__ if isinstance(exc, self.CollectError) and exc.__cause__ else exc
            cases = static_cases(self.path)  # none from a module that is not Python text
            if not cases:
                raise  # the module's own error
            return [UnimportableCase.from_parent(self, name=name, family=family, cause=cause) for name, family in cases]
        return super().collect()

    def _import(self) -> None:
        with deprecations.recording() as caught:
            try:
                self.obj  # noqa: B018 - importing the module is the point
            finally:
                self.stash[IMPORT_WARNINGS] = deprecations.texts(caught)


class UnimportableCase(pytest.Item):
    """A case whose module failed to import; its setup re-raises that import error."""

    def __init__(self, *, family: str | None, cause: BaseException, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.cause = cause
        if family is not None:
            self.add_marker(getattr(pytest.mark, MARKER)(family=family, devices=1, needs=()))

    def setup(self) -> None:
        raise self.cause

    def runtest(self) -> None:
        raise AssertionError("unreachable: setup always raises")

    def reportinfo(self) -> tuple[Path, int | None, str]:
        return self.path, None, self.name
