"""The Ecosystem report of a `shardmatrix ecosystem` run: OUT/report/ecosystem.json (the summary for programs),
ecosystem.md and ecosystem.html (the whole report) and ecosystem-comment.md (a pull-request comment's body), from
the projects' outcomes alone (shardmatrix.ecosystem hands them over; `python -m reports` is not needed)."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from harness import outputs
from harness.ecosystem_summary import ECOSYSTEM_COMMENT_MD, ECOSYSTEM_HTML, ECOSYSTEM_MD, write_ecosystem
from reports.verdicts import documented_upgrade
from reports.verdicts.ecosystem_judge import grid, group, worst
from reports.views.ecosystem_render import comment, html_page, page


def write(out: Path, outcomes: Mapping[str, Any]) -> tuple[str, list[Path]]:
    """The run's verdict (the worst project's) and the files written under OUT/report."""
    projects = list(outcomes["projects"])
    # Any project's declarations will do (the shipped corpus's); one merged from another machine may lack its file.
    # A project names its files relative to the output folder (or absolutely, as summaries before 2026-11-27 did).
    found = [Path(out) / p["changes_from"] for p in projects if p.get("changes_from")]
    declared = next((documented_upgrade.read_declarations(path) for path in found if path.is_file()), [])
    groups = group(projects, declared)
    rows = grid(projects)
    summary = {**outcomes, "verdict": worst([p["verdict"] for p in projects], len(outcomes.get("pending", [])))}
    target = Path(out) / "report"
    target.mkdir(parents=True, exist_ok=True)
    written = [write_ecosystem(target, {**summary, "causes": [g.as_dict() for g in groups]}),
               outputs.write_atomically(target / ECOSYSTEM_MD, page(summary, groups, rows)),
               outputs.write_atomically(target / ECOSYSTEM_HTML, html_page(summary, groups, rows)),
               outputs.write_atomically(target / ECOSYSTEM_COMMENT_MD, comment(summary, groups, rows))]
    return summary["verdict"], written
