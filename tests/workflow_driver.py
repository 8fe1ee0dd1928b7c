"""Runs a GitHub workflow's jobs from its YAML as GitHub would, without GitHub (tests/test_workflow_*_runs.py).

What is emulated, and how far:
- jobs in the order of their `needs`, each job's `if` (a status function or `success()` implied), matrix
  `include` lists, job outputs, `needs.<job>.result`, and a run's conclusion (failure when any job failed);
- steps: `run:` scripts written to a file and run with GitHub's shell (`bash -e {0}` when no shell is given,
  `bash --noprofile --norc -eo pipefail {0}` for `shell: bash`, from the step, the job's or the workflow's defaults),
  `$GITHUB_OUTPUT`, `$GITHUB_STEP_SUMMARY`, `env` at every level, `if` with step status functions;
- time: a faked command that would never end says so (it touches $DRIVER_HANG); the driver then moves the clock to
  the first limit that fires: the step's `timeout-minutes` (the step fails, later `!cancelled()` steps run) or the
  job's (the job is cancelled: only `always()` steps run, and the job fails);
- actions: checkout (a copy of the repository), setup-python and setup-uv (recorded, nothing installed: the test
  venv is on PATH), upload-artifact and download-artifact against an artifact store per run and attempt. Without
  `github-token`, download-artifact lists every attempt's artifacts but fetches only the current attempt's: any
  other fails the step, as the action does after "Re-run failed jobs";
- reusable workflows (a job's `uses:`, local or a repository of `remotes`): the called workflow's jobs run under the
  caller's job, named "<caller> / <job>", with its `workflow_call` inputs (defaults filled, an unknown one refused),
  its outputs, and the `job` context's workflow_repository and workflow_sha; composite actions (a step's `uses:` of a
  folder with an action.yml: `./path`, or a repository of `remotes`): their steps, each with `shell: bash`, with
  `inputs`, `github.action_path` and $GITHUB_ACTION_PATH, and their outputs; actions/checkout of another
  `repository:` into a `path:` copies that remote;
- re-runs: "Re-run failed jobs" runs the failed jobs (matrix entries one by one) and every job downstream of them
  in a new attempt, keeping the other jobs' results and outputs;
- `${{ }}` expressions: the subset the workflows use (tests/workflow_expressions.py); anything else raises
  ExpressionError: an expression the driver does not understand fails the test instead of passing silently.
`gh`, `shardmatrix` and the tools a job installs (nox, uv, pip) are faked by tests/workflow_fakes.py; state shared
with the fakes (runs, artifacts, issues, calls) is one JSON file.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml
from workflow_expressions import Evaluator, ExpressionError, Status, condition, expand, number, text, truthy

ROOT = Path(__file__).resolve().parent.parent
FAKES = Path(__file__).resolve().with_name("workflow_fakes.py")
#: GitHub's shells: none given, and `shell: bash`.
DEFAULT_SHELL = ["bash", "-e"]
BASH = ["bash", "--noprofile", "--norc", "-eo", "pipefail"]
#: A step that runs this long without saying it hangs is a real hang of the test: it fails.
REAL_LIMIT_S = 300
#: GitHub's default timeout-minutes of a job and of a step.
DEFAULT_MINUTES = 360


# --- the repository's state on "GitHub": runs, artifacts, issues ------------------------------------------------


class GitHub:
    """What the fake gh and the artifact actions share: one JSON file, and artifact folders beside it."""

    def __init__(self, root: Path) -> None:
        self.root = root
        root.mkdir(parents=True, exist_ok=True)
        self.path = root / "state.json"
        if not self.path.exists():
            self.save({"runs": [], "artifacts": {}, "issues": [], "calls": [], "fail": [], "jobs": []})

    def load(self) -> dict[str, Any]:
        return json.loads(self.path.read_text())

    def save(self, state: dict[str, Any]) -> None:
        self.path.write_text(json.dumps(state, indent=1))

    def artifact_dir(self, run: int, name: str) -> Path:
        return self.root / "artifacts" / str(run) / name

    def artifacts(self, run: int) -> dict[str, dict[str, Any]]:
        return self.load()["artifacts"].get(str(run), {})

    def upload(self, run: int, attempt: int, name: str, source: Path, retention: int | None, overwrite: bool) -> None:
        state = self.load()
        listed = state["artifacts"].setdefault(str(run), {})
        if name in listed and not overwrite:
            raise StepFailed(f"an artifact named {name} already exists in run {run}")
        target = self.artifact_dir(run, name)
        shutil.rmtree(target, ignore_errors=True)
        shutil.copytree(source, target) if source.is_dir() else (target.mkdir(parents=True),
                                                                  shutil.copy2(source, target))
        listed[name] = {"attempt": attempt, "expired": False, "retention_days": retention}
        self.save(state)

    def issue_calls(self) -> list[list[str]]:
        """The gh calls that changed an issue, in order."""
        return [c for c in self.load()["calls"] if c[:1] == ["issue"] and c[1] in ("create", "edit", "comment",
                                                                                    "close")]


class StepFailed(RuntimeError):
    """An action that failed, with the line it would print."""


# --- runs -----------------------------------------------------------------------------------------------------


@dataclass
class JobRun:
    """One job (one matrix entry) of one attempt: its result, outputs, the steps' outcomes and what it wrote."""

    name: str
    result: str
    outputs: dict[str, str] = field(default_factory=dict)
    steps: list[tuple[str, str]] = field(default_factory=list)
    summary: str = ""
    log: str = ""
    workspace: Path | None = None
    uses: list[dict[str, Any]] = field(default_factory=list)


@dataclass
class Run:
    """One attempt of a workflow run: each job id's runs (one per matrix entry), and the run's conclusion."""

    run_id: int
    attempt: int
    jobs: dict[str, list[JobRun]] = field(default_factory=dict)
    #: The outputs of each job that called a reusable workflow (its `workflow_call` outputs).
    called: dict[str, dict[str, str]] = field(default_factory=dict)

    def result(self, job: str) -> str:
        """A job's result as `needs.<job>.result` gives it: failure if any entry failed, cancelled, else success."""
        runs = self.jobs.get(job, [])
        results = {r.result for r in runs}
        for result in ("failure", "cancelled", "success"):
            if result in results:
                return result
        return "skipped"

    @property
    def conclusion(self) -> str:
        """success, or failure when any job failed (cancelled when one was cancelled and none failed)."""
        results = {self.result(job) for job in self.jobs}
        return "failure" if "failure" in results else "cancelled" if "cancelled" in results else "success"

    def job(self, name: str) -> JobRun:
        """The one run of a job named `name` (a matrix entry's name, or a job id)."""
        found = [r for runs in self.jobs.values() for r in runs if r.name == name]
        assert len(found) == 1, f"{len(found)} jobs named {name!r}: {[r.name for v in self.jobs.values() for r in v]}"
        return found[0]

    def colours(self) -> dict[str, str]:
        """Every job run's name and result."""
        return {r.name: r.result for runs in self.jobs.values() for r in runs}


@dataclass
class Driver:
    """Runs a workflow file against a repository copy, a GitHub state and the fakes, one attempt at a time."""

    workflow: Path
    repo: Path
    github: GitHub
    tmp: Path
    scenario: dict[str, Any] = field(default_factory=dict)
    context: dict[str, Any] = field(default_factory=dict)
    #: Repositories a `uses:` or a checkout may name ("owner/name" -> a folder holding it).
    remotes: dict[str, Path] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.spec = yaml.safe_load(self.workflow.read_text())
        self.bin = self.tmp / "bin"
        self.bin.mkdir(parents=True, exist_ok=True)
        for tool in ("gh", "nox", "uv", "python", "shardmatrix"):
            shim = self.bin / tool
            shim.write_text(f'#!/bin/sh\nexec "{sys.executable}" "{FAKES}" {tool} "$@"\n')
            shim.chmod(0o755)
        self.scenario_file = self.tmp / "scenario.json"

    # The workflow -------------------------------------------------------------------------------------------

    def order(self) -> list[str]:
        """Job ids, each after every job it needs (YAML order otherwise)."""
        jobs, done = self.spec["jobs"], []
        while len(done) < len(jobs):
            ready = [j for j in jobs if j not in done and all(n in done for n in needs_of(jobs[j]))]
            if not ready:
                raise ExpressionError(f"a cycle in the needs of {sorted(set(jobs) - set(done))}")
            done.append(ready[0])
        return done

    def run(self, event: str, run_id: int, inputs: dict[str, Any] | None = None,
            variables: dict[str, str] | None = None, previous: Run | None = None) -> Run:
        """One attempt: the first when `previous` is None, else "Re-run failed jobs" of `previous`."""
        attempt = 1 if previous is None else previous.attempt + 1
        run = Run(run_id, attempt)
        rerun: set[str] = set()
        if previous is not None:
            rerun = {j for j in self.spec["jobs"] if previous.result(j) in ("failure", "cancelled")}
            rerun |= {j for j in self.spec["jobs"] if self.ancestors(j) & rerun}
        github = {"event_name": event, "run_id": str(run_id), "run_attempt": str(attempt), "ref": "refs/heads/main",
                  "ref_name": "main", "repository": "owner/repo", "server_url": "https://github.com",
                  "token": "ghs_faketoken", "workflow": self.spec.get("name", "")}
        base = {"github": github, "inputs": inputs or {}, "vars": variables or {}}
        self.scenario_file.write_text(json.dumps({**self.scenario, "run_id": run_id, "attempt": attempt}))
        self.log_status(run, event, "in_progress")
        for job_id in self.order():
            spec = self.spec["jobs"][job_id]
            if previous is not None and job_id not in rerun:
                run.jobs[job_id] = previous.jobs.get(job_id, [])
                continue
            if previous is not None and spec.get("strategy") and previous.jobs.get(job_id):
                # Only the failed entries of a matrix run again; the rest keep their result.
                kept = [r for r in previous.jobs[job_id] if r.result == "success"]
            else:
                kept = []
            run.jobs[job_id] = kept + self.run_job(job_id, spec, base, run, skip={r.name for r in kept})
        self.log_status(run, event, "completed")
        return run

    def ancestors(self, job_id: str) -> set[str]:
        """Every job `job_id` needs, directly or not."""
        found: set[str] = set()
        for need in needs_of(self.spec["jobs"][job_id]):
            found |= {need} | self.ancestors(need)
        return found

    def log_status(self, run: Run, event: str, status: str) -> None:
        """The run as `gh run list` shows it: in progress while an attempt runs, then its conclusion."""
        state = self.github.load()
        state["runs"] = [r for r in state["runs"] if r["databaseId"] != run.run_id]
        state["runs"].append({"databaseId": run.run_id, "event": event, "headBranch": "main", "status": status,
                              "conclusion": run.conclusion if status == "completed" else "",
                              "attempt": run.attempt})
        self.github.save(state)

    def needs_context(self, spec: dict[str, Any], run: Run) -> dict[str, Any]:
        context = {}
        for need in needs_of(spec):
            runs = run.jobs.get(need, [])
            outputs = run.called[need] if need in run.called else runs[0].outputs if len(runs) == 1 else {}
            context[need] = {"result": run.result(need), "outputs": outputs}
        return context

    # Reusable workflows ----------------------------------------------------------------------------------------

    def reusable(self, uses: str) -> tuple[Path, str, str]:
        """The called workflow's file, its repository and its commit, from a job's `uses:`."""
        if uses.startswith("./"):
            return self.repo / uses, "owner/repo", "0" * 40
        found = re.fullmatch(r"([\w.-]+/[\w.-]+)/(\.github/workflows/[\w.-]+)@([0-9a-f]{40})", uses)
        if not found or found.group(1) not in self.remotes:
            raise ExpressionError(f"reusable workflow {uses} is not emulated (remotes: {sorted(self.remotes)})")
        return self.remotes[found.group(1)] / found.group(2), found.group(1), found.group(3)

    def call(self, job_id: str, spec: dict[str, Any], base: dict[str, Any], run: Run, needs: dict[str, Any]
             ) -> list[JobRun]:
        """A job that calls a reusable workflow: its jobs, run in order under the caller's name; its outputs kept."""
        path, repository, sha = self.reusable(spec["uses"])
        called = Driver(path, self.repo, self.github, self.tmp / "called" / job_id, remotes=self.remotes)
        called.scenario_file = self.scenario_file
        declared = called.spec[True]["workflow_call"]  # YAML reads `on:` as True
        given = expand(spec.get("with", {}), Evaluator({**base, "needs": needs}, Status()))
        unknown = sorted(set(given) - set(declared.get("inputs", {})))
        if unknown:
            raise ExpressionError(f"{spec['uses']} has no input {unknown[0]}")
        inputs = {}
        for name, what in declared.get("inputs", {}).items():
            value = given.get(name, what.get("default"))
            kinds = {"boolean": truthy, "number": number, "string": lambda v: "" if v is None else text(v)}
            inputs[name] = kinds[what.get("type", "string")](value)
        inner_base = {**base, "inputs": inputs, "job": {"workflow_repository": repository, "workflow_sha": sha}}
        inner = Run(run.run_id, run.attempt)
        caller = str(spec.get("name", job_id))
        for inner_id in called.order():
            inner.jobs[inner_id] = called.run_job(inner_id, called.spec["jobs"][inner_id], inner_base, inner, set())
            for job in inner.jobs[inner_id]:
                job.name = f"{caller} / {job.name}"
        jobs = {j: {"result": inner.result(j), "outputs": r[0].outputs if len(r) == 1 else {}}
                for j, r in inner.jobs.items()}
        evaluator = Evaluator({**inner_base, "jobs": jobs}, Status())
        run.called[job_id] = {k: text(expand(v["value"], evaluator)) for k, v in declared.get("outputs", {}).items()}
        return [job for runs in inner.jobs.values() for job in runs]

    def run_job(self, job_id: str, spec: dict[str, Any], base: dict[str, Any], run: Run,
                skip: set[str]) -> list[JobRun]:
        needs = self.needs_context(spec, run)
        results = {n["result"] for n in needs.values()}
        status = Status(success=results <= {"success"}, failure="failure" in results)
        job_eval = Evaluator({**base, "needs": needs}, status)
        if "uses" in spec and condition(spec.get("if"), job_eval):
            return self.call(job_id, spec, base, run, needs)
        if not condition(spec.get("if"), job_eval):
            # GitHub shows a skipped job by its name, or by its id when the name needs the matrix.
            name = str(spec.get("name", job_id))
            return [JobRun(job_id if "${{" in name else name, "skipped")]
        entries: list[dict[str, Any]] = [{}]
        if "strategy" in spec:
            matrix = expand(spec["strategy"]["matrix"], job_eval)
            if set(matrix) != {"include"}:
                raise ExpressionError(f"job {job_id}: only `matrix: include:` is emulated, not {sorted(matrix)}")
            entries = matrix["include"]
        done = []
        for entry in entries:
            contexts = {**base, "needs": needs, "matrix": entry}
            name = text(expand(spec.get("name", job_id), Evaluator(contexts, Status())))
            if name in skip:
                continue
            done.append(self.run_steps(job_id, name, spec, contexts, run))
        return done

    # Steps --------------------------------------------------------------------------------------------------

    def shell(self, spec: dict[str, Any], step: dict[str, Any]) -> list[str]:
        for where in (step, spec.get("defaults", {}).get("run", {}), self.spec.get("defaults", {}).get("run", {})):
            shell = where.get("shell")
            if shell:
                if shell != "bash":
                    raise ExpressionError(f"shell {shell!r} is not emulated")
                return BASH
        return DEFAULT_SHELL

    def run_steps(self, job_id: str, name: str, spec: dict[str, Any], contexts: dict[str, Any], run: Run) -> JobRun:
        job = JobRun(name, "success")
        workspace = self.tmp / "jobs" / f"{job_id}-{re.sub(r'[^A-Za-z0-9.]+', '_', name)}-{run.attempt}"
        shutil.rmtree(workspace, ignore_errors=True)
        workspace.mkdir(parents=True)
        job.workspace = workspace
        job_minutes = number(expand(spec.get("timeout-minutes", DEFAULT_MINUTES), Evaluator(contexts, Status())))
        elapsed = 0.0
        status = Status()
        steps: dict[str, Any] = {}
        job_env = {k: text(v) for k, v in expand(spec.get("env", {}), Evaluator(contexts, Status())).items()}
        for index, step in enumerate(spec["steps"]):
            step_id = step.get("id", f"step{index}")
            label = step.get("name") or step.get("uses") or step.get("run", "").splitlines()[0]
            evaluator = Evaluator({**contexts, "steps": steps, "env": job_env}, status)
            if not condition(step.get("if"), evaluator):
                job.steps.append((label, "skipped"))
                steps[step_id] = {"outcome": "skipped", "conclusion": "skipped", "outputs": {}}
                continue
            env = {**job_env, **{k: text(v) for k, v in expand(step.get("env", {}), evaluator).items()}}
            step_minutes = number(expand(step.get("timeout-minutes", DEFAULT_MINUTES), evaluator))
            outcome, outputs, minutes = self.run_step(step, self.shell(spec, step), env, evaluator, workspace, run,
                                                      job)
            if outcome == "hung":
                if step_minutes < job_minutes - elapsed:
                    outcome, minutes = "failure", step_minutes
                    job.log += f"{label}: the step timed out after {step_minutes:g} minutes\n"
                else:
                    outcome, minutes = "failure", job_minutes - elapsed
                    job.log += f"{label}: the job exceeded its {job_minutes:g} minutes and was cancelled\n"
                    status.cancelled = True
            elapsed += minutes
            job.steps.append((label, outcome))
            steps[step_id] = {"outcome": outcome, "conclusion": outcome, "outputs": outputs}
            if outcome == "failure":
                status.success, status.failure = False, True
        job.result = "failure" if status.failure else "success"
        evaluator = Evaluator({**contexts, "steps": steps}, Status())
        job.outputs = {k: text(v) for k, v in expand(spec.get("outputs", {}), evaluator).items()}
        return job

    def run_step(self, step: dict[str, Any], shell: list[str], env: dict[str, str], evaluator: Evaluator,
                 workspace: Path, run: Run, job: JobRun) -> tuple[str, dict[str, str], float]:
        """outcome (success, failure or hung), outputs, and the minutes it took."""
        folder = self.composite_folder(step["uses"], workspace) if "uses" in step else None
        if folder is not None:
            return self.composite(folder, expand(step.get("with", {}), evaluator), evaluator, env, workspace, run,
                                  job)
        if "uses" in step:
            try:
                self.action(step["uses"], expand(step.get("with", {}), evaluator), workspace, run, job)
            except StepFailed as error:
                job.log += f"{step['uses']}: {error}\n"
                return "failure", {}, 0.0
            return "success", {}, 0.0
        script = expand(step["run"], evaluator)
        files = workspace.parent / f"{workspace.name}-files"
        files.mkdir(exist_ok=True)
        (files / "script.sh").write_text(script)
        output, summary, hang = files / "output", files / "summary", files / "hang"
        for path in (output, summary, hang):
            path.unlink(missing_ok=True)
        output.touch()
        summary.touch()
        full_env = {
            "PATH": f"{self.bin}:{Path(sys.executable).parent}:/usr/local/bin:/usr/bin:/bin", "HOME": str(self.tmp),
            "CI": "true", "GITHUB_ACTIONS": "true", "GITHUB_OUTPUT": str(output), "GITHUB_STEP_SUMMARY": str(summary),
            "GITHUB_WORKSPACE": str(workspace), "RUNNER_TEMP": str(files), "DRIVER_HANG": str(hang),
            "DRIVER_SCENARIO": str(self.scenario_file), "DRIVER_GITHUB": str(self.github.root),
            "DRIVER_PYTHON": sys.executable, "PYTHONPATH": str(workspace), **env,
        }
        started = time.monotonic()
        process = subprocess.Popen([*shell, str(files / "script.sh")], cwd=workspace, env=full_env,
                                   stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, start_new_session=True)
        outcome = ""
        while process.poll() is None:
            if hang.exists() or time.monotonic() - started > REAL_LIMIT_S:
                outcome = "hung" if hang.exists() else "stuck"
                os.killpg(process.pid, signal.SIGKILL)
                break
            time.sleep(0.02)
        log = process.communicate()[0]
        job.log += log
        if outcome == "stuck":
            raise AssertionError(f"a step ran {REAL_LIMIT_S} s without saying it hangs:\n{script}\n{log}")
        job.summary += summary.read_text()
        if not outcome:
            outcome = "success" if process.returncode == 0 else "failure"
        return outcome, read_outputs(output.read_text()), (time.monotonic() - started) / 60

    # Composite actions --------------------------------------------------------------------------------------

    def composite_folder(self, uses: str, workspace: Path) -> Path | None:
        """The folder of a composite action a step's `uses:` names (`./path`, or a remote's root), else None."""
        if uses.startswith("./"):
            folder = workspace / uses
            if not (folder / "action.yml").is_file():
                raise ExpressionError(f"{uses}: no action.yml in the workspace (checked out?)")
            return folder
        name = uses.split("@")[0]
        return self.remotes[name] if name in self.remotes else None

    def composite(self, folder: Path, given: dict[str, Any], outer: Evaluator, env: dict[str, str],
                  workspace: Path, run: Run, job: JobRun) -> tuple[str, dict[str, str], float]:
        """A composite action's steps in order (a failure skips the rest but `if:`s asking otherwise), its outputs."""
        spec = yaml.safe_load((folder / "action.yml").read_text())
        if spec["runs"]["using"] != "composite":
            raise ExpressionError(f"{folder}: only composite actions are emulated")
        declared = spec.get("inputs", {})
        unknown = sorted(set(given) - set(declared))
        if unknown:
            raise ExpressionError(f"{folder / 'action.yml'} has no input {unknown[0]}")
        github = {**outer.contexts["github"], "action_path": str(folder)}
        defaults = Evaluator({"github": github}, Status())
        inputs = {name: text(given[name]) if name in given else text(expand(what.get("default", ""), defaults))
                  for name, what in declared.items()}
        contexts = {**{k: v for k, v in outer.contexts.items() if k not in ("steps", "env")}, "github": github,
                    "inputs": inputs}
        status, steps, outcome, minutes = Status(), {}, "success", 0.0
        for index, step in enumerate(spec["runs"]["steps"]):
            step_id = step.get("id", f"step{index}")
            label = f"{spec['name']} / {step.get('name') or step.get('uses') or step['run'].splitlines()[0]}"
            evaluator = Evaluator({**contexts, "steps": steps, "env": env}, status)
            if not condition(step.get("if"), evaluator):
                job.steps.append((label, "skipped"))
                steps[step_id] = {"outcome": "skipped", "conclusion": "skipped", "outputs": {}}
                continue
            if "run" in step and step.get("shell") != "bash":
                raise ExpressionError(f"{label}: a composite action's run step needs `shell: bash`")
            step_env = {**env, "GITHUB_ACTION_PATH": str(folder),
                        **{k: text(v) for k, v in expand(step.get("env", {}), evaluator).items()}}
            done, outputs, took = self.run_step(step, BASH, step_env, evaluator, workspace, run, job)
            minutes += took
            if done == "hung":
                return "hung", {}, minutes
            job.steps.append((label, done))
            steps[step_id] = {"outcome": done, "conclusion": done, "outputs": outputs}
            if done == "failure":
                status.success, status.failure, outcome = False, True, "failure"
        evaluator = Evaluator({**contexts, "steps": steps}, Status())
        outputs = {k: text(expand(v["value"], evaluator)) for k, v in spec.get("outputs", {}).items()}
        return outcome, outputs, minutes

    # Actions ------------------------------------------------------------------------------------------------

    def action(self, uses: str, inputs: dict[str, Any], workspace: Path, run: Run, job: JobRun) -> None:
        name = uses.split("@")[0]
        job.uses.append({"uses": uses, **inputs})
        if name == "actions/checkout" and "repository" in inputs:
            if inputs["repository"] not in self.remotes:
                raise StepFailed(f"Repository not found: {inputs['repository']}")
            shutil.copytree(self.remotes[inputs["repository"]], workspace / inputs.get("path", "."),
                            dirs_exist_ok=True)
        elif name == "actions/checkout":
            shutil.copytree(self.repo, workspace, dirs_exist_ok=True)
        elif name in ("actions/setup-python", "astral-sh/setup-uv"):
            pass
        elif name == "actions/upload-artifact":
            self.upload(inputs, workspace, run)
        elif name == "actions/download-artifact":
            self.download(inputs, workspace, run)
        else:
            raise ExpressionError(f"action {uses} is not emulated")

    def upload(self, inputs: dict[str, Any], workspace: Path, run: Run) -> None:
        source = workspace / inputs["path"]
        if not source.exists() or (source.is_dir() and not any(source.rglob("*"))):
            if inputs.get("if-no-files-found", "warn") == "error":
                raise StepFailed(f"No files were found with the provided path: {inputs['path']}")
            return
        retention = inputs.get("retention-days")
        self.github.upload(run.run_id, run.attempt, inputs["name"], source,
                           None if retention is None else int(number(retention)), truthy(inputs.get("overwrite")))

    def download(self, inputs: dict[str, Any], workspace: Path, run: Run) -> None:
        token, run_id = inputs.get("github-token"), inputs.get("run-id")
        source_run = int(number(run_id)) if token and run_id else run.run_id
        listed = self.github.artifacts(source_run)
        if "name" in inputs:
            chosen = [inputs["name"]] if inputs["name"] in listed else []
            if not chosen:
                raise StepFailed(f"Artifact not found: {inputs['name']}")
        else:
            pattern = re.compile(re.escape(inputs.get("pattern", "*")).replace(r"\*", ".*"))
            chosen = sorted(n for n in listed if pattern.fullmatch(n))
        if not token:
            # The action's own client sees the current attempt's artifacts only (the listing shows every attempt's).
            stale = [n for n in chosen if listed[n]["attempt"] != run.attempt]
            if stale:
                raise StepFailed(f"Unable to download artifact(s): Artifact not found for name: {stale[0]} (404)")
        for name in chosen:
            target = workspace / inputs.get("path", ".")
            if not truthy(inputs.get("merge-multiple")) and "name" not in inputs:
                target = target / name
            shutil.copytree(self.github.artifact_dir(source_run, name), target, dirs_exist_ok=True)


def needs_of(spec: dict[str, Any]) -> list[str]:
    needs = spec.get("needs", [])
    return [needs] if isinstance(needs, str) else list(needs)


def read_outputs(written: str) -> dict[str, str]:
    """$GITHUB_OUTPUT's `name=value` lines and `name<<DELIMITER` blocks."""
    outputs: dict[str, str] = {}
    lines: Iterator[str] = iter(written.splitlines())
    for line in lines:
        if "<<" in line and ("=" not in line or line.index("<<") < line.index("=")):
            key, delimiter = line.split("<<", 1)
            block = []
            for inner in lines:
                if inner == delimiter:
                    break
                block.append(inner)
            outputs[key] = "\n".join(block)
        elif "=" in line:
            key, value = line.split("=", 1)
            outputs[key] = value
    return outputs
