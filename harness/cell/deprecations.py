"""Early signs of an API going away: the deprecation warnings raised for a case, wherever they were raised.

A case's warnings are those of its module's import (collection), its fixtures and setup, its body and its
teardown. Each is kept whole as '<Category>: <text>', once per case.
"""

from __future__ import annotations

import sys
import warnings
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager

#: Warning categories recorded as early signs of an API going away.
DEPRECATIONS = (DeprecationWarning, PendingDeprecationWarning, FutureWarning)
MAX_WARNINGS = 10


def forget_warned_attributes(prefix: str = "jax") -> None:
    """Let jax warn again for a deprecated attribute: its modules' `__getattr__` is a functools.cache, so only the
    first access in a process warns, and a case reading the attribute after another case (flax's `replicate` reads
    `jax.device_put_replicated`) would record no warning for its own use."""
    for clear in _cached_getattrs(prefix):
        clear()


#: Per prefix: the size of sys.modules when last scanned, and each module found with a cached `__getattr__`, with its
#: cache_clear. Scanning all of sys.modules took about 1 ms, three times a case; the modules only change on an import.
_SCANNED: dict[str, tuple[int, list[tuple[str, object, Callable[[], None]]]]] = {}


def _cached_getattrs(prefix: str) -> list[Callable[[], None]]:
    """The cache_clear of every `prefix` module's cached `__getattr__`, scanned again whenever sys.modules has grown
    or shrunk, or one of those modules is no longer the one imported under its name (removed and imported anew)."""
    size, found = _SCANNED.get(prefix, (-1, []))
    if size != len(sys.modules) or any(sys.modules.get(name) is not module for name, module, _ in found):
        found = []
        for name, module in list(sys.modules.items()):
            if name == prefix or name.startswith(prefix + "."):
                clear = getattr(getattr(module, "__dict__", {}).get("__getattr__"), "cache_clear", None)
                if callable(clear):
                    found.append((name, module, clear))
        _SCANNED[prefix] = (len(sys.modules), found)
    return [clear for _, _, clear in found]


@contextmanager
def recording() -> Iterator[list[warnings.WarningMessage]]:
    """Record the warnings raised inside, under the filters already in force, then pass them on so pytest's own
    warnings summary still shows them. jax's deprecated attributes warn anew inside (forget_warned_attributes)."""
    forget_warned_attributes()
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
