"""Compile time inside a case, from the durations jax itself reports through jax.monitoring."""

from __future__ import annotations

import statistics
import sys
import threading
from typing import Any

#: jax reports tracing, lowering and backend compilation under this prefix (jax >= 0.4.0).
COMPILE_EVENT_PREFIX = "/jax/core/compile/"


class CompileClock:
    """Sums compile-phase durations reported by jax; read it around a case to split compile from execute."""

    def __init__(self) -> None:
        self._total = 0.0
        self._lock = threading.Lock()
        self._listening = False

    def listen(self) -> bool:
        """Register with jax.monitoring once jax is imported; True while listening."""
        if self._listening:
            return True
        monitoring = getattr(sys.modules.get("jax"), "monitoring", None)
        register = getattr(monitoring, "register_event_duration_secs_listener", None)
        if register is None:
            return False
        register(self._on_event)
        self._listening = True
        return True

    def _on_event(self, event: str, duration: float, *args: Any, **kwargs: Any) -> None:
        if event.startswith(COMPILE_EVENT_PREFIX):
            with self._lock:
                self._total += duration

    def total(self) -> float:
        """Seconds of compilation reported so far."""
        with self._lock:
            return self._total


def split(duration: float, compile_before: float, compile_after: float, listening: bool) -> dict[str, float | None]:
    """Duration of a case split into compile and execute seconds (None when jax was not listened to)."""
    if not listening:
        return {"duration_s": duration, "compile_s": None, "execute_s": None}
    compiled = min(max(compile_after - compile_before, 0.0), duration)
    return {"duration_s": duration, "compile_s": compiled, "execute_s": duration - compiled}


def median_timing(runs: list[dict[str, float | None]]) -> dict[str, float | None]:
    """The median duration, compile and execute seconds over repeated runs of one case."""
    result: dict[str, float | None] = {}
    for key in ("duration_s", "compile_s", "execute_s"):
        values = [float(v) for v in (run.get(key) for run in runs) if v is not None]
        result[key] = statistics.median(values) if values else None
    return result
