"""What "could not be fully run" means for a cell of a run: the one rule `nox -s matrix` and `planned --check` share.

A cell could not be fully run when it left no results file, when it recorded nothing, when its run stopped before
its end (no done marker), when its reading (harness.results) could not account for everything in its files (an
unreadable line, an expected case without a record, a retry without its first attempt, a mismatched version), or
when a case's final status leaves the case unknown: install_error, crashed, timeout,
or a status the vocabulary does not know (never counted as good). Each case counts once, by its final record, so a
crash retried into a pass is no problem.
"""

from __future__ import annotations

from collections.abc import Sequence

from harness import vocabulary
from harness.cellrecord import CellFiles
from harness.host.celllog import status_counts
from harness.results import read_cell

NO_RESULTS = "no results"


def not_fully_run(files: CellFiles, missing: str = NO_RESULTS) -> str | None:
    """Why the cell could not be fully run, in one line without its id ('2 crashed, 1 mystery'); None when it was.

    `missing` says why a cell left no results file, where the caller knows."""
    if not files.results.exists():
        return f"missing ({missing})"
    reading = read_cell(files.results, files.run_id)
    finals = reading.finals()
    why = [f"{n} {status}" for status, n in status_counts(finals).items() if vocabulary.is_inconclusive(status)]
    if not finals:
        why.append("no records")
    if not files.complete:
        # A CI step timeout stops a cell so: what it recorded was uploaded, and this names it stopped, not missing.
        why.append(f"incomplete (no done marker: its run stopped after {len(finals)} case(s), before its end: "
                   "interrupted, or timed out)")
    if reading.unaccounted:
        # The reader's lines name the file; one here is enough to say the cell cannot vouch for itself.
        why.append(f"{len(reading.unaccounted)} unaccounted (first: {reading.unaccounted[0]})")
    return ", ".join(why) or None


def problems(cells: Sequence[CellFiles], missing: str = NO_RESULTS) -> list[str]:
    """One '<cell>: <why>' line per cell that could not be fully run."""
    found = ((files.cell_id, not_fully_run(files, missing)) for files in cells)
    return [f"{cell_id}: {why}" for cell_id, why in found if why]
