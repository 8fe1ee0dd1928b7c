"""harness/runs.py: run ids, when a run started, and the runs under OUT/results in the order they started."""

from __future__ import annotations

from datetime import datetime, timezone
from pathlib import Path

import pytest

from harness import formats, runs


def test_run_ids_sort_chronologically_and_other_names_are_not_runs() -> None:
    early = runs.new_run_id(datetime(2026, 1, 2, 3, 4, 5, tzinfo=timezone.utc))
    assert early.startswith("20260102T030405Z-") and runs.is_run_id(early)
    assert not runs.is_run_id("kept-good-baseline") and not runs.is_run_id("20261399T000000Z-aaaa")


def test_runs_are_ordered_by_their_start_and_other_folders_ignored_with_a_note(tmp_path: Path) -> None:
    for run in ("20261122T000000Z-bbbb", "kept-good-baseline", "20261121T000000Z-zzzz"):
        (tmp_path / run).mkdir()
        (tmp_path / run / "c.jsonl").write_text("")
    found = runs.list_runs(tmp_path)
    assert found.ids == ("20261121T000000Z-zzzz", "20261122T000000Z-bbbb")
    assert found.ignored == ("kept-good-baseline",) and "not a run" in found.notes[0]


def test_a_run_id_is_checked_and_another_name_refused_in_one_line_naming_it() -> None:
    assert runs.check_run_id("20261121T084500Z-ab12") == "20261121T084500Z-ab12"
    with pytest.raises(formats.ShardmatrixError, match=r"^run id 'latest' is not YYYYmmddTHHMMSSZ-<tag>"):
        runs.check_run_id("latest")
