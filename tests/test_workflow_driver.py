"""The workflow driver's own rules (tests/workflow_driver.py): GitHub's expression semantics for the subset the
workflows use, a refusal for anything else, GitHub's shells, and its emulation of timeouts and artifacts."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from workflow_driver import Driver, GitHub, read_outputs
from workflow_expressions import Evaluator, ExpressionError, Status, condition, expand

CONTEXTS: dict[str, Any] = {
    "github": {"event_name": "schedule", "run_id": "42"},
    "inputs": {},
    "vars": {"SHARDMATRIX_GPU": "true"},
    "needs": {"plan": {"result": "success", "outputs": {"cells": "[]", "list": '[{"cell": "a"}]'}}},
}


def evaluate(source: str, status: Status | None = None) -> Any:
    return Evaluator(CONTEXTS, status or Status()).evaluate(source)


@pytest.mark.parametrize(("source", "value"), [
    ("github.event_name == 'schedule'", True),
    ("github.event_name == 'SCHEDULE'", True),  # strings compare case-insensitively
    ("needs.plan.outputs.cells != '[]'", False),
    ("needs.plan.outputs.missing != '[]'", True),  # a missing output is '' (null), not '[]'
    ("needs.plan.result == 'success' && vars.SHARDMATRIX_TPU == 'true'", False),
    ("vars.SHARDMATRIX_GPU == 'true' || vars.SHARDMATRIX_TPU == 'true'", True),
    ("inputs.cells", None),
    ("!cancelled()", True),
    ("fromJSON(needs.plan.outputs.list)", [{"cell": "a"}]),
    ("contains(needs.plan.outputs.list, 'cell')", True),
    ("startsWith(github.event_name, 'sched')", True),
    ("github.run_id == 42", True),  # two types: compared as numbers
    ("''", ""),
])
def test_expressions_evaluate_as_on_github(source: str, value: Any) -> None:
    assert evaluate(source) == value


@pytest.mark.parametrize("source", [
    "hashFiles('matrix.toml')",  # a function the driver does not know
    "github.sha",  # a property of a context the driver does not fill
    "secrets.TOKEN",  # a context it does not have
    "github.event_name =~ 'x'",  # an operator outside the subset
    "(github.event_name",
    "needs.report.result",  # a job this one does not need
])
def test_an_expression_the_driver_does_not_understand_fails_instead_of_passing(source: str) -> None:
    with pytest.raises(ExpressionError):
        evaluate(source)


def test_an_if_without_a_status_function_implies_success() -> None:
    failed = Status(success=False, failure=True)
    assert condition("github.event_name == 'schedule'", Evaluator(CONTEXTS, Status()))
    assert not condition("github.event_name == 'schedule'", Evaluator(CONTEXTS, failed))
    assert condition("${{ !cancelled() }}", Evaluator(CONTEXTS, failed))
    assert not condition("${{ !cancelled() }}", Evaluator(CONTEXTS, Status(cancelled=True)))
    assert condition(None, Evaluator(CONTEXTS, Status())) and not condition(None, Evaluator(CONTEXTS, failed))


def test_an_if_mixing_text_and_an_expression_is_refused() -> None:
    with pytest.raises(ExpressionError, match="always true"):
        condition("${{ github.event_name }} == 'schedule'", Evaluator(CONTEXTS, Status()))


def test_templates_keep_a_lone_expression_s_type_and_write_others_as_text() -> None:
    evaluator = Evaluator(CONTEXTS, Status())
    assert expand("${{ fromJSON(needs.plan.outputs.list) }}", evaluator) == [{"cell": "a"}]
    assert expand("run-${{ github.run_id }}-${{ vars.SHARDMATRIX_GPU }}", evaluator) == "run-42-true"
    assert expand({"a": ["${{ github.event_name }}"]}, evaluator) == {"a": ["schedule"]}


def test_step_outputs_are_read_in_both_of_github_s_forms() -> None:
    assert read_outputs("cells=[1]\nbody<<EOF\na\nb\nEOF\n") == {"cells": "[1]", "body": "a\nb"}


WORKFLOW = """
on: push
{defaults}
jobs:
  one:
    runs-on: ubuntu-latest
    timeout-minutes: 10
    steps:
      - id: pipe
        run: false | true
      - name: hang
        timeout-minutes: {step}
        run: touch "$DRIVER_HANG"; sleep 60
      - name: after
        if: ${{{{ !cancelled() }}}}
        run: echo after
      - name: always
        if: ${{{{ always() }}}}
        run: echo always
"""


def drive(tmp_path: Path, defaults: str = "", step: int = 5) -> dict[str, str]:
    tmp_path.mkdir(exist_ok=True)
    (tmp_path / "w.yml").write_text(WORKFLOW.format(defaults=defaults, step=step))
    (tmp_path / "repo").mkdir()
    run = Driver(tmp_path / "w.yml", tmp_path / "repo", GitHub(tmp_path / "gh"), tmp_path / "d").run("push", 1)
    assert run.result("one") == "failure"
    return dict(run.job("one").steps)


def test_without_a_shell_a_step_runs_as_bash_e_and_with_shell_bash_as_pipefail(tmp_path: Path) -> None:
    assert drive(tmp_path / "a")["false | true"] == "success"
    assert drive(tmp_path / "b", "defaults:\n  run:\n    shell: bash")["false | true"] == "failure"


def test_a_step_timeout_below_the_job_s_fails_the_step_and_later_steps_run(tmp_path: Path) -> None:
    assert drive(tmp_path, step=5) == {"false | true": "success", "hang": "failure", "after": "success",
                                       "always": "success"}


def test_a_step_that_outlives_the_job_s_timeout_cancels_the_job(tmp_path: Path) -> None:
    assert drive(tmp_path, step=30) == {"false | true": "success", "hang": "failure", "after": "skipped",
                                        "always": "success"}


def test_an_action_the_driver_does_not_emulate_fails(tmp_path: Path) -> None:
    (tmp_path / "w.yml").write_text("on: push\njobs:\n  a:\n    runs-on: x\n    steps:\n      - uses: a/b@c\n")
    (tmp_path / "repo").mkdir()
    with pytest.raises(ExpressionError, match="a/b@c is not emulated"):
        Driver(tmp_path / "w.yml", tmp_path / "repo", GitHub(tmp_path / "gh"), tmp_path / "d").run("push", 1)


CALLER = """
on: push
jobs:
  call:
    uses: ./.github/workflows/called.yml
    with:
      {given}: x
  after:
    needs: call
    runs-on: x
    steps:
      - env:
          GOT: ${{{{ needs.call.outputs.said }}}}
        run: echo "got $GOT"
"""
CALLED = """
on:
  workflow_call:
    inputs:
      word:
        type: string
        default: ""
    outputs:
      said:
        value: ${{ jobs.inner.outputs.said }}
jobs:
  inner:
    runs-on: x
    outputs:
      said: ${{ steps.act.outputs.said }}
    steps:
      - id: act
        uses: ./act
        with:
          word: ${{ inputs.word }}
"""
ACTION = """
name: act
inputs:
  word:
    default: ""
outputs:
  said:
    value: ${{{{ steps.say.outputs.said }}}}
runs:
  using: composite
  steps:
    - id: say
      {shell}
      env:
        WORD: ${{{{ inputs.word }}}}
      run: echo "said=$WORD from $(basename "$GITHUB_ACTION_PATH")" >> "$GITHUB_OUTPUT"
"""


def call(tmp_path: Path, given: str = "word", shell: str = "shell: bash") -> Driver:
    repo = tmp_path / "repo"
    (repo / ".github" / "workflows").mkdir(parents=True)
    (repo / ".github" / "workflows" / "called.yml").write_text(CALLED)
    (repo / "act").mkdir()
    (repo / "act" / "action.yml").write_text(ACTION.format(shell=shell))
    (repo / "caller.yml").write_text(CALLER.format(given=given))
    checkout = "      - uses: actions/checkout@x\n"
    called = repo / ".github" / "workflows" / "called.yml"
    called.write_text(called.read_text().replace("    steps:\n", "    steps:\n" + checkout))
    return Driver(repo / "caller.yml", repo, GitHub(tmp_path / "gh"), tmp_path / "d")


def test_a_reusable_workflow_s_jobs_run_under_the_caller_and_its_outputs_reach_the_next_job(tmp_path: Path) -> None:
    run = call(tmp_path).run("push", 1)
    assert run.colours() == {"call / inner": "success", "after": "success"}
    assert run.called["call"] == {"said": "x from act"}, "through the composite action's output"
    assert "got x from act" in run.job("after").log


def test_an_input_a_reusable_workflow_does_not_declare_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ExpressionError, match="has no input wrod"):
        call(tmp_path, given="wrod").run("push", 1)


def test_a_composite_run_step_without_shell_bash_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ExpressionError, match="needs `shell: bash`"):
        call(tmp_path, shell="").run("push", 1)
