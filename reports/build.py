"""Build OUT/report/ from OUT/results/: the one place that decides where reports read and write."""

from __future__ import annotations

import gc
import warnings
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from harness import outputs
from harness.outputs import OutputFileError
from reports.data.load import load
from reports.data.longform import write_csv
from reports.data.tables import build_matrix
from reports.verdicts import compat, documented_table
from reports.verdicts.causes import causes
from reports.views import changes_csv, compat_files, frontier_render
from reports.views.html import render_html
from reports.views.markdown import render_markdown
from reports.views.repro import write_reproducers
from reports.views.summary import summary


@dataclass(frozen=True)
class Report:
    """What build_report wrote, and the terminal summary it made."""

    csv_path: Path
    markdown_path: Path
    html_path: Path
    summary: str
    compat_csv_path: Path
    compat_json_path: Path
    changes_csv_path: Path

    @property
    def paths(self) -> tuple[Path, ...]:
        """Every file written."""
        return (self.csv_path, self.markdown_path, self.html_path, self.compat_csv_path, self.compat_json_path,
                self.changes_csv_path)


def results_dir(out_dir: Path) -> Path:
    """Where the harness writes results: OUT/results."""
    return Path(out_dir) / "results"


def report_dir(out_dir: Path) -> Path:
    """Where reports are written: OUT/report."""
    return Path(out_dir) / "report"


def writable_report_dir(out_dir: Path) -> Path:
    """OUT/report, refused in one line when something else than a folder holds its name (before any work)."""
    target = report_dir(out_dir)
    if target.exists() and not target.is_dir():
        raise OutputFileError(target, "is not a folder; the report is written there")
    return target


def build_report(out_dir: Path, run_ids: Sequence[str] | None = None, *, all_runs: bool = False) -> Report:
    """Read OUT/results (newest run, `run_ids`, or `all_runs`) and write results.csv, matrix.md, matrix.html, and
    the compatibility verdicts as compat.csv and compat.json, and the documented changes as changes.csv."""
    with collector_paused():
        return _build(out_dir, run_ids, all_runs=all_runs)


@contextmanager
def collector_paused() -> Iterator[None]:
    """Pause Python's cycle collector for a build, restoring it after: a build makes hundreds of thousands of small
    objects (a dict per record, a string per cell), and each full collection walked them all again, a fifth of
    the build's time. Reference counting still frees what the build drops; cycles wait for the next collection."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def _build(out_dir: Path, run_ids: Sequence[str] | None, *, all_runs: bool) -> Report:
    root = results_dir(out_dir)
    target = writable_report_dir(out_dir)  # refused before any work, not after minutes of it
    loaded = load(root, run_ids, all_runs=all_runs)
    matrix = build_matrix(loaded.records, loaded.cells)
    repros = write_reproducers(matrix.results, target, matrix.cells)
    # Causes and verdicts once, for every file that shows them.
    found = causes(matrix.results, matrix.cells)
    verdicts = compat.verdicts(matrix, found)
    changed = documented_table.table(matrix.results, matrix.cells, compat.broken(verdicts))
    # `nox -s frontier` leaves frontier.json in the same folder; its view joins the pages when it is there.
    try:
        measured = frontier_render.load(target)
    except frontier_render.FrontierFileError as exc:  # the matrix report still stands without it
        warnings.warn(f"frontier left out of the report: {exc}", stacklevel=2)
        measured = None
    # Both pages are made before either is written, and every file is written whole (harness.outputs): a build
    # that fails while making them leaves the previous pages as they were, and no file is ever half-written.
    markdown = render_markdown(matrix, repros, found, verdicts, changed)
    markdown += ("\n" + frontier_render.markdown(measured)) if measured else ""
    html = render_html(matrix, repros, found, verdicts, changed=changed,
                       frontier_html=frontier_render.html_fragment(measured) if measured else "")
    markdown_path = outputs.write_atomically(target / outputs.MATRIX_MD, markdown)
    html_path = outputs.write_atomically(target / outputs.MATRIX_HTML, html)
    compat_csv, compat_json = compat_files.write(verdicts, target)
    return Report(
        csv_path=write_csv(matrix, target / outputs.RESULTS_CSV.name),
        markdown_path=markdown_path,
        html_path=html_path,
        summary=summary(matrix),
        compat_csv_path=compat_csv,
        compat_json_path=compat_json,
        changes_csv_path=changes_csv.write(changed, matrix.cells, target / outputs.CHANGES_CSV.name),
    )
