"""shardmatrix sessions: one `cell` per matrix cell, `matrix` runs them all then reports, the tools, `tests`.

Thin on purpose: cells are data (matrix.toml), logic lives in harness/ and reports/, tested there. At load only the
cell list is read and one run id set for the sessions (harness.host.invocation); everything else happens
inside sessions. The tool sessions (upgrade,
bisect, frontier, installed, report, watch) run the `shardmatrix` command's own subcommands (shardmatrix.command).
Session arguments go after `--` (see `nox -s matrix -- --help`), e.g. `nox -s matrix -- --cells 'jax0.12*'`.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

import nox

ROOT = Path(__file__).resolve().parent
# `nox` run as a script has its own folder on sys.path, not this one: the harness is imported from the checkout.
sys.path.insert(0, str(ROOT))

from harness.cellrecord import CellFiles  # noqa: E402
from harness.formats import INCONCLUSIVE_EXIT, INTERNAL_ERROR_EXIT, USAGE_EXIT, ShardmatrixError  # noqa: E402
from harness.host import bytecode, cellrun, invocation  # noqa: E402
from shardmatrix import command  # noqa: E402

nox.needs_version = ">=2026.10.20"
nox.options.default_venv_backend = "uv|virtualenv"
nox.options.reuse_venv = "yes"
nox.options.sessions = ["matrix"]
# Cells run concurrently, one per core (NOX_PARALLEL or -j overrides); a missing interpreter is recorded, not fatal.
nox.options.parallel = "auto"  # type: ignore[assignment]
nox.options.error_on_missing_interpreters = False
T = TypeVar("T")

# The sessions of one invocation record under one run id, and find pyenv's interpreters (children inherit both).
invocation.share()
# The one thing read at load: cells declare sessions (a bad matrix stops nox here, in one line).
CELLS = invocation.nox_cells()


def _checked(session: nox.Session, work: Callable[[], T]) -> T:
    """`work()`, or the session ends in the one line of its ShardmatrixError: nothing runs on a guess."""
    try:
        return work()
    except ShardmatrixError as error:
        session.error(str(error))


def _shardmatrix(session: nox.Session, name: str, *argv: str) -> None:
    """Run the `shardmatrix` subcommand `name` in the session, as the command would: its arguments are checked
    here first (a bad one ends the session before any install), and its exit codes 2 (INCONCLUSIVE) and 64 (bad
    input) become the exit code of nox itself (see _run_keeping_exit_code)."""
    prog = f"nox -s {session.name} --"
    _checked(session, lambda: command.check(name, argv, prog))
    if session.venv_backend != "none":
        # What the command needs (pyproject's dependencies), not the command: the harness runs from the checkout, so
        # no wheel is rebuilt on every run.
        session.install(*nox.project.load_toml(ROOT / "pyproject.toml")["project"]["dependencies"])
    # Bytecode another session, cell or checkout compiled for the same package files (harness.host.bytecode).
    venv = Path(session.virtualenv.location) if session.venv_backend != "none" else None
    with bytecode.sharing(venv, os.environ):
        _run_keeping_exit_code(session, "python", "-m", "shardmatrix.command", name, *argv,
                               env={"PYTHONPATH": str(ROOT), command.PROG_ENV: prog})


def _run_keeping_exit_code(session: nox.Session, *args: str, env: dict[str, str] | None = None) -> None:
    """session.run, except that the command's exit codes 2 (INCONCLUSIVE), 3 (an internal error) and 64 (bad input)
    become the exit code of nox itself.

    nox knows a session as passed or failed and exits 0 or 1, so INCONCLUSIVE would read as UNSAFE to a script;
    SystemExit is the one thing a session may raise that nox does not turn into "failed". (Under `nox -j`, a
    session runs in a child process, and its parent can only say failed: run `upgrade` on its own.)"""
    try:
        session.run(*args, env=env, external=session.venv_backend == "none")
    except nox.command.CommandFailed as failed:
        if failed.return_code in (INCONCLUSIVE_EXIT, INTERNAL_ERROR_EXIT, USAGE_EXIT):
            raise SystemExit(failed.return_code) from None
        raise


@nox.session(allow_parallel=True, default=False)
@nox.parametrize("python,cell_id", [nox.param(c.python, c.id, id=c.id) for c in CELLS])
def cell(session: nox.Session, cell_id: str) -> None:
    """Build one cell's venv with its exact pins and record the corpus in it."""
    # By the matrix's id: an --override source renames the cell it runs.
    opts, chosen = _checked(session, lambda: command.selected(session.posargs, f"nox -s {session.name} --", CELLS))
    if cell_id not in chosen:
        session.skip("not selected by --cells" if opts.cells else "outside the default set: name it with --cells")
    if opts.resume and CellFiles(opts.out, opts.run_id, cell_id).complete:
        session.skip(f"already complete in run {opts.run_id}")
    if cellrun.matrix_cell(chosen[cell_id], Path(session.virtualenv.location), opts):
        session.error(f"interrupted; finish with: nox -s matrix -- --resume {opts.run_id}")


@nox.session(name="matrix", requires=[f"cell({c.id})" for c in CELLS])
def matrix_run(session: nox.Session) -> None:
    """Run every selected cell (concurrently, see -j), then build the report of the run."""
    opts, chosen = _checked(session, lambda: command.selected(session.posargs, "nox -s matrix --", CELLS))
    command.before_report(opts, list(chosen.values()), session.warn)
    _shardmatrix(session, "report", "--out", str(opts.out), "--run", opts.run_id)
    # The rule `planned --check` applies too: install_error, crashed, timeout, a status nobody knows, unfinished.
    problem = command.unfinished(opts, list(chosen.values()))
    if problem:
        session.error(problem)


@nox.session
def report(session: nox.Session) -> None:
    """Rebuild the report from stored results only (default: the newest run; --run, --all-runs, --compare)."""
    _shardmatrix(session, "report", *session.posargs)


@nox.session(name="upgrade")
def upgrade_check(session: nox.Session) -> None:
    """Is the bump safe? Run baseline and candidate cells (stored results reused): SAFE (exit 0), UNSAFE (exit 1) or
    INCONCLUSIVE (exit 2, the reason in one line)."""
    _shardmatrix(session, "upgrade", *session.posargs)


@nox.session(name="bisect")
def bisect_releases(session: nox.Session) -> None:
    """The first release between --good and --bad where --case stops passing (binary search, probes cached)."""
    _shardmatrix(session, "bisect", *session.posargs)


@nox.session(name="frontier")
def frontier_run(session: nox.Session) -> None:
    """The jax range each flax release works with (the core cases steer, the whole corpus confirms, probes cached):
    OUT/report/frontier.*"""
    _shardmatrix(session, "frontier", *session.posargs)


@nox.session(name="ranges")
def ranges_check(session: nox.Session) -> None:
    """Every range the corpus declares (changes, known breakages) checked at its edges against releases, within a
    probe budget (probes cached, shared with the frontier): OUT/report/ranges.json"""
    _shardmatrix(session, "ranges", *session.posargs)


@nox.session(name="watch")
def watch_releases(session: nox.Session) -> None:
    """Judge each jax/flax release newer than the project's lock once (--state FILE keeps what was judged): upgrade,
    and for UNSAFE bisect to the first bad release (--json FILE: the summary)."""
    _shardmatrix(session, "watch", *session.posargs)


@nox.session(name="ecosystem")
def ecosystem_check(session: nox.Session) -> None:
    """Will this release break the projects that use sharding? `nox -s ecosystem -- jax==X [--as-of DAY]`."""
    _shardmatrix(session, "ecosystem", *session.posargs)


@nox.session(venv_backend="none")
def installed(session: nox.Session) -> None:
    """Record the corpus on the `python` on PATH with its own jax and flax (a GPU box, a TPU VM): nothing is built."""
    _shardmatrix(session, "installed", *session.posargs)


@nox.session
def tests(session: nox.Session) -> None:
    """The project's own test suite (ruff, mypy, then pytest, which includes one real cell end to end)."""
    session.install("-e", ".[test]")
    session.run("ruff", "check", ".")
    session.run("mypy")
    session.run("pytest", *session.posargs)


@nox.session
def bench(session: nox.Session) -> None:
    """Measure the speed figures docs/speed.md reports (runs the default matrix twice)."""
    session.install("-e", ".", "nox>=2026.10.20")
    session.run("python", "-m", "benchmarks.bench", *session.posargs)


@nox.session(python="3.10", default=False)
def minimums(session: nox.Session) -> None:
    """The harness on the lowest versions its dependencies declare (on the lowest Python): the fault tests."""
    # lowest-direct: pyproject's own floors exactly, their dependencies as new as those allow. So a floor that is
    # false (a release the harness cannot work with, or that cannot be installed with the others) fails here.
    session.install("--resolution=lowest-direct", "-e", ".")
    session.run("python", "-m", "pytest", "-p", "no:cacheprovider", "tests/test_faults.py", *session.posargs)


@nox.session
def docs(session: nox.Session) -> None:
    """Build the documentation site into site/ (`mkdocs build --strict`: a broken link or a missing page fails)."""
    session.install("-e", ".[docs]")
    # The theme prints a banner about its successor on every build; it says nothing about these docs.
    session.run("mkdocs", "build", "--strict", *session.posargs, env={"NO_MKDOCS_2_WARNING": "1"})
