"""shardmatrix harness, in two runtimes and a shared vocabulary.

- harness.vocabulary: statuses and their classes, record fields, schema and paths (imports nothing).
- harness.case: the decorator case authors import.
- harness.cell: runs inside each cell's venv (the pytest plugin).
- harness.host: runs on the host (env builds, the run of one cell, cache, CI plan).
- harness.tools: release tools on the host (upgrade, bisect, ranges, pins, the package index); the `shardmatrix`
  command and the tools that judge with reports/ are above both, in shardmatrix/.

A cell gets only harness.cell and what it imports (harness.host.cellplugin); tests/test_layout.py keeps it so.
"""
