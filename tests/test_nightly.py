"""harness.host.nightly: the night a nightly compares with, and the guard against accelerator jobs no runner takes."""

from __future__ import annotations

import io
import json
from collections.abc import Sequence
from typing import Any

import pytest

from harness.host import nightly


class FakeGh:
    """gh answering from runs (id -> artifacts) and jobs; every call recorded."""

    def __init__(self, runs: dict[int, list[dict[str, Any]]], jobs: list[dict[str, str]] | None = None,
                 fails: str = "") -> None:
        self.runs, self.jobs, self.fails = runs, jobs or [], fails
        self.calls: list[list[str]] = []

    def __call__(self, args: Sequence[str]) -> str:
        self.calls.append(list(args))
        if self.fails and " ".join(args).startswith(self.fails):
            raise nightly.GhError(f"gh {' '.join(args)} failed (exit 1): HTTP 502")
        if list(args[:2]) == ["run", "list"]:
            return json.dumps([{"databaseId": run} for run in sorted(self.runs, reverse=True)])
        if args[0] == "api" and "/artifacts" in args[1]:
            run = int(args[1].split("/runs/")[1].split("/")[0])
            return json.dumps({"artifacts": self.runs[run]})
        if args[0] == "api":
            return "".join(json.dumps(job) + "\n" for job in self.jobs)
        return ""


RESULTS = [{"name": "results", "expired": False}]
EXPIRED = [{"name": "results", "expired": True}]


def test_the_previous_night_is_the_newest_earlier_one_with_results() -> None:
    gh = FakeGh({99: RESULTS, 100: RESULTS, 102: RESULTS})
    assert nightly.previous(gh, 101, "main") == 100
    assert gh.calls[0][:9] == ["run", "list", "--workflow", "matrix.yml", "--event", "schedule", "--branch", "main",
                               "--status"] and gh.calls[0][9] == "success"


def test_a_night_without_results_or_with_expired_ones_is_passed_over_for_an_older_one() -> None:
    assert nightly.previous(FakeGh({98: RESULTS, 99: [], 100: EXPIRED}), 101, "main") == 98


def test_no_earlier_night_with_results_is_none() -> None:
    assert nightly.previous(FakeGh({102: RESULTS, 100: EXPIRED}), 101, "main") is None


def test_a_gh_failure_is_an_error_never_no_previous_night() -> None:
    with pytest.raises(nightly.GhError, match="HTTP 502"):
        nightly.previous(FakeGh({100: RESULTS}, fails="api"), 101, "main")


def test_an_answer_without_the_expected_fields_is_an_error() -> None:
    with pytest.raises(nightly.GhError, match="without the field"):
        nightly.previous(lambda args: '[{"id": 1}]', 101, "main")
    with pytest.raises(nightly.GhError, match="not JSON"):
        nightly.previous(lambda args: "<html>", 101, "main")


PLAN = [{"cell": "a-cpu", "backend": "cpu", "runner": "ubuntu-latest"},
        {"cell": "b-cuda12", "backend": "cuda12", "runner": "gpu-box"}]


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.now += seconds


def test_only_accelerator_cells_are_guarded() -> None:
    assert nightly.accelerator_cells(PLAN) == {"b-cuda12": "gpu-box"}


@pytest.mark.parametrize("status", ["in_progress", "completed"])
def test_the_guard_passes_once_a_runner_took_the_job(status: str) -> None:
    clock = Clock()
    gh = FakeGh({}, jobs=[{"name": "b-cuda12", "status": status}])
    assert nightly.guard(gh, 1, 1, {"b-cuda12": "gpu-box"}, 30, clock=clock, sleep=clock.sleep) == []
    assert clock.now == 0


@pytest.mark.parametrize("jobs", [[{"name": "b-cuda12", "status": "queued"}], []])
def test_the_guard_gives_up_after_its_minutes_on_a_queued_or_not_yet_created_job(jobs: list[dict[str, str]]) -> None:
    clock = Clock()
    waiting = nightly.guard(FakeGh({}, jobs=jobs), 1, 1, {"b-cuda12": "gpu-box"}, 30, poll=60, clock=clock,
                            sleep=clock.sleep)
    assert waiting == ["b-cuda12"] and clock.now == 30 * 60


def test_the_command_cancels_the_run_and_names_the_cell_and_its_label(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    gh = FakeGh({}, jobs=[{"name": "b-cuda12", "status": "queued"}])
    monkeypatch.setattr("sys.stdin", io.StringIO(json.dumps(PLAN)))
    code = nightly.main(["queue-guard", "--run", "5", "--attempt", "1", "--minutes", "0"], run_gh=gh)
    assert code == 1 and gh.calls[-1] == ["run", "cancel", "5"]
    assert "b-cuda12: no runner took its job in 0 minutes (runs-on: 'gpu-box'" in capsys.readouterr().err


def test_the_command_prints_the_previous_night_or_nothing(capsys: pytest.CaptureFixture[str]) -> None:
    assert nightly.main(["previous", "--run", "101", "--branch", "main"], run_gh=FakeGh({100: RESULTS})) == 0
    assert capsys.readouterr().out == "100\n"
    assert nightly.main(["previous", "--run", "101", "--branch", "main"], run_gh=FakeGh({})) == 0
    assert capsys.readouterr().out == "\n"


@pytest.mark.parametrize(("argv", "says"), [
    (["previous", "--run", "1"], "previous needs --branch"),
    (["queue-guard", "--run", "1", "--attempt", "1"], "queue-guard needs --minutes"),
    (["later", "--run", "1"], "invalid choice"),
])
def test_bad_usage_is_one_line_and_exit_64(argv: list[str], says: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert nightly.main(argv, run_gh=FakeGh({})) == 64
    err = capsys.readouterr().err
    assert says in err and err.count("\n") == 1


def test_a_gh_failure_exits_1_with_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    assert nightly.main(["previous", "--run", "2", "--branch", "main"], run_gh=FakeGh({}, fails="run list")) == 1
    assert capsys.readouterr().err.startswith("shardmatrix: gh run list --workflow matrix.yml")


def test_gh_itself_failing_is_a_gh_error_naming_the_command(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", "/nonexistent")
    with pytest.raises(nightly.GhError, match="gh run list"):
        nightly.gh(["run", "list"])
