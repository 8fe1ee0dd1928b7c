"""The shardmatrix pytest plugin (entry point `pytest11`): options, devices, needs, and what each case reports.

Hooks here run in every process (controller and xdist workers); recording runs on the controller only, in the
Recorder registered by pytest_configure.
"""

from __future__ import annotations

import os
import sys
import warnings
from collections.abc import Generator
from pathlib import Path
from typing import Any

import pytest

from harness import devices, environment
from harness.case import MARKER
from harness.collect import ResilientModule
from harness.needs import first_unmet
from harness.recording import Recorder, case_id_from_nodeid, family_from_nodeid
from harness.records import JsonlWriter, first_line, results_path
from harness.timing import CompileClock, split

CLOCK = pytest.StashKey[CompileClock]()
CALL_DATA = pytest.StashKey[dict[str, Any]]()
DEVICE_INFO = pytest.StashKey[dict[str, object]]()

#: Warning categories recorded as early signs of an API going away.
DEPRECATIONS = (DeprecationWarning, PendingDeprecationWarning, FutureWarning)
MAX_WARNINGS = 10


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("shardmatrix", "shardmatrix compatibility recording")
    group.addoption("--shardmatrix-out", metavar="DIR", help="record results under DIR/results/<run>/<cell>.jsonl")
    group.addoption("--shardmatrix-run", metavar="ID", default="adhoc", help="run id of the records")
    group.addoption("--shardmatrix-cell", metavar="ID", default="local", help="cell id of the records")
    group.addoption(
        "--shardmatrix-devices",
        type=int,
        metavar="N",
        default=int(os.environ.get("SHARDMATRIX_DEVICES", "8")),
        help="simulated CPU devices requested before jax is imported (0: leave XLA_FLAGS alone; default 8)",
    )


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        f"{MARKER}(family, devices, needs): a shardmatrix case; unmet needs or too few devices make it "
        "not_applicable",
    )
    count = config.getoption("--shardmatrix-devices")
    if count > 0:
        devices.request_cpu_devices(count)
    config.stash[CLOCK] = CompileClock()
    out = config.getoption("--shardmatrix-out")
    if out and not hasattr(config, "workerinput"):  # only the xdist controller writes
        path = results_path(Path(out), config.getoption("--shardmatrix-run"), config.getoption("--shardmatrix-cell"))
        context = {
            "run_id": config.getoption("--shardmatrix-run"),
            "cell_id": config.getoption("--shardmatrix-cell"),
            **environment.package_versions(),
            **environment.interpreter(),
        }
        config.pluginmanager.register(Recorder(JsonlWriter(path), context), "shardmatrix-recorder")


def pytest_pycollect_makemodule(module_path: Path, parent: pytest.Collector) -> pytest.Module:
    return ResilientModule.from_parent(parent, path=module_path)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """The one place where what a case needs is compared with what the cell has."""
    available: int | None = None
    for item in items:
        mark = item.get_closest_marker(MARKER)
        if mark is None:
            continue
        reason = first_unmet(tuple(mark.kwargs.get("needs", ())))
        wanted = int(mark.kwargs.get("devices", 1))
        if reason is None and wanted > 1:
            if available is None:
                available = int(str(_device_info(config).get("device_count") or 0))
            if available < wanted:
                reason = f"needs {wanted} devices, cell has {available}"
        if reason is not None:
            item.add_marker(pytest.mark.skip(reason=reason))


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item: pytest.Item) -> Generator[None, object, object]:
    clock = item.config.stash[CLOCK]
    listening = clock.listen()
    before = clock.total()
    caught: list[warnings.WarningMessage] = []
    try:
        with warnings.catch_warnings(record=True) as caught:
            return (yield)
    finally:
        item.stash[CALL_DATA] = {
            "listening": listening,
            "compile": clock.total() - before,
            "warnings": _deprecations(caught),
        }
        # Pass them on so pytest's own warnings summary still shows them.
        for w in caught:
            warnings.warn_explicit(w.message, w.category, w.filename, w.lineno, source=w.source)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Generator[None, Any, Any]:
    report = yield
    data: dict[str, Any] = {
        "case_id": case_id_from_nodeid(item.nodeid),
        "family": _family(item),
        "device": _device_info(item.config) if "jax" in sys.modules else None,
    }
    if call.excinfo is not None and not call.excinfo.errisinstance(pytest.skip.Exception):
        data["error_type"] = call.excinfo.typename
        data["error_message"] = first_line(call.excinfo.value) or call.excinfo.typename
    if call.when == "call":
        extra = item.stash.get(CALL_DATA, {})
        data.update(split(report.duration, 0.0, extra.get("compile", 0.0), extra.get("listening", False)))
        data["warnings"] = extra.get("warnings", [])
    report.shardmatrix = data
    return report


def _family(item: pytest.Item) -> str:
    mark = item.get_closest_marker(MARKER)
    if mark is not None and mark.kwargs.get("family"):
        return str(mark.kwargs["family"])
    return family_from_nodeid(item.nodeid)


def _device_info(config: pytest.Config) -> dict[str, object]:
    if DEVICE_INFO not in config.stash:
        config.stash[DEVICE_INFO] = devices.describe()
    return config.stash[DEVICE_INFO]


def _deprecations(caught: list[warnings.WarningMessage]) -> list[str]:
    seen: list[str] = []
    for w in caught:
        if issubclass(w.category, DEPRECATIONS):
            text = f"{w.category.__name__}: {first_line(w.message)}"
            if text not in seen:
                seen.append(text)
    return seen[:MAX_WARNINGS]
