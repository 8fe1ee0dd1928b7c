"""Records for cases pytest could not report: a cell that never installed or started, a cell process that died.

Runs on the host; every record it writes carries the cell's pins, so such cells stay rows of the matrix. A helper
of harness.host.cellrun: it writes records and calls back into nothing.
"""

from __future__ import annotations

import platform
import signal
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from harness import cellrecord, vocabulary
from harness.cell.outcomes import crash_verdict
from harness.cell.records import case_id_from_nodeid, family_from_nodeid
from harness.celldocuments import write_collection
from harness.cellrecord import CellFiles, make_record
from harness.host.corpus import answered, expected_cases, qualified_names
from harness.host.matrix import Cell
from harness.host.selection import left_in
from harness.results import JsonlWriter, read_inflight, read_records, recorded_case_ids

#: The statuses of an attempt pytest-rerunfailures retries (a failed or erroring phase), while retries remain.
RETRIED = (vocabulary.FAILED, vocabulary.ERROR)
#: The error types of the record of a case its cell process died running (record_death): it started.
DEATHS = ("ProcessDied", "ProcessTimeout")


def never_started(record: dict[str, Any]) -> bool:
    """Whether a record is one the host wrote for a case that never started (record_unrun: a cell not built, a
    process that stopped before it): an error type but no duration, as only pytest times a case, and not the case a
    process died in."""
    error_type = record.get("error_type")
    return record.get("duration_s") is None and bool(error_type) and error_type not in DEATHS


def cell_record(cell: Cell, run_id: str, **fields: Any) -> dict[str, Any]:
    """A record written on the cell's behalf: its run, id, pins and platform, plus `fields`."""
    return make_record(
        run_id=run_id, cell_id=cell.id, jax=cell.jax, jaxlib=cell.jaxlib, flax=cell.flax,
        python=cell.python, backend=cell.backend, platform=f"{platform.system()}-{platform.machine()}", **fields,
    )


def record_unrun(
    cell: Cell,
    files: CellFiles,
    paths: list[Path],
    status: str,
    error_type: str,
    message: str,
    *,
    only_missing: bool = False,
    placeholder: str = "<cell>",
    left_out: Sequence[str] = (),
) -> None:
    """Write `status` for every case of the cell that has no record yet (or one placeholder when none is known), of
    those the cell's selection (`left_out`: its -k and deselected ids, harness.host.selection) leaves in."""
    done = {case_id.split("[")[0] for case_id in recorded_case_ids(files.results)} if only_missing else set()
    expected = dict(expected_cases(paths))
    cases = [(cid, expected[cid]) for cid in left_in(list(expected), left_out) if not answered(cid, done)]
    if not cases and not done:
        cases = [(f"{cell.id}::{placeholder}", "cell")]
    writer = JsonlWriter(files.results)
    try:
        for case_id, family in cases:
            writer.write(cell_record(cell, files.run_id, case_id=case_id, family=family, status=status,
                                     reason=message, error_type=error_type, error_message=message))
    finally:
        writer.close()
    # What the cell was expected to run, as far as the host knows it: the cases it answered for here.
    write_collection(files.results, cell.id, [case_id for case_id, _ in cases])


def record_death(cell: Cell, files: CellFiles, fault_log: Path, paths: list[Path], reruns: int) -> bool:
    """Record the case a dead cell process was running, named by faulthandler's log, as its next attempt; False if
    there is none (the process died outside a case, or after the case's last attempt was recorded)."""
    nodeid = read_inflight(files.inflight)
    files.inflight.unlink(missing_ok=True)
    case_id = case_id_from_nodeid(nodeid, tuple(qualified_names(paths).values()))
    if not nodeid:
        return False
    attempts = [r for r in read_records(files.results) if r.get("case_id") == case_id]
    # A case whose failed attempt pytest-rerunfailures was retrying died on its retry: that retry is its next
    # attempt. One whose last attempt needs no retry had ended: the death is not its own.
    if attempts and not (attempts[-1].get("status") in RETRIED and cellrecord.attempt_of(attempts[-1]) <= reruns):
        return False
    verdict = crash_verdict(fault_log.read_text(encoding="utf-8", errors="replace") if fault_log.exists() else "")
    families = dict(expected_cases(paths))
    writer = JsonlWriter(files.results)
    try:
        writer.write(cell_record(
            cell, files.run_id, case_id=case_id,
            family=families.get(case_id.split("[")[0], family_from_nodeid(nodeid)), status=verdict.status,
            attempt=1 + max((cellrecord.attempt_of(r) for r in attempts), default=0), reason=verdict.reason,
            error_type=DEATHS[1] if verdict.status == vocabulary.TIMEOUT else DEATHS[0],
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
