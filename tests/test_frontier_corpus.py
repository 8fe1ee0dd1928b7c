"""The core range confirmed with the whole corpus: the cases that narrow it get their own edges, bisected with
whole-corpus probes; the range reported is where every case works."""

from __future__ import annotations

import pytest
from frontier_fakes import FLAX, core_asked, fake, jax_versions
from packaging.specifiers import SpecifierSet
from packaging.version import Version

from shardmatrix import frontier_corpus, frontier_report, frontier_search

SCAN = "linen_scan::test_scan_metadata"
SHARD_MAP = "nnx_shard_map::test_auto"


def measure(n: int, works: set[int], seed: int, fails: dict[str, set[int]]) -> tuple[list[object],
                                                                                      frontier_search.Frontier]:
    candidates = jax_versions(n)
    asked, probe = fake(candidates, works, fails=fails)
    return asked, frontier_corpus.measure(FLAX, SpecifierSet(), candidates, probe, contemporary=candidates[seed])


def test_a_case_failing_at_the_lower_core_edge_gets_its_own_edge_and_narrows_the_range() -> None:
    candidates = jax_versions(16)
    asked, found = measure(16, set(range(2, 12)), 8, {SCAN: {2, 3, 4}})
    assert (found.core_from, found.core_to) == (candidates[2], candidates[11])
    assert (found.works_from, found.works_to) == (candidates[5], candidates[11])
    assert found.below is not None and found.below.corpus and found.below.jax == candidates[4]
    [case] = found.cases
    assert (case.case, case.works_from, case.works_to) == (SCAN, candidates[5], candidates[11])
    assert case.cause(case.below) == f"failed: ValueError: {SCAN} at 4"
    assert case.above is found.core_above  # its upper edge is the core's
    corpus = [v for v in asked if isinstance(v, tuple)]
    assert len(corpus) <= frontier_search.budget(16).corpus and len(corpus) == len(set(corpus))
    assert ("corpus", candidates[2]) in corpus and ("corpus", candidates[11]) in corpus  # both core edges confirmed
    assert frontier_report.requirement(found) == (
        f"jax>={candidates[5]},<={candidates[11]}  # narrower than the core's jax>={candidates[2]},<={candidates[11]}"
        f": {SCAN} ({candidates[5]} to {candidates[11]})")
    row = frontier_report.row(found)
    assert (row["core_from"], row["works_from"], row["narrower"]) == (str(candidates[2]), str(candidates[5]), SCAN)
    [csv_row] = frontier_report.case_rows(found)
    assert tuple(csv_row) == frontier_report.CASE_COLUMNS
    assert (csv_row["works_from"], csv_row["first_broken_below"]) == (str(candidates[5]), str(candidates[4]))
    assert csv_row["first_broken_above"] == str(candidates[12]) and csv_row["cause_above"] == "TypeError: broken at 12"


def test_cases_failing_at_both_edges_each_get_a_row_and_the_range_is_where_all_work() -> None:
    candidates = jax_versions(16)
    _, found = measure(16, set(range(0, 14)), 6, {SCAN: {0, 1}, SHARD_MAP: {11, 12, 13}})
    assert (found.works_from, found.works_to) == (candidates[2], candidates[10])
    assert [(c.case, c.works_from, c.works_to) for c in found.cases] == [
        (SCAN, candidates[2], candidates[13]), (SHARD_MAP, candidates[0], candidates[10])]
    assert found.above is not None and found.above.failing == {SHARD_MAP: f"failed: ValueError: {SHARD_MAP} at 11"}


def test_a_case_that_works_with_no_jax_of_the_core_range_leaves_no_whole_corpus_range() -> None:
    _, found = measure(12, set(range(2, 10)), 5, {SCAN: set(range(12))})
    assert found.works_from is None and found.core_from is not None
    assert found.nowhere.startswith("no jax release of the core range passes the whole corpus: " + SCAN)
    assert [(c.case, c.works_from) for c in found.cases] == [(SCAN, None)]
    assert frontier_report.requirement(found) == (
        "# flax 0.10.2: no jax release passes the whole corpus; the core cases work with jax>=0.4.2,<=0.6.1; "
        f"narrower: {SCAN} (works with none probed)")
    assert frontier_report.case_rows(found)[0]["works_from"] == ""


def test_a_live_known_upstream_bug_failing_at_every_release_leaves_the_range_and_is_listed_beside_it() -> None:
    # Was "no jax release of the core range passes the whole corpus": the same case failing unexplained at every
    # release (the test above) leaves no range, a declared known bug does.
    candidates = jax_versions(12)
    _, probe = fake(candidates, set(range(2, 10)), known={SCAN: set(range(12))})
    found = frontier_corpus.measure(FLAX, SpecifierSet(), candidates, probe, contemporary=candidates[5])
    assert (found.works_from, found.works_to, found.nowhere) == (candidates[2], candidates[9], "")
    assert found.cases == [] and found.known_bugs == [f"https://example.org/{SCAN}"]
    assert frontier_report.row(found)["known_bugs"] == f"https://example.org/{SCAN}"
    assert frontier_report.requirement(found) == (
        f"jax>={candidates[2]},<={candidates[9]}  # known upstream bugs inside: https://example.org/{SCAN}")
    table = frontier_report.summary([frontier_report.to_json(found, SpecifierSet())])
    assert any(f"| {candidates[2]} to {candidates[9]} (known upstream bugs inside: [https://example.org/{SCAN}]"
               f"(https://example.org/{SCAN})) |" in line for line in table)


def test_a_whole_corpus_that_agrees_with_the_core_costs_two_whole_corpus_probes() -> None:
    asked, found = measure(16, set(range(3, 12)), 6, {})
    assert [v for v in asked if isinstance(v, tuple)] == [("corpus", jax_versions(16)[3]),
                                                          ("corpus", jax_versions(16)[11])]
    assert found.cases == [] and (found.works_from, found.works_to) == (found.core_from, found.core_to)
    assert len(core_asked(asked)) <= frontier_search.budget(16).core


def test_the_first_broken_jax_of_a_core_edge_runs_every_case_unless_its_verdict_is_final() -> None:
    candidates = jax_versions(8)
    asked: list[object] = []

    def probe(version: Version, corpus: bool = False) -> frontier_search.Probe:
        asked.append(("corpus", version) if corpus else version)
        i = candidates.index(version)
        # Below 2 no core case applies (every case may still say something); above 5 the core is broken.
        verdict = "no_evidence" if i < 2 else "broken" if i > 5 else "works"
        return frontier_search.Probe(version, verdict == "works", "" if verdict == "works" else verdict, f"c{i}",
                                     verdict=verdict, corpus=corpus)

    found = frontier_corpus.measure(FLAX, SpecifierSet(), candidates, probe, contemporary=candidates[4])
    assert ("corpus", candidates[1]) in asked and ("corpus", candidates[6]) not in asked
    assert found.below is not None and found.below.corpus and found.above is not None and not found.above.corpus


def test_the_whole_corpus_budget_is_enforced_too(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(frontier_search, "budget", lambda n: frontier_search.Budget(core=20, corpus=3))
    asked, found = measure(16, set(range(0, 16)), 8, {SCAN: set(range(0, 9))})
    assert len([v for v in asked if isinstance(v, tuple)]) == 3
    assert found.stopped.startswith("stopped: its budget of 3 whole-corpus probes is spent")
    assert found.core_from is not None and found.works_from is None


def test_a_hole_the_whole_corpus_finds_is_widened_to_every_failing_release_around_it() -> None:
    # The scan case narrows the lower edge, so its bisection lands inside the range; the shard_map case fails in a
    # stretch of three releases in the middle, which one landed probe sees as a single failing release.
    candidates = jax_versions(16)
    stretch = {6, 7, 8}
    asked, found = measure(16, set(range(0, 16)), 12, {SCAN: {0, 1, 2, 3}, SHARD_MAP: stretch})
    assert (found.works_from, found.works_to) == (candidates[4], candidates[15]) and not found.stopped
    assert [p.jax for p in found.holes] == [candidates[i] for i in sorted(stretch)]
    corpus = {v for v in asked if isinstance(v, tuple)}
    assert ("corpus", candidates[5]) in corpus and ("corpus", candidates[9]) in corpus  # where the hole ends
    assert len(corpus) <= frontier_search.budget(16).corpus
    assert frontier_report.requirement(found).startswith(
        f"jax>={candidates[4]},<={candidates[15]},!={candidates[6]},!={candidates[7]},!={candidates[8]}")


def test_a_case_failing_inside_its_own_range_at_the_new_edge_moves_that_edge_inward() -> None:
    # The shard_map case narrows the lower edge to 5, where the scan case fails at that one release only: its
    # bisected range is the whole core range, so the edge steps past 5 rather than giving up.
    candidates = jax_versions(16)
    _, found = measure(16, set(range(0, 16)), 12, {SHARD_MAP: {0, 1, 2, 3, 4}, SCAN: {5}})
    assert not found.nowhere and not found.stopped
    assert (found.works_from, found.works_to) == (candidates[6], candidates[15])
    assert found.below is not None and found.below.jax == candidates[5] and SCAN in found.below.failing


def test_a_hole_whose_widening_the_budget_stops_keeps_what_it_found(monkeypatch: pytest.MonkeyPatch) -> None:
    candidates = jax_versions(16)
    monkeypatch.setattr(frontier_search, "budget", lambda n: frontier_search.Budget(core=22, corpus=7))
    _, found = measure(16, set(range(0, 16)), 12, {SCAN: {0, 1, 2, 3}, SHARD_MAP: {6, 7, 8}})
    assert found.stopped.startswith("stopped: its budget of 7 whole-corpus probes is spent")
    assert [p.jax for p in found.holes] == [candidates[6], candidates[7]]  # 8 would have been the eighth probe
