"""benchmarks/ecosystem_cost.py (figure 13): each project warmed untimed, then timed alone and at J jobs; the figure
names each project's verdict and the total against its target. The projects' runs are faked; the real one is
`nox -s bench -- --only 13`."""

from __future__ import annotations

import time
from pathlib import Path

from benchmarks import ecosystem_cost


def test_each_project_is_warmed_then_timed_one_after_another_and_at_each_job_count(tmp_path: Path) -> None:
    calls: list[tuple[str, str, bool]] = []

    def runner(name: str, out: Path, force: bool) -> tuple[float, str]:
        calls.append((name, out.parent.name, force))
        time.sleep(0.05)
        return {"haliax": 70.0, "t5x": 0.5}[name], {"haliax": "SAFE", "t5x": "SKIPPED"}[name]

    found = ecosystem_cost.measure(["haliax", "t5x"], runner, tmp_path, [1, 2])
    assert calls[:4] == [("haliax", "warm", False), ("t5x", "warm", False), ("haliax", "jobs-1", True),
                         ("t5x", "jobs-1", True)]
    assert sorted(calls[4:]) == [("haliax", "jobs-2", True), ("t5x", "jobs-2", True)]
    assert found["total_s"] == 70.5 and set(found["walls"]) == {1, 2}
    assert found["walls"][2] < found["walls"][1], "two 0.05 s runs side by side take less than one after another"
    text = ecosystem_cost.figure(found, "jax==0.9.0 on 2 project(s)")
    assert "    haliax: 70 s, SAFE\n    t5x: 0 s, SKIPPED (not run here)\n" in text
    assert "the list, one job after another: 1.2 min (target <= 40 min)" in text
    assert "by parallel jobs: 1 -> 0 s (1.00x), 2 -> 0 s (" in text


def test_a_project_that_wrote_no_report_reads_so(tmp_path: Path) -> None:
    runner = ecosystem_cost.run_project(tmp_path, ["jax==0.9.0"], ["--list", str(tmp_path / "missing.toml")])
    seconds, verdict = runner("haliax", tmp_path / "out", False)
    assert verdict == "no report" and seconds > 0
