"""The matrix workflow run as GitHub would run it (tests/workflow_driver.py): nights, re-runs, a hung cell, a broken
regression tool, and what each leaves behind: the merged report, the issue and the colour of every job.

$SHARDMATRIX_WORKFLOWS points these tests at another folder of workflows (to check that they fail on an older one).
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path
from typing import Any

import pytest
from matrix_factory import cell_toml, matrix_toml
from workflow_driver import ROOT, Driver, GitHub, Run

WORKFLOWS = Path(os.environ.get("SHARDMATRIX_WORKFLOWS", ROOT / ".github" / "workflows"))
MATRIX_TOML = matrix_toml(
    cell_toml("0.4.38", "0.10.2", "3.11"), cell_toml("0.6.2", "0.10.7", "3.11"), cell_toml("0.8.3", "0.12.3", "3.12"))
OLD, MID, NEW = "jax0.4.38-flax0.10.2-py3.11", "jax0.6.2-flax0.10.7-py3.11", "jax0.8.3-flax0.12.3-py3.12"
GPU = matrix_toml(cell_toml("0.8.3", "0.12.3", "3.12", backend="cuda12"))
GPU_CELL = "jax0.8.3-flax0.12.3-py3.12-cuda12"
REGRESSED, INCONCLUSIVE = "shardmatrix: the nightly matrix regressed", "shardmatrix: the nightly matrix is inconclusive"
IGNORED = shutil.ignore_patterns(".git", ".venv", ".nox", "out", "__pycache__", ".*_cache", "*.egg-info")


def copy_repository(target: Path, matrix: str = MATRIX_TOML) -> Path:
    """The repository as a checkout gives it, with a small matrix."""
    shutil.copytree(ROOT, target, ignore=IGNORED)
    (target / "matrix.toml").write_text(matrix)
    return target


def make_driver(base: Path, matrix: str = MATRIX_TOML) -> Driver:
    return Driver(WORKFLOWS / "matrix.yml", copy_repository(base / "repo", matrix), GitHub(base / "github"),
                  base / "driver")


@pytest.fixture
def fresh(tmp_path: Path) -> Driver:
    """A repository whose workflow never ran."""
    return make_driver(tmp_path)


@pytest.fixture(scope="module")
def first_night(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Run]:
    """Night 100, clean and green, run once for the tests that start after it."""
    base = tmp_path_factory.mktemp("first-night")
    return base, night(make_driver(base), 100)


@pytest.fixture
def driver(first_night: tuple[Path, Run], tmp_path: Path) -> Driver:
    """A repository after night 100 (the artifacts and runs GitHub keeps, copied)."""
    base, _ = first_night
    shutil.copytree(base / "repo", tmp_path / "repo")
    shutil.copytree(base / "github", tmp_path / "github")
    return Driver(WORKFLOWS / "matrix.yml", tmp_path / "repo", GitHub(tmp_path / "github"), tmp_path / "driver")


def night(driver: Driver, run_id: int, cells: dict[str, Any] | None = None, previous: Run | None = None,
          **extra: Any) -> Run:
    """A scheduled run (or a re-run of `previous`) with the cells behaving as `cells` says (default: pass)."""
    driver.scenario = {"cells": cells or {}, **extra}
    return driver.run("schedule", run_id, previous=previous)


def cells_of(run: Run) -> dict[str, str]:
    return {name: result for name, result in run.colours().items() if name.startswith("jax")}


def issues(driver: Driver) -> list[dict[str, Any]]:
    return driver.github.load()["issues"]


def merged(run: Run) -> dict[str, list[dict[str, Any]]]:
    """The report job's merged results: cell id -> its records."""
    workspace = run.job("report").workspace
    assert workspace is not None
    found: dict[str, list[dict[str, Any]]] = {}
    for path in sorted((workspace / "out" / "results").glob("*/*.jsonl")):
        found[path.stem] = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    return found


def report_step(run: Run, name: str) -> str:
    return dict(run.job("report").steps)[name]


TRACK = "Track regressions against the previous nightly run"
CHECK = "Fail when a planned cell could not be fully run"


# --- a first night, and the nights after it -----------------------------------------------------------------------


def test_a_first_night_reports_every_cell_compares_nothing_and_is_green(first_night: tuple[Path, Run]) -> None:
    _, run = first_night
    assert run.colours() == {"plan": "success", "queue guard": "skipped", OLD: "success", MID: "success",
                             NEW: "success", "report": "success"}
    assert set(merged(run)) == {OLD, MID, NEW}
    assert "nothing to compare with" in run.job("report").log
    report = (run.job("report").workspace / "out" / "report" / "matrix.md").read_text()  # type: ignore[operator]
    assert all(cell in report for cell in (OLD, MID, NEW))
    assert GitHub(first_night[0] / "github").issue_calls() == []


def test_artifacts_are_kept_7_days_per_cell_and_30_days_merged(driver: Driver) -> None:
    kept = {name: a["retention_days"] for name, a in driver.github.artifacts(100).items()}
    assert kept == {f"results-{OLD}": 7, f"results-{MID}": 7, f"results-{NEW}": 7, "report": 30, "results": 30}


def test_a_regressed_night_files_the_issue_titled_regressed_and_is_red(driver: Driver) -> None:
    run = night(driver, 101, {MID: "fail"})
    assert cells_of(run) == dict.fromkeys((OLD, MID, NEW), "success"), "a failing case is a result"
    assert run.result("report") == "failure" and report_step(run, TRACK) == "failure"
    assert report_step(run, CHECK) == "success", "every cell ran fully"
    [filed] = issues(driver)
    assert filed["title"] == REGRESSED and filed["state"] == "open"
    assert filed["body"].startswith("**Regressed:** 1 case(s)") and "/actions/runs/101" in filed["body"]


def test_a_night_still_regressed_updates_the_one_issue_and_a_clean_one_closes_it(driver: Driver) -> None:
    night(driver, 101, {MID: "fail"})
    still = night(driver, 102, {MID: "fail"})
    assert still.result("report") == "failure"
    # Red nights are never the baseline: 102 is compared with 100, so the regression stays open until it is gone.
    assert ["run", "download", "100", "--name", "results", "--dir", "previous/results"] in driver.github.load()["calls"]
    [tracked] = issues(driver)
    assert tracked["comments"] == ["Regressed in https://github.com/owner/repo/actions/runs/102"]
    clean = night(driver, 103)
    assert clean.conclusion == "success"
    assert issues(driver)[0]["state"] == "closed"
    assert issues(driver)[0]["comments"][-1] == "Clean again in https://github.com/owner/repo/actions/runs/103"


def test_an_inconclusive_night_files_the_issue_titled_inconclusive_and_stays_green(driver: Driver) -> None:
    """A cell new to matrix.toml has no counterpart the night before: not clean, but nothing is wrong with the run."""
    with (driver.repo / "matrix.toml").open("a") as handle:
        handle.write('\n[[cell]]\njax = "0.5.3"\njaxlib = "0.5.3"\nflax = "0.10.6"\npython = "3.11"\n')
    run = night(driver, 101)
    assert run.conclusion == "success" and report_step(run, TRACK) == "success"
    [filed] = issues(driver)
    assert filed["title"] == INCONCLUSIVE and filed["body"].startswith("**Inconclusive:**")
    assert "was inconclusive" in run.job("report").log
    # Green, so it is the next night's baseline: the issue closes once the new cell has a night before it.
    night(driver, 102)
    assert issues(driver)[0]["state"] == "closed"


# --- the night before: earlier, successful, with results ----------------------------------------------------------


def downloads(github: GitHub) -> list[str]:
    """The runs whose results were downloaded, in order."""
    return [call[2] for call in github.load()["calls"] if call[:2] == ["run", "download"]]


def test_a_night_whose_previous_night_left_no_results_compares_with_the_one_before(driver: Driver) -> None:
    night(driver, 101)
    state = driver.github.load()
    state["artifacts"]["101"]["results"]["expired"] = True
    driver.github.save(state)
    run = night(driver, 102)
    assert downloads(driver.github) == ["100", "100"], "101's results expired: 100 instead"
    assert "### Against nightly run 100: clean" in run.job("report").summary


def test_a_re_run_of_an_old_night_never_compares_with_a_later_night(driver: Driver) -> None:
    first = night(driver, 101, {MID: "die"})
    assert first.conclusion == "failure"
    night(driver, 102)
    night(driver, 101, {MID: "pass"}, previous=first)
    assert downloads(driver.github) == ["100", "100", "100"], "101 (re-run) compares with 100, never 102"


def test_a_night_with_no_previous_results_at_all_says_so_and_touches_no_issue(first_night: tuple[Path, Run]) -> None:
    base, run = first_night
    assert report_step(run, TRACK) == "success" and "nothing to compare with" in run.job("report").log
    assert GitHub(base / "github").issue_calls() == [] and downloads(GitHub(base / "github")) == []


@pytest.mark.parametrize("failing", ["run list", "api", "run download"])
def test_a_gh_failure_fails_the_step_instead_of_reading_as_no_previous_results(driver: Driver, failing: str) -> None:
    night(driver, 101, {MID: "fail"})
    state = driver.github.load()
    state["fail"] = [failing]
    driver.github.save(state)
    run = night(driver, 102)
    assert report_step(run, TRACK) == "failure" and run.result("report") == "failure"
    assert "HTTP 502" in run.job("report").log
    assert [c[1] for c in driver.github.issue_calls()] == ["create"], "102 left the issue alone"


# --- re-running a failed cell ---------------------------------------------------------------------------------------


def test_re_running_the_one_failed_cell_merges_every_attempts_results(driver: Driver) -> None:
    first = night(driver, 101, {MID: "die"})
    assert cells_of(first) == {OLD: "success", MID: "failure", NEW: "success"}
    assert report_step(first, CHECK) == "failure"
    assert [r["status"] for r in merged(first)[MID]] and {r["status"] for r in merged(first)[MID]} == {"install_error"}
    [filed] = issues(driver)
    assert filed["title"] == INCONCLUSIVE
    again = night(driver, 101, {MID: {"2": "pass"}}, previous=first)
    assert again.attempt == 2 and again.conclusion == "success"
    assert cells_of(again) == dict.fromkeys((OLD, MID, NEW), "success")
    assert {cell: ",".join(sorted({r["status"] for r in records})) for cell, records in merged(again).items()} == \
        dict.fromkeys((OLD, MID, NEW), "passed")
    assert issues(driver)[0]["state"] == "closed"


# --- a cell that hangs ------------------------------------------------------------------------------------------------


def test_a_cell_that_hangs_uploads_what_it_recorded_and_reads_as_stopped_not_as_uninstalled(driver: Driver) -> None:
    run = night(driver, 101, {MID: "hang"})
    job = run.job(MID)
    assert job.result == "failure" and "the step timed out after" in job.log
    assert dict(job.steps)["actions/upload-artifact@bbbca2ddaa5d8feaa63e36b76fdaad77386f024f"] == "success"
    records = merged(run)[MID]
    assert [r["status"] for r in records] == ["passed", "passed"], "the half it recorded, kept"
    log = run.job("report").log
    assert "its job produced no results" not in log
    assert f"could not fully run {MID}: incomplete (no done marker: its run stopped after 2 case(s)" in log
    assert issues(driver)[0]["title"] == INCONCLUSIVE


# --- a broken regression tool ----------------------------------------------------------------------------------------


def test_a_crash_of_the_regression_tool_leaves_the_issue_alone_and_fails_the_step(driver: Driver) -> None:
    night(driver, 101, {MID: "fail"})
    with (driver.repo / "reports" / "verdicts" / "compare.py").open("a") as handle:
        handle.write("\n\ndef compare(*args, **kwargs):\n    raise RuntimeError('a bug in the comparison')\n")
    before = driver.github.issue_calls()
    run = night(driver, 102)
    assert report_step(run, TRACK) == "failure" and run.result("report") == "failure"
    assert driver.github.issue_calls() == before, "no verdict: nothing filed, edited, commented or closed"
    assert "exited with 3 and no verdict" in run.job("report").log
    assert "RuntimeError: a bug in the comparison" in run.job("report").log


# --- the plan, the report's installs, the queue guard ----------------------------------------------------------------


def test_a_failed_plan_skips_every_other_job(fresh: Driver) -> None:
    driver = fresh
    (driver.repo / "matrix.toml").write_text("[[cell]]\njax = 'x'\n")
    run = night(driver, 100)
    assert run.colours() == {"plan": "failure", "queue guard": "skipped", "cell": "skipped", "report": "skipped"}


def test_the_report_job_installs_the_commands_dependencies_once(driver: Driver) -> None:
    installs = [i for i in driver.github.load()["installs"] if i["job"].startswith("report-")]
    # pyproject's dependencies (pandas for the report among them): there is no `report` extra to name.
    command_deps = [i for i in installs if " ".join(i["args"]).endswith("-r pyproject.toml")]
    assert len(command_deps) == 1, installs


@pytest.mark.parametrize("status", ["in_progress", "completed"])
def test_the_queue_guard_passes_once_every_accelerator_job_has_a_runner(tmp_path: Path, status: str) -> None:
    driver = make_driver(tmp_path, MATRIX_TOML + GPU)
    state = driver.github.load()
    state["jobs"] = [{"name": GPU_CELL, "status": status}]
    driver.github.save(state)
    run = driver.run("schedule", 100, variables={"SHARDMATRIX_GPU": "true", "SHARDMATRIX_GPU_RUNNER": "gpu-box"})
    assert run.colours()["queue guard"] == "success" and run.colours()[GPU_CELL] == "success"
    assert driver.github.load().get("cancelled") is None


def test_the_queue_guard_stays_off_while_no_accelerator_is_switched_on(first_night: tuple[Path, Run]) -> None:
    _, run = first_night
    assert run.colours()["queue guard"] == "skipped"


ON = {"SHARDMATRIX_GPU": "true", "SHARDMATRIX_GPU_RUNNER": "gpu-box"}


def test_a_gpu_cell_outside_the_default_set_runs_and_is_reported_while_its_switch_is_on(tmp_path: Path) -> None:
    # Its job names it (--cells): a cell session outside the default set skips unless named.
    driver = make_driver(tmp_path, MATRIX_TOML + GPU + "default = false\n")
    state = driver.github.load()
    state["jobs"] = [{"name": GPU_CELL, "status": "in_progress"}]  # a runner took it: the queue guard lets it be
    driver.github.save(state)
    run = driver.run("schedule", 100, variables=ON)
    assert run.colours()[GPU_CELL] == "success" and report_step(run, CHECK) == "success"
    assert {record["status"] for record in merged(run)[GPU_CELL]} == {"passed"}


def test_a_gpu_cell_outside_the_default_set_is_left_out_while_its_switch_is_off(tmp_path: Path) -> None:
    run = make_driver(tmp_path, MATRIX_TOML + GPU + "default = false\n").run("schedule", 100)
    assert GPU_CELL not in run.colours() and GPU_CELL not in merged(run)
    assert cells_of(run) == dict.fromkeys([OLD, MID, NEW], "success")
