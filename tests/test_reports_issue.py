"""Tests for reports/views/issue.py: the tracking issue's body within GitHub's limit (what it says: through the command,
in tests/test_reports_regressions.py)."""

from __future__ import annotations

from reports.views import issue


def test_a_body_within_github_s_limit_is_left_whole() -> None:
    assert issue.cut("a\n" * 10, limit=20) == "a\n" * 10


def test_a_body_beyond_github_s_limit_is_cut_at_a_line_and_points_at_the_whole() -> None:
    body = "".join(f"| row {n} |\n" for n in range(10_000))
    cut = issue.cut(body, run_url="https://x/runs/1")
    assert len(cut) <= issue.BODY_LIMIT == 65_536
    kept, note = cut.rsplit("\n\n", 1)
    assert body.startswith(kept + "\n") and kept.endswith("|")
    assert note == ("**Cut at 65,536 characters** (GitHub's limit on an issue body): the whole comparison is in the "
                    "job summary of [this run](https://x/runs/1).\n")
