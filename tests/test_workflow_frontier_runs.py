"""The weekly frontier workflow run as GitHub would run it (tests/workflow_driver.py): a first attempt, a re-run of
the one release whose job failed, and a failed plan; the merged report and every job's colour."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from test_workflow_matrix_runs import WORKFLOWS, copy_repository
from workflow_driver import Driver, GitHub

RELEASES = ["0.10.2", "0.11.0"]


@pytest.fixture
def driver(tmp_path: Path) -> Driver:
    made = Driver(WORKFLOWS / "frontier.yml", copy_repository(tmp_path / "repo"), GitHub(tmp_path / "github"),
                  tmp_path / "driver")
    made.scenario = {"frontier_plan": [{"flax": v} for v in RELEASES]}
    return made


def frontier_rows(driver: Driver, run_id: int) -> list[str]:
    merged = json.loads((driver.github.artifact_dir(run_id, "frontier-report") / "frontier.json").read_text())
    return [release["flax"] for release in merged["releases"]]


def test_a_weekly_run_merges_every_release_and_keeps_each_artifact_as_long_as_it_is_read(driver: Driver) -> None:
    run = driver.run("schedule", 7)
    assert run.colours() == {"plan": "success", "flax 0.10.2": "success", "flax 0.11.0": "success",
                             "merge": "success", "ranges": "success"}
    assert frontier_rows(driver, 7) == ["0.11.0", "0.10.2"]
    kept = {name: a["retention_days"] for name, a in driver.github.artifacts(7).items()}
    assert kept == {"frontier-flax-0.10.2": 7, "frontier-flax-0.11.0": 7, "frontier-report": 90,
                    "frontier-probes-flax-0.10.2": 7, "frontier-probes-flax-0.11.0": 7}


def test_re_running_the_one_failed_release_merges_every_attempts_results(driver: Driver) -> None:
    driver.scenario["frontier"] = {"0.11.0": {"1": "die", "2": "pass"}}
    first = driver.run("schedule", 7)
    assert first.colours() == {"plan": "success", "flax 0.10.2": "success", "flax 0.11.0": "failure",
                               "merge": "failure", "ranges": "success"}
    assert "incomplete frontier: no result for flax 0.11.0" in first.job("merge").log
    assert "frontier-report" not in driver.github.artifacts(7), "nothing published from an incomplete frontier"
    again = driver.run("schedule", 7, previous=first)
    assert again.colours() == {"plan": "success", "flax 0.10.2": "success", "flax 0.11.0": "success",
                               "merge": "success", "ranges": "success"}
    assert frontier_rows(driver, 7) == ["0.11.0", "0.10.2"]


def test_a_failed_plan_skips_the_merge(driver: Driver) -> None:
    driver.scenario["frontier_plan"] = None
    run = driver.run("schedule", 7)
    assert run.colours() == {"plan": "failure", "frontier": "skipped", "merge": "skipped", "ranges": "skipped"}


def test_a_release_slower_than_its_step_still_uploads_what_it_probed_and_the_merge_names_it(driver: Driver) -> None:
    driver.scenario["frontier"] = {"0.11.0": "hang"}
    run = driver.run("schedule", 7)
    assert run.colours() == {"plan": "success", "flax 0.10.2": "success", "flax 0.11.0": "failure",
                             "merge": "failure", "ranges": "success"}
    assert "the step timed out after 100 minutes" in run.job("flax 0.11.0").log, "the step's limit, not the job's"
    probes = driver.github.artifact_dir(7, "frontier-probes-flax-0.11.0")
    assert [p.name for p in probes.rglob("*.jsonl")] == ["jax0.4.30-flax0.11.0-py3.11.jsonl"]
    assert "frontier-flax-0.11.0" not in driver.github.artifacts(7)
    assert "incomplete frontier: no result for flax 0.11.0" in run.job("merge").log
