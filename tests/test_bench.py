"""benchmarks/bench.py's figure 6 read back from a frontier's stored results (the default frontier is too long to
run inside the bench)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from benchmarks import bench
from harness import outputs


def stored(out: Path, flax: str, probes: list[tuple[str, bool, bool]], seconds: float | None) -> None:
    """One flax release's OUT/frontier/flax-<v>.json with probes (jax, whole corpus?, reused?), 10 s each."""
    document = {"schema_version": 2, "flax": flax, "requirement": "", "evidence": [], "candidates": [],
                "row": dict.fromkeys(outputs.FRONTIER_COLUMNS, ""), "budget": {"core": 22, "corpus": 16},
                "probes": [{"jax": jax, "works": True, "cell": "c", "cause": "", "corpus": corpus, "reused": reused,
                            "seconds": 10.0} for jax, corpus, reused in probes]}
    if seconds is not None:
        document["seconds"] = seconds
    (out / "frontier").mkdir(parents=True, exist_ok=True)
    (out / "frontier" / f"flax-{flax}.json").write_text(json.dumps(document))


def test_frontier_spent_counts_each_kind_against_its_budget_in_version_order(tmp_path: Path) -> None:
    stored(tmp_path, "0.10.10", [("0.5.0", False, False), ("0.5.0", True, False), ("0.5.1", False, True)], 90.0)
    stored(tmp_path, "0.10.9", [("0.5.0", False, False)], None)  # stored before releases kept their wall

    found = bench.frontier_spent(tmp_path)

    assert list(found["releases"]) == ["0.10.9", "0.10.10"]
    assert found["releases"]["0.10.10"] == {"core": (2, 22), "corpus": (1, 16)}
    assert found["minutes"] == {"0.10.10": 1.5}
    assert (found["probes"], found["per_probe_s"]) == (3, 10.0)  # the reused probe cost nothing
    figure = bench.frontier_figure(found, "the frontier in out")
    assert "flax 0.10.10: 2 of 22 core, 1 of 16 whole-corpus, 1.5 min" in figure
    assert "flax 0.10.9: 1 of 22 core, 0 of 16 whole-corpus\n" in figure
    assert "-> within budget; 2 releases" in figure


def test_frontier_over_budget_or_stopped_reads_over(tmp_path: Path) -> None:
    stored(tmp_path, "0.12.0", [(f"0.8.{i}", True, False) for i in range(17)], 60.0)

    assert "-> OVER budget" in bench.frontier_figure(bench.frontier_spent(tmp_path), "x")


def test_frontier_spent_names_a_folder_that_is_no_frontier(tmp_path: Path) -> None:
    with pytest.raises(SystemExit, match="holds no frontier result"):
        bench.frontier_spent(tmp_path)


def test_phases_add_up_without_counting_a_nested_call_twice() -> None:
    phases = bench.Phases()
    build = phases.wrap("venvs", lambda: None)
    bisect = phases.wrap("bisect", lambda: build())
    build()
    bisect()
    assert set(phases.spent) == {"venvs", "bisect"}  # the build inside the bisect is the bisect's
    assert all(seconds >= 0 for seconds in phases.spent.values())


def test_the_watch_figure_names_the_verdict_and_each_share() -> None:
    line = bench.watch_figure({"total_s": 100.0, "verdict": "UNSAFE", "release": "0.9.0", "venvs": 20.0,
                               "tests": 30.0, "bisect": 40.0})
    assert line == ("8. watch, one new release (jax 0.9.0 on tests/downstream, warm cache): 100 s to UNSAFE: venv "
                    "builds 20 s (20 %), tests 30 s (30 %), bisect 40 s (40 %), the rest 10 s")


def test_the_watch_figure_gives_each_cell_that_ran_its_own_budget() -> None:
    parts = {"bodies": 6.0, "venv": 3.0, "collection": 1.0, "retries": 0.0}
    lines = bench.watch_figure({"total_s": 100.0, "verdict": "UNSAFE", "release": "0.9.0", "tests": 10.0,
                                "cells": {"r1:jax0.9.0-flax0.12.6-py3.11": parts}}).splitlines()
    assert lines[0].startswith("8. watch, one new release")
    assert lines[1] == "   cell r1:jax0.9.0-flax0.12.6-py3.11: 10.0 s"
    assert [line.split(":")[0].strip() for line in lines[2:]] == [
        "case bodies, first attempts, in process", "venv sync and results-cache check",
        "collection (importing the case modules, jax and flax with them)"]


def test_the_index_of_one_release_day_keeps_the_lock_and_that_release(monkeypatch: pytest.MonkeyPatch) -> None:
    from harness.tools import index

    document = {"info": {}, "releases": {v: [{}] for v in ("0.8.2", "0.8.3", "0.8.4", "0.9.0", "0.9.1", "x")}}
    monkeypatch.setattr(index, "fetch_json", lambda url, accept="application/json": document)
    kept = bench.one_release_index("0.9.0", "0.8.3")("https://pypi.org/pypi/jax/json")
    assert list(kept["releases"]) == ["0.8.2", "0.8.3", "0.9.0"]


GATHER, MERGE, MESH = "sharded_gathers::test_take", "nnx_sharded_merge::test_merge", "shard_map_modes::test_2x4"
CELL_A, CELL_B = "jax0.10.2-flax0.12.8-py3.11", "jax0.11.2-flax0.12.10-py3.12"


def at(*entries: tuple[str, str, str, str]) -> bench.Outcomes:
    """Outcomes from (cell, case, status, exception type)."""
    return {(cell, case): (status, error) for cell, case, status, error in entries}


def test_the_device_figure_lists_a_difference_where_the_case_applies_at_both_counts() -> None:
    eight = at((CELL_A, GATHER, "failed", "ShardingTypeError"), (CELL_A, MERGE, "passed", ""),
               (CELL_A, MESH, "passed", ""), (CELL_B, GATHER, "passed", ""))
    two = at((CELL_A, GATHER, "failed", "ValueError"), (CELL_A, MERGE, "passed", ""),
             (CELL_A, MESH, "not_applicable", ""), (CELL_B, GATHER, "passed", ""))
    figure = bench.device_figure({8: (100.0, eight), 2: (60.0, two)}, "cells jax0.10.2*")
    lines = figure.splitlines()
    assert lines[1] == ("   2 devices: 3 of 4 apply, 3 of the 4 that apply at 8 (75 %); 60 s vs 100 s; 1 difference")
    assert lines[2] == f"     {CELL_A} {GATHER}: failed ShardingTypeError at 8, failed ValueError at 2"
    assert lines[3] == "   8 devices: 4 of 4 apply, 100 s" and len(lines) == 4


def test_the_device_figure_finds_no_difference_in_a_case_that_applies_at_one_count_only() -> None:
    # Not applicable at 1 is a shortage, never a difference: only cases that apply at both counts are compared.
    eight = at((CELL_A, MESH, "passed", ""), (CELL_A, MERGE, "failed", "TypeError"))
    one = at((CELL_A, MESH, "not_applicable", ""), (CELL_A, MERGE, "failed", "TypeError"))
    figure = bench.device_figure({1: (5.0, one), 8: (9.0, eight)}, "x")
    assert "   1 devices: 1 of 2 apply, 1 of the 2 that apply at 8 (50 %); 5 s vs 9 s; no differences" in figure
    assert f"{CELL_A} {MESH}" not in figure


def write_cell(out: Path, run_id: str, cell_id: str, records: list[dict[str, object]]) -> None:
    from harness.cellrecord import CellFiles

    path = CellFiles(out, run_id, cell_id).results
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(found) + "\n" for found in records))


def test_outcomes_are_each_case_s_final_attempt_and_a_cell_without_results_has_none(tmp_path: Path) -> None:
    from record_factory import record

    write_cell(tmp_path, "r", CELL_A, [record(case_id=GATHER, status="failed", error_type="ValueError"),
                                       record(case_id=GATHER, attempt=2, status="passed"),
                                       record(case_id=MESH, status="failed", error_type="TypeError")])
    assert bench.outcomes(tmp_path, "r", [CELL_A, CELL_B]) == {(CELL_A, GATHER): ("passed", ""),
                                                               (CELL_A, MESH): ("failed", "TypeError")}


def test_device_runs_runs_the_chosen_cells_fresh_at_each_count_after_an_untimed_warm_up(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from record_factory import record

    commands: list[list[str]] = []

    def fake_nox(*command: object, **kwargs: object) -> None:
        words = [str(word) for word in command]
        commands.append(words)
        devices = int(words[words.index("--devices") + 1]) if "--devices" in words else 8
        status = "passed" if devices >= 2 else "not_applicable"
        write_cell(Path(words[words.index("--out") + 1]), words[words.index("--run-id") + 1], CELL_A,
                   [record(case_id=MESH, status=status, device_count=devices)])

    monkeypatch.setattr(bench, "run", fake_nox)
    found = bench.device_runs(tmp_path, ["jax0.10.2-flax0.12.8*"], counts=(1, 8))
    assert [("--force" in words, words[-1] if "--devices" in words else None) for words in commands] == [
        (False, None), (True, "1"), (True, "8")]
    assert all("--cells=jax0.10.2-flax0.12.8*" in words for words in commands)
    assert found[1][1] == {(CELL_A, MESH): ("not_applicable", "")} and found[8][1] == {(CELL_A, MESH): ("passed", "")}


def test_figure_11_is_printed_from_a_stored_range_check(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    outputs.write_ranges(tmp_path / "report", {"probes": 3, "budget": 60, "wrong": 0, "unchecked": 0,
                                               "edges": [{"case": "fam::a", "package": "jax", "declared": ">=0.8.0",
                                                          "source": "change", "status": "confirmed", "found": None,
                                                          "why": ""}], "needs_without_change": [],
                                               "options": {}, "commit": None, "cases": {}})
    assert bench.main(["--only", "11", "--ranges-from", str(tmp_path)]) == 0
    printed = capsys.readouterr().out.splitlines()
    assert printed[1] == (f"11. the range checker, the range check in {tmp_path}: 1 declared edge: 1 confirmed, "
                          "0 wrong, 0 unchecked (0 of them left by a spent budget), 0 bounded by the case's needs")
    assert printed[2].startswith("    -> 3 of 60 probes (within budget)")


def test_figure_11_alone_without_a_stored_range_check_is_refused(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        bench.main(["--only", "11"])
    assert "--only 11 needs --ranges-from OUT" in capsys.readouterr().err


def test_the_first_watch_figure_counts_cells_against_the_target(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    from test_watch import NEWER, FakeIndex, fake_cells

    ran: list[str] = []
    fake_cells(monkeypatch, ran)
    found = bench.first_watch(tmp_path, fetch=FakeIndex(*NEWER))
    assert found["releases"] == list(NEWER) and found["verdict"] == "UNSAFE"
    assert (found["baseline_runs"], found["candidate_runs"], found["bisects"]) == (1, 3, 0)
    assert found["tree_unchanged"]
    figure = bench.first_watch_figure(found)
    assert figure.startswith("12. first watch over 3 releases (jax 0.8.4 .. 0.9.1 on tests/downstream): UNSAFE in ")
    assert "baseline run 1x (target 1), candidate cells 3 for 3 releases (target <= 3), 0 bisect(s), project tree " \
           "unchanged -> within target" in figure


def test_a_first_watch_that_reran_its_baseline_or_touched_the_tree_reads_over_target() -> None:
    found = {"releases": ["0.8.4", "0.9.0"], "baseline_runs": 2, "candidate_runs": 2, "bisects": 0, "seconds": 9.0,
             "verdict": "SAFE", "tree_unchanged": True}
    assert bench.first_watch_figure(found).endswith("-> OVER target")
    assert bench.first_watch_figure({**found, "baseline_runs": 1, "tree_unchanged": False}).endswith(
        "project tree CHANGED -> OVER target")
    assert bench.first_watch_figure({**found, "baseline_runs": 1}).endswith("-> within target")
