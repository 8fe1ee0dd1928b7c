"""One cell's run, told once: build its environment, reuse stored results, run pytest, record what pytest could
not, re-run an accelerator's failed assertions at the highest matmul precision (harness.host.precision), finish.

`run` is the story; its variants say where a cell comes from and differ only in how it starts:

- `matrix_cell`: a cell of the matrix file, in its nox session's venv;
- `probe`: a cell made on the command line (upgrade, bisect, frontier), in .nox/adhoc-<cell>, for the whole corpus
  or some of its files or node ids; its results are ordinary cell results under OUT/results;
- `installed`: an interpreter's own packages (installed mode): nothing is built, so nothing is reused;
- `unreported`: cells that left nothing (a nox session that never ran, a CI job that uploaded nothing): their
  cases are recorded as install_error and the cells finished.

Every reuse goes through harness.host.cache, whatever the variant. The helpers (envbuild, cache, runner,
unreported, celllog) never call back into this module. Whatever stops a cell before or outside pytest is recorded
for every case of the cell, so no cell vanishes from the matrix; the terminal gets one progress line per cell.
"""

from __future__ import annotations

import dataclasses
import shlex
import shutil
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from harness import vocabulary
from harness.cellrecord import CellFiles, write_done
from harness.host import adhoc, bytecode, cache, cellenv, celllog, cellplugin, corpus, durations, precision
from harness.host.envbuild import freeze, install, interpreter_version
from harness.host.matrix import Cell
from harness.host.options import Options
from harness.host.project import conftest_failure
from harness.host.projectsettings import time_limit
from harness.host.runner import (
    PYTEST_FINISHED,
    PYTEST_INTERRUPTED,
    PYTEST_NO_TESTS,
    Job,
    conflict_line,
    devices_for,
    pytest_environment,
    run_pytest,
)
from harness.host.unreported import exit_description, record_unrun
from harness.results import read_records, recorded_case_ids, write_mark

Say = Callable[[str], object]
#: The host's marks of a cell's timeline (harness.results.write_mark; pytest's own are harness.cell.timeline's): the
#: run's start, its venv built (or reused) and checked against the results cache, and its end.
CELL_START, VENV_READY, CELL_END = "cell_start", "venv_ready", "cell_end"


@dataclass(frozen=True)
class CellRun:
    """How a cell's run ended: its files, whether its records were reused (and from which run), and whether it
    finished (its done marker was written; stored results are reused only when it was)."""

    cell: Cell
    files: CellFiles
    reused_from: str | None = None
    #: The run's return code: nonzero when it stopped before every case was recorded (pytest interrupted).
    returncode: int = 0

    @property
    def run_id(self) -> str:
        """The run its records are in (reused records are copied into it)."""
        return self.files.run_id

    @property
    def reused(self) -> bool:
        """Whether the records were copied from an earlier run with the same inputs."""
        return self.reused_from is not None

    @property
    def complete(self) -> bool:
        """Whether the run finished (its done marker exists)."""
        return self.files.complete

    @property
    def interrupted(self) -> bool:
        """Stopped part way: some cases have no record, so its results must not read as a finished cell's."""
        return not self.complete

    @property
    def ref(self) -> str:
        """RUN:CELL, as `python -m reports --compare` takes it."""
        return f"{self.run_id}:{self.cell.id}"

    def finals(self) -> dict[str, dict[str, Any]]:
        """Each case's final record (last attempt, last line)."""
        return celllog.final_records(self.files.results)


def job_for(cell: Cell, options: Options, paths: Sequence[Path]) -> Job:
    """What a cell's run takes of the options: its files, what pytest is given, and the outcome settings."""
    own = cellenv.project_settings(cell, paths)
    # A project's own time limit applies where it is stricter than the cell's, as in its CI.
    settings = cache.Settings(devices=devices_for(cell, options.devices), backend=cell.backend,
                              timeout=time_limit(own, options.timeout), reruns=options.reruns,
                              hard_grace=options.hard_grace, repeats=options.repeats,
                              suite_budget=options.suite_budget, environment=options.env)
    return Job(files=CellFiles(options.out, options.run_id, cell.id), paths=tuple(paths), environment=options.env,
               known=tuple(corpus.known_breakage_files(options.cases)), settings=settings, workers=options.workers,
               resume=options.resume, verbose=options.verbose, project=own,
               left_out=tuple(options.left_out.pytest_args()),
               case_api=corpus.case_api_wanted(list(paths), Path(cell.project) if cell.project else None),
               modules=tuple(sorted(set(corpus.qualified_names(paths).values()))))


# --- the story ------------------------------------------------------------------------------------------------------

def run(cell: Cell, venv: Path, job: Job, case_roots: Sequence[Path], *, build: bool = True, force: bool = False,
        say: Say = print) -> CellRun:
    """One cell's run from top to bottom: build its env, reuse stored results or run pytest, record what pytest
    could not, finish. Without `build` the env is taken as it is and nothing is reused (installed mode)."""
    started = time.monotonic()
    files, paths = job.files, list(job.paths)
    # The progress line counts cases against those read from source, unless some are left out on purpose (pytest's
    # -m and -k cannot be read from source): then it counts what was recorded.
    shown = None if job.left_out else paths
    celllog.start_log(files.log, keep=job.resume)
    if not job.resume:
        files.timeline.unlink(missing_ok=True)
    write_mark(files.results, CELL_START)
    key = None
    if build:
        problem = install(cell, venv, files.install_log)
        celllog.copy_into_log(files.log, files.install_log)
        if problem is not None:
            if job.resume:  # an earlier attempt may have recorded the same install error
                files.results.unlink(missing_ok=True)
            record_unrun(cell, files, paths, vocabulary.INSTALL_ERROR, "InstallError", problem, left_out=job.left_out)
            return finish(cell, files, 0, paths=shown, started=started, say=say)
        frozen = freeze(venv, files.freeze, cell)  # its first lines name the project's and sources' content
        # What is left out on purpose decides which cases have results, so a run with another selection is no hit.
        key = cache.fingerprint(frozen, interpreter_version(venv), case_roots, job.settings,
                                [*cache.selection(paths), *cache.left_out(job.left_out)])
        hit = None if force or job.resume else cache.find(files, key)
        if hit is not None:
            copied = cache.reuse(hit, files)
            celllog.append_to_log(files.log, "reused", f"inputs unchanged since run {hit.run_id}: its {copied} records "
                                 f"were copied; its output is in {files.in_run(hit.run_id).log}\n")
            return finish(cell, files, 0, paths=shown, started=started, fingerprint=key, reused_from=hit.run_id,
                          say=say)
        # Bytecode other cells compiled from the very files this venv links (harness.host.bytecode).
        bytecode.share(venv, pytest_environment(cell, job))
    write_mark(files.results, VENV_READY)
    conflict = conflict_line(job)
    if conflict:
        say(f"{cell.id}: {conflict}")
        celllog.append_to_log(files.log, "settings", f"{conflict}\n")
    returncode = run_pytest(cell, venv, job)
    if build:
        bytecode.keep_shared(venv, pytest_environment(cell, job))
    if returncode == PYTEST_INTERRUPTED:
        # Keep what was recorded and leave no done marker: --resume runs the rest.
        say(progress(files, shown, started, note="interrupted"))
        return CellRun(cell, files, returncode=returncode)
    record_what_pytest_could_not(cell, job, returncode)
    if precision.applies(cell):
        precision.rerun(cell, venv, job)
    return finish(cell, files, returncode, paths=shown, started=started, fingerprint=key, say=say)


def record_what_pytest_could_not(cell: Cell, job: Job, returncode: int) -> None:
    """After pytest stopped for good: no case collected, or a process death that left cases unrecorded."""
    paths = list(job.paths)
    if returncode == PYTEST_NO_TESTS and not job.resume:
        # pytest says 5 too when -k or -m deselected every test: the selection is the likelier cause, so named.
        pairs = zip(job.left_out[::2], job.left_out[1::2], strict=False)
        chosen = [f"{flag} {shlex.quote(value)}" for flag, value in pairs if flag in ("-k", "-m")]
        record_unrun(cell, job.files, [], vocabulary.ERROR, "NoCasesCollected",
                     f"pytest collected no case from {', '.join(map(str, paths))}"
                     + (f" that {' and '.join(chosen)} selects" if chosen else ""), placeholder="<no cases>")
    elif (returncode in PYTEST_FINISHED and not job.files.collection.exists()
          and not recorded_case_ids(job.files.results)):
        # pytest itself did not start (an interpreter lacking one of pytest's own dependencies exits 1 from its
        # import): nothing was collected, so every case is an error that says why, never a cell with no records.
        record_unrun(cell, job.files, paths, vocabulary.ERROR, "PytestDidNotStart",
                     f"pytest exited with code {returncode} before collecting any case: {last_line(job.files.log)}",
                     only_missing=True, left_out=job.left_out)
    elif returncode not in (*PYTEST_FINISHED, PYTEST_NO_TESTS):
        # A conftest.py that did not import stopped pytest before any case: every case is an error that says why.
        stopped = conftest_failure(read_records(job.files.results))
        if stopped is not None:
            record_unrun(cell, job.files, paths, vocabulary.ERROR, *stopped, only_missing=True, left_out=job.left_out)
            return
        record_unrun(cell, job.files, paths, vocabulary.CRASHED, "CellProcessDied", exit_description(returncode),
                     only_missing=True, left_out=job.left_out)


def last_line(log: Path) -> str:
    """The last line a log says (the error that stopped a process), or that it said nothing."""
    try:
        lines = [line.strip() for line in log.read_text(encoding="utf-8", errors="replace").splitlines()]
    except OSError:
        lines = []
    return next((line for line in reversed(lines) if line), f"nothing in {log}")[:300]


def finish(
    cell: Cell,
    files: CellFiles,
    returncode: int,
    *,
    fingerprint: str | None = None,
    reused_from: str | None = None,
    paths: list[Path] | None = None,
    started: float | None = None,
    say: Say = print,
) -> CellRun:
    """Mark the cell complete, atomically (a results file without this marker was interrupted), and say so in one
    line. A cell that ran its cases keeps its seconds for the next run's order (harness.host.durations)."""
    seconds = None if started is None else round(time.monotonic() - started, 2)
    write_mark(files.results, CELL_END)
    if seconds is not None and reused_from is None:
        durations.record(cell.id, seconds)
    write_done(files.done, cell_id=cell.id, finished=datetime.now(timezone.utc).isoformat(), returncode=returncode,
               fingerprint=fingerprint, reused_from=reused_from, seconds=seconds)
    say(progress(files, paths, started, note=f"reused from run {reused_from} (--force reruns)" if reused_from else ""))
    return CellRun(cell, files, reused_from=reused_from)


def progress(files: CellFiles, paths: list[Path] | None, started: float | None, note: str) -> str:
    """The cell's one progress line."""
    return celllog.progress_line(
        files.cell_id, files.results, files.log,
        expected=None if paths is None else [case_id for case_id, _ in corpus.expected_cases(paths)],
        seconds=None if started is None else time.monotonic() - started, note=note,
    )


# --- the variants ---------------------------------------------------------------------------------------------------

def matrix_cell(cell: Cell, venv: Path, options: Options) -> int:
    """A matrix cell in its nox session's venv; pytest's exit code when interrupted (no done marker), else 0."""
    return run(cell, venv, job_for(cell, options, corpus.case_paths(options.cases)),
               corpus.case_roots(options.cases), force=options.force).returncode


def probe(cell: Cell, options: Options, paths: Sequence[Path] | None = None, say: Say = print) -> CellRun:
    """A cell made on the command line, for the corpus or the given files and node ids: reused through the results
    cache when its inputs are unchanged (unless --force), else built in .nox/adhoc-<cell> and run."""
    job = job_for(cell, options, corpus.case_paths(options.cases) if paths is None else paths)
    job.files.done.unlink(missing_ok=True)  # an earlier run under this id must not vouch for this one
    say(f"{cell.id}: python {cell.python}")
    with adhoc.held(adhoc.VENVS / f"adhoc-{cell.id}", say=say):
        venv, problem = adhoc.ensure_venv(cell)
        if problem is not None:
            record_unrun(cell, job.files, list(job.paths), vocabulary.INSTALL_ERROR, "MissingInterpreter", problem,
                         left_out=job.left_out)
            return finish(cell, job.files, 0, say=say)
        ran = run(cell, venv, job, corpus.case_roots(options.cases), force=options.force, say=say)
    if ran.interrupted:
        say(f"{cell.id}: interrupted (exit {ran.returncode}); its results are incomplete and are not reused")
    return ran


def installed(cell: Cell, prefix: Path, options: Options, paths: Sequence[Path]) -> int:
    """An interpreter's own packages as one cell (installed mode): nothing built, nothing reused; pytest's exit code
    when interrupted, else 0."""
    # The plugin a built cell installs, staged the same way but only put on pytest's path: nothing is installed into
    # the interpreter, and a project's own `harness` is its own there too.
    job = job_for(cell, options, paths)
    job = dataclasses.replace(job, environment=(*job.environment, ("PYTHONPATH", str(cellplugin.staged()))))
    return run(cell, prefix, job, [], build=False).returncode


def unreported(cells: Sequence[Cell], out: Path, run_id: str, paths: list[Path],
               why: Callable[[Cell], tuple[str, str]]) -> list[str]:
    """Cells that left no results file: every case of each recorded as install_error (`why(cell)` gives the error
    type and message) and the cell finished, so a report reads it as not built, not interrupted; their ids."""
    missing = []
    for cell in cells:
        files = CellFiles(out, run_id, cell.id)
        if files.results.exists():
            continue
        error_type, message = why(cell)
        record_unrun(cell, files, paths, vocabulary.INSTALL_ERROR, error_type, message)
        finish(cell, files, 0, paths=paths)
        missing.append(cell.id)
    return missing


def session_never_ran(cell: Cell) -> tuple[str, str]:
    """Why a matrix cell's nox session left nothing: its interpreter is missing, or the nox log says."""
    if shutil.which(f"python{cell.python}") is None:
        return "MissingInterpreter", (f"interpreter python{cell.python} not found (install it, or list it in "
                                      "PYENV_VERSION)")
    return "MissingInterpreter", (f"the cell's session did not run although python{cell.python} exists (see the "
                                  "nox log)")
