"""Cells made on the command line (upgrade, bisect): find their stored results, or build a venv and run them.

Such cells have no nox session; their venvs live in .nox/adhoc-<cell id> and are built with `uv venv`, then
run exactly like a matrix cell (runner.run), so their results are ordinary cell results under OUT/results/.
"""

from __future__ import annotations

import subprocess
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from harness import vocabulary
from harness.cell.records import recorded_case_ids
from harness.host import corpus, envbuild, output, runner, unreported
from harness.host.matrix import Cell
from harness.host.options import Options
from harness.vocabulary import done_path, results_path

VENVS = corpus.PROJECT_ROOT / ".nox"


@dataclass(frozen=True)
class CellRun:
    """Where a cell's results are: its run id, whether they were reused rather than run now, and whether the run
    finished (its done marker was written; stored results are reused only when it was)."""

    cell: Cell
    run_id: str
    reused: bool
    complete: bool = True
    #: The cell run's return code: nonzero when it stopped before every case was recorded (pytest interrupted).
    returncode: int = 0

    @property
    def interrupted(self) -> bool:
        """Stopped part way: some cases have no record, so its results must not read as a finished cell's."""
        return not self.complete

    @property
    def ref(self) -> str:
        """RUN:CELL, as `python -m reports --compare` takes it."""
        return f"{self.run_id}:{self.cell.id}"


def stored_run(out: Path, cell_id: str, case_ids: set[str]) -> str | None:
    """The newest run under OUT/results where this cell finished and recorded every one of `case_ids`."""
    root = Path(out) / "results"
    if not root.is_dir():
        return None
    for run in sorted((entry.name for entry in root.iterdir() if entry.is_dir()), reverse=True):
        path = results_path(out, run, cell_id)
        if not done_path(out, run, cell_id).exists():
            continue
        recorded = {case_id.split("[")[0] for case_id in recorded_case_ids(path)}
        if {case_id.split("[")[0] for case_id in case_ids} <= recorded:
            return run
    return None


def ensure_venv(cell: Cell, venvs: Path = VENVS) -> tuple[Path, str | None]:
    """The cell's venv (created with uv for its python when absent); the second item is why it could not be."""
    venv = venvs / f"adhoc-{cell.id}"
    if envbuild.venv_python(venv).exists():
        return venv, None
    done = subprocess.run([*envbuild.uv_command(), "venv", "--python", cell.python, str(venv)],
                          capture_output=True, text=True, check=False)
    if done.returncode != 0:
        return venv, f"interpreter python{cell.python}: {envbuild.installer_message(done.stderr or done.stdout)}"
    return venv, None


def run_cell(
    cell: Cell,
    options: Options,
    case_ids: set[str],
    *,
    force: bool = False,
    paths: list[Path] | None = None,
    say: Callable[[str], object] = print,
) -> CellRun:
    """Reuse the newest stored results of this cell that cover `case_ids` (unless `force`), else run it now."""
    if not force:
        found = stored_run(options.out, cell.id, case_ids)
        if found is not None:
            say(f"{cell.id}: reusing results of run {found} (--force to run again)")
            return CellRun(cell, found, reused=True)
    say(f"{cell.id}: building and running (python {cell.python})")
    venv, problem = ensure_venv(cell)
    chosen = paths if paths is not None else corpus.case_paths(options.cases)
    target = results_path(options.out, options.run_id, cell.id)
    done = done_path(options.out, options.run_id, cell.id)
    done.unlink(missing_ok=True)  # an earlier run under this id must not vouch for this one
    returncode = 0
    if problem is None and paths is None:
        returncode = runner.run(cell, venv, options)
    elif problem is None:
        # Some cases only (a bisect probe): no whole-corpus fingerprint, so the results cache stays out of it.
        problem = envbuild.install(cell, venv, target.with_suffix(".install.log"))
        if problem is None:
            envbuild.freeze(venv, target.with_suffix(".freeze.txt"))
            returncode = runner.run_installed(cell, venv, options, chosen)
        else:
            unreported.record_unrun(cell, options, chosen, vocabulary.INSTALL_ERROR, "InstallError", problem)
            runner.finish(cell, options, 0)
    else:
        unreported.record_unrun(cell, options, chosen, vocabulary.INSTALL_ERROR, "MissingInterpreter", problem)
        runner.finish(cell, options, 0)
    ran = CellRun(cell, options.run_id, reused=False, complete=done.exists(), returncode=returncode)
    if ran.interrupted:
        say(f"{cell.id}: interrupted (exit {returncode}); its results are incomplete and are not reused")
    return ran


def statuses_of(out: Path, run_id: str, cell_id: str) -> dict[str, dict[str, object]]:
    """Each case's final record (last attempt, last line) in one cell's results file."""
    return output.final_records(results_path(out, run_id, cell_id))
