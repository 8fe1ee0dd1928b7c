"""Build OUT/report/ from OUT/results/: the one place that decides where reports read and write."""

from __future__ import annotations

import gc
import warnings
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from reports.data.load import choose_runs, load_cells, load_results
from reports.data.longform import write_csv
from reports.data.matrix import build_matrix
from reports.verdicts import changes, compat
from reports.verdicts.causes import causes
from reports.views import frontier
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
    chosen = choose_runs(root, run_ids, all_runs=all_runs)
    matrix = build_matrix(load_results(root, chosen), load_cells(root, chosen))
    target = report_dir(out_dir)
    target.mkdir(parents=True, exist_ok=True)
    repros = write_reproducers(matrix.results, target, matrix.cells)
    # Causes and verdicts once, for every file that shows them.
    found = causes(matrix.results, matrix.cells)
    verdicts = compat.verdicts(matrix, found)
    changed = changes.table(matrix.results, matrix.cells, compat.broken(verdicts))
    # `nox -s frontier` leaves frontier.json in the same folder; its view joins the pages when it is there.
    try:
        measured = frontier.load(target)
    except frontier.FrontierFileError as exc:  # the matrix report still stands without it
        warnings.warn(f"frontier left out of the report: {exc}", stacklevel=2)
        measured = None
    markdown_path = target / "matrix.md"
    markdown = render_markdown(matrix, repros, found, verdicts, changed)
    markdown_path.write_text(markdown + ("\n" + frontier.markdown(measured) if measured else ""), encoding="utf-8")
    html_path = target / "matrix.html"
    html_path.write_text(render_html(matrix, repros, found, verdicts, changed=changed,
                                     frontier_html=frontier.html_fragment(measured) if measured else ""),
                         encoding="utf-8")
    compat_csv, compat_json = compat.write(verdicts, target)
    return Report(
        csv_path=write_csv(matrix, target / "results.csv"),
        markdown_path=markdown_path,
        html_path=html_path,
        summary=summary(matrix),
        compat_csv_path=compat_csv,
        compat_json_path=compat_json,
        changes_csv_path=changes.write_csv(changed, matrix.cells, target / "changes.csv"),
    )
