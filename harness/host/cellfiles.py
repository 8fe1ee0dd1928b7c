"""CellFiles: where one cell's files of one run live, as one frozen value (the paths come from harness.vocabulary).

Passed instead of an options object or an (out, run id, cell id) triple: a function that writes a cell's records
takes the cell's files, not everything a run was asked.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from harness import formats, vocabulary


@dataclass(frozen=True)
class CellFiles:
    """The files of cell `cell_id` in run `run_id` under `out`."""

    out: Path
    run_id: str
    cell_id: str

    @property
    def results(self) -> Path:
        """OUT/results/<run>/<cell>.jsonl: the records."""
        return vocabulary.results_path(self.out, self.run_id, self.cell_id)

    @property
    def done(self) -> Path:
        """The done marker: present once the cell finished."""
        return vocabulary.done_path(self.out, self.run_id, self.cell_id)

    @property
    def log(self) -> Path:
        """What the installer and pytest printed."""
        return vocabulary.log_path(self.out, self.run_id, self.cell_id)

    @property
    def inflight(self) -> Path:
        """Where the cell's pytest names the case it is running."""
        return vocabulary.inflight_path(self.out, self.run_id, self.cell_id)

    @property
    def install_log(self) -> Path:
        """The installer's transcript."""
        return self.results.with_suffix(".install.log")

    @property
    def freeze(self) -> Path:
        """The cell's resolved environment (`uv pip freeze`)."""
        return formats.freeze_file(self.results)

    @property
    def sources(self) -> Path:
        """The copies of the case modules that ran (reproducers are built from them)."""
        return vocabulary.sources_dir(self.out, self.run_id, self.cell_id)

    def fault_log(self, worker: str) -> Path:
        """A worker process's faulthandler log."""
        return vocabulary.fault_log_path(self.out, self.run_id, self.cell_id, worker)

    def in_run(self, run_id: str) -> CellFiles:
        """The same cell's files in another run."""
        return CellFiles(self.out, run_id, self.cell_id)

    @property
    def complete(self) -> bool:
        """Whether the cell finished in this run (its done marker exists)."""
        return self.done.exists()
