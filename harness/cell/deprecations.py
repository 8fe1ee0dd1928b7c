"""Early signs of an API going away: the deprecation warnings raised for a case, wherever they were raised.

A case's warnings are those of its module's import (collection), its fixtures and setup, its body and its
teardown. Each is kept whole as '<Category>: <text>', once per case.
"""

from __future__ import annotations

import warnings
from collections.abc import Iterable, Iterator
from contextlib import contextmanager

#: Warning categories recorded as early signs of an API going away.
DEPRECATIONS = (DeprecationWarning, PendingDeprecationWarning, FutureWarning)
MAX_WARNINGS = 10


@contextmanager
def recording() -> Iterator[list[warnings.WarningMessage]]:
    """Record the warnings raised inside, under the filters already in force, then pass them on so pytest's own
    warnings summary still shows them."""
    caught: list[warnings.WarningMessage] = []
    try:
        with warnings.catch_warnings(record=True) as caught:  # type: ignore[assignment]
            yield caught
    finally:
        for w in caught:
            warnings.warn_explicit(w.message, w.category, w.filename, w.lineno, source=w.source)


def texts(caught: Iterable[warnings.WarningMessage]) -> list[str]:
    """'<Category>: <whole text>' for each deprecation warning, first occurrence only."""
    return merge([f"{w.category.__name__}: {str(w.message).strip()}" for w in caught
                  if issubclass(w.category, DEPRECATIONS)])


def merge(*groups: Iterable[str]) -> list[str]:
    """The texts of several groups in order, each once, at most MAX_WARNINGS."""
    seen: list[str] = []
    for group in groups:
        for text in group:
            if text not in seen:
                seen.append(text)
    return seen[:MAX_WARNINGS]
