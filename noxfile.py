"""shardmatrix sessions: one `cell` per matrix cell, `matrix` runs them all then reports, `report`, `tests`.

Thin on purpose: cells are data (matrix.toml), logic lives in harness/ and reports/, tested there.
Session arguments go after `--` (see `nox -s matrix -- --help`), e.g. `nox -s matrix -- --cells 'jax0.12*'`.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import nox

ROOT = Path(__file__).resolve().parent
sys.path.insert(0, str(ROOT))

from harness.formats import INCONCLUSIVE_EXIT, USAGE_EXIT, ShardmatrixError  # noqa: E402
from harness.host import cellenv, cellrun, completeness, corpus, durations, interpreters, matrix, options  # noqa: E402
from harness.results import CellFiles  # noqa: E402
from harness.tools import bisect, upgrade  # noqa: E402

nox.needs_version = ">=2026.10.20"
nox.options.default_venv_backend = "uv|virtualenv"
nox.options.reuse_venv = "yes"
nox.options.sessions = ["matrix"]
# Cells run concurrently, one per core; a cell whose interpreter is missing is recorded, not fatal.
nox.options.parallel = os.environ.get("NOX_PARALLEL", "auto")  # type: ignore[assignment]
nox.options.error_on_missing_interpreters = False

interpreters.expose_pyenv_versions()
# Every nox child process of one invocation records under the same run id.
os.environ.setdefault(options.RUN_ID_ENV, options.new_run_id())

REPORT_DEPENDENCIES = nox.project.load_toml(ROOT / "pyproject.toml")["project"]["optional-dependencies"]["report"]
MATRIX_FILE = Path(os.environ.get("SHARDMATRIX_MATRIX", ROOT / "matrix.toml"))
try:
    CELLS = matrix.load(MATRIX_FILE)
except ShardmatrixError as error:
    sys.exit(f"shardmatrix: {error}")
# nox starts sessions in this order, so the longest cells (as last measured) start first and no core idles at the
# end while one long cell runs alone; cells never run come first.
_SECONDS = durations.cell_seconds()
CELLS = durations.longest_first(CELLS, lambda c: _SECONDS.get(c.id))


def _selected(session: nox.Session) -> tuple[options.Options, list[matrix.Cell]]:
    """The session's options and cells, or the session ends in one line naming the culprit: nothing runs on a guess."""
    try:
        opts = options.parse(session.posargs, prog=f"nox -s {session.name} --")
        additions = cellenv.prepare(opts)  # a bad --project, --with or source: refused before any build
        corpus.case_paths(opts.cases)  # a missing folder or two case files of one name: refused before any build
        return opts, [cellenv.apply(c, additions) for c in matrix.select(CELLS, opts.cells)]
    except ShardmatrixError as error:
        session.error(str(error))


@nox.session(allow_parallel=True, default=False)
@nox.parametrize("python,cell_id", [nox.param(c.python, c.id, id=c.id) for c in CELLS])
def cell(session: nox.Session, cell_id: str) -> None:
    """Build one cell's venv with its exact pins and record the corpus in it."""
    opts, chosen = _selected(session)
    # By the matrix's id: an --override source renames the cell it runs.
    chosen_ids = dict(zip([c.id for c in matrix.select(CELLS, opts.cells)], chosen, strict=True))
    if cell_id not in chosen_ids:
        session.skip("not selected by --cells")
    if opts.resume and CellFiles(opts.out, opts.run_id, cell_id).complete:
        session.skip(f"already complete in run {opts.run_id}")
    if cellrun.matrix_cell(chosen_ids[cell_id], Path(session.virtualenv.location), opts):
        session.error(f"interrupted; finish with: nox -s matrix -- --resume {opts.run_id}")


@nox.session(name="matrix", requires=[f"cell({c.id})" for c in CELLS])
def matrix_run(session: nox.Session) -> None:
    """Run every selected cell (concurrently, see -j), then build the report of the run."""
    opts, chosen = _selected(session)
    for line in corpus.stale_known_breakages(chosen, opts.cases):
        session.warn(f"known breakage {line}")
    missing = cellrun.unreported(chosen, opts.out, opts.run_id, corpus.case_paths(opts.cases),
                                 cellrun.session_never_ran)
    for cell_id in missing:
        session.warn(f"{cell_id}: recorded as install_error (its session did not run)")
    _build_report(session, opts.out, ["--run", opts.run_id])
    # The rule `planned --check` applies too: install_error, crashed, timeout, a status nobody knows, unfinished.
    problems = completeness.problems([CellFiles(opts.out, opts.run_id, c.id) for c in chosen])
    if problems:
        session.error("cells the harness could not fully run: " + "; ".join(problems))


@nox.session
def report(session: nox.Session) -> None:
    """Rebuild the report from stored results only (default: the newest run; --run, --all-runs, --compare)."""
    try:
        opts = options.parse_report(session.posargs)
    except ShardmatrixError as error:
        session.error(str(error))
    _build_report(session, opts.out, opts.report_args)


def _build_report(session: nox.Session, out: Path, runs: list[str]) -> None:
    # The report's dependencies only: `reports` runs from the checkout, so no wheel is rebuilt on every run.
    session.install(*REPORT_DEPENDENCIES)
    _run_keeping_exit_code(session, "python", "-m", "reports", "--out", str(out), *runs,
                           env={"PYTHONPATH": str(ROOT)})


def _run_keeping_exit_code(session: nox.Session, *args: str, env: dict[str, str] | None = None) -> None:
    """session.run, except that the command's exit codes 2 (INCONCLUSIVE) and 64 (bad input) become the exit code of
    nox itself.

    nox knows a session as passed or failed and exits 0 or 1, so INCONCLUSIVE would read as UNSAFE to a script;
    SystemExit is the one thing a session may raise that nox does not turn into "failed". (Under `nox -j`, a
    session runs in a child process, and its parent can only say failed: run `upgrade` on its own.)"""
    try:
        session.run(*args, env=env)
    except nox.command.CommandFailed as failed:
        if failed.return_code in (INCONCLUSIVE_EXIT, USAGE_EXIT):
            raise SystemExit(failed.return_code) from None
        raise


@nox.session(name="upgrade")
def upgrade_check(session: nox.Session) -> None:
    """Is the bump safe? Run baseline and candidate cells (stored results reused): SAFE (exit 0), UNSAFE (exit 1) or
    INCONCLUSIVE (exit 2, the reason in one line)."""
    try:
        before, after, opts, changes = upgrade.prepare(session.posargs, CELLS)
    except ShardmatrixError as error:
        session.error(str(error))
    session.install(".[report]")
    # Every case either cell recorded is judged: the records are pytest's collection of this corpus in each cell.
    _run_keeping_exit_code(session, "python", "-m", "reports", "--out", str(opts.out), "--compare", before.ref,
                           after.ref, "--changes-from", str(changes))


@nox.session(name="bisect")
def bisect_releases(session: nox.Session) -> None:
    """The first release between --good and --bad where --case stops passing (binary search, probes cached)."""
    try:
        outcome = bisect.run(session.posargs, CELLS)
    except ShardmatrixError as error:
        session.error(str(error))
    if outcome.first_bad is None:
        session.error(outcome.refusal or "no first bad release found")


@nox.session(name="frontier")
def frontier_run(session: nox.Session) -> None:
    """The jax range each flax release works with (the core cases steer, the whole corpus confirms, probes cached):
    OUT/report/frontier.*"""
    # Each probe is judged by the report's verdict (reports.compat), which needs the report's dependencies.
    session.install(*REPORT_DEPENDENCIES)
    _run_keeping_exit_code(session, "python", "-m", "harness.tools.frontier", "run", *session.posargs,
                           env={"PYTHONPATH": str(ROOT)})


@nox.session
def tests(session: nox.Session) -> None:
    """The project's own test suite (ruff, mypy, then pytest, which includes one real cell end to end)."""
    session.install("-e", ".[test]")
    session.run("ruff", "check", ".")
    session.run("mypy")
    session.run("pytest", *session.posargs)


@nox.session
def bench(session: nox.Session) -> None:
    """Measure the five speed figures the README reports (runs the default matrix twice)."""
    session.install("-e", ".[report]", "nox>=2026.10.20", "uv")
    session.run("python", "-m", "benchmarks.bench", *session.posargs)


@nox.session(venv_backend="none")
def installed(session: nox.Session) -> None:
    """Record the corpus on the `python` on PATH with its own jax and flax (a GPU box, a TPU VM): nothing is built."""
    session.run("python", "-m", "harness.host.installed", *session.posargs, external=True)


@nox.session(python="3.10", default=False)
def minimums(session: nox.Session) -> None:
    """The harness on the lowest versions its dependencies declare (on the lowest Python): the fault tests."""
    # lowest-direct: pyproject's own floors exactly, their dependencies as new as those allow. So a floor that is
    # false (a release the harness cannot work with, or that cannot be installed with the others) fails here.
    session.install("--resolution=lowest-direct", "-e", ".")
    session.run("python", "-m", "pytest", "-p", "no:cacheprovider", "tests/test_faults.py", *session.posargs)
