"""The frontier: bisected jax ranges per flax release, holes kept, the probe budget, its files and its command."""

from __future__ import annotations

import csv
import io
import json
import zipfile
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import pytest
from packaging.specifiers import SpecifierSet
from packaging.version import Version

from harness import vocabulary
from harness.tools import frontier

FLAX = Version("0.10.2")


def jax_versions(n: int) -> list[Version]:
    return [Version(f"0.{i // 4 + 4}.{i % 4}") for i in range(n)]


def fake(candidates: list[Version], works: set[int], install_error: bool = False) -> tuple[list[Version], Any]:
    """A probe over a synthetic works-set (indices into candidates), recording what it was asked."""
    asked: list[Version] = []

    def probe(version: Version) -> frontier.Probe:
        asked.append(version)
        i = candidates.index(version)
        if install_error:
            return frontier.Probe(version, False, "cannot be installed: no wheel for python 3.11", f"c{i}")
        return frontier.Probe(version, i in works, "" if i in works else f"TypeError: broken at {i}", f"c{i}")

    return asked, probe


def test_a_monotone_range_is_found_with_its_edges_and_their_causes() -> None:
    candidates = jax_versions(20)
    asked, probe = fake(candidates, set(range(5, 13)))
    found = frontier.measure(FLAX, SpecifierSet(">=0.4.2"), candidates, probe, contemporary=candidates[9])
    assert (found.works_from, found.works_to) == (candidates[5], candidates[12])
    assert found.below is not None and found.below.jax == candidates[4]
    assert found.below.cause == "TypeError: broken at 4"
    assert found.above is not None and found.above.jax == candidates[13]
    assert found.holes == [] and len(asked) == len(set(asked)) == len(found.probes)
    inside = [v for v in asked if candidates[5] < v < candidates[12]]
    assert len(inside) >= 2  # two interior points at least, beyond the edges
    row = frontier.row(found)
    assert list(row) == list(frontier.COLUMNS)
    assert row["works_from"] == "0.5.1" and row["works_to"] == "0.7.0" and row["first_broken_below"] == "0.5.0"
    assert row["holes"] == "" and frontier.requirement(found) == "jax>=0.5.1,<=0.7.0"


def test_a_range_with_a_hole_is_reported_not_smoothed() -> None:
    candidates = jax_versions(20)
    works = set(range(3, 17)) - {11}  # 11: the unprobed point nearest the second third of [3, 16]
    _, probe = fake(candidates, works)
    found = frontier.measure(FLAX, SpecifierSet(), candidates, probe, contemporary=candidates[4])
    assert (found.works_from, found.works_to) == (candidates[3], candidates[16])
    assert [p.jax for p in found.holes] == [candidates[11]]
    assert frontier.row(found)["holes"] == str(candidates[11])
    assert frontier.requirement(found) == f"jax>={candidates[3]},<={candidates[16]},!={candidates[11]}"


def test_the_same_hole_is_missed_without_interior_probes(monkeypatch: pytest.MonkeyPatch) -> None:
    """The interior probes are what find the hole: the bisection alone never looks there."""
    monkeypatch.setattr(frontier, "INTERIOR", 0)
    candidates = jax_versions(20)
    _, probe = fake(candidates, set(range(3, 17)) - {11})
    found = frontier.measure(FLAX, SpecifierSet(), candidates, probe, contemporary=candidates[4])
    assert found.holes == []


def test_a_release_that_cannot_be_installed_has_an_empty_range_and_says_so() -> None:
    candidates = jax_versions(12)
    asked, probe = fake(candidates, set(), install_error=True)
    found = frontier.measure(FLAX, SpecifierSet(">=0.5.0"), candidates, probe, contemporary=candidates[6])
    row = frontier.row(found)
    assert row["works_from"] == row["works_to"] == "" and len(asked) == frontier.SEEDS
    assert row["cause_below"] == row["cause_above"] == "cannot be installed: no wheel for python 3.11"
    assert frontier.requirement(found).startswith("# flax 0.10.2: no jax release works (cannot be installed")


def test_a_release_that_installs_but_never_works_is_not_called_uninstallable() -> None:
    candidates = jax_versions(12)
    _, probe = fake(candidates, set())
    found = frontier.measure(FLAX, SpecifierSet(), candidates, probe, contemporary=candidates[6])
    assert found.nowhere.startswith("works with no jax probed: TypeError")


def test_an_upper_edge_at_the_newest_release_has_no_broken_above() -> None:
    candidates = jax_versions(16)
    _, probe = fake(candidates, set(range(7, 16)))
    found = frontier.measure(FLAX, SpecifierSet(), candidates, probe, contemporary=candidates[8])
    row = frontier.row(found)
    assert row["works_to"] == str(candidates[-1]) and row["first_broken_above"] == row["cause_above"] == ""
    assert any("works with the newest jax asked for" in line for line in frontier.evidence(found))
    assert not any("oldest jax asked for" in line for line in frontier.evidence(found))


def test_a_failing_contemporary_seed_falls_back_to_the_middle_of_the_declared_range() -> None:
    candidates = jax_versions(16)
    asked, probe = fake(candidates, set(range(9, 13)))
    found = frontier.measure(FLAX, SpecifierSet(f">={candidates[4]}"), candidates, probe, contemporary=candidates[5])
    assert asked[:2] == [candidates[5], candidates[10]]  # the middle of the 12 declared-compatible releases
    assert (found.works_from, found.works_to) == (candidates[9], candidates[12])


@pytest.mark.parametrize("n", [1, 2, 3, 7, 16, 33, 60])
def test_every_works_range_costs_at_most_the_budget(n: int) -> None:
    candidates = jax_versions(n)
    for first in range(n):
        for last in range(first, n):
            for seed in {first, last, (first + last) // 2, 0, n - 1}:
                asked, probe = fake(candidates, set(range(first, last + 1)))
                found = frontier.measure(FLAX, SpecifierSet(), candidates, probe, contemporary=candidates[seed])
                assert len(asked) <= frontier.budget(n), (n, first, last, seed, asked)
                if any(first <= candidates.index(v) <= last for v in asked[:frontier.SEEDS]):
                    assert (found.works_from, found.works_to) == (candidates[first], candidates[last])
                else:  # neither seed works: said so, never a guessed range
                    assert found.works_from is None and found.nowhere


def test_the_budget_is_twice_the_bisection_plus_four() -> None:
    assert frontier.budget(11) == 2 * 4 + 4 and frontier.budget(64) == 2 * 6 + 4 and frontier.budget(1) == 4


# --- judging one probe's records -------------------------------------------------------------------------------------

SMOKE = ["a::test_linen", "b::test_nnx_jit"]


def test_judge_passes_when_no_smoke_case_is_broken_and_one_passed() -> None:
    records = {SMOKE[0]: {"status": vocabulary.PASSED}, SMOKE[1]: {"status": vocabulary.NOT_APPLICABLE}}
    assert frontier.judge(records, SMOKE) == ""


def test_judge_names_the_first_broken_case_with_its_error_on_one_line() -> None:
    records = {SMOKE[0]: {"status": vocabulary.PASSED},
               SMOKE[1]: {"status": vocabulary.FAILED, "error_type": "TypeError", "error_message": "jit()\nmore"}}
    assert frontier.judge(records, SMOKE) == "b::test_nnx_jit: failed: TypeError: jit()"


def test_judge_calls_an_install_error_uninstallable_and_a_missing_record_not_passing() -> None:
    records = {case: {"status": vocabulary.INSTALL_ERROR, "error_message": "no matching jaxlib"} for case in SMOKE}
    assert frontier.judge(records, SMOKE) == "cannot be installed: no matching jaxlib"
    assert frontier.judge({SMOKE[0]: {"status": vocabulary.PASSED}}, SMOKE) == "b::test_nnx_jit: no record"


def test_judge_does_not_count_all_not_applicable_as_working() -> None:
    records = {case: {"status": vocabulary.NOT_APPLICABLE} for case in SMOKE}
    assert frontier.judge(records, SMOKE).startswith("no smoke case applies")


def test_judge_does_not_count_a_status_it_does_not_know_as_working() -> None:
    records = {SMOKE[0]: {"status": vocabulary.PASSED}, SMOKE[1]: {"status": "weird"}}
    assert frontier.judge(records, SMOKE).startswith("b::test_nnx_jit: weird")


# --- the index -------------------------------------------------------------------------------------------------------

def document(dates: dict[str, str], wheel: bool = True) -> dict[str, Any]:
    return {"releases": {v: [{"filename": f"flax-{v}-py3-none-any.whl" if wheel else f"flax-{v}.tar.gz",
                              "url": f"../../packages/flax-{v}.whl", "yanked": False,
                              "upload_time_iso_8601": f"{d}T00:00:00.000000Z"}] for v, d in dates.items()}}


def wheel_with(requires: list[str]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as wheel:
        wheel.writestr("flax-0.10.2.dist-info/METADATA",
                       "Metadata-Version: 2.1\nName: flax\n" + "".join(f"Requires-Dist: {r}\n" for r in requires))
    return buffer.getvalue()


def no_release_json(url: str, accept: str) -> Any:
    raise OSError("404")


def test_the_declared_bound_is_read_from_the_wheel_metadata_when_the_release_json_is_missing() -> None:
    fetched: list[str] = []

    def download(url: str) -> bytes:
        fetched.append(url)
        return wheel_with(["jax >=0.4.27", "numpy >=1.23 ; python_version >= '3.11'", "jax[tpu] ; extra == 'tpu'"])

    declared = frontier.declared_jax(FLAX, document({"0.10.2": "2024-11-20"}), no_release_json, download)
    assert declared == SpecifierSet(">=0.4.27")
    assert fetched == ["https://pypi.org/packages/flax-0.10.2.whl"]  # a mirror's relative address, resolved


def test_the_declared_bound_comes_from_the_release_json_when_there_is_one() -> None:
    def fetch(url: str, accept: str) -> Any:
        assert url == "https://pypi.org/pypi/flax/0.10.2/json"
        return {"info": {"requires_dist": ["jax>=0.4.27", "msgpack"]}}

    assert frontier.declared_jax(FLAX, {}, fetch) == SpecifierSet(">=0.4.27")


def test_a_release_without_a_wheel_is_named() -> None:
    with pytest.raises(frontier.FrontierError, match=r"flax 0\.10\.2: no wheel"):
        frontier.declared_jax(FLAX, document({"0.10.2": "2024-11-20"}, wheel=False), no_release_json)


def test_the_contemporary_jax_is_the_newest_released_before_the_flax_release_else_the_oldest() -> None:
    def day(text: str) -> datetime:
        return datetime.fromisoformat(text).replace(tzinfo=timezone.utc)

    jax_dates = {Version("0.4.35"): day("2024-10-22"), Version("0.4.36"): day("2024-12-05"),
                 Version("0.7.0"): day("2025-07-22")}
    candidates = sorted(jax_dates)
    assert frontier.contemporary(day("2024-11-20"), jax_dates, candidates) == Version("0.4.35")
    assert frontier.contemporary(day("2024-11-20"), jax_dates, candidates[2:]) == Version("0.7.0")


def test_releases_keep_only_jax_with_a_jaxlib_of_the_same_version_and_refuse_an_empty_selection() -> None:
    docs = {"flax": document({"0.10.2": "2024-11-20", "0.10.3": "2025-01-01"}),
            "jax": document({"0.4.36": "2024-12-05", "0.4.37": "2024-12-10"}),
            "jaxlib": document({"0.4.36": "2024-12-05"})}

    def fetch(url: str, accept: str) -> Any:
        return docs[url.split("/")[-2]]

    found = frontier.releases(SpecifierSet("<0.10.3"), SpecifierSet(), fetch)
    assert found.flax == [Version("0.10.2")] and found.jax == [Version("0.4.36")]
    with pytest.raises(frontier.FrontierError, match="--flax >1 selects no flax release"):
        frontier.releases(SpecifierSet(">1"), SpecifierSet(), fetch)


def test_a_bad_specifier_is_refused_naming_its_flag() -> None:
    with pytest.raises(frontier.FrontierError, match="--jax 'latest' is not a version specifier"):
        frontier.parse_spec("latest", "--jax")


# --- files: per release, merged, and the refusal of an incomplete frontier --------------------------------------------

def stored(out: Path, flax: str, works: set[int]) -> None:
    candidates = jax_versions(8)
    _, probe = fake(candidates, works)
    found = frontier.measure(Version(flax), SpecifierSet(), candidates, probe, contemporary=candidates[3])
    path = frontier.result_path(out, flax)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(frontier.to_json(found, SpecifierSet(">=0.5.0"))), encoding="utf-8")


def test_merge_writes_the_csv_with_exactly_the_columns_newest_flax_first(tmp_path: Path) -> None:
    stored(tmp_path, "0.10.2", set(range(2, 6)))
    stored(tmp_path, "0.11.0", set(range(3, 8)))
    path = frontier.merge(tmp_path, ["0.10.2", "0.11.0"])
    with path.open(encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    assert tuple(rows[0]) == frontier.COLUMNS and [r["flax"] for r in rows] == ["0.11.0", "0.10.2"]
    assert rows[1]["works_from"] == "0.4.2" and rows[1]["works_to"] == "0.5.1"
    markdown = (tmp_path / "report" / "frontier.md").read_text(encoding="utf-8")
    assert "flax 0.10.2: jax>=0.4.2,<=0.5.1" in markdown
    merged = json.loads((tmp_path / "report" / "frontier.json").read_text(encoding="utf-8"))
    assert merged["jax"][0] == "0.4.0" and len(merged["releases"]) == 2


def test_merge_refuses_an_incomplete_frontier_and_publishes_nothing(tmp_path: Path) -> None:
    stored(tmp_path, "0.10.2", set(range(2, 6)))
    with pytest.raises(frontier.FrontierError, match=r"incomplete frontier: no result for flax 0\.11\.0"):
        frontier.merge(tmp_path, ["0.10.2", "0.11.0"])
    assert not (tmp_path / "report" / "frontier.csv").exists()
    assert frontier.main(["merge", "--plan", str(write_plan(tmp_path, ["0.11.0"])), "--out", str(tmp_path)]) == 1


def write_plan(folder: Path, flax: list[str]) -> Path:
    path = folder / "plan.json"
    path.write_text(json.dumps([{"flax": v} for v in flax]), encoding="utf-8")
    return path


def test_plan_lists_the_selected_flax_releases_as_matrix_entries() -> None:
    def fetch(url: str, accept: str) -> Any:
        return document({"0.8.0": "2024-01-01", "0.10.2": "2024-11-20", "0.12.0": "2025-09-01"})

    assert frontier.plan(">=0.10", fetch) == [{"flax": "0.10.2"}, {"flax": "0.12.0"}]


def test_an_unknown_option_is_refused_before_anything_is_read() -> None:
    with pytest.raises(frontier.options.OptionsError, match="unknown option --flaxx"):
        frontier.run(["--flaxx", "==0.10.2"], fetch=no_release_json)
