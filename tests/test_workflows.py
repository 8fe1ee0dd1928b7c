"""The GitHub workflows: pinned actions, least privilege, and no findings from zizmor and actionlint."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
WORKFLOWS = ROOT / ".github" / "workflows"
MATRIX = WORKFLOWS / "matrix.yml"
#: GitHub's tests workflow sets this, so a missing actionlint fails there instead of skipping.
REQUIRE_ACTIONLINT = "SHARDMATRIX_REQUIRE_ACTIONLINT"


def tool(name: str) -> str | None:
    """A console script beside this interpreter (the test venv), else on PATH."""
    beside = Path(sys.executable).with_name(name)
    return str(beside) if beside.exists() else shutil.which(name)


def test_zizmor_finds_nothing() -> None:
    zizmor = tool("zizmor")
    assert zizmor, "zizmor is in the test extra"
    done = subprocess.run([zizmor, "--offline", "--no-progress", str(WORKFLOWS)], capture_output=True, text=True,
                          check=False)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "No findings to report" in done.stdout + done.stderr


def test_actionlint_finds_nothing() -> None:
    actionlint = tool("actionlint")
    if actionlint is None:
        if os.environ.get(REQUIRE_ACTIONLINT):
            pytest.fail("actionlint is required here: pip install '.[actionlint]'")
        pytest.skip("actionlint not installed (pip install '.[actionlint]' where GitHub is reachable)")
    done = subprocess.run([actionlint, "-no-color"], cwd=ROOT, capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stdout + done.stderr


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
