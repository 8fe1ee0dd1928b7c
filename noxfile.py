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

from harness.host import corpus, interpreters, matrix, options, runner, unreported  # noqa: E402
from harness.tools import bisect, pins, upgrade  # noqa: E402

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
except matrix.MatrixError as error:
    sys.exit(f"shardmatrix: {error}")


def _selected(session: nox.Session) -> tuple[options.Options, list[matrix.Cell]]:
    opts = options.parse(session.posargs)
    try:
        return opts, matrix.select(CELLS, opts.cells)
    except matrix.MatrixError as error:
        session.error(str(error))


@nox.session(allow_parallel=True, default=False)
@nox.parametrize("python,cell_id", [nox.param(c.python, c.id, id=c.id) for c in CELLS])
def cell(session: nox.Session, cell_id: str) -> None:
    """Build one cell's venv with its exact pins and record the corpus in it."""
    opts, chosen = _selected(session)
    chosen_ids = {c.id: c for c in chosen}
    if cell_id not in chosen_ids:
        session.skip("not selected by --cells")
    if opts.resume and runner.is_complete(chosen_ids[cell_id], opts):
        session.skip(f"already complete in run {opts.run_id}")
    if runner.run(chosen_ids[cell_id], Path(session.virtualenv.location), opts):
        session.error(f"interrupted; finish with: nox -s matrix -- --resume {opts.run_id}")


@nox.session(name="matrix", requires=[f"cell({c.id})" for c in CELLS])
def matrix_run(session: nox.Session) -> None:
    """Run every selected cell (concurrently, see -j), then build the report of the run."""
    opts, chosen = _selected(session)
    for line in corpus.stale_known_breakages(chosen, opts):
        session.warn(f"known breakage {line}")
    for missing in unreported.record_missing_cells(chosen, opts):
        session.warn(f"{missing}: recorded as install_error (its session did not run)")
    _build_report(session, opts, ["--run", opts.run_id])
    problems = unreported.infrastructure_problems(chosen, opts)
    if problems:
        session.error("cells the harness could not fully run: " + "; ".join(problems))


@nox.session
def report(session: nox.Session) -> None:
    """Rebuild the report from stored results only (default: the newest run)."""
    _build_report(session, options.parse(session.posargs), [])


def _build_report(session: nox.Session, opts: options.Options, extra: list[str]) -> None:
    # The report's dependencies only: `reports` runs from the checkout, so no wheel is rebuilt on every run.
    session.install(*REPORT_DEPENDENCIES)
    session.run("python", "-m", "reports", "--out", str(opts.out), *extra, *opts.report_args,
                env={"PYTHONPATH": str(ROOT)})


@nox.session(name="upgrade")
def upgrade_check(session: nox.Session) -> None:
    """Is the bump safe? Run baseline and candidate cells (stored results reused); SAFE, or UNSAFE and exit 1."""
    session.install(".[report]")
    try:
        before, after, opts = upgrade.prepare(session.posargs, CELLS)
    except pins.PinError as error:
        session.error(str(error))
    session.run("python", "-m", "reports", "--out", str(opts.out), "--compare", before.ref, after.ref)


@nox.session(name="bisect")
def bisect_releases(session: nox.Session) -> None:
    """The first release between --good and --bad where --case stops passing (binary search, probes cached)."""
    try:
        outcome = bisect.run(session.posargs, CELLS)
    except (pins.PinError, bisect.index.IndexError_) as error:
        session.error(str(error))
    if outcome.first_bad is None:
        session.error("no first bad release found")


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
