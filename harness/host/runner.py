"""Running one cell from the host: build its env, reuse stored results when nothing changed, run pytest in it.

This module runs on the interpreter nox runs on (no jax, no pytest there). Whatever stops a cell before or
outside pytest (an install failure, a dead process) is recorded through harness.host.unreported, for every case of
the cell, so no cell vanishes from the matrix. What pytest and the installer print goes to the cell's log file;
the terminal gets one progress line per cell (harness.host.output).
"""

from __future__ import annotations

import os
import re
import time
from datetime import datetime, timezone
from pathlib import Path

from harness import vocabulary
from harness.cell.devices import with_device_count
from harness.cell.outcomes import CELL_UNUSABLE_MARK, IMPORT_ERRORS, TIMEOUT_MARK
from harness.cell.records import IN_PROCESS, write_atomically
from harness.host import cache, durations, output
from harness.host.corpus import case_paths, case_roots, expected_cases, known_breakage_files
from harness.host.envbuild import freeze, install, interpreter_version, venv_python
from harness.host.matrix import Cell
from harness.host.options import Options
from harness.host.unreported import exit_description, record_death, record_unrun
from harness.vocabulary import done_path, fault_log_path, inflight_path, log_path, results_path

#: pytest exit codes after which every case that was collected has been reported.
PYTEST_FINISHED = (0, 1)
PYTEST_INTERRUPTED = 2
PYTEST_NO_TESTS = 5
#: More restarts than any corpus has cases means the cell cannot make progress.
MAX_RESTARTS = 10_000
#: Failures not worth a retry (pytest-rerunfailures patterns), from the marks harness.cell.outcomes classifies by:
#: a time limit already spent, a cell whose packages do not import or whose backend does not start.
NOT_RETRIED = (re.escape(TIMEOUT_MARK), CELL_UNUSABLE_MARK, *sorted(IMPORT_ERRORS))


def pytest_command(cell: Cell, venv: Path, options: Options, paths: list[Path]) -> list[str]:
    """The pytest invocation that runs the cases of one cell and records them."""
    return [
        str(venv_python(venv)), "-m", "pytest", *map(str, paths),
        "--shardmatrix-out", str(options.out),
        "--shardmatrix-run", options.run_id,
        "--shardmatrix-cell", cell.id,
        "--shardmatrix-devices", str(devices_for(cell, options)),
        "--timeout", str(options.timeout),
        "--shardmatrix-hard-grace", str(options.hard_grace),
        "--shardmatrix-repeats", str(options.repeats),
        "-n", str(options.workers),
        # Every crash costs a worker; never stop replacing them while cases remain.
        "--max-worker-restart", "100000",
        "--reruns", str(options.reruns),
        *(arg for pattern in NOT_RETRIED for arg in ("--rerun-except", pattern)),
        *(["--shardmatrix-skip-recorded"] if options.resume else []),
        *(arg for path in known_breakage_files(options.cases) for arg in ("--shardmatrix-known", str(path))),
        "-p", "no:cacheprovider",
        "--continue-on-collection-errors",
        "-o", "addopts=",
        "-q", "-rfE",
        # Python's own tracebacks in the cell's log: pytest's long form costs about 0.1 s per failure to render
        # (measured: 2.5 s of a 31 s cell with 32 failing attempts), and the record takes its error from the
        # exception itself, not from this text.
        "--tb=native",
    ]


#: JAX_PLATFORMS per backend. Naming the accelerator makes jax fail loudly where it cannot start it, instead of
#: quietly falling back to the CPU and recording CPU results under an accelerator's cell.
PLATFORMS = {"cpu": "cpu", "cuda12": "cuda,cpu", "cuda13": "cuda,cpu", "tpu": "tpu,cpu"}


def devices_for(cell: Cell, options: Options) -> int:
    """Simulated devices for a cell (the command line wins over the matrix file); 0 on real accelerators."""
    if cell.accelerated:
        return 0
    return options.devices if options.devices is not None else cell.devices


def cell_environment(cell: Cell, options: Options) -> dict[str, str]:
    """The cell process's environment: on the CPU, devices requested before its interpreter starts."""
    env = dict(os.environ)
    if not cell.accelerated:
        env["XLA_FLAGS"] = with_device_count(env.get("XLA_FLAGS", ""), devices_for(cell, options))
    env["JAX_PLATFORMS"] = PLATFORMS[cell.backend]
    env.pop("PYTHONPATH", None)  # the venv's own harness, not a checkout's, must answer
    return env


def is_complete(cell: Cell, options: Options) -> bool:
    """Whether the cell already finished in this run (its done marker exists)."""
    return done_path(options.out, options.run_id, cell.id).exists()


def run(cell: Cell, venv: Path, options: Options) -> int:
    """One cell's run from top to bottom: build its env, reuse stored results or run pytest, record what pytest
    could not, finish; returns pytest's exit code when interrupted (no done marker), else 0."""
    started = time.monotonic()
    paths = case_paths(options.cases)
    target = results_path(options.out, options.run_id, cell.id)
    log = log_path(options.out, options.run_id, cell.id)
    output.start_log(log, keep=options.resume)
    problem = install(cell, venv, target.with_suffix(".install.log"))
    output.copy_into_log(log, target.with_suffix(".install.log"))
    if problem is not None:
        if options.resume:  # an earlier attempt may have recorded the same install error
            target.unlink(missing_ok=True)
        record_unrun(cell, options, paths, vocabulary.INSTALL_ERROR, "InstallError", problem)
        finish(cell, options, 0, paths=paths, started=started)
        return 0
    frozen = freeze(venv, target.with_suffix(".freeze.txt"))
    key = cache.fingerprint(frozen, interpreter_version(venv), case_roots(options.cases), settings_of(cell, options))
    hit = None if options.force or options.resume else cache.find(options.out, cell.id, key, options.run_id)
    if hit is not None:
        copied = cache.reuse(hit, target, options.run_id)
        output.append_to_log(log, "reused", f"inputs unchanged since run {hit.run_id}: its {copied} records were "
                             f"copied; its output is in {log_path(options.out, hit.run_id, cell.id)}\n")
        finish(cell, options, 0, paths=paths, started=started, fingerprint=key, reused_from=hit.run_id)
        return 0
    return run_installed(cell, venv, options, paths, fingerprint=key, started=started)


def settings_of(cell: Cell, options: Options) -> dict[str, object]:
    """The settings of this cell run that can change an outcome."""
    return {"devices": devices_for(cell, options), "backend": cell.backend, "timeout": options.timeout,
            "reruns": options.reruns, "hard_grace": options.hard_grace, "repeats": options.repeats}


def run_installed(
    cell: Cell, venv: Path, options: Options, paths: list[Path], fingerprint: str | None = None,
    started: float | None = None,
) -> int:
    """Run the cases in an environment that already has the cell's packages and the harness, record what pytest
    could not, finish; returns pytest's exit code when interrupted (no done marker), else 0."""
    started = time.monotonic() if started is None else started
    returncode = run_pytest(cell, venv, options, paths)
    if returncode == PYTEST_INTERRUPTED:
        # Keep what was recorded and leave no done marker: --resume runs the rest.
        say_progress(cell, options, paths, started, note="interrupted")
        return returncode
    record_what_pytest_could_not(cell, options, paths, returncode)
    finish(cell, options, returncode, paths=paths, started=started, fingerprint=fingerprint)
    return 0


def run_pytest(cell: Cell, venv: Path, options: Options, paths: list[Path]) -> int:
    """Run pytest until every case is recorded or it stops for good; its output goes to the cell's log.

    Without xdist workers the cases run in the cell's own pytest process: when it dies (a segfault in XLA, an
    abort, the hard-timeout watchdog), the case it was running is recorded as crashed or timeout and a fresh
    process runs the cases not yet recorded, so one bad case costs one restart, and none costs nothing.
    """
    command = pytest_command(cell, venv, options, paths)
    environment = cell_environment(cell, options)
    log = log_path(options.out, options.run_id, cell.id)
    inflight = inflight_path(options.out, options.run_id, cell.id)
    fault_log = fault_log_path(options.out, options.run_id, cell.id, IN_PROCESS)
    for _restart in range(MAX_RESTARTS):
        fault_log.unlink(missing_ok=True)
        returncode = output.run_logged(command, environment, log, verbose=options.verbose)
        if options.workers or not inflight.exists():
            break
        if not record_death(cell, options, inflight, fault_log, paths):
            break  # the death was not during a case: nothing to pin it on, so no restart would get further
        if "--shardmatrix-skip-recorded" not in command:
            command = [*command, "--shardmatrix-skip-recorded"]
    return returncode


def record_what_pytest_could_not(cell: Cell, options: Options, paths: list[Path], returncode: int) -> None:
    """After pytest stopped for good: no case collected, or a process death that left cases unrecorded."""
    if returncode == PYTEST_NO_TESTS and not options.resume:
        record_unrun(cell, options, [], vocabulary.ERROR, "NoCasesCollected",
                     f"pytest collected no case from {', '.join(map(str, paths))}", placeholder="<no cases>")
    elif returncode not in (*PYTEST_FINISHED, PYTEST_NO_TESTS):
        record_unrun(cell, options, paths, vocabulary.CRASHED, "CellProcessDied", exit_description(returncode),
                     only_missing=True)


def finish(
    cell: Cell,
    options: Options,
    returncode: int,
    *,
    fingerprint: str | None = None,
    reused_from: str | None = None,
    paths: list[Path] | None = None,
    started: float | None = None,
) -> None:
    """Mark the cell complete, atomically (a results file without this marker was interrupted), and say so in one
    line; without `paths` or `started` that line leaves out the expected cases or the time. A cell that ran its
    cases keeps its seconds for the next run's order (harness.host.durations)."""
    seconds = None if started is None else round(time.monotonic() - started, 2)
    if seconds is not None and reused_from is None:
        durations.record(cell.id, seconds)
    write_atomically(done_path(options.out, options.run_id, cell.id), {
        "schema_version": 1,
        "cell_id": cell.id,
        "finished": datetime.now(timezone.utc).isoformat(),
        "returncode": returncode,
        "fingerprint": fingerprint,
        "reused_from": reused_from,
        "seconds": seconds,
    })
    say_progress(cell, options, paths, started,
                 note=f"reused from run {reused_from} (--force reruns)" if reused_from else "")


def say_progress(cell: Cell, options: Options, paths: list[Path] | None, started: float | None, note: str) -> None:
    """Print the cell's one progress line."""
    print(output.progress_line(
        cell.id, results_path(options.out, options.run_id, cell.id), log_path(options.out, options.run_id, cell.id),
        expected=None if paths is None else [case_id for case_id, _ in expected_cases(paths)],
        seconds=None if started is None else time.monotonic() - started, note=note,
    ), flush=True)
