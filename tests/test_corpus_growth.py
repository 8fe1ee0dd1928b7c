"""benchmarks/corpus_growth.py's figures 10 and 11 on fakes: the side by side and its targets, the changed cells from
compat rows and compare findings, their Markdown, the range checker's budget, and the old corpus's export."""

from __future__ import annotations

import subprocess
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest
import record_factory

from benchmarks import corpus_growth
from benchmarks.corpus_growth import CellChange, Side

ROOT = Path(__file__).resolve().parent.parent


def side(wall: float, seconds: dict[tuple[str, str], float]) -> Side:
    return Side("run", wall, seconds)


BEFORE = side(100.0, {("c1", "fam::old"): 2.0, ("c2", "fam::old"): 3.0, ("c1", "fam::<collection>"): 0.0})


def test_the_figure_puts_before_and_after_side_by_side_within_the_targets() -> None:
    after = side(130.0, {**BEFORE.seconds, ("c1", "fam::new"): 4.5, ("c2", "fam::new"): 6.0})
    text = corpus_growth.growth_figure(BEFORE, after, "56957cc", "default matrix")
    assert "    cases                          1         2" in text  # the collection record is not a case
    assert "    wall (s)                     100       130" in text
    assert "    case bodies (s)                5        16" in text
    assert "wall 1.30x (within the target <= 1.40x); 1 new case" in text
    assert "slowest new case: fam::new in c2, 6.0 s; none over 10 s in any cell" in text


def test_the_figure_flags_a_wall_over_target_and_each_new_case_over_the_limit() -> None:
    after = side(150.0, {**BEFORE.seconds, ("c1", "fam::slow"): 12.0, ("c2", "fam::slow"): 1.0,
                         ("c2", "fam::slower"): 10.5, ("c1", "fam::quick"): 0.1})
    text = corpus_growth.growth_figure(BEFORE, after, "56957cc", "cells jax0.4*")
    assert "wall 1.50x (OVER the target <= 1.40x); 3 new cases" in text
    assert "slowest new case: fam::slow in c1, 12.0 s; 2 over 10 s in any cell (target: none): fam::slow, " \
           "fam::slower" in text


def test_case_seconds_sums_the_attempts_of_each_cell_s_case(tmp_path: Path) -> None:
    from harness.cellrecord import CellFiles
    from harness.results import write_records

    cell = record_factory.cell_id()
    records = [record_factory.record(case_id="fam::a", duration_s=1.5, status="failed"),
               record_factory.record(case_id="fam::a", duration_s=2.0, attempt=2),
               record_factory.record(case_id="fam::b", duration_s=None, status="not_applicable")]
    path = CellFiles(tmp_path, record_factory.RUN, cell).results
    path.parent.mkdir(parents=True)
    write_records(path, records)
    found = corpus_growth.case_seconds(tmp_path, record_factory.RUN, [cell, "c-not-run"])
    assert found == {(cell, "fam::a"): 3.5, (cell, "fam::b"): 0.0}


def compat(cell: str, verdict: str, changes: list[str] | None = None,
           causes: list[str] | None = None) -> dict[str, Any]:
    return {"cell_id": cell, "verdict": verdict, "changes": changes or [], "causes": causes or []}


def finding(cell: str, case: str, before: str, after: str, detail: str = "") -> dict[str, Any]:
    return {"baseline": cell, "candidate": cell, "case_id": case, "before": before, "after": after, "detail": detail}


def words(row: Mapping[str, Any]) -> str:
    return str(row["verdict"]).replace("_", " ")


def test_a_cell_whose_verdict_changed_is_listed_with_the_cases_and_changes_behind_it() -> None:
    before = [compat("c1", "works_for_current_code", ["use_mesh removed"]), compat("c2", "works")]
    after = [compat("c1", "partial", ["use_mesh removed", "auto= removed"], ["xfailed: jax#31795"]),
             compat("c2", "works")]
    findings = {
        "missing": [finding("c1", "fam::new_bug", "(not recorded)", "xfailed", "jax#31795"),
                    finding("c1", "fam::new_twin", "(not recorded)", "passed"),
                    finding("c2", "fam::new_bug", "(not recorded)", "xfailed")],
        "regressions": [finding("c1", "fam::old", "passed", "failed", "TypeError: auto")],
        "fixed": [finding("c2", "fam::other", "failed", "passed")],
    }
    (change,) = corpus_growth.changed_cells(before, after, findings, words)
    assert change == CellChange("c1", "works for current code", "partial",
                                ["regressed fam::old [passed -> failed]: TypeError: auto",
                                 "new fam::new_bug [(not recorded) -> xfailed]: jax#31795"],
                                ["change: auto= removed"])


def test_no_cell_is_listed_when_every_verdict_held_and_a_cell_of_one_side_is() -> None:
    before = [compat("c1", "works")]
    after = [compat("c1", "works"), compat("c9", "partial")]
    findings = {"missing": [finding("c1", "fam::new", "(not recorded)", "failed")]}
    (change,) = corpus_growth.changed_cells(before, after, findings, words)
    assert (change.cell, change.before, change.after, change.findings) == ("c9", "not run", "partial", [])


def test_the_markdown_list_names_each_cell_and_codes_the_case_ids_and_errors() -> None:
    changes = [CellChange("c1", "works", "partial", ["new fam::a_b [(not recorded) -> xfailed]: ValueError: in "
                                                     "<class 'list'>, use `x[...]`",
                                                     "now not applicable fam::c_d [passed -> not_applicable]"],
                          ["change: a list assigned in __init__ raises `ValueError` in `__init__`"])]
    text = corpus_growth.changes_markdown(changes, "INCONCLUSIVE")
    assert text.splitlines() == ["1 cell changed verdict (the compare: INCONCLUSIVE):", "",
                                 "- **c1**: works → partial",
                                 r"    - change: a list assigned in \_\_init\_\_ raises `ValueError` in `__init__`",
                                 "    - new `fam::a_b` [(not recorded) -> xfailed]: `` ValueError: in <class 'list'>, "
                                 "use `x[...]` ``",
                                 "    - now not applicable `fam::c_d` [passed -> not_applicable]"]
    assert corpus_growth.changes_markdown([], "SAFE") == "No cell's verdict changed (the compare: SAFE).\n"


def test_the_printed_list_says_how_many_cells_changed() -> None:
    changes = [CellChange("c1", "works", "partial", ["new fam::a [(not recorded) -> failed]"])]
    text = corpus_growth.changes_text(changes, "INCONCLUSIVE")
    assert text.splitlines() == ["    the compare of after against before (INCONCLUSIVE): 1 cell changed verdict",
                                 "    c1: works -> partial", "      new fam::a [(not recorded) -> failed]"]
    assert "no cells changed verdict" in corpus_growth.changes_text([], "SAFE")


def ranges_document(out: Path, edges: list[dict[str, Any]], probes: int, budget: int) -> None:
    from harness import outputs

    need = {"case": "fam::x", "held": "jax>=0.5.0", "unmet": "jax<0.5.0", "reason": ""}
    # One row per edge, as the checker writes them (the reader refuses a second row of one edge).
    rows = [{**row, "case": f"{row['case']}{number}"} for number, row in enumerate(edges)]
    outputs.write_ranges(out / "report", {"probes": probes, "budget": budget, "wrong": 0, "unchecked": 0,
                                          "edges": rows, "needs_without_change": [need], "options": {},
                                          "commit": None, "cases": {}})


def edge(status: str, why: str = "") -> dict[str, Any]:
    return {"case": "fam::a", "package": "jax", "declared": ">=0.8.0", "source": "change", "status": status,
            "found": None, "why": why}


def test_the_ranges_figure_counts_edges_and_probes_within_the_budget(tmp_path: Path) -> None:
    ranges_document(tmp_path, [edge("confirmed"), edge("confirmed"), edge("wrong"), edge("unchecked", "no release")],
                    probes=12, budget=40)
    text = corpus_growth.ranges_figure(corpus_growth.ranges_spent(tmp_path), "the range check in out")
    assert text.splitlines() == [
        "11. the range checker, the range check in out: 4 declared edges: 2 confirmed, 1 wrong, 1 unchecked (0 of "
        "them left by a spent budget), 0 bounded by the case's needs",
        "    -> 12 of 40 probes (within budget); seconds per probe not recorded; 1 need gone with no change"]


def test_the_ranges_figure_counts_an_edge_bounded_by_its_case_s_needs_apart_from_the_unchecked() -> None:
    found = {"probes": 2, "budget": 4, "edges": [edge("bounded by the case's needs", "flax 0.11.2 lacks it"),
                                                 edge("confirmed")]}
    text = corpus_growth.ranges_figure(found, "x")
    assert "1 confirmed, 0 wrong, 0 unchecked (0 of them left by a spent budget), 1 bounded by the case's needs" in text


def test_the_ranges_figure_names_the_edges_a_spent_budget_left_and_a_budget_overrun() -> None:
    found = {"probes": 5, "budget": 4, "seconds": 50.0,
             "edges": [edge("unchecked", "the probe budget (4) is spent"), edge("confirmed")]}
    text = corpus_growth.ranges_figure(found, "x")
    assert "1 unchecked (1 of them left by a spent budget)" in text
    assert "5 of 4 probes (OVER budget); 10.0 s per probe; 0 needs gone" in text


def test_a_folder_without_a_range_check_is_refused_in_one_line(tmp_path: Path) -> None:
    with pytest.raises(SystemExit, match=r"ranges.json does not exist: not a `nox -s ranges -- --out OUT` folder"):
        corpus_growth.ranges_spent(tmp_path)


def test_the_corpus_at_a_ref_is_exported_with_the_ini_that_collects_its_modules(tmp_path: Path) -> None:
    head = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "HEAD"], capture_output=True, text=True)
    if head.returncode != 0:
        pytest.skip("not a git checkout")
    cases = corpus_growth.export_corpus(ROOT, head.stdout.strip(), tmp_path)
    assert sorted(p.name for p in cases.glob("*.py")) == sorted(p.name for p in (ROOT / "cases").glob("*.py"))
    assert (tmp_path / "pytest.ini").read_text() == corpus_growth.PYTEST_INI


def test_an_unknown_ref_is_refused_naming_it(tmp_path: Path) -> None:
    with pytest.raises(SystemExit, match=r"--corpus-before no-such-ref: git archive failed"):
        corpus_growth.export_corpus(ROOT, "no-such-ref", tmp_path)
