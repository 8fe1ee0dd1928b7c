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
