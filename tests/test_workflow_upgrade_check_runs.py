"""The reusable upgrade-check workflow and the action, run as GitHub would run them (tests/workflow_driver.py) from the
caller workflow of the fixture downstream repository (tests/downstream/.github/workflows/shardmatrix.yml): a first
watch, an UNSAFE one opening the rolling issue, a re-run updating it, a green one closing it, and what is never a
verdict."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from test_workflow_matrix_runs import IGNORED, copy_repository
from workflow_driver import ROOT, Driver, GitHub, Run

REMOTE = "shardmatrix/shardmatrix"
DOWNSTREAM = ROOT / "tests" / "downstream"
CALLER = Path(".github") / "workflows" / "shardmatrix.yml"
CHECK, TRACK = "shardmatrix / check", "shardmatrix / rolling issue"
WATCHED = "shardmatrix: upgrading jax+flax is "
#: A downstream job that runs the action as one of its own steps.
STEP_CALLER = """
name: own-job
on:
  schedule:
    - cron: "0 6 * * *"
permissions: {}
defaults:
  run:
    shell: bash
jobs:
  tests:
    runs-on: ubuntu-latest
    permissions:
      contents: read
      actions: read
      issues: write
    steps:
      - uses: actions/checkout@3d3c42e5aac5ba805825da76410c181273ba90b1  # v7.0.1
        with:
          persist-credentials: false
      - id: shardmatrix
        uses: shardmatrix/shardmatrix@0123456789abcdef0123456789abcdef01234567
        with:
          flax: 0.12.7
          markers: not gpu
      - if: ${{ !cancelled() }}
        env:
          VERDICT: ${{ steps.shardmatrix.outputs.verdict }}
        run: echo "the verdict was $VERDICT"
"""


@pytest.fixture(scope="module")
def shardmatrix(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """This repository as GitHub serves it at the caller's pinned commit (read only by the runs)."""
    return copy_repository(tmp_path_factory.mktemp("remote") / "shardmatrix")


@pytest.fixture
def driver(shardmatrix: Path, tmp_path: Path) -> Driver:
    """The downstream repository, whose caller workflow never ran."""
    repo = tmp_path / "repo"
    shutil.copytree(DOWNSTREAM, repo, ignore=IGNORED)
    return Driver(repo / CALLER, repo, GitHub(tmp_path / "github"), tmp_path / "driver",
                  remotes={REMOTE: shardmatrix})


def watch(driver: Driver, run_id: int, verdict: str, releases: list[str], previous: Run | None = None) -> Run:
    """A scheduled run where the index holds `releases` and shardmatrix answers `verdict`."""
    driver.scenario = {"verdict": verdict, "releases": releases}
    return driver.run("schedule", run_id, previous=previous)


def issues(driver: Driver) -> list[dict[str, Any]]:
    return driver.github.load()["issues"]


def calls(driver: Driver) -> list[list[str]]:
    """Every shardmatrix command line the runs gave."""
    return driver.github.load().get("shardmatrix", [])


def test_a_first_watch_judges_every_newer_release_reports_safe_and_files_nothing(driver: Driver) -> None:
    run = watch(driver, 1, "SAFE", ["0.9.0", "0.9.1"])
    assert run.colours() == {CHECK: "success", TRACK: "success"}
    assert run.called["shardmatrix"]["verdict"] == "SAFE"
    summary = json.loads(run.called["shardmatrix"]["summary"])
    assert summary["verdict"] == "SAFE" and summary["command"] == "watch"
    assert [j["version"] for j in summary["watch"]["judged"]] == ["0.9.0", "0.9.1"]
    [line] = calls(driver)
    assert line[:2] == ["watch", "--state"] and "--json" in line and line[line.index("--project") + 1] == "."
    assert "no earlier watch state" in run.job(CHECK).log
    page = run.job(CHECK).summary
    assert page.startswith(f"## {WATCHED}SAFE\n") and "| jax 0.9.1 | this run | SAFE |" in page
    assert "### jax 0.9.0\n" in page, "each release's own compare report follows the table"
    assert issues(driver) == [] and driver.github.issue_calls() == []
    installs = [i["args"] for i in driver.github.load()["installs"] if i["tool"] == "uv"]
    assert installs and all(a[0] == "--system" and ".shardmatrix-action" in a[1] for a in installs), installs


def test_the_check_installs_shardmatrix_at_the_callers_pinned_commit_and_holds_no_write_token(driver: Driver) -> None:
    run = watch(driver, 1, "SAFE", ["0.9.0"])
    [checkout] = [u for u in run.job(CHECK).uses if u.get("repository") == REMOTE]
    assert checkout["ref"] == "0123456789abcdef0123456789abcdef01234567"
    assert checkout["persist-credentials"] is False
    called = driver.tmp / "called" / "shardmatrix"
    spec = Driver(ROOT / ".github" / "workflows" / "upgrade-check.yml", driver.repo, driver.github, called).spec
    assert spec["jobs"]["check"]["permissions"] == {"contents": "read", "actions": "read"}
    assert "issues" in spec["jobs"]["track"]["permissions"]


def test_an_unsafe_release_opens_the_issue_and_turns_the_check_red(driver: Driver) -> None:
    watch(driver, 1, "SAFE", ["0.9.0"])
    run = watch(driver, 2, "UNSAFE", ["0.9.0", "0.9.2"])
    assert run.colours() == {CHECK: "failure", TRACK: "success"}, "UNSAFE fails the check; the issue is still kept"
    watched = json.loads(run.called["shardmatrix"]["summary"])["watch"]
    assert [j["version"] for j in watched["judged"]] == ["0.9.2"], "0.9.0 was judged once, by the first run"
    assert [j["version"] for j in watched["remembered"]] == ["0.9.0"]
    [filed] = issues(driver)
    assert filed["title"] == f"{WATCHED}UNSAFE" and filed["state"] == "open"
    assert "| jax 0.9.2 | this run | UNSAFE | jax==0.9.2 | 1 |" in filed["body"]
    assert "test_model::test_gather" in filed["body"] and "/actions/runs/2" in filed["body"]
    assert "upgrading jax+flax is UNSAFE" in run.job(CHECK).log


def test_a_re_run_still_unsafe_updates_the_one_issue_and_a_safe_run_closes_it(driver: Driver) -> None:
    watch(driver, 1, "UNSAFE", ["0.9.2"])
    again = watch(driver, 2, "INCONCLUSIVE", ["0.9.2", "0.9.3"])
    assert again.colours() == {CHECK: "success", TRACK: "success"}, "INCONCLUSIVE warns, fails only when asked"
    [kept] = issues(driver)
    assert kept["title"] == f"{WATCHED}INCONCLUSIVE" and kept["state"] == "open"
    assert kept["comments"] == ["Inconclusive in https://github.com/owner/repo/actions/runs/2"]
    green = watch(driver, 3, "SAFE", ["0.9.2", "0.9.3", "0.9.4"])
    assert green.colours() == {CHECK: "success", TRACK: "success"}
    [closed] = issues(driver)
    assert closed["state"] == "closed" and closed["comments"][-1].startswith("Safe again in ")
    assert [c[1] for c in driver.github.issue_calls()] == ["create", "edit", "comment", "close"]


def test_re_running_a_failed_check_keeps_the_same_issue(driver: Driver) -> None:
    first = watch(driver, 1, "UNSAFE", ["0.9.2"])
    again = watch(driver, 1, "UNSAFE", ["0.9.2"], previous=first)
    assert again.attempt == 2 and again.colours() == {CHECK: "failure", TRACK: "success"}
    [kept] = issues(driver)
    assert kept["state"] == "open" and kept["comments"] == ["Unsafe in https://github.com/owner/repo/actions/runs/1"]


def test_on_demand_runs_upgrade_for_the_release_named_and_keeps_that_line_s_issue(driver: Driver) -> None:
    driver.scenario = {"verdict": "UNSAFE"}
    run = driver.run("workflow_dispatch", 5, inputs={"jax": "0.9.2"})
    assert run.colours() == {CHECK: "failure", TRACK: "success"}
    [line] = calls(driver)
    assert line[:2] == ["upgrade", "jax==0.9.2"] and "--state" not in line
    assert [i["title"] for i in issues(driver)] == ["shardmatrix: upgrading jax is UNSAFE"]


def test_a_broken_shardmatrix_is_no_verdict_and_leaves_the_issue_alone(driver: Driver) -> None:
    watch(driver, 1, "UNSAFE", ["0.9.2"])
    run = watch(driver, 2, "BROKEN", ["0.9.2"])
    assert run.colours() == {CHECK: "failure", TRACK: "skipped"}
    assert "exited with 3: no verdict" in run.job(CHECK).log
    assert run.called["shardmatrix"]["verdict"] == ""
    [kept] = issues(driver)
    assert kept["state"] == "open" and kept["comments"] == []


def test_a_pull_request_never_touches_the_issue(driver: Driver) -> None:
    watch(driver, 1, "UNSAFE", ["0.9.2"])
    driver.scenario = {"verdict": "SAFE", "releases": ["0.9.2"]}
    run = driver.run("pull_request", 2)
    assert run.colours() == {CHECK: "success", TRACK: "skipped"}
    assert issues(driver)[0]["state"] == "open"


def test_the_action_as_one_step_of_a_job_gives_the_verdict_and_keeps_the_issue(shardmatrix: Path,
                                                                               tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    shutil.copytree(DOWNSTREAM, repo, ignore=IGNORED)
    (repo / CALLER).write_text(STEP_CALLER)
    made = Driver(repo / CALLER, repo, GitHub(tmp_path / "github"), tmp_path / "driver",
                  remotes={REMOTE: shardmatrix})
    made.scenario = {"verdict": "UNSAFE"}
    run = made.run("schedule", 9)
    assert run.colours() == {"tests": "failure"}
    assert "the verdict was UNSAFE" in run.job("tests").log
    [line] = calls(made)
    assert line[:2] == ["upgrade", "flax==0.12.7"] and line[line.index("-m") + 1] == "not gpu"
    assert [i["title"] for i in issues(made)] == ["shardmatrix: upgrading flax is UNSAFE"]
    made.scenario = {"verdict": "SAFE"}
    made.run("schedule", 10)
    assert issues(made)[0]["state"] == "closed"


def test_each_package_line_keeps_its_own_issue_and_its_own_watch_state(driver: Driver) -> None:
    watch(driver, 1, "UNSAFE", ["0.9.2"])
    caller = driver.repo / CALLER
    caller.write_text(caller.read_text().replace("      jax: ${{ inputs.jax }}\n",
                                                 "      jax: ${{ inputs.jax }}\n      package: flax\n"))
    flax_only = Driver(caller, driver.repo, driver.github, driver.tmp.with_name("flax"), remotes=driver.remotes)
    run = watch(flax_only, 2, "UNSAFE", ["0.9.2"])
    assert calls(driver)[-1][calls(driver)[-1].index("--package") + 1] == "flax"
    assert [j["version"] for j in json.loads(run.called["shardmatrix"]["summary"])["watch"]["judged"]] == ["0.9.2"], \
        "the jax+flax line's state is not the flax line's"
    assert sorted(i["title"] for i in issues(driver)) == ["shardmatrix: upgrading flax is UNSAFE", f"{WATCHED}UNSAFE"]


EVERY_INPUT = """
      with:
        {candidate}
        with: |
          optax==0.2.5
          chex
        cases: tests
        markers: not gpu
        keyword: not slow
        deselect: |
          test_model::test_big
        package: {package}
        pre: "true"
        index: https://example.org/simple
        project: .
"""


@pytest.mark.parametrize(("command", "candidate", "package"), [("upgrade", "jax: 0.9.2", ""),
                                                                ("watch", "", "jax")])
def test_the_command_line_the_action_builds_is_one_the_real_command_accepts(
        shardmatrix: Path, tmp_path: Path, command: str, candidate: str, package: str) -> None:
    """Every input on its way to the real parser of `shardmatrix upgrade` and `watch` (shardmatrix.command):
    a flag the command does not take fails here, not on a user's schedule."""
    from shardmatrix import command as shardmatrix_command

    if command not in shardmatrix_command.SUBCOMMANDS:
        pytest.skip(f"`shardmatrix {command}` is not on this branch yet")
    repo = tmp_path / "repo"
    shutil.copytree(DOWNSTREAM, repo, ignore=IGNORED)
    step = STEP_CALLER.replace("""      with:
          flax: 0.12.7
          markers: not gpu
""", EVERY_INPUT.format(candidate=candidate, package=package).replace("\n      ", "\n        "))
    (repo / CALLER).write_text(step)
    made = Driver(repo / CALLER, repo, GitHub(tmp_path / "github"), tmp_path / "driver", remotes={REMOTE: shardmatrix})
    made.scenario = {"verdict": "SAFE", "releases": []}
    made.run("schedule", 1)
    [line] = calls(made)
    assert line[0] == command and ["--with", "optax==0.2.5", "--with", "chex"] == line[line.index("--with"):][:4]
    assert line[line.index("--deselect") + 1] == "test_model::test_big" and line[line.index("-k") + 1] == "not slow"
    shardmatrix_command.check(command, line[1:], f"shardmatrix {command}")


def test_an_upgrade_judged_on_fewer_tests_gives_its_coverage_beside_the_verdict(driver: Driver) -> None:
    driver.scenario = {"verdict": "SAFE", "coverage": "4 of 7 tests judged (3 need 2 devices)"}
    run = driver.run("workflow_dispatch", 5, inputs={"jax": "0.9.2"})
    assert run.colours() == {CHECK: "success", TRACK: "success"}
    called = run.called["shardmatrix"]
    assert called["verdict"] == "SAFE" and called["coverage"] == "4 of 7 tests judged (3 need 2 devices)"
    assert json.loads(called["summary"])["coverage"] == "4 of 7 tests judged (3 need 2 devices)"
    assert run.job(CHECK).summary.startswith(
        "## shardmatrix: upgrading jax is SAFE: 4 of 7 tests judged (3 need 2 devices)\n")


def test_an_upgrade_that_judged_every_test_reads_as_it_always_did(driver: Driver) -> None:
    driver.scenario = {"verdict": "SAFE"}
    run = driver.run("workflow_dispatch", 5, inputs={"jax": "0.9.2"})
    called = run.called["shardmatrix"]
    assert called["verdict"] == "SAFE" and called["coverage"] == "" and json.loads(called["summary"])["coverage"] == ""
    assert run.job(CHECK).summary.startswith("## shardmatrix: upgrading jax is SAFE\n")


def test_an_upgrade_gives_its_regressions_counted_by_kind_and_a_clean_one_none(driver: Driver) -> None:
    driver.scenario = {"verdict": "UNSAFE", "regressions": {"documented": 1, "known": 2, "unexplained": 0}}
    called = driver.run("workflow_dispatch", 5, inputs={"jax": "0.9.2"}).called["shardmatrix"]
    assert called["regressions"] == "1 documented · 2 known upstream · 0 unexplained"
    driver.scenario = {"verdict": "SAFE"}
    assert driver.run("workflow_dispatch", 6, inputs={"jax": "0.9.2"}).called["shardmatrix"]["regressions"] == ""


def test_a_watch_gives_each_judged_release_s_coverage(driver: Driver) -> None:
    driver.scenario = {"verdict": "UNSAFE", "releases": ["0.9.2"], "coverage": "4 of 7 tests judged (3 need 2 devices)"}
    run = driver.run("schedule", 1)
    assert run.called["shardmatrix"]["coverage"] == "jax 0.9.2: 4 of 7 tests judged (3 need 2 devices)"
    assert "| jax 0.9.2 | this run | UNSAFE: 4 of 7 tests judged (3 need 2 devices) | jax==0.9.2 | 1 |" in \
        run.job(CHECK).summary
    [filed] = issues(driver)
    assert "UNSAFE: 4 of 7 tests judged (3 need 2 devices)" in filed["body"]


def test_a_watch_gives_a_remembered_release_s_coverage_in_its_headline_too(driver: Driver) -> None:
    driver.scenario = {"verdict": "UNSAFE", "releases": ["0.9.2"], "coverage": "4 of 7 tests judged (3 need 2 devices)"}
    driver.run("schedule", 1)
    run = driver.run("schedule", 2)  # nothing new: 0.9.2 is remembered
    assert [j["version"] for j in json.loads(run.called["shardmatrix"]["summary"])["watch"]["remembered"]] == ["0.9.2"]
    assert run.called["shardmatrix"]["coverage"] == "jax 0.9.2: 4 of 7 tests judged (3 need 2 devices)"
    assert run.job(CHECK).summary.startswith(
        f"## {WATCHED}UNSAFE: jax 0.9.2: 4 of 7 tests judged (3 need 2 devices)\n")
