"""What the frontier writes: one result per flax release, the merged csv/md/json, and the refusal of an incomplete
frontier."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest
from frontier_fakes import fake, jax_versions
from packaging.specifiers import SpecifierSet
from packaging.version import Version

from shardmatrix import frontier_corpus, frontier_report


def store(out: Path, flax: str, works: set[int]) -> None:
    candidates = jax_versions(8)
    _, probe = fake(candidates, works)
    found = frontier_corpus.measure(Version(flax), SpecifierSet(), candidates, probe, contemporary=candidates[3])
    frontier_report.store(out, frontier_report.to_json(found, SpecifierSet(">=0.5.0")))


def test_merge_writes_the_csv_with_exactly_the_columns_newest_flax_first(tmp_path: Path) -> None:
    store(tmp_path, "0.10.2", set(range(2, 6)))
    store(tmp_path, "0.11.0", set(range(3, 8)))
    path = frontier_report.merge(tmp_path, ["0.10.2", "0.11.0"])
    with path.open(encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    assert tuple(rows[0]) == ("schema_version", *frontier_report.COLUMNS)
    assert [r["flax"] for r in rows] == ["0.11.0", "0.10.2"]
    assert rows[1]["works_from"] == "0.4.2" and rows[1]["works_to"] == "0.5.1"
    markdown = (tmp_path / "report" / "frontier.md").read_text(encoding="utf-8")
    assert "flax 0.10.2: jax>=0.4.2,<=0.5.1" in markdown
    merged = json.loads((tmp_path / "report" / "frontier.json").read_text(encoding="utf-8"))
    assert merged["jax"][0] == "0.4.0" and len(merged["releases"]) == 2


def test_merge_refuses_an_incomplete_frontier_and_publishes_nothing(tmp_path: Path) -> None:
    store(tmp_path, "0.10.2", set(range(2, 6)))
    with pytest.raises(frontier_report.IncompleteFrontier, match=r"incomplete frontier: no result for flax 0\.11\.0"):
        frontier_report.merge(tmp_path, ["0.10.2", "0.11.0"])
    assert not (tmp_path / "report" / "frontier.csv").exists()


def test_a_stored_result_of_another_schema_or_release_is_not_read(tmp_path: Path) -> None:
    store(tmp_path, "0.10.2", set(range(2, 6)))
    assert frontier_report.stored(tmp_path, "0.10.2") is not None
    path = frontier_report.result_path(tmp_path, "0.10.2")
    path.write_text(json.dumps({"schema_version": 99, "flax": "0.10.2"}), encoding="utf-8")
    assert frontier_report.stored(tmp_path, "0.10.2") is None
    path.write_text("{not json", encoding="utf-8")
    assert frontier_report.stored(tmp_path, "0.10.2") is None
    with pytest.raises(frontier_report.IncompleteFrontier, match=r"flax 0\.10\.2"):
        frontier_report.merge(tmp_path, ["0.10.2"])


def test_no_venv_path_of_a_stored_result_reaches_a_report_file(tmp_path: Path) -> None:
    store(tmp_path, "0.10.2", set(range(2, 6)))
    document = frontier_report.stored(tmp_path, "0.10.2")
    assert document is not None
    venv = "/home/ci/.nox/adhoc-jax0.4.2-flax0.10.2-py3.11/lib/python3.11/site-packages/jax/_src/core.py"
    document["row"]["cause_below"] = document["evidence"][1] = f"ImportError: no name ({venv})"
    document["probes"][0]["cause"] = f"ImportError: no name ({venv})"
    frontier_report.write_report(tmp_path, [document])
    for name in ("frontier.csv", "frontier.md", "frontier.json"):
        text = (tmp_path / "report" / name).read_text(encoding="utf-8")
        assert ".nox" not in text and "site-packages" not in text and "(jax/_src/core.py)" in text, name


def test_merge_names_a_stored_result_it_cannot_read_and_publishes_nothing(tmp_path: Path) -> None:
    store(tmp_path, "0.10.2", set(range(2, 6)))
    path = frontier_report.result_path(tmp_path, "0.11.0")
    path.write_text('{"schema_version": 2, "flax": "0.11.0", "row": {}}', encoding="utf-8")
    unusable = r"no result for flax 0\.11\.0 \(.*flax-0\.11\.0\.json: not a flax release's frontier document"
    with pytest.raises(frontier_report.IncompleteFrontier, match=unusable):
        frontier_report.merge(tmp_path, ["0.10.2", "0.11.0"])
    assert not (tmp_path / "report").exists()
