from __future__ import annotations

import json
from pathlib import Path

import pytest

from harness.cell.recording import Recorder, crashed_worker, phase_of
from harness.results import JsonlWriter


def test_crashed_worker_pair() -> None:
    assert crashed_worker("worker 'gw3' crashed while running 'cases/x.py::test_y'") == "gw3"
    assert crashed_worker("AssertionError: values differ") is None


def test_the_error_line_is_read_from_pytests_long_form_and_from_a_native_traceback() -> None:
    from harness.cell.recording import _last_error_line

    long_form = ("    def test():\n>       f()\nE       TypeError: jit() got an unexpected keyword\n\n"
                 "cases/x.py:3: TypeError")
    assert _last_error_line(long_form) == "TypeError: jit() got an unexpected keyword"
    native = ('Traceback (most recent call last):\n  File "cases/x.py", line 3, in test\n    f()\n'
              "TypeError: jit() got an unexpected keyword")
    assert _last_error_line(native) == "TypeError: jit() got an unexpected keyword"
    assert _last_error_line("collection failed\nmore") == "collection failed"


def test_a_phase_retried_by_rerunfailures_is_a_failed_phase_and_keeps_its_facts() -> None:
    report = pytest.TestReport("m.py::t", ("m.py", 1, "t"), {}, "rerun", "E   AssertionError: first", "call")
    report.shardmatrix = {"error_type": "AssertionError", "error_message": "first"}
    phase = phase_of(report)
    assert (phase.outcome, phase.error_type) == ("failed", "AssertionError")
    passed = pytest.TestReport("m.py::t", ("m.py", 1, "t"), {}, "passed", None, "call")
    assert phase_of(passed).outcome == "passed"


def _reports(error_type: str, message: str, device: dict[str, object], **data: object) -> list[pytest.TestReport]:
    """The setup, failed call and teardown reports of a case `m.py::t` that raised `error_type: message`."""
    facts = {"case_id": "m::t", "family": "m", "device": device, **data}
    reports = [
        pytest.TestReport("m.py::t", ("m.py", 1, "t"), {}, "passed", None, "setup"),
        pytest.TestReport("m.py::t", ("m.py", 1, "t"), {}, "failed", f"E   {error_type}: {message}", "call"),
        pytest.TestReport("m.py::t", ("m.py", 1, "t"), {}, "passed", None, "teardown"),
    ]
    for report in reports:
        report.shardmatrix = dict(facts)
    reports[1].shardmatrix.update(error_type=error_type, error_message=message)
    return reports


def _recorded(tmp_path: Path, reports: list[pytest.TestReport]) -> dict[str, object]:
    writer = JsonlWriter(tmp_path / "cell.jsonl")
    recorder = Recorder(writer, {"run_id": "r", "cell_id": "c"}, lambda worker: "")
    for report in reports:
        recorder.pytest_runtest_logreport(report)
    writer.close()
    (line,) = (tmp_path / "cell.jsonl").read_text(encoding="utf-8").splitlines()
    return dict(json.loads(line))


ONE_GPU = {"backend": "gpu", "device_kind": "NVIDIA H200", "device_count": 1}
SHORT = "Number of devices 1 must be >= the product of mesh_shape (1, 2)"


def test_a_test_short_of_devices_is_recorded_not_applicable_keeping_its_exception(tmp_path: Path) -> None:
    record = _recorded(tmp_path, _reports("ValueError", SHORT, ONE_GPU))
    assert (record["status"], record["reason"]) == ("not_applicable", "needs 2 devices, cell has 1")
    assert (record["error_type"], record["error_message"], record["device_count"]) == ("ValueError", SHORT, 1)
    assert record["devices_needed"] == 2


def test_the_same_error_in_a_cpu_cell_missing_the_devices_asked_for_is_recorded_error(tmp_path: Path) -> None:
    cpu = {"backend": "cpu", "device_kind": "cpu", "device_count": 1}
    record = _recorded(tmp_path, _reports("ValueError", SHORT, cpu, cpu_devices_asked=8))
    assert (record["status"], record["reason"]) == ("error", "jax has 1 CPU devices, the harness asked for 8")
    assert record["devices_needed"] is None
    assert record["error_type"] == "ValueError"


def test_out_of_device_memory_is_recorded_error_naming_memory(tmp_path: Path) -> None:
    oom = "RESOURCE_EXHAUSTED: : CUDA_ERROR_OUT_OF_MEMORY: out of memory [executable_name='jit_multiply']"
    record = _recorded(tmp_path, _reports("JaxRuntimeError", oom, ONE_GPU))
    assert record["status"] == "error" and "memory" in str(record["reason"])
    assert (record["error_type"], record["error_message"]) == ("JaxRuntimeError", oom)


def _collected(tmp_path: Path, report: pytest.CollectReport) -> list[dict[str, object]]:
    writer = JsonlWriter(tmp_path / "cell.jsonl")
    Recorder(writer, {"run_id": "r", "cell_id": "c"}, lambda worker: "").pytest_collectreport(report)
    writer.close()
    return [json.loads(line) for line in (tmp_path / "cell.jsonl").read_text(encoding="utf-8").splitlines()]


def test_a_module_that_skips_itself_is_recorded_not_applicable_with_its_reason(tmp_path: Path) -> None:
    skipped = pytest.CollectReport("tests/test_mesh_mod.py", "skipped",
                                   ("tests/test_mesh_mod.py", 3, "Skipped: needs jax.sharding.OldThing, gone in 0.9"),
                                   [])
    (record,) = _collected(tmp_path, skipped)
    assert (record["case_id"], record["status"], record["reason"]) == (
        "test_mesh_mod::<collection>", "not_applicable", "needs jax.sharding.OldThing, gone in 0.9")


def test_a_module_that_collected_records_nothing_of_its_own(tmp_path: Path) -> None:
    assert _collected(tmp_path, pytest.CollectReport("tests/test_mesh_mod.py", "passed", None, [])) == []
