"""Records for cases pytest could not report: a cell that never installed or started, a cell process that died.

Runs on the host; every record it writes carries the cell's pins, so such cells stay rows of the matrix.
"""

from __future__ import annotations

import platform
import shutil
import signal
from pathlib import Path
from typing import Any

from harness import vocabulary
from harness.cell.outcomes import crash_verdict
from harness.cell.records import (
    JsonlWriter,
    case_id_from_nodeid,
    family_from_nodeid,
    make_record,
    recorded_case_ids,
)
from harness.host.corpus import case_paths, expected_cases
from harness.host.matrix import Cell
from harness.host.options import Options
from harness.host.output import final_records, status_counts
from harness.vocabulary import results_path


def cell_record(cell: Cell, options: Options, **fields: Any) -> dict[str, Any]:
    """A record written on the cell's behalf: its run, id, pins and platform, plus `fields`."""
    return make_record(
        run_id=options.run_id, cell_id=cell.id, jax=cell.jax, jaxlib=cell.jaxlib, flax=cell.flax,
        python=cell.python, backend=cell.backend, platform=f"{platform.system()}-{platform.machine()}", **fields,
    )


def record_unrun(
    cell: Cell,
    options: Options,
    paths: list[Path],
    status: str,
    error_type: str,
    message: str,
    *,
    only_missing: bool = False,
    placeholder: str = "<cell>",
) -> None:
    """Write `status` for every case of the cell that has no record yet (or one placeholder when none is known)."""
    target = results_path(options.out, options.run_id, cell.id)
    done = {case_id.split("[")[0] for case_id in recorded_case_ids(target)} if only_missing else set()
    cases = [(cid, fam) for cid, fam in expected_cases(paths) if cid.split("[")[0] not in done]
    if not cases and not done:
        cases = [(f"{cell.id}::{placeholder}", "cell")]
    writer = JsonlWriter(target)
    try:
        for case_id, family in cases:
            writer.write(cell_record(cell, options, case_id=case_id, family=family, status=status, reason=message,
                                     error_type=error_type, error_message=message))
    finally:
        writer.close()


def record_death(cell: Cell, options: Options, inflight: Path, fault_log: Path, paths: list[Path]) -> bool:
    """Record the case a dead cell process was running, named by faulthandler's log; False if there is none."""
    nodeid = inflight.read_text(encoding="utf-8").strip()
    inflight.unlink(missing_ok=True)
    target = results_path(options.out, options.run_id, cell.id)
    case_id = case_id_from_nodeid(nodeid)
    if not nodeid or case_id in recorded_case_ids(target):
        return False
    verdict = crash_verdict(fault_log.read_text(encoding="utf-8", errors="replace") if fault_log.exists() else "")
    families = dict(expected_cases(paths))
    writer = JsonlWriter(target)
    try:
        writer.write(cell_record(
            cell, options, case_id=case_id,
            family=families.get(case_id.split("[")[0], family_from_nodeid(nodeid)), status=verdict.status,
            reason=verdict.reason,
            error_type="ProcessTimeout" if verdict.status == vocabulary.TIMEOUT else "ProcessDied",
            error_message=verdict.reason,
        ))
    finally:
        writer.close()
    return True


def exit_description(returncode: int) -> str:
    """'killed by SIGSEGV' or 'pytest exited with code 3'."""
    if returncode < 0:
        try:
            return f"cell process killed by {signal.Signals(-returncode).name}"
        except ValueError:
            return f"cell process killed by signal {-returncode}"
    return f"pytest exited with code {returncode}"


def record_missing_cells(cells: list[Cell], options: Options) -> list[str]:
    """After the cells ran: a selected cell with no results file never started (its interpreter is missing). Its
    cases are recorded as install_error and the cell finished, so a report reads it as not built, not interrupted."""
    from harness.host import runner  # the runner records through this module: imported here, not at the top

    missing = []
    for cell in cells:
        if results_path(options.out, options.run_id, cell.id).exists():
            continue
        if shutil.which(f"python{cell.python}") is None:
            message = f"interpreter python{cell.python} not found (install it, or list it in PYENV_VERSION)"
        else:
            message = f"the cell's session did not run although python{cell.python} exists (see the nox log)"
        paths = case_paths(options.cases)
        record_unrun(cell, options, paths, vocabulary.INSTALL_ERROR, "MissingInterpreter", message)
        runner.finish(cell, options, 0, paths=paths)
        missing.append(cell.id)
    return missing


def infrastructure_problems(cells: list[Cell], options: Options) -> list[str]:
    """One line per cell that has cases the harness could not answer for (install_error, crashed, timeout).

    Each case counts once, by its final record: a crash retried into a pass is no problem, and a case that
    crashed twice is one crashed case."""
    problems = []
    for cell in cells:
        finals = final_records(results_path(options.out, options.run_id, cell.id))
        counts = {status: n for status, n in status_counts(finals).items()
                  if vocabulary.status_class(status) == vocabulary.INFRASTRUCTURE}
        if counts:
            problems.append(f"{cell.id}: " + ", ".join(f"{n} {s}" for s, n in sorted(counts.items())))
    return problems
