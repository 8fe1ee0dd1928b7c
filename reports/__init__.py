"""shardmatrix reports: rebuild the matrix report (CSV, Markdown, HTML) from results files alone.

Of the harness, reports/ imports only `harness.vocabulary` (statuses and their classes, record fields, schema
migrations, paths) and `harness.formats` (how a results line is read), which import nothing but the standard
library; never the code that runs cells, so a report is reproducible from OUT/results alone
(tests/test_reports_build.py checks it). Importing this package loads pandas and jinja2 (the `report` extra).
"""

from __future__ import annotations

from reports.build import Report, build_report
from reports.data.load import ResultsError, list_runs, load_cells, load_results

__all__ = ["Report", "ResultsError", "build_report", "list_runs", "load_cells", "load_results"]
