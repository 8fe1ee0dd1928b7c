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


def test_the_index_of_one_release_day_keeps_the_lock_and_that_release(monkeypatch: pytest.MonkeyPatch) -> None:
    from harness.tools import index

    document = {"info": {}, "releases": {v: [{}] for v in ("0.8.2", "0.8.3", "0.8.4", "0.9.0", "0.9.1", "x")}}
    monkeypatch.setattr(index, "fetch_json", lambda url, accept="application/json": document)
    kept = bench.one_release_index("0.9.0", "0.8.3")("https://pypi.org/pypi/jax/json")
    assert list(kept["releases"]) == ["0.8.2", "0.8.3", "0.9.0"]
