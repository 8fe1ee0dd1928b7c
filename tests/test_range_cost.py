"""Figure 14's text and what it reads (benchmarks/range_cost.py), on fakes: no cell is built here."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from benchmarks import range_cost
from benchmarks.range_cost import Side
from harness import outputs
from harness.cellrecord import CellFiles, write_done


def row(status: str = "confirmed", case: str = "fam::a") -> dict[str, Any]:
    return {"case": case, "package": "jax", "declared": ">=0.8.0", "source": "change", "status": status,
            "found": None, "why": ""}


def check_folder(out: Path, rows: list[dict[str, Any]], probes: int, cells: list[tuple[str, float, str | None]]
                 ) -> None:
    """A range check's --out folder: its document and one done marker per (cell id, seconds, reused from)."""
    outputs.write_ranges(out / "report", {"probes": probes, "budget": 5000, "wrong": 0, "unchecked": 0,
                                          "edges": rows, "needs_without_change": [], "options": {},
                                          "commit": None, "cases": {}})
    for cell_id, seconds, reused in cells:
        files = CellFiles(out, "20261128T150000Z-abcd", cell_id)
        files.results.parent.mkdir(parents=True, exist_ok=True)
        write_done(files.done, cell_id=cell_id, finished="2026-11-28T15:00:00Z", returncode=0, fingerprint="f",
                   reused_from=reused, seconds=seconds)


def test_the_cells_a_check_built_are_counted_with_their_seconds_and_a_reused_one_is_not(tmp_path: Path) -> None:
    check_folder(tmp_path, [row()], 3, [("a", 10.0, None), ("b", 12.5, None), ("c", 40.0, "20261127T000000Z-0000")])
    assert range_cost.built_cells(tmp_path) == (2, 22.5)


def test_a_side_reads_its_edges_probes_and_cells_from_the_check_s_folder(tmp_path: Path) -> None:
    check_folder(tmp_path, [row(), row("wrong", "fam::b"), row(case="fam::c")], 7, [("a", 10.0, None)])
    assert range_cost.side_of("middle", tmp_path, 61.0) == Side("middle", 61.0, 3, 2, 7, 1, 10.0)


def test_a_side_whose_check_stored_nothing_is_refused_naming_the_folder(tmp_path: Path) -> None:
    with pytest.raises(SystemExit, match=r"ranges-none.*stored nothing"):
        range_cost.side_of("none", tmp_path / "ranges-none", 1.0)


def test_the_figure_puts_the_three_reaches_side_by_side_and_judges_the_middle_against_its_target() -> None:
    sides = [Side("every", 300.0, 9, 9, 80, 40, 280.0), Side("middle", 130.0, 9, 9, 30, 16, 120.0),
             Side("none", 100.0, 9, 9, 24, 13, 90.0)]
    assert range_cost.cost_figure(sides, "4 case(s)").splitlines() == [
        "14. the range checker's inside probes, 4 case(s): --inside every, middle and none (the bounds only, as when "
        "issue 40 was filed)",
        "                               every    middle      none",
        "    edges (confirmed)          9 (9)     9 (9)     9 (9)",
        "    probes                        80        30        24",
        "    cells built                   40        16        13",
        "    cells' seconds               280       120        90",
        "    wall (s)                     300       130       100",
        "    -> --inside middle: wall 1.30x the bounds only's (within the target <= 1.40x)",
        "    -> --inside every: wall 3.00x the bounds only's (what a budget that allows every release inside buys)"]


def test_the_figure_flags_a_middle_over_its_target_and_says_when_there_is_nothing_to_compare_with() -> None:
    over = [Side("middle", 150.0, 1, 1, 5, 5, 140.0), Side("none", 100.0, 1, 1, 3, 3, 90.0)]
    assert "wall 1.50x the bounds only's (OVER the target <= 1.40x)" in range_cost.cost_figure(over, "x")
    alone = range_cost.cost_figure([Side("every", 10.0, 1, 1, 3, 3, 9.0)], "x")
    assert alone.splitlines()[-1] == "    -> no bounds-only side to compare with"


def test_the_runs_check_the_same_cases_once_per_reach_each_in_its_own_folder_every_first(tmp_path: Path) -> None:
    commands: list[list[str]] = []

    def run(*command: str, cwd: Path) -> None:
        commands.append(list(command))
        out = Path(command[command.index("--out") + 1])
        check_folder(out, [row()], 2, [("a", 5.0, None)])

    def timed(action: Callable[[], object]) -> float:
        action()
        return 42.0

    sides = range_cost.cost_runs(tmp_path, tmp_path, ["fam::a", "fam::b"], run, timed)
    assert [side.inside for side in sides] == ["every", "middle", "none"]
    assert [command[command.index("--inside") + 1] for command in commands] == ["every", "middle", "none"]
    assert all(command[command.index("--case") + 1:command.index("--case") + 4] == ["fam::a", "--case", "fam::b"]
               and "--force" in command for command in commands)
    assert len({command[command.index("--out") + 1] for command in commands}) == 3
    assert sides[0] == Side("every", 42.0, 1, 1, 2, 1, 5.0)
