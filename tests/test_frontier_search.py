"""The frontier's search for one flax release: bisected core ranges, holes told from edges and their stated chance
checked by simulation, the probe budget enforced by the search itself."""

from __future__ import annotations

import random

import pytest
from frontier_fakes import FLAX, core_asked, fake, jax_versions
from packaging.specifiers import SpecifierSet

from shardmatrix import frontier_corpus, frontier_report, frontier_search


def measure(n: int, works: set[int], seed: int, **kwargs: object) -> tuple[list[object], frontier_search.Frontier]:
    candidates = jax_versions(n)
    asked, probe = fake(candidates, works, **kwargs)  # type: ignore[arg-type]
    found = frontier_corpus.measure(FLAX, SpecifierSet(), candidates, probe, contemporary=candidates[seed])
    return asked, found


def test_a_monotone_range_is_found_with_its_edges_and_their_causes() -> None:
    candidates = jax_versions(20)
    asked, found = measure(20, set(range(5, 13)), 9)
    assert (found.core_from, found.core_to) == (found.works_from, found.works_to) == (candidates[5], candidates[12])
    assert found.below is not None and found.below.jax == candidates[4]
    assert found.below.cause == "TypeError: broken at 4"
    assert found.above is not None and found.above.jax == candidates[13]
    assert found.holes == [] and len(asked) == len(set(asked)) == len(found.probes) and not found.stopped
    inside = [v for v in core_asked(asked) if candidates[5] < v < candidates[12]]
    assert len(inside) >= frontier_search.INTERIOR + 1  # the seed and the interior probes at least
    assert candidates[3] in asked and candidates[14] in asked  # each edge checked one release past its first broken
    row = frontier_report.row(found)
    assert list(row) == list(frontier_report.COLUMNS)
    assert row["works_from"] == row["core_from"] == "0.5.1" and row["first_broken_below"] == "0.5.0"
    assert row["holes"] == "" and frontier_report.requirement(found) == "jax>=0.5.1,<=0.7.0"


def test_an_interior_probe_that_fails_is_a_hole_not_smoothed() -> None:
    candidates = jax_versions(20)
    _, clean = measure(20, set(range(3, 17)), 4)
    inside = sorted(candidates.index(p.jax) for p in clean.probes if 3 < candidates.index(p.jax) < 16)
    hole = inside[-1]  # a release the hole-free search probes inside the range
    _, found = measure(20, set(range(3, 17)) - {hole}, 4)
    assert (found.core_from, found.core_to) == (candidates[3], candidates[16])
    assert [p.jax for p in found.holes] == [candidates[hole]]
    assert frontier_report.row(found)["holes"] == str(candidates[hole])
    assert frontier_report.requirement(found) == f"jax>={candidates[3]},<={candidates[16]},!={candidates[hole]}"


def test_a_hole_the_bisection_lands_on_is_a_hole_not_the_edge() -> None:
    """Works from 0 to 31 but 7: the lower bisection from 16 probes 7 first (fails), bisects on to take 7 for the
    first broken release; the check at 6 works, so 7 is a hole and the edge is searched on below it."""
    candidates = jax_versions(32)
    asked, found = measure(32, set(range(32)) - {7}, 16)
    assert asked[1] == candidates[7] and candidates[6] in asked
    assert (found.core_from, found.core_to) == (candidates[0], candidates[31])
    assert [p.jax for p in found.holes] == [candidates[7]] and not found.stopped


def test_without_the_check_the_same_hole_is_taken_for_the_edge(monkeypatch: pytest.MonkeyPatch) -> None:
    """What the checks buy: the edge search without them stops at the hole."""
    real = frontier_search.find_edge
    monkeypatch.setattr(frontier_search, "find_edge",
                        lambda *args, **kwargs: real(*args, **{**kwargs, "check": False}))
    candidates = jax_versions(32)
    _, found = measure(32, set(range(32)) - {7}, 16)
    assert found.core_from == candidates[8] and found.holes == []


@pytest.mark.parametrize("n", [8, 16, 32])
def test_a_hole_is_found_exactly_when_the_hole_free_search_probes_it(n: int) -> None:
    """The stated figure's premise, for every range, seed and hole but the seed itself (a seed that fails is looked
    past, and the hole found only if another seed works): found iff the hole-free search probed it."""
    candidates = jax_versions(n)
    for first in range(0, n, 3):
        for last in range(first + 2, n, 3):
            for seed in {first, (first + last) // 2, last}:
                _, clean = measure(n, set(range(first, last + 1)), seed)
                probed = {candidates.index(p.jax) for p in clean.probes}
                for hole in set(range(first + 1, last)) - {seed}:
                    _, found = measure(n, set(range(first, last + 1)) - {hole}, seed)
                    reported = [candidates.index(p.jax) for p in found.holes] == [hole] and (
                        found.core_from, found.core_to) == (candidates[first], candidates[last])
                    assert reported == (hole in probed), (first, last, seed, hole)


def test_the_stated_chance_of_finding_a_hole_matches_a_simulation_over_fake_probes() -> None:
    """frontier_search.hole_chance, which frontier.md states per release, against random ranges, seeds and holes
    (N = 32, the default frontier's): the share found agrees within sampling error."""
    n, rng = 32, random.Random(18)
    candidates = jax_versions(n)
    stated, hits, trials = 0.0, 0, 600
    for _ in range(trials):
        first = rng.randrange(n - 2)
        last = rng.randrange(first + 2, n)
        seed = rng.randrange(first, last + 1)
        _, clean = measure(n, set(range(first, last + 1)), seed)
        stated += frontier_search.hole_chance(first, last, [candidates.index(p.jax) for p in clean.probes])
        hole = rng.randrange(first + 1, last)
        _, found = measure(n, set(range(first, last + 1)) - {hole}, seed)
        hits += [p.jax for p in found.holes] == [candidates[hole]]
    assert abs(hits / trials - stated / trials) < 0.06, (hits / trials, stated / trials)


def test_hole_chance_is_the_share_of_the_releases_inside_that_were_probed() -> None:
    assert frontier_search.hole_chance(0, 11, [0, 3, 5, 11, 12]) == 0.2
    assert frontier_search.hole_chance(4, 5, [4, 5]) == 1.0  # nothing inside: nothing to miss


def test_interior_probes_go_to_the_middles_of_the_widest_unprobed_stretches() -> None:
    assert frontier_search.interior_points(0, 31, {0, 16, 31}) == [8, 23]
    assert frontier_search.interior_points(0, 4, {0, 1, 2, 3, 4}) == []


def test_a_release_that_cannot_be_installed_has_an_empty_range_and_says_so() -> None:
    asked, found = measure(12, set(), 6, install_error=True)
    row = frontier_report.row(found)
    assert row["works_from"] == row["works_to"] == row["core_from"] == "" and len(asked) == frontier_search.SEEDS
    assert row["cause_below"] == row["cause_above"] == "cannot be installed: no wheel for python 3.11"
    assert frontier_report.requirement(found).startswith("# flax 0.10.2: no jax release works (cannot be installed")


def test_a_release_that_installs_but_never_works_is_not_called_uninstallable() -> None:
    _, found = measure(12, set(), 6)
    assert found.nowhere.startswith("works with no jax probed (0.4.0, ")
    assert found.nowhere.endswith("): TypeError: broken at 6")  # the first probe's cause, the contemporary's


def test_an_upper_edge_at_the_newest_release_has_no_broken_above() -> None:
    candidates = jax_versions(16)
    _, found = measure(16, set(range(7, 16)), 8)
    row = frontier_report.row(found)
    assert row["works_to"] == str(candidates[-1]) and row["first_broken_above"] == row["cause_above"] == ""
    assert any("works with the newest jax asked for" in line for line in frontier_report.evidence(found))
    assert not any("oldest jax asked for" in line for line in frontier_report.evidence(found))


def test_a_failing_contemporary_seed_falls_back_to_the_middle_of_the_declared_range() -> None:
    candidates = jax_versions(16)
    asked, probe = fake(candidates, set(range(9, 13)))
    found = frontier_corpus.measure(FLAX, SpecifierSet(f">={candidates[4]}"), candidates, probe,
                                    contemporary=candidates[5])
    assert asked[:2] == [candidates[5], candidates[10]]  # the middle of the 12 declared-compatible releases
    assert (found.core_from, found.core_to) == (candidates[9], candidates[12])


@pytest.mark.parametrize("n", [1, 2, 3, 7, 16, 33])
def test_every_works_range_costs_at_most_the_budget_and_never_stops(n: int) -> None:
    candidates = jax_versions(n)
    limit = frontier_search.budget(n)
    for first in range(n):
        for last in range(first, n):
            for seed in {first, last, (first + last) // 2, 0, n - 1}:
                asked, found = measure(n, set(range(first, last + 1)), seed)
                assert len(core_asked(asked)) <= limit.core and not found.stopped, (n, first, last, seed, asked)
                assert len(asked) - len(core_asked(asked)) <= 2  # confirmed at both last-good jax, nothing narrows
                if any(first <= candidates.index(v) <= last for v in core_asked(asked)):
                    assert (found.works_from, found.works_to) == (candidates[first], candidates[last])
                else:  # no point probed works: said so, never a guessed range
                    assert found.works_from is None and found.nowhere


def test_the_budget_is_stated_per_kind() -> None:
    assert frontier_search.budget(32) == frontier_search.Budget(core=3 * 5 + 7, corpus=2 * 5 + 6)
    assert frontier_search.budget(1) == frontier_search.Budget(core=7, corpus=6)


def test_a_search_that_would_exceed_its_budget_stops_and_says_so(monkeypatch: pytest.MonkeyPatch) -> None:
    """Enforced in the search, not only here: with a budget of 3 core probes, the fourth is never made."""
    monkeypatch.setattr(frontier_search, "budget", lambda n: frontier_search.Budget(core=3, corpus=2))
    candidates = jax_versions(32)
    asked, found = measure(32, set(range(4, 30)), 16)
    assert len(asked) == 3 and found.works_from is None
    assert found.stopped.startswith("stopped: its budget of 3 core probes is spent (jax ")
    assert frontier_report.row(found)["stopped"] == found.stopped
    assert frontier_report.requirement(found).startswith("# flax 0.10.2: no range: the search stopped")
    assert candidates[16] in asked


def test_a_narrow_range_away_from_both_seeds_is_found_by_looking_in_the_widest_gaps() -> None:
    candidates = jax_versions(32)
    asked, found = measure(32, {27, 28}, 3)
    assert (found.core_from, found.core_to) == (candidates[27], candidates[28])
    assert asked[:2] == [candidates[3], candidates[16]] and len(core_asked(asked)) <= frontier_search.budget(32).core


def test_the_seed_search_stops_where_the_budget_could_no_longer_pay_for_both_bisections() -> None:
    assert frontier_search.next_seed(32, {3, 16}, spent=2, limit=16) == 24  # the widest gap (16, 32)
    assert frontier_search.next_seed(32, {3, 16}, spent=6, limit=16) is None  # 1 + 3 + 3 + 2 + 2 more: over
    assert frontier_search.next_seed(3, {0, 1, 2}, spent=3, limit=6) is None  # nothing left to probe


def test_a_jax_outside_the_declaration_is_never_probed_and_the_declaration_is_the_edge() -> None:
    candidates = jax_versions(16)
    asked, probe = fake(candidates, set(range(6, 13)))
    found = frontier_corpus.measure(FLAX, SpecifierSet(f">={candidates[6]}"), candidates, probe,
                                    contemporary=candidates[9])
    assert min(core_asked(asked)) == candidates[6]
    assert (found.works_from, found.works_to) == (candidates[6], candidates[12])
    assert found.below is not None and found.below.jax == candidates[5] and found.below.cell_id == ""
    assert found.below.cause.startswith(f"{frontier_search.EXCLUDED_CAUSE} jax>={candidates[6]}")
    assert found.above is not None and found.above.jax == candidates[13]  # probed: broken there
    assert found.above.cause == "TypeError: broken at 13"
