"""shardmatrix reports: rebuild the matrix report (CSV, Markdown, HTML) from results files alone.

Nothing here imports `harness`: a report must be reproducible from OUT/results without the code that wrote it.
"""

from __future__ import annotations

from reports.build import Report, build_report
from reports.load import ResultsError, list_runs, load_cells, load_results

__all__ = ["Report", "ResultsError", "build_report", "list_runs", "load_cells", "load_results"]
