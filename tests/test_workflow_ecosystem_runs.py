"""The ecosystem workflow run as GitHub would run it (tests/workflow_driver.py): one job per listed project from the
command's own `--plan`, one report from their folders (`--merge`), a project whose job died, a re-run of it, a
project slower than its step, an unknown project, a candidate that cannot be; the merged report and every job's
colour. `--plan` checks the candidate against an index: a folder of its JSON documents, read offline."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from test_ecosystem_baseline import DAYS
from test_workflow_matrix_runs import WORKFLOWS, copy_repository
from workflow_driver import Driver, GitHub, Run

from harness.ecosystem_summary import ECOSYSTEM_JSON, read_ecosystem
from shardmatrix import ecosystem_merge

#: The baseline is named: the default one reads each flax release's own JSON, which the folder index does not serve.
INPUTS = {"jax": "0.9.0", "baseline": "jax==0.8.2,flax==0.12.0", "projects": "haliax penzai"}
#: What every job is given of the run, as the plan builds it (the day: jax 0.9.0's upload day, the default).
RUN = ["jax==0.9.0", "--baseline", "jax==0.8.2,flax==0.12.0"]


def folder_index(root: Path) -> str:
    """An index of jax, jaxlib and flax with DAYS' upload days, one JSON document per package in a folder, as the
    $SHARDMATRIX_JSON_API address the real command reads."""
    for package, days in {**DAYS, "jaxlib": DAYS["jax"]}.items():
        document = {"releases": {v: [{"filename": f"{package}-{v}.tar.gz", "yanked": False,
                                      "upload_time_iso_8601": f"{day}T10:00:00Z"}] for v, day in days.items()}}
        (root / package).mkdir(parents=True)
        (root / package / "json").write_text(json.dumps(document))
    return root.as_uri() + "/{name}/json"


@pytest.fixture
def driver(tmp_path: Path) -> Driver:
    made = Driver(WORKFLOWS / "ecosystem.yml", copy_repository(tmp_path / "repo"), GitHub(tmp_path / "github"),
                  tmp_path / "driver")
    made.scenario = {"json_api": folder_index(tmp_path / "index")}
    return made


def run(driver: Driver, projects: dict[str, Any] | None = None, previous: Run | None = None,
        inputs: dict[str, str] | None = None) -> Run:
    driver.scenario = {**driver.scenario, "projects": projects or {}}
    return driver.run("workflow_dispatch", 5, inputs={**INPUTS, **(inputs or {})}, previous=previous)


def report(driver: Driver) -> dict[str, tuple[str, str]]:
    """The merged report's projects: name -> (verdict, reason)."""
    summary = read_ecosystem(driver.github.artifact_dir(5, "ecosystem-report") / ECOSYSTEM_JSON.name)
    return {p["name"]: (p["verdict"], p["reason"]) for p in summary["projects"]}


def test_one_job_per_project_fans_in_one_report_and_each_artifact_expires_when_it_is_no_longer_read(
    driver: Driver
) -> None:
    done = run(driver)
    assert done.colours() == {"plan": "success", "haliax": "success", "penzai": "success", "merge": "success"}
    assert report(driver) == {"haliax": ("SAFE", ""), "penzai": ("SAFE", "")}
    kept = {name: a["retention_days"] for name, a in driver.github.artifacts(5).items()}
    assert kept == {"ecosystem-project-haliax": 7, "ecosystem-project-penzai": 7, "ecosystem-report": 30}
    ran = driver.github.load()["ecosystem"]
    assert sorted(ran) == [[*RUN, "--only", name, "--out", "out"] for name in ("haliax", "penzai")]
    assert "**SAFE**: 0 of 2 project(s) judged break" in done.job("merge").summary


def test_a_project_that_regresses_is_a_result_of_its_job_and_fails_the_merge_last(driver: Driver) -> None:
    done = run(driver, {"penzai": "fail"}, inputs={"baseline": "jax==0.8.2,flax==0.12.0", "as-of": "2026-01-20"})
    assert done.colours() == {"plan": "success", "haliax": "success", "penzai": "success", "merge": "failure"}
    assert report(driver) == {"haliax": ("SAFE", ""), "penzai": ("UNSAFE", "")}
    assert "UNSAFE: a project's tests regressed" in done.job("merge").log
    assert done.job("merge").steps[-1] == ("Fail when a project regressed or could not be judged", "failure")
    assert ["jax==0.9.0", "--baseline", "jax==0.8.2,flax==0.12.0", "--as-of", "2026-01-20", "--only", "penzai",
            "--out", "out"] in driver.github.load()["ecosystem"]


def test_a_project_whose_job_died_is_named_inconclusive_and_a_re_run_of_it_alone_completes_the_report(
    driver: Driver
) -> None:
    first = run(driver, {"penzai": {"1": "die", "2": "pass"}})
    assert first.colours() == {"plan": "success", "haliax": "success", "penzai": "failure", "merge": "failure"}
    assert report(driver) == {"haliax": ("SAFE", ""), "penzai": ("INCONCLUSIVE", ecosystem_merge.NO_REPORT)}
    again = run(driver, {"penzai": {"1": "die", "2": "pass"}}, previous=first)
    assert again.colours() == {"plan": "success", "haliax": "success", "penzai": "success", "merge": "success"}
    assert report(driver) == {"haliax": ("SAFE", ""), "penzai": ("SAFE", "")}, "every attempt's folder is read"
    assert len(driver.github.load()["ecosystem"]) == 3, "haliax ran once"


def test_a_project_slower_than_its_step_uploads_what_it_recorded_and_the_merge_names_it(driver: Driver) -> None:
    done = run(driver, {"haliax": "hang"})
    assert done.colours() == {"plan": "success", "haliax": "failure", "penzai": "success", "merge": "failure"}
    assert "the step timed out after 75 minutes" in done.job("haliax").log, "the step's limit, not the job's"
    recorded = driver.github.artifact_dir(5, "ecosystem-project-haliax")
    assert [p.name for p in recorded.rglob("*.jsonl")] == ["haliax.jsonl"]
    assert report(driver)["haliax"] == ("INCONCLUSIVE", ecosystem_merge.NO_REPORT)


def test_an_unknown_project_fails_the_plan_in_one_line_and_nothing_runs(driver: Driver) -> None:
    done = run(driver, inputs={"projects": "haliax nosuch"})
    assert done.colours() == {"plan": "failure", "project": "skipped", "merge": "skipped"}
    assert "--only nosuch: no such project in the list" in done.job("plan").log


def test_a_candidate_that_cannot_be_fails_the_plan_in_one_line_and_no_project_job_runs(driver: Driver) -> None:
    done = run(driver, inputs={"baseline": "jax==0.9.1,flax==0.12.0"})
    assert done.colours() == {"plan": "failure", "project": "skipped", "merge": "skipped"}
    errors = [line for line in done.job("plan").log.splitlines() if "shardmatrix:" in line or "Error" in line]
    assert errors == ["shardmatrix: --baseline jax==0.9.1 is not older than the candidate jax==0.9.0: give the "
                      "earlier release as the baseline"]
    assert "ecosystem" not in driver.github.load(), "no project's job ran"


def test_the_merge_is_told_the_run_and_takes_the_parts_of_that_run(driver: Driver) -> None:
    done = run(driver, inputs={"as-of": "2026-01-20"})
    assert done.colours() == {"plan": "success", "haliax": "success", "penzai": "success", "merge": "success"}
    assert report(driver) == {"haliax": ("SAFE", ""), "penzai": ("SAFE", "")}
    merged = read_ecosystem(driver.github.artifact_dir(5, "ecosystem-report") / ECOSYSTEM_JSON.name)
    assert (merged["candidate"], merged["baseline"], merged["as_of"]) == (["jax==0.9.0"], RUN[2], "2026-01-20")


def test_the_merge_refuses_the_parts_of_another_run_than_the_one_it_merges(driver: Driver) -> None:
    # Both parts agree with each other: only the run the merge is told of tells them apart.
    done = run(driver, {"haliax": "elsewhere", "penzai": "elsewhere"})
    assert done.colours() == {"plan": "success", "haliax": "success", "penzai": "success", "merge": "failure"}
    assert ("a part of another run: its baseline jax==0.8.1,flax==0.12.0, not the jax==0.8.2,flax==0.12.0 asked"
            in done.job("merge").log)
    assert not driver.github.artifact_dir(5, "ecosystem-report").exists(), "no report of a mixed run"
