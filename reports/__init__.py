"""shardmatrix reports: rebuild the matrix report (CSV, Markdown, HTML) from results files alone.

Three floors, each a folder, and the entry points above them; a module imports its own floor and those below, never
one above (tests/test_layout.py, which names the one allowed exception):

- data: load (the results tree read into records), tables (records shaped into the tables), longform (results.csv),
  text (fields as display text), statuses (the status a result shows, the order and labels of statuses);
- verdicts: compat (one verdict per cell), documented (what a declared upstream change means for a result),
  documented_table (the Changes table), documented_upgrade (the changes an upgrade crosses), causes (problems grouped
  by root cause), compare (an upgrade's verdict), compare_join (two cells' cases side by side),
  compare_tables (a comparison's finding tables and timing), unjudged (why a comparison could not judge),
  findings (problems and warnings, worst first), frontier_judge (a frontier probe's verdict, compat's), coverage
  (what ran of what a cell collected, the rest by cause), divergence (where an accelerator and the CPU disagree,
  and why), pairs (what is new in a pair against its neighbours, what a row or the table shares), ecosystem_judge (an
  ecosystem run's regressions grouped by cause across projects);
- views: html, _page, grid, hover (matrix.html), markdown (matrix.md), markdown_tables (its tables
  of results), gfm (text kept inside a Markdown table cell), present (marks, colours, words and legend of
  statuses and verdicts), verdict_text (a verdict in words), compat_grid (the compatibility grid's layout),
  compat_files (compat.csv and compat.json), changes_csv (changes.csv), summary (the terminal summary),
  compare_render (the upgrade verdict as text and Markdown), issue (the nightly issue's body), frontier_render (the
  frontier grid), repro (a reproducer script per failing case), ecosystem_render (the Ecosystem report and its
  pull-request comment);
- on top: build (OUT/results to OUT/report), cli and __main__ (`python -m reports`), regressions (`python -m
  reports.regressions`, the nightly verdict), ecosystem_report (the Ecosystem report's files).

Of the harness, reports/ imports only `harness.vocabulary` (statuses and their classes, record fields, schema
migrations, paths) and `harness.formats` (how a results line is read), which import nothing but the standard
library; never the code that runs cells, so a report is reproducible from OUT/results alone
(tests/test_layout.py checks it). Importing this package loads pandas and jinja2 (dependencies of shardmatrix).
"""

from __future__ import annotations

from reports.build import Report, build_report
from reports.data.load import ResultsError, list_runs, load_cells, load_results

__all__ = ["Report", "ResultsError", "build_report", "list_runs", "load_cells", "load_results"]
