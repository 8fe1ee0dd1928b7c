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


def check_folder(out: Path, rows: list[dict[str, Any]], probes: int, cells: list[tuple[str, float, str | None]],
                 run_id: str = "20261128T150000Z-abcd") -> None:
    """A range check's --out folder: its document and one done marker per (cell id, seconds, reused from)."""
    outputs.write_ranges(out / "report", {"probes": probes, "budget": 5000, "wrong": 0, "unchecked": 0,
                                          "edges": rows, "needs_without_change": [], "options": {},
                                          "commit": None, "cases": {}})
    for cell_id, seconds, reused in cells:
        files = CellFiles(out, run_id, cell_id)
        files.results.parent.mkdir(parents=True, exist_ok=True)
        write_done(files.done, cell_id=cell_id, finished="2026-11-28T15:00:00Z", returncode=0, fingerprint="f",
                   reused_from=reused, seconds=seconds)


def test_the_cells_a_check_built_are_counted_with_their_seconds_and_a_reused_one_is_not(tmp_path: Path) -> None:
    check_folder(tmp_path, [row()], 3, [("a", 10.0, None), ("b", 12.5, None), ("c", 40.0, "20261127T000000Z-0000")])
    assert range_cost.built_cells(tmp_path) == (2, 22.5)


def test_a_side_reads_its_edges_probes_and_cells_from_the_check_s_folder(tmp_path: Path) -> None:
    check_folder(tmp_path, [row(), row("wrong", "fam::b"), row(case="fam::c")], 7, [("a", 10.0, None)])
    assert range_cost.side_of("middle", tmp_path, 61.0) == Side("middle", 61.0, 3, 2, 7, 1, 10.0)


def test_an_out_kept_from_an_earlier_bench_counts_only_the_cells_of_the_runs_made_since(tmp_path: Path) -> None:
    check_folder(tmp_path, [row()], 3, [("a", 10.0, None), ("b", 12.5, None)], "20261127T150000Z-0000")
    before = range_cost.run_folders(tmp_path)
    check_folder(tmp_path, [row()], 1, [("a", 4.0, None)])
    assert before == {"20261127T150000Z-0000"}
    assert range_cost.built_cells(tmp_path, before) == (1, 4.0)
    assert range_cost.side_of("every", tmp_path, 9.0, before).cells == 1


@pytest.mark.parametrize(("text", "why"), [
    ('{"cell_id": "a", "seconds"', "a.done.json: "),
    ('{"cell_id": "a", "seconds": "ten"}', r"a.done.json: seconds 'ten' is not")])
def test_a_done_marker_that_cannot_be_read_is_refused_naming_it(tmp_path: Path, text: str, why: str) -> None:
    check_folder(tmp_path, [row()], 1, [("a", 1.0, None)])
    marker = next((tmp_path / "results").rglob("a.done.json"))
    marker.write_text(text, encoding="utf-8")
    with pytest.raises(SystemExit, match=f"^bench: .*{why}"):
        range_cost.built_cells(tmp_path)


def test_a_side_whose_check_stored_nothing_is_refused_naming_the_folder(tmp_path: Path) -> None:
    with pytest.raises(SystemExit, match=r"ranges-none.*stored nothing"):
        range_cost.side_of("none", tmp_path / "ranges-none", 1.0)


def test_the_figure_puts_the_four_sides_side_by_side_and_judges_the_default_per_edge_against_the_filed() -> None:
    sides = [Side("every", 300.0, 10, 10, 80, 40, 280.0), Side("middle", 60.0, 10, 10, 30, 16, 55.0),
             Side("none", 40.0, 10, 10, 24, 13, 36.0), Side("filed", 250.0, 8, 8, 20, 10, 240.0)]
    assert range_cost.cost_figure(sides, "4 case(s)", "abc1234").splitlines() == [
        "14. the range checker's inside probes, 4 case(s): this checkout's with --inside every, middle and none, and "
        "the checker at abc1234 (filed: issue 40's filing; the bounds only, each probe a whole-corpus cell)",
        "                               every    middle      none     filed",
        "    edges (confirmed)        10 (10)   10 (10)   10 (10)     8 (8)",
        "    probes                        80        30        24        20",
        "    cells built                   40        16        13        10",
        "    cells' seconds               280        55        36       240",
        "    wall (s)                     300        60        40       250",
        "    wall per edge (s)           30.0       6.0       4.0      31.2",
        "    -> wall per edge against the filed checker's: every 0.96x, middle 0.19x, none 0.13x",
        "    -> edges differ: --inside every checked 10, the filed checker 8 (a range it did not declare, or one it "
        "declared otherwise): per edge compares different edge sets",
        "    -> the default (--inside every): 0.96x (within the target <= 1.40x)"]


def test_the_figure_says_nothing_of_edge_sets_when_both_checked_as_many_edges() -> None:
    same = [Side("every", 10.0, 2, 2, 6, 6, 9.0), Side("filed", 10.0, 2, 2, 4, 4, 9.0)]
    assert not any("edges differ" in line for line in range_cost.cost_figure(same, "x").splitlines())


def test_a_filed_side_with_no_edges_says_so_and_judges_nothing() -> None:
    empty = [Side("every", 30.0, 2, 2, 6, 6, 20.0), Side("filed", 10.0, 0, 0, 0, 0, 0.0)]
    lines = range_cost.cost_figure(empty, "x").splitlines()
    assert lines[-1] == "    -> the filed checker checked no edge of these cases: nothing to compare with"
    assert not any("within" in line or "OVER" in line for line in lines)


def test_a_side_with_no_edges_is_not_judged_within_the_target() -> None:
    empty = [Side("every", 30.0, 0, 0, 0, 0, 0.0), Side("filed", 10.0, 2, 2, 4, 4, 9.0)]
    lines = range_cost.cost_figure(empty, "x").splitlines()
    assert "    -> wall per edge against the filed checker's: every no edges" in lines
    assert not any("within" in line for line in lines)


def test_the_figure_flags_a_default_over_its_target_and_says_when_there_is_nothing_to_compare_with() -> None:
    over = [Side("every", 150.0, 1, 1, 5, 5, 140.0), Side("filed", 100.0, 1, 1, 3, 3, 90.0)]
    assert "    -> the default (--inside every): 1.50x (OVER the target <= 1.40x)" in range_cost.cost_figure(over, "x")
    alone = range_cost.cost_figure([Side("every", 10.0, 1, 1, 3, 3, 9.0)], "x")
    assert alone.splitlines()[-1] == "    -> no filed checker's side to compare with"


def test_the_runs_check_the_same_cases_once_per_reach_then_with_the_filed_checker_warmed_first(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    commands: list[tuple[list[str], Path]] = []

    def run(*command: str, cwd: Path) -> None:
        commands.append((list(command), cwd))
        out = Path(command[command.index("--out") + 1])
        check_folder(out, [row()], 2, [("a", 5.0, None)])

    def timed(action: Callable[[], object]) -> float:
        action()
        return 42.0

    checker = tmp_path / "checker-abc" / ".venv" / "bin" / "shardmatrix"
    monkeypatch.setattr(range_cost, "filed_checker", lambda root, ref, scratch, run: (checker, tmp_path / "abc"))
    sides = range_cost.cost_runs(tmp_path, tmp_path, ["fam::a", "fam::b"], run, timed, "abc")
    assert [side.inside for side in sides] == ["every", "middle", "none", "filed"]
    ours = [command for command, cwd in commands if cwd == tmp_path]
    assert [command[command.index("--inside") + 1] for command in ours] == ["every", "middle", "none"]
    assert all(command[command.index("--case") + 1:command.index("--case") + 4] == ["fam::a", "--case", "fam::b"]
               and "--force" in command for command, _ in commands)
    filed = [command for command, cwd in commands if cwd == tmp_path / "abc"]
    assert [command[0] for command in filed] == [str(checker)] * 2 and all("--inside" not in c for c in filed)
    assert [Path(command[command.index("--out") + 1]).name for command, _ in commands] == [
        "ranges-every", "ranges-middle", "ranges-none", "ranges-filed-warm", "ranges-filed"]
    assert sides[0] == Side("every", 42.0, 1, 1, 2, 1, 5.0)


def test_runs_into_folders_kept_from_an_earlier_bench_count_none_of_its_cells(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("ranges-every", "ranges-middle", "ranges-none", "ranges-filed"):
        check_folder(tmp_path / name, [row()], 9, [("old", 300.0, None)], "20261127T150000Z-0000")

    def run(*command: str, cwd: Path) -> None:
        check_folder(Path(command[command.index("--out") + 1]), [row()], 2, [("a", 5.0, None)])

    def timed(action: Callable[[], object]) -> float:
        action()
        return 1.0

    monkeypatch.setattr(range_cost, "filed_checker", lambda root, ref, scratch, run: (tmp_path, tmp_path))
    sides = range_cost.cost_runs(tmp_path, tmp_path, ["fam::a"], run, timed, "abc")
    assert [(side.cells, side.cell_s) for side in sides] == [(1, 5.0)] * 4


def test_a_filed_checker_at_a_ref_git_cannot_give_is_refused_naming_it(tmp_path: Path) -> None:
    with pytest.raises(SystemExit, match=r"the range checker at no-such-ref: git archive failed"):
        range_cost.filed_checker(Path(__file__).resolve().parents[1], "no-such-ref", tmp_path, print)
