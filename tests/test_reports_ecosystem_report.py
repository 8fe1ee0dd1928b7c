"""reports.ecosystem_report: the Ecosystem report's files from the projects' outcomes, and the run's verdict."""

from __future__ import annotations

from pathlib import Path

from harness import ecosystem_summary
from reports import ecosystem_report


def test_the_summary_and_both_views_are_written_and_the_worst_project_decides(tmp_path: Path) -> None:
    outcomes = {"candidate": ["jax==0.9.0"], "baseline": "jax==0.8.3,flax==0.12.3", "as_of": "2026-01-20",
                "projects": [
                    {"name": "alpha", "verdict": "UNSAFE", "reason": "", "causes": [
                        {"signature": "E: x", "example": "E: x", "change": "", "cases": ["t::a"], "reproducer": ""}]},
                    {"name": "beta", "verdict": "INCONCLUSIVE", "reason": "a cell did not finish", "causes": []}]}
    verdict, written = ecosystem_report.write(tmp_path, outcomes)
    assert verdict == "UNSAFE"
    assert [p.name for p in written] == ["ecosystem.json", "ecosystem.md", "ecosystem.html", "ecosystem-comment.md"]
    summary = ecosystem_summary.read_ecosystem(tmp_path / "report" / "ecosystem.json")
    assert summary["schema_version"] == 2 and summary["verdict"] == "UNSAFE"
    assert summary["causes"][0]["projects"] == ["alpha"]
    comment = (tmp_path / "report" / "ecosystem-comment.md").read_text()
    # The causes come before the projects without an answer, whose list may be long.
    assert ("1. `E: x` in 1 project(s): alpha (1 test(s))\n- **UNSAFE** alpha\n"
            "- **INCONCLUSIVE** beta: a cell did not finish\n") in comment
