"""The frontier's search for one flax release: bisected jax ranges, holes kept, the probe budget, the judging of
one probe's records."""

from __future__ import annotations

import pytest
from frontier_fakes import FLAX, fake, jax_versions
from packaging.specifiers import SpecifierSet

from harness import vocabulary
from harness.tools import frontier_report, frontier_search


def test_a_monotone_range_is_found_with_its_edges_and_their_causes() -> None:
    candidates = jax_versions(20)
    asked, probe = fake(candidates, set(range(5, 13)))
    found = frontier_search.measure(FLAX, SpecifierSet(">=0.4.2"), candidates, probe, contemporary=candidates[9])
    assert (found.works_from, found.works_to) == (candidates[5], candidates[12])
    assert found.below is not None and found.below.jax == candidates[4]
    assert found.below.cause == "TypeError: broken at 4"
    assert found.above is not None and found.above.jax == candidates[13]
    assert found.holes == [] and len(asked) == len(set(asked)) == len(found.probes)
    inside = [v for v in asked if candidates[5] < v < candidates[12]]
    assert len(inside) >= 2  # two interior points at least, beyond the edges
    row = frontier_report.row(found)
    assert list(row) == list(frontier_report.COLUMNS)
    assert row["works_from"] == "0.5.1" and row["works_to"] == "0.7.0" and row["first_broken_below"] == "0.5.0"
    assert row["holes"] == "" and frontier_report.requirement(found) == "jax>=0.5.1,<=0.7.0"


def test_a_range_with_a_hole_is_reported_not_smoothed() -> None:
    candidates = jax_versions(20)
    works = set(range(3, 17)) - {11}  # 11: the unprobed point nearest the second third of [3, 16]
    _, probe = fake(candidates, works)
    found = frontier_search.measure(FLAX, SpecifierSet(), candidates, probe, contemporary=candidates[4])
    assert (found.works_from, found.works_to) == (candidates[3], candidates[16])
    assert [p.jax for p in found.holes] == [candidates[11]]
    assert frontier_report.row(found)["holes"] == str(candidates[11])
    assert frontier_report.requirement(found) == f"jax>={candidates[3]},<={candidates[16]},!={candidates[11]}"


def test_the_same_hole_is_missed_without_interior_probes(monkeypatch: pytest.MonkeyPatch) -> None:
    """The interior probes are what find the hole: the bisection alone never looks there."""
    monkeypatch.setattr(frontier_search, "INTERIOR", 0)
    candidates = jax_versions(20)
    _, probe = fake(candidates, set(range(3, 17)) - {11})
    found = frontier_search.measure(FLAX, SpecifierSet(), candidates, probe, contemporary=candidates[4])
    assert found.holes == []


def test_a_release_that_cannot_be_installed_has_an_empty_range_and_says_so() -> None:
    candidates = jax_versions(12)
    asked, probe = fake(candidates, set(), install_error=True)
    found = frontier_search.measure(FLAX, SpecifierSet(">=0.5.0"), candidates, probe, contemporary=candidates[6])
    row = frontier_report.row(found)
    assert row["works_from"] == row["works_to"] == "" and len(asked) == frontier_search.SEEDS
    assert row["cause_below"] == row["cause_above"] == "cannot be installed: no wheel for python 3.11"
    assert frontier_report.requirement(found).startswith("# flax 0.10.2: no jax release works (cannot be installed")


def test_a_release_that_installs_but_never_works_is_not_called_uninstallable() -> None:
    candidates = jax_versions(12)
    _, probe = fake(candidates, set())
    found = frontier_search.measure(FLAX, SpecifierSet(), candidates, probe, contemporary=candidates[6])
    assert found.nowhere.startswith("works with no jax probed (0.4.0, ")
    assert found.nowhere.endswith("): TypeError: broken at 6")  # the first probe's cause, the contemporary's


def test_an_upper_edge_at_the_newest_release_has_no_broken_above() -> None:
    candidates = jax_versions(16)
    _, probe = fake(candidates, set(range(7, 16)))
    found = frontier_search.measure(FLAX, SpecifierSet(), candidates, probe, contemporary=candidates[8])
    row = frontier_report.row(found)
    assert row["works_to"] == str(candidates[-1]) and row["first_broken_above"] == row["cause_above"] == ""
    assert any("works with the newest jax asked for" in line for line in frontier_report.evidence(found))
    assert not any("oldest jax asked for" in line for line in frontier_report.evidence(found))


def test_a_failing_contemporary_seed_falls_back_to_the_middle_of_the_declared_range() -> None:
    candidates = jax_versions(16)
    asked, probe = fake(candidates, set(range(9, 13)))
    found = frontier_search.measure(FLAX, SpecifierSet(f">={candidates[4]}"), candidates, probe,
                                    contemporary=candidates[5])
    assert asked[:2] == [candidates[5], candidates[10]]  # the middle of the 12 declared-compatible releases
    assert (found.works_from, found.works_to) == (candidates[9], candidates[12])


@pytest.mark.parametrize("n", [1, 2, 3, 7, 16, 33, 60])
def test_every_works_range_costs_at_most_the_budget(n: int) -> None:
    candidates = jax_versions(n)
    for first in range(n):
        for last in range(first, n):
            for seed in {first, last, (first + last) // 2, 0, n - 1}:
                asked, probe = fake(candidates, set(range(first, last + 1)))
                found = frontier_search.measure(FLAX, SpecifierSet(), candidates, probe,
                                                contemporary=candidates[seed])
                assert len(asked) <= frontier_search.budget(n), (n, first, last, seed, asked)
                if any(first <= candidates.index(v) <= last for v in asked):
                    assert (found.works_from, found.works_to) == (candidates[first], candidates[last])
                else:  # no point probed works: said so, never a guessed range
                    assert found.works_from is None and found.nowhere


def test_the_budget_is_twice_the_bisection_plus_four() -> None:
    assert frontier_search.budget(11) == 2 * 4 + 4 and frontier_search.budget(64) == 2 * 6 + 4
    assert frontier_search.budget(1) == 4


# --- judging one probe's records -------------------------------------------------------------------------------------

SMOKE = ["a::test_linen", "b::test_nnx_jit"]


def test_judge_passes_when_no_smoke_case_is_broken_and_one_passed() -> None:
    records = {SMOKE[0]: {"status": vocabulary.PASSED}, SMOKE[1]: {"status": vocabulary.NOT_APPLICABLE}}
    assert frontier_search.judge(records, SMOKE) == ""


def test_judge_names_the_first_broken_case_with_its_error_on_one_line() -> None:
    records = {SMOKE[0]: {"status": vocabulary.PASSED},
               SMOKE[1]: {"status": vocabulary.FAILED, "error_type": "TypeError", "error_message": "jit()\nmore"}}
    assert frontier_search.judge(records, SMOKE) == "b::test_nnx_jit: failed: TypeError: jit()"


def test_judge_calls_an_install_error_uninstallable_and_a_missing_record_not_passing() -> None:
    records = {case: {"status": vocabulary.INSTALL_ERROR, "error_message": "no matching jaxlib"} for case in SMOKE}
    assert frontier_search.judge(records, SMOKE) == "cannot be installed: no matching jaxlib"
    assert frontier_search.judge({SMOKE[0]: {"status": vocabulary.PASSED}}, SMOKE) == "b::test_nnx_jit: no record"


def test_judge_does_not_count_all_not_applicable_as_working() -> None:
    records = {case: {"status": vocabulary.NOT_APPLICABLE} for case in SMOKE}
    assert frontier_search.judge(records, SMOKE).startswith("no smoke case applies")


def test_judge_does_not_count_a_status_it_does_not_know_as_working() -> None:
    records = {SMOKE[0]: {"status": vocabulary.PASSED}, SMOKE[1]: {"status": "weird"}}
    assert frontier_search.judge(records, SMOKE).startswith("b::test_nnx_jit: weird")




def test_a_narrow_range_away_from_both_seeds_is_found_by_looking_in_the_widest_gaps() -> None:
    candidates = jax_versions(32)
    asked, probe = fake(candidates, {27, 28})  # neither the contemporary (3) nor the middle (16) works
    found = frontier_search.measure(FLAX, SpecifierSet(), candidates, probe, contemporary=candidates[3])
    assert (found.works_from, found.works_to) == (candidates[27], candidates[28])
    assert asked[:2] == [candidates[3], candidates[16]] and len(asked) <= frontier_search.budget(32)


def test_the_seed_search_stops_where_the_budget_could_no_longer_pay_for_both_bisections() -> None:
    assert frontier_search.next_seed(32, {3, 16}, spent=2, limit=14) == 24  # the widest gap (16, 32)
    assert frontier_search.next_seed(32, {3, 16}, spent=6, limit=14) is None  # 1 + 3 + 3 + 2 more: over
    assert frontier_search.next_seed(3, {0, 1, 2}, spent=3, limit=6) is None  # nothing left to probe


def test_a_cause_shows_paths_package_relative_as_every_report_file_does() -> None:
    records = {SMOKE[0]: {"status": vocabulary.ERROR, "error_type": "ImportError", "error_message":
                          "cannot import name 'maps' from 'jax.experimental' (/work/x/.nox/adhoc-jax0.4.35-flax0.8.1"
                          "-py3.11/lib/python3.11/site-packages/jax/experimental/__init__.py)"}}
    assert frontier_search.judge(records, SMOKE[:1]) == (
        "a::test_linen: error: ImportError: cannot import name 'maps' from 'jax.experimental' "
        "(jax/experimental/__init__.py)")


def test_a_jax_outside_the_declaration_is_never_probed_and_the_declaration_is_the_edge() -> None:
    candidates = jax_versions(16)
    asked, probe = fake(candidates, set(range(6, 13)))
    found = frontier_search.measure(FLAX, SpecifierSet(f">={candidates[6]}"), candidates, probe,
                                    contemporary=candidates[9])
    assert min(asked) == candidates[6] and (found.works_from, found.works_to) == (candidates[6], candidates[12])
    assert found.below is not None and found.below.jax == candidates[5] and found.below.cell_id == ""
    assert found.below.cause.startswith(f"{frontier_search.EXCLUDED_CAUSE} jax>={candidates[6]}")
    assert found.above is not None and found.above.jax == candidates[13]  # probed: broken there
    assert found.above.cause == "TypeError: broken at 13"
