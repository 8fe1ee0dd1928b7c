"""The scheduled workflow's questions to GitHub, asked through the `gh` CLI (GH_TOKEN and GH_REPO in its environment).

    python -m harness.host.nightly previous --run RUN --branch BRANCH [--workflow matrix.yml]

prints the id of the run to compare this nightly with: the newest scheduled run of the workflow on BRANCH that is
older than RUN (a re-run of an old night never compares with a later one), succeeded, and still has an unexpired
`results` artifact; an older one is tried when a run left none. It prints nothing when no run qualifies.

    python -m harness.host.nightly queue-guard --run RUN --attempt N --minutes M < PLAN

waits while a job of an accelerator cell of the plan (backend other than cpu) has not been taken by a runner; after
M minutes it names each such cell and its runs-on label, cancels the run, and exits 1. GitHub's timeout-minutes
does not count time in the queue, so without it a misspelt or offline label holds the run (and the next nightly,
queued behind it in the same concurrency group) for a day.

A failure of `gh` is one line naming the command, and exit 1: "no previous results" is an answer, never what an
error is taken for.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from typing import Any

from harness import outputs
from harness.formats import USAGE_EXIT, ShardmatrixError
from harness.host import options

COMMANDS = ("previous", "queue-guard")

#: Job statuses of GitHub's REST API for a job no runner has taken yet.
QUEUED = frozenset({"queued", "waiting", "pending", "requested"})

Gh = Callable[[Sequence[str]], str]


class GhError(RuntimeError):
    """`gh` failed, or answered something this module cannot read: one line naming the command."""


def gh(args: Sequence[str]) -> str:
    """The standard output of `gh ARGS`; GhError with gh's last line of stderr when it fails."""
    try:
        done = subprocess.run(["gh", *args], capture_output=True, text=True, check=False)
    except OSError as error:
        raise GhError(f"gh {' '.join(args)}: {error.strerror}") from None
    if done.returncode != 0:
        said = (done.stderr.strip().splitlines() or ["no message"])[-1]
        raise GhError(f"gh {' '.join(args)} failed (exit {done.returncode}): {said}")
    return done.stdout


def gh_json(run_gh: Gh, args: Sequence[str]) -> Any:
    """`gh ARGS` read as JSON; GhError when it is not."""
    text = run_gh(args)
    try:
        return json.loads(text)
    except ValueError:
        raise GhError(f"gh {' '.join(args)} answered what is not JSON: {text.strip()[:80]!r}") from None


def previous(run_gh: Gh, run: int, branch: str, workflow: str = "matrix.yml", limit: int = 50) -> int | None:
    """The newest successful scheduled run older than `run` that still has a `results` artifact, or None."""
    listed = gh_json(run_gh, ["run", "list", "--workflow", workflow, "--event", "schedule", "--branch", branch,
                              "--status", "success", "--limit", str(limit), "--json", "databaseId"])
    try:
        # Run ids grow with time; a re-run keeps its id, so "older than this one" is "a smaller id".
        earlier = sorted((int(entry["databaseId"]) for entry in listed if int(entry["databaseId"]) < run),
                         reverse=True)
        for candidate in earlier:
            url = f"repos/{{owner}}/{{repo}}/actions/runs/{candidate}/artifacts?name=results"
            found = gh_json(run_gh, ["api", url])
            if any(a["name"] == "results" and not a["expired"] for a in found["artifacts"]):
                return candidate
    except (KeyError, TypeError, ValueError) as error:
        raise GhError(f"gh answered runs or artifacts without the field {error}") from None
    return None


def accelerator_cells(plan: Sequence[dict[str, str]]) -> dict[str, str]:
    """Cell id -> runs-on label of each entry of the plan that needs an accelerator."""
    return {entry["cell"]: entry.get("runner", "") for entry in plan if entry.get("backend", "cpu") != "cpu"}


def still_queued(run_gh: Gh, run: int, attempt: int, cells: Sequence[str]) -> list[str]:
    """The cells whose job of this run attempt no runner has taken (a job not created yet counts as queued)."""
    text = run_gh(["api", "--paginate", f"repos/{{owner}}/{{repo}}/actions/runs/{run}/attempts/{attempt}/jobs",
                   "--jq", ".jobs[] | {name, status}"])
    try:
        jobs = [json.loads(line) for line in text.splitlines() if line.strip()]
        status = {job["name"]: job["status"] for job in jobs}
    except (KeyError, TypeError, ValueError):
        raise GhError(f"gh api .../jobs answered what is not a list of jobs: {text.strip()[:80]!r}") from None
    return [cell for cell in cells if status.get(cell, "queued") in QUEUED]


def guard(run_gh: Gh, run: int, attempt: int, cells: dict[str, str], minutes: float, poll: float = 60,
          clock: Callable[[], float] = time.monotonic, sleep: Callable[[float], None] = time.sleep) -> list[str]:
    """Wait up to `minutes` for every accelerator cell's job to start; the cells still queued then (none: [])."""
    deadline = clock() + minutes * 60
    while True:
        waiting = still_queued(run_gh, run, attempt, list(cells))
        if not waiting or clock() >= deadline:
            return waiting
        sleep(max(0.0, min(poll, deadline - clock())))


def parser() -> options.Parser:
    """The command line of `python -m harness.host.nightly` (strict, as every command line of the harness)."""
    p = options.Parser(prog="python -m harness.host.nightly", description=__doc__.splitlines()[0])
    p.add_argument("command", choices=COMMANDS, help="previous: the run to compare with; queue-guard: see above")
    p.add_argument("--run", type=int, required=True, help="this run's id (github.run_id)")
    p.add_argument("--branch", help="previous: the branch both runs ran on")
    p.add_argument("--workflow", default="matrix.yml", help="previous: the workflow file (default: matrix.yml)")
    p.add_argument("--attempt", type=int, help="queue-guard: this run's attempt (github.run_attempt)")
    p.add_argument("--minutes", type=float, help="queue-guard: how long a job may wait for a runner")
    p.add_argument("--poll", type=float, default=60, help="queue-guard: seconds between two looks (default: 60)")
    return p


def parse(argv: Sequence[str]) -> argparse.Namespace:
    """The arguments, each command's own required ones included; OptionsError naming the first one missing."""
    p = parser()
    args = p.parse_strictly(argv)
    needed = {"previous": ["branch"], "queue-guard": ["attempt", "minutes"]}[args.command]
    missing = [name for name in needed if getattr(args, name) is None]
    if missing:
        p.error(f"{args.command} needs --{missing[0]}")
    return args


def main(argv: Sequence[str] | None = None, run_gh: Gh = gh) -> int:
    """Answer one question; 1 with one line on a failure of gh (or a run cancelled by the guard), 64 on bad usage."""
    try:
        args = parse(sys.argv[1:] if argv is None else argv)
    except options.OptionsError as error:
        print(f"shardmatrix: {error}", file=sys.stderr)
        return USAGE_EXIT
    try:
        if args.command == "previous":
            found = previous(run_gh, args.run, args.branch, args.workflow)
            print("" if found is None else found)
            return 0
        try:
            cells = accelerator_cells(outputs.read_plan(outputs.plan_text("-", sys.stdin, "the plan"), outputs.PLAN,
                                                        "cell", "the plan on stdin"))
        except ShardmatrixError as error:
            print(f"shardmatrix: {error}", file=sys.stderr)
            return USAGE_EXIT
        waiting = guard(run_gh, args.run, args.attempt, cells, args.minutes, args.poll)
        for cell in waiting:
            print(f"shardmatrix: {cell}: no runner took its job in {args.minutes:g} minutes (runs-on: "
                  f"{cells[cell]!r}; is that label right and a runner online?)", file=sys.stderr)
        if waiting:
            print(f"shardmatrix: cancelling run {args.run} so that it and the next nightly stop waiting",
                  file=sys.stderr)
            run_gh(["run", "cancel", str(args.run)])
            return 1
        return 0
    except GhError as error:
        print(f"shardmatrix: {error}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    raise SystemExit(main())
