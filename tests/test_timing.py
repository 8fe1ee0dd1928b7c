from __future__ import annotations

import sys
import types

import pytest

from harness.cell import timing


def fake_jax(monkeypatch: pytest.MonkeyPatch) -> list:
    listeners: list = []
    monitoring = types.SimpleNamespace(register_event_duration_secs_listener=listeners.append)
    monkeypatch.setitem(sys.modules, "jax", types.SimpleNamespace(monitoring=monitoring))
    return listeners


def test_clock_sums_only_compile_events(monkeypatch: pytest.MonkeyPatch) -> None:
    listeners = fake_jax(monkeypatch)
    clock = timing.CompileClock()
    assert clock.listen() and clock.listen()
    assert len(listeners) == 1  # registered once
    listeners[0]("/jax/core/compile/backend_compile_duration", 0.25)
    listeners[0]("/jax/core/compile/jaxpr_trace_duration", 0.5, fun_name="f")  # newer jax passes metadata
    listeners[0]("/jax/compilation_cache/cache_retrieval_time_sec", 9.0)
    assert clock.total() == pytest.approx(0.75)


def test_clock_without_jax_does_not_listen(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delitem(sys.modules, "jax", raising=False)
    assert timing.CompileClock().listen() is False


def test_split_pair() -> None:
    assert timing.split(1.0, 0.0, 0.25, True) == {"duration_s": 1.0, "compile_s": 0.25, "execute_s": 0.75}
    assert timing.split(1.0, 0.0, 0.25, False) == {"duration_s": 1.0, "compile_s": None, "execute_s": None}
    assert timing.split(1.0, 0.0, 5.0, True)["execute_s"] == 0.0  # compile reported by another thread


def test_median_timing_pair() -> None:
    runs = [
        {"duration_s": 3.0, "compile_s": 2.0, "execute_s": 1.0},
        {"duration_s": 1.0, "compile_s": 0.5, "execute_s": 0.5},
        {"duration_s": 2.0, "compile_s": 1.0, "execute_s": 1.0},
    ]
    assert timing.median_timing(runs) == {"duration_s": 2.0, "compile_s": 1.0, "execute_s": 1.0}
    assert timing.median_timing([{"duration_s": 1.0, "compile_s": None, "execute_s": None}]) == {
        "duration_s": 1.0, "compile_s": None, "execute_s": None,
    }
