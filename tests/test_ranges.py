"""The range checker on fakes: a release where each case fails, the partner release beside each edge, and a budget."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from packaging.specifiers import SpecifierSet
from packaging.version import Version

from harness import outputs
from harness.cell.known import Breakage
from harness.change import Change
from harness.tools import ranges

EAGER = "partitioned_metadata::test_nnx_eager_sharding_under_explicit_mesh"
USE_MESH = "shard_map_modes::test_jax_shard_map_mesh_from_use_mesh"
RELEASES = {"jax": [Version(v) for v in ("0.6.2", "0.7.0", "0.7.1", "0.7.2", "0.8.0", "0.8.1")],
            "flax": [Version(v) for v in ("0.11.2", "0.12.0", "0.12.1", "0.12.2", "0.12.3")]}
# What releases show: the eager-sharding case fails on flax 0.12.0 only; use_mesh is gone from jax 0.7.1.
FAILS = {EAGER: lambda jax, flax: flax == Version("0.12.0"), USE_MESH: lambda jax, flax: jax >= Version("0.7.1")}


def probe(case: str, jax: Version, flax: Version) -> str | None:
    return ranges.FAIL if FAILS[case](jax, flax) else ranges.PASS


def partner(package: str, before: Version, bound: Version) -> list[Version]:
    return [Version("0.12.0")] if package == "jax" else [Version("0.8.1")]


def eager(upper: str) -> Breakage:
    return Breakage(EAGER, "fails in with_sharding_constraint", "https://github.com/google/flax/pull/5070",
                    {"flax": SpecifierSet(f">=0.12.0,{upper}")})


def findings(upper: str, limit: int = 20) -> dict[str, ranges.Finding]:
    edges = ranges.edges({}, [eager(upper)])
    found, _ = ranges.run(edges, RELEASES, partner, probe, limit)
    return {finding.edge.text: finding for finding in found}


def test_a_right_breakage_range_is_confirmed_at_both_ends() -> None:
    found = findings("<0.12.1")
    assert {text: f.status for text, f in found.items()} == {">=0.12.0": "confirmed", "<0.12.1": "confirmed"}


def test_a_deliberately_wrong_upper_edge_is_reported_wrong_with_the_bound_releases_show() -> None:
    found = findings("<0.12.3")
    assert found["<0.12.3"].status == ranges.WRONG
    assert found["<0.12.3"].found == "<0.12.1"
    assert "0.12.2 passes" in found["<0.12.3"].why


def test_a_change_since_one_release_too_late_names_the_release_it_broke_in() -> None:
    late = Change("jax>=0.8.0", "use_mesh is removed", raises="AttributeError", kind="api", fix="jax.set_mesh")
    right = Change("jax>=0.7.1", "use_mesh is removed", raises="AttributeError", kind="api", fix="jax.set_mesh")
    [wrong], _ = ranges.run(ranges.edges({USE_MESH: late}, []), RELEASES, partner, probe, 20)
    [confirmed], _ = ranges.run(ranges.edges({USE_MESH: right}, []), RELEASES, partner, probe, 20)
    assert (wrong.status, wrong.found) == (ranges.WRONG, ">=0.7.1")
    assert confirmed.status == ranges.CONFIRMED


def _lower_edge(answer_at_flax_0_11: str) -> ranges.Finding:
    def no_flax_0_11(case: str, jax: Version, flax: Version) -> str | None:
        return answer_at_flax_0_11 if flax == Version("0.11.2") else probe(case, jax, flax)

    found, _ = ranges.run(ranges.edges({}, [eager("<0.12.1")]), RELEASES, partner, no_flax_0_11, 20)
    return next(f for f in found if f.edge.text == ">=0.12.0")


def test_an_edge_whose_lower_side_misses_the_case_s_own_need_is_bounded_by_it_never_confirmed() -> None:
    lower = _lower_edge("not_applicable: flax.config.flax_always_shard_variable is absent")
    assert lower.status == ranges.BOUNDED
    assert lower.why == ("flax 0.11.2 with jax 0.8.1 does not meet the case's needs (not_applicable: "
                         "flax.config.flax_always_shard_variable is absent); 0.12.0, the first that does, fails")


def test_an_edge_with_a_side_that_cannot_be_probed_for_another_reason_is_unchecked_and_says_which() -> None:
    lower = _lower_edge("not_applicable: needs 16 devices, the cell has 8")
    assert lower.status == ranges.UNCHECKED
    assert lower.why == "flax 0.11.2 with jax 0.8.1 cannot be probed (not_applicable: needs 16 devices, the cell has 8)"
    assert _lower_edge("install_error: no wheel").status == ranges.UNCHECKED


def test_an_unmet_need_at_one_pairing_met_at_the_next_is_judged_there() -> None:
    def old_jax_lacks_it(case: str, jax: Version, flax: Version) -> str | None:
        unmet = jax < Version("0.8.1") and flax < Version("0.12.0")  # bounded at the first pairing
        return "not_applicable: needs jax>=0.8.1" if unmet else probe(case, jax, flax)

    def two(package: str, before: Version, bound: Version) -> list[Version]:
        return [Version("0.8.0"), Version("0.8.1")]

    found, _ = ranges.run(ranges.edges({}, [eager("<0.12.1")]), RELEASES, two, old_jax_lacks_it, 20)
    assert next(f for f in found if f.edge.text == ">=0.12.0").status == ranges.CONFIRMED


def test_edges_past_the_budget_are_unchecked_and_the_budget_is_never_exceeded() -> None:
    found, spent = ranges.run(ranges.edges({}, [eager("<0.12.1")]), RELEASES, partner, probe, 2)
    assert spent == 2
    assert [f.status for f in found] == [ranges.CONFIRMED, ranges.UNCHECKED]
    assert found[1].why == "the probe budget (2) is spent"


def test_the_findings_are_stored_as_a_versioned_document(tmp_path: Path) -> None:
    found, spent = ranges.run(ranges.edges({}, [eager("<0.12.3")]), RELEASES, partner, probe, 20)
    document = outputs.read_ranges(ranges.store(tmp_path, found, spent, 20))
    assert document["schema_version"] == outputs.RANGES_JSON.version
    assert (document["wrong"], document["unchecked"], document["probes"]) == (2, 0, spent)
    assert [row["found"] for row in document["edges"]] == [">=0.12.0,<0.12.1", "<0.12.1"]
    assert document["edges"][0]["inside"] == "1 of 2 releases inside probed: 0.12.1"


def pairs(*rows: tuple[str, str, bool, str]) -> dict[tuple[Version, Version], tuple[bool, str]]:
    return {(Version(jax), Version(flax)): (applicable, reason) for jax, flax, applicable, reason in rows}


def test_a_need_that_held_and_is_gone_later_with_no_change_is_reported() -> None:
    gone = "jax.sharding.use_mesh is absent"
    seen = {USE_MESH: pairs(("0.6.2", "0.10.7", True, ""), ("0.7.2", "0.12.0", False, gone))}
    assert ranges.drift(seen, []) == [{"case": USE_MESH, "held": "jax 0.6.2, flax 0.10.7",
                                       "unmet": "jax 0.7.2, flax 0.12.0", "reason": gone}]


def test_a_need_not_there_yet_or_gone_under_a_declared_change_is_not_reported() -> None:
    not_yet = {EAGER: pairs(("0.6.2", "0.10.7", False, "needs flax>=0.11.2"), ("0.7.2", "0.12.0", True, ""))}
    declared = {USE_MESH: pairs(("0.6.2", "0.10.7", True, ""), ("0.7.2", "0.12.0", False, "absent"))}
    assert ranges.drift(not_yet, []) == []
    assert ranges.drift(declared, [USE_MESH]) == []


def test_the_search_for_a_wrong_upper_edge_stays_inside_its_range() -> None:
    # Releases before the range fail for another reason: a search that left the range would take them for the flip.
    releases = {**RELEASES, "flax": [Version(v) for v in ("0.9.0", "0.10.0", "0.11.0", "0.11.2", "0.12.0", "0.12.1",
                                                           "0.12.2", "0.12.3")]}

    def older_fail_too(case: str, jax: Version, flax: Version) -> str:
        return ranges.FAIL if flax <= Version("0.12.0") else ranges.PASS

    [_, upper] = ranges.edges({}, [eager("<0.12.3")])
    budget = ranges.Budget(older_fail_too, 20)
    finding = ranges.check(upper, releases, partner, budget)
    assert (finding.status, finding.found) == (ranges.WRONG, "<0.12.1")
    assert min(flax for _, _, flax in budget.asked) >= Version("0.12.0")


def test_a_wrong_rising_edge_is_searched_no_further_than_its_range_s_upper_end() -> None:
    never = Breakage(EAGER, "r", "https://example.org", {"flax": SpecifierSet(">=0.12.0,<0.12.2")})
    [lower, _] = ranges.edges({}, [never])
    finding = ranges.check(lower, RELEASES, partner, ranges.Budget(lambda c, j, f: ranges.PASS, 20))
    assert (finding.status, finding.found) == (ranges.WRONG, "")
    assert finding.why.endswith("no flip found on this side")


MAKE_MESH = "sharded_gathers_user::test_embedding_lookup_under_jit_on_make_mesh"


def warns_from_0_7_1(case: str, jax: Version, flax: Version) -> str:
    """The make_mesh case passes with a warning on jax 0.7.1 and 0.7.2 and fails from 0.8.0."""
    if jax >= Version("0.8.0"):
        return ranges.FAIL
    return ranges.WARNED if jax >= Version("0.7.1") else ranges.PASS


def warned_findings(warned: str) -> dict[str, ranges.Finding]:
    change = Change("jax>=0.8.0", "make_mesh makes Explicit axes", raises="ShardingTypeError", kind="default",
                    fix="pass axis_types", warned=warned)
    found, _ = ranges.run(ranges.edges({MAKE_MESH: change}, []), RELEASES, partner, warns_from_0_7_1, 20)
    return {finding.edge.source + " " + finding.edge.text: finding for finding in found}


def test_a_right_warned_range_is_confirmed_at_both_of_its_ends() -> None:
    found = warned_findings("jax>=0.7.1,<0.8.0")
    assert {key: f.status for key, f in found.items()} == {
        "changed since jax>=0.8.0 >=0.8.0": ranges.CONFIRMED,
        "warned jax>=0.7.1,<0.8.0 >=0.7.1": ranges.CONFIRMED,
        "warned jax>=0.7.1,<0.8.0 <0.8.0": ranges.CONFIRMED}


def test_a_warned_start_one_release_early_is_wrong_and_names_the_release_that_first_warned() -> None:
    found = warned_findings("jax>=0.7.0,<0.8.0")
    early = found["warned jax>=0.7.0,<0.8.0 >=0.7.0"]
    assert (early.status, early.found) == (ranges.WRONG, ">=0.7.1")
    assert early.why == "jax 0.6.2 does not warn, 0.7.0 does not warn (with flax 0.12.0)"
    assert found["warned jax>=0.7.0,<0.8.0 <0.8.0"].status == ranges.CONFIRMED


def test_a_warned_pass_reads_as_a_pass_at_a_breakage_edge() -> None:
    [since] = ranges.edges({MAKE_MESH: Change("jax>=0.7.1", "w", raises="ShardingTypeError", kind="default",
                                              fix="f")}, [])
    finding = ranges.check(since, RELEASES, partner, ranges.Budget(warns_from_0_7_1, 20))
    # 0.7.1 passes (with its warning): the change's `since` is later than declared.
    assert (finding.status, finding.found) == (ranges.WRONG, ">=0.8.0")


TWO_PACKAGES = "nnx_sharded_merge::test_nnx_jit_forward_of_a_sharded_model"


def fails_on_new_jax_with_new_flax(case: str, jax: Version, flax: Version) -> str:
    """The case fails only where both are new: jax from 0.7.1 with flax from 0.12.2."""
    return ranges.FAIL if jax >= Version("0.7.1") and flax >= Version("0.12.2") else ranges.PASS


def two_package_findings(jax_range: str) -> dict[str, ranges.Finding]:
    entry = Breakage(TWO_PACKAGES, "r", "https://example.org",
                     {"jax": SpecifierSet(jax_range), "flax": SpecifierSet(">=0.12.2")})
    found, _ = ranges.run(ranges.edges({}, [entry]), RELEASES, partner, fails_on_new_jax_with_new_flax, 20)
    return {f"{finding.edge.package}{finding.edge.text}": finding for finding in found}


def test_a_jax_edge_is_probed_inside_the_flax_range_its_breakage_declares() -> None:
    # The matrix pairs jax 0.7.1 with flax 0.12.0, outside the entry's flax range: the edge is probed at flax 0.12.2.
    found = two_package_findings(">=0.7.1")
    assert {key: f.status for key, f in found.items()} == {"jax>=0.7.1": ranges.CONFIRMED,
                                                            "flax>=0.12.2": ranges.CONFIRMED,
                                                            "jaxlive": ranges.CONFIRMED}


def test_a_wrong_jax_edge_of_a_two_package_breakage_is_still_reported_wrong() -> None:
    found = two_package_findings(">=0.7.0")
    assert (found["jax>=0.7.0"].status, found["jax>=0.7.0"].found) == (ranges.WRONG, ">=0.7.1")


def test_the_bounds_of_a_breakage_on_both_packages_name_the_whole_entry_they_are_part_of() -> None:
    # Each bound keeps its own package's range as its source (what a stored row matches); the entry joins them.
    two = Breakage(TWO_PACKAGES, "r", "https://example.org",
                   {"jax": SpecifierSet(">=0.8.2"), "flax": SpecifierSet("<0.12.2")})
    one = Breakage(TWO_PACKAGES, "r", "https://example.org", {"flax": SpecifierSet("<0.12.1")})
    found = ranges.edges({}, [two, one])
    assert [(edge.source, edge.entry) for edge in found] == [
        ("known breakage jax>=0.8.2", "known breakage jax>=0.8.2, flax<0.12.2"),
        ("known breakage flax<0.12.2", "known breakage jax>=0.8.2, flax<0.12.2"),
        ("known breakage flax<0.12.1", "")]


def test_a_side_that_does_not_install_with_the_first_pairing_is_probed_with_the_next() -> None:
    # flax 0.12.3 needs jax >= 0.7.1: the edge at 0.7.1 cannot be probed there, and is with flax 0.12.0.
    def needs_new_jax(case: str, jax: Version, flax: Version) -> str:
        if flax == Version("0.12.3") and jax < Version("0.7.1"):
            return "install_error: flax==0.12.3 depends on jax>=0.7.1"
        return probe(case, jax, flax)

    [since] = ranges.edges({USE_MESH: Change("jax>=0.7.1", "w", raises="AttributeError", kind="api", fix="f")}, [])
    budget = ranges.Budget(needs_new_jax, 20)
    finding = ranges.check(since, RELEASES, lambda *_: [Version("0.12.3"), Version("0.12.0")], budget)
    assert finding.status == ranges.CONFIRMED
    assert {flax for _, _, flax in budget.asked} == {Version("0.12.3"), Version("0.12.0")}


def test_an_edge_no_pairing_installs_on_both_sides_is_unchecked_naming_the_last_one_tried() -> None:
    [since] = ranges.edges({USE_MESH: Change("jax>=0.7.1", "w", raises="AttributeError", kind="api", fix="f")}, [])
    finding = ranges.check(since, RELEASES, lambda *_: [Version("0.12.3")],
                           ranges.Budget(lambda c, j, f: "install_error: no", 20))
    assert finding.status == ranges.UNCHECKED
    assert finding.why.startswith("does not install: jax 0.7.0 with flax 0.12.3 cannot be probed")


def test_a_bound_between_releases_is_probed_at_the_releases_either_side_of_it() -> None:
    [since] = ranges.edges({USE_MESH: Change("jax>=0.7.0.5", "w", raises="AttributeError", kind="api", fix="f")}, [])
    budget = ranges.Budget(probe, 20)
    finding = ranges.check(since, RELEASES, partner, budget)
    # No release lies between 0.7.0.5 and 0.7.1: what releases show is the same edge.
    assert finding.status == ranges.CONFIRMED
    assert {jax for _, jax, _ in budget.asked} == {Version("0.7.0"), Version("0.7.1")}


def test_a_live_breakage_must_still_fail_at_the_newest_release_and_one_fixed_there_is_wrong() -> None:
    entry = Breakage(USE_MESH, "r", "https://example.org", {"jax": SpecifierSet(">=0.7.1")})
    [_, live] = ranges.edges({}, [entry])
    assert (live.text, live.source) == ("live", "known breakage jax>=0.7.1, live")
    assert ranges.check(live, RELEASES, partner, ranges.Budget(probe, 20)).status == ranges.CONFIRMED
    fixed = ranges.check(live, RELEASES, partner, ranges.Budget(lambda c, j, f: ranges.PASS, 20))
    assert (fixed.status, fixed.found) == (ranges.WRONG, "passes at jax 0.8.1 with flax 0.12.0")


def test_a_failure_before_the_change_s_break_says_nothing_of_its_warning_and_the_next_pairing_is_tried() -> None:
    change = Change("jax>=0.8.0", "w", raises="ShardingTypeError", kind="default", fix="f", warned="jax>=0.7.1,<0.8.0")
    edges = {edge.text: edge for edge in ranges.edges({MAKE_MESH: change}, []) if edge.warns}

    def broken_with_old_flax(case: str, jax: Version, flax: Version) -> str:
        return ranges.FAIL if flax == Version("0.11.2") else warns_from_0_7_1(case, jax, flax)

    pairings = lambda *_: [Version("0.11.2"), Version("0.12.0")]  # noqa: E731
    budget = ranges.Budget(broken_with_old_flax, 20)
    assert ranges.check(edges[">=0.7.1"], RELEASES, pairings, budget).status == ranges.CONFIRMED
    # At the break itself a failure is the end of the warning: the upper end is confirmed at the first pairing.
    assert ranges.check(edges["<0.8.0"], RELEASES, lambda *_: [Version("0.12.0")], budget).status == ranges.CONFIRMED


# --- inside the declared range ---------------------------------------------------------------------------------------

HOLED = "sharded_gathers::test_holed"
JAX = [Version(v) for v in ("0.6.2", "0.7.0", "0.7.1", "0.7.2", "0.8.0", "0.8.1")]


def broken(spec: str) -> Breakage:
    return Breakage(HOLED, "r", "https://github.com/jax-ml/jax/issues/1", {"jax": SpecifierSet(spec)} if spec else {})


def probe_failing_at(*failing: str) -> ranges.CaseProbe:
    def answer(case: str, jax: Version, flax: Version) -> str | None:
        return ranges.FAIL if str(jax) in failing else ranges.PASS
    return answer


def by_text(spec: str, failing: tuple[str, ...], limit: int = 40,
            floor: Version | None = None) -> dict[str, ranges.Finding]:
    found, _ = ranges.run(ranges.edges({}, [broken(spec)]), RELEASES, partner, probe_failing_at(*failing), limit,
                          {"jax": floor} if floor else None)
    return {finding.edge.text: finding for finding in found}


def test_a_range_that_fails_at_every_release_inside_is_confirmed_and_says_what_was_probed() -> None:
    found = by_text(">=0.7.0,<0.8.1", ("0.7.0", "0.7.1", "0.7.2", "0.8.0"))
    assert {text: f.status for text, f in found.items()} == {">=0.7.0": ranges.CONFIRMED, "<0.8.1": ranges.CONFIRMED}
    assert found[">=0.7.0"].inside_said() == "3 of 3 releases inside probed: 0.7.2, 0.7.1, 0.8.0"
    assert found["<0.8.1"].inside_said() == "no release inside"  # the lower end owns a two-ended range's inside


def test_the_inside_reach_asks_the_middle_alone_or_nothing_inside_and_never_a_release_past_it() -> None:
    edges = ranges.edges({}, [broken(">=0.7.0,<0.8.1")])
    failing = probe_failing_at("0.7.0", "0.7.1", "0.7.2", "0.8.0")
    every, spent_every = ranges.run(edges, RELEASES, partner, failing, 40)
    middle, spent_middle = ranges.run(edges, RELEASES, partner, failing, 40, reach=ranges.INSIDE_MIDDLE)
    bounds, spent_bounds = ranges.run(edges, RELEASES, partner, failing, 40, reach=ranges.INSIDE_NONE)
    assert [f.status for f in middle] == [f.status for f in bounds] == [ranges.CONFIRMED] * 2
    assert middle[0].inside_said() == "1 of 3 releases inside probed: 0.7.2"
    assert bounds[0].inside_said() == "0 of 3 releases inside probed" and not bounds[0].inside_judged
    assert every[0].inside_said() == "3 of 3 releases inside probed: 0.7.2, 0.7.1, 0.8.0"
    # 0.8.0 is also the upper bound's failing side: asked once, counted once.
    assert (spent_bounds, spent_middle, spent_every) == (4, 5, 6)


def test_a_hole_at_the_middle_is_found_by_the_middle_reach_and_one_past_it_only_by_every() -> None:
    edges = ranges.edges({}, [broken(">=0.7.0,<0.8.1")])
    hole_in_middle = probe_failing_at("0.7.0", "0.7.1", "0.8.0")
    hole_past_it = probe_failing_at("0.7.0", "0.7.2", "0.8.0")
    assert ranges.run(edges, RELEASES, partner, hole_in_middle, 40, reach=ranges.INSIDE_MIDDLE)[0][0].status \
        == ranges.WRONG
    assert ranges.run(edges, RELEASES, partner, hole_past_it, 40, reach=ranges.INSIDE_MIDDLE)[0][0].status \
        == ranges.CONFIRMED
    assert ranges.run(edges, RELEASES, partner, hole_past_it, 40)[0][0].status == ranges.WRONG


def test_a_release_inside_the_range_that_passes_is_a_hole_and_the_part_that_holds_is_named() -> None:
    # Confirmed at both bounds (0.6.2 passes, 0.7.0 fails; 0.8.0 fails, 0.8.1 passes), but 0.7.2 passes.
    found = by_text(">=0.7.0,<0.8.1", ("0.7.0", "0.7.1", "0.8.0"))
    lower = found[">=0.7.0"]
    assert (lower.status, lower.found) == (ranges.WRONG, ">=0.7.0,<0.7.2")
    assert "jax 0.7.2 passes inside the declared range (with flax 0.12.0)" in lower.why
    assert found["<0.8.1"].status == ranges.CONFIRMED


def test_a_live_breakage_is_probed_at_its_first_release_and_newest() -> None:
    live = ranges.edges({}, [broken("")])[0]
    assert live.live and ranges.inside(live, JAX, Version("0.7.0"))[:2] == [Version("0.7.0"), Version("0.7.1")]
    held = by_text("", ("0.7.0", "0.7.1", "0.7.2", "0.8.0", "0.8.1"), floor=Version("0.7.0"))["live"]
    assert held.status == ranges.CONFIRMED and held.inside_asked[0] == Version("0.7.0")


def test_a_live_breakage_that_passes_at_its_first_release_is_wrong_and_says_where_it_starts() -> None:
    found = by_text("", ("0.7.1", "0.7.2", "0.8.0", "0.8.1"), floor=Version("0.7.0"))["live"]
    assert (found.status, found.found) == (ranges.WRONG, ">=0.7.1")


def test_a_warning_s_inside_ends_where_its_change_breaks() -> None:
    change = Change("jax>=0.8.0", "x", raises="TypeError", kind="default", fix="y", warned="jax>=0.7.0")
    warned = next(edge for edge in ranges.edges({HOLED: change}, []) if edge.warns)
    assert ranges.inside(warned, JAX) == [Version("0.7.1"), Version("0.7.2")]


def test_the_first_pass_checks_every_bound_before_the_rest_of_any_inside() -> None:
    use_mesh = Change("jax>=0.7.1", "use_mesh is removed", raises="AttributeError", kind="api", fix="jax.set_mesh")
    edges = ranges.edges({USE_MESH: use_mesh}, [eager("<0.12.1")])
    # use_mesh: its bound (2 probes) and the middle inside (1); eager: its two bounds (3 more); then one more inside.
    found, spent = ranges.run(edges, RELEASES, partner, probe, 7)
    assert [f.status for f in found] == [ranges.CONFIRMED] * 3 and spent == 7
    assert found[0].edge.case == USE_MESH and found[0].inside_said() == "2 of 3 releases inside probed: 0.8.0, 0.7.2"


def test_an_inside_release_the_case_cannot_be_judged_at_is_asked_but_not_counted_as_judged() -> None:
    def not_before_0_7_1(case: str, jax: Version, flax: Version) -> str | None:
        if jax < Version("0.7.1"):
            return "not_applicable: jax.sharding.AxisType is absent"
        return probe_failing_at("0.7.1", "0.7.2", "0.8.0")(case, jax, flax)

    found, _ = ranges.run(ranges.edges({}, [broken("<0.8.1")]), RELEASES, partner, not_before_0_7_1, 40,
                          {"jax": Version("0.6.2")})
    assert found[0].status == ranges.CONFIRMED
    # Inside <0.8.1 from the floor, the middle first: 0.7.0 (not applicable), so 0.6.2 below it is not asked; 0.7.1
    # and 0.7.2 are judged; 0.8.0 is the bound's side.
    assert found[0].inside_said() == ("3 of 4 releases inside probed, 2 of them judged (the others not applicable or "
                                      "not installable), 1 not asked (the case's needs are unmet at 0.7.0 and "
                                      "beyond): 0.7.1, 0.7.2")


def test_inside_a_range_open_below_the_probes_skip_what_lies_past_an_unmet_need_and_judge_the_rest() -> None:
    releases = {**RELEASES, "jax": [Version(v) for v in ("0.5.0", "0.5.1", "0.5.2", "0.5.3", "0.6.0", "0.6.1",
                                                         "0.6.2", "0.7.0", "0.7.1")]}
    asked: list[Version] = []

    def needs_0_6_1(case: str, jax: Version, flax: Version) -> str | None:
        asked.append(jax)
        if jax < Version("0.6.1"):
            return "not_applicable: jax.sharding.AxisType is absent"
        return ranges.FAIL if jax < Version("0.7.1") else ranges.PASS

    # <0.7.1 from 0.5.0: the middle 0.5.3 is not applicable, so 0.5.0 to 0.5.2 are never asked; the first pass goes on
    # to 0.6.1 (the next middle past it) and judges it; the second asks 0.6.0 (not applicable) and judges 0.6.2.
    found, _ = ranges.run(ranges.edges({}, [broken("<0.7.1")]), releases, partner, needs_0_6_1, 40,
                          {"jax": Version("0.5.0")})
    assert found[0].status == ranges.CONFIRMED and found[0].inside_unmet == Version("0.6.0")
    assert found[0].inside_judged == (Version("0.6.1"), Version("0.6.2"))
    assert not {Version("0.5.0"), Version("0.5.1"), Version("0.5.2")} & set(asked)


def test_inside_a_range_open_above_a_need_unmet_later_skips_the_newer_releases() -> None:
    edge = ranges.edges({}, [broken(">=0.6.2")])[0]
    unmet = Version("0.7.2")
    assert ranges.beyond_unmet(edge, Version("0.8.0"), unmet) and not ranges.beyond_unmet(edge, Version("0.7.1"), unmet)
    live = ranges.edges({}, [broken("")])[0]
    assert ranges.beyond_unmet(live, Version("0.6.2"), unmet) and not ranges.beyond_unmet(live, Version("0.8.0"), unmet)


def test_an_inside_release_that_does_not_install_with_the_bound_s_pairing_is_tried_with_its_own() -> None:
    def old_jax_needs_old_flax(case: str, jax: Version, flax: Version) -> str | None:
        if jax < Version("0.7.1") and flax >= Version("0.12.0"):
            return "install_error: flax 0.12 depends on jax>=0.7.1"
        return probe_failing_at("0.6.2", "0.7.0", "0.7.1", "0.7.2", "0.8.0")(case, jax, flax)

    def paired(package: str, before: Version, bound: Version) -> list[Version]:
        return [Version("0.12.0")] if bound >= Version("0.7.1") else [Version("0.11.2")]

    found, _ = ranges.run(ranges.edges({}, [broken("<0.8.1")]), RELEASES, paired, old_jax_needs_old_flax, 40,
                          {"jax": Version("0.6.2")})
    assert found[0].status == ranges.CONFIRMED
    assert found[0].inside_said() == "4 of 4 releases inside probed: 0.7.0, 0.6.2, 0.7.1, 0.7.2"


#: google/flax#4153's shape: flax 0.9.0 changed linen, and flax 0.8.5 does not import on jax 0.4.38 (no MainTrace).
DESIGN = "vmap_param_shapes::test_linen_design_change"
OLD_FLAX = {"jax": [Version(v) for v in ("0.4.31", "0.4.38")], "flax": [Version(v) for v in ("0.8.5", "0.9.0")]}


def design_probe(case: str, jax: Version, flax: Version) -> str:
    if flax == Version("0.8.5") and jax == Version("0.4.38"):
        return f"{ranges.UNLOADABLE}the cell's packages failed to import: flax: AttributeError: MainTrace"
    return ranges.FAIL if flax >= Version("0.9.0") else ranges.PASS


def test_a_pairing_where_the_release_does_not_load_is_no_failure_and_the_next_pairing_judges_the_edge() -> None:
    change = Change("flax>=0.9.0", "linen changed", raises="TypeError", kind="behaviour", fix="x")
    [edge] = ranges.edges({DESIGN: change}, [])
    finding = ranges.check(edge, OLD_FLAX, lambda package, before, bound: [Version("0.4.38"), Version("0.4.31")],
                           ranges.Budget(design_probe, 20))
    assert (finding.status, finding.held) == (ranges.CONFIRMED, Version("0.4.31"))


def test_an_edge_whose_only_pairing_does_not_load_is_unchecked_saying_why_never_wrong() -> None:
    change = Change("flax>=0.9.0", "linen changed", raises="TypeError", kind="behaviour", fix="x")
    [edge] = ranges.edges({DESIGN: change}, [])
    finding = ranges.check(edge, OLD_FLAX, lambda package, before, bound: [Version("0.4.38")],
                           ranges.Budget(design_probe, 20))
    assert finding.status == ranges.UNCHECKED
    assert "flax 0.8.5 with jax 0.4.38 cannot be probed (the pair does not load: " in finding.why


def test_an_answer_that_the_pair_did_not_install_or_load_is_one_another_pairing_may_answer() -> None:
    assert ranges.cannot_run(f"{ranges.UNLOADABLE}flax: ImportError")
    assert ranges.cannot_run(f"{ranges.UNINSTALLABLE}: no jaxlib 0.5.2")
    assert not ranges.cannot_run("not_applicable: needs flax.nnx")


def test_the_printed_counts_name_an_edge_bounded_by_its_case_s_needs_apart_from_the_unchecked() -> None:
    edge = ranges.edges({}, [eager("<0.12.1")])[0]
    bounded = ranges.Finding(edge, ranges.BOUNDED, why="flax 0.11.2 lacks the flag")
    lines = ranges.describe([bounded], [], 2, 4)
    assert lines[0].startswith("bounded by the case's needs: " + EAGER)
    assert lines[-1] == ("ranges: 1 edge(s): 0 confirmed, 0 wrong, 0 unchecked, 1 bounded by the case's needs; "
                         "2 of 4 probes")


def test_a_hole_inside_a_range_whose_lower_edge_went_unchecked_is_found_by_its_upper_edge() -> None:
    # flax 0.11.2 does not install, so >=0.12.0 goes unchecked; 0.12.1 and 0.12.2 pass inside.
    def hole(case: str, jax: Version, flax: Version) -> str | None:
        if flax == Version("0.11.2"):
            return "install_error: no wheel"
        return ranges.FAIL if flax in (Version("0.12.0"), Version("0.12.3")) else ranges.PASS

    releases = {**RELEASES, "flax": [*RELEASES["flax"], Version("0.12.4")]}
    found, _ = ranges.run(ranges.edges({}, [eager("<0.12.4")]), releases, partner, hole, 20)
    lower, upper = found
    assert lower.status == ranges.UNCHECKED
    assert lower.inside_said() == "nothing inside probed: the edge is not confirmed"
    assert upper.status == ranges.WRONG and Version("0.12.1") in upper.inside_asked + upper.inside_of
    assert "passes inside the declared range" in upper.why


def test_a_range_whose_lower_edge_is_confirmed_leaves_its_inside_to_that_edge() -> None:
    found = {finding.edge.text: finding for finding in ranges.run(ranges.edges({}, [eager("<0.12.1")]), RELEASES,
                                                                   partner, probe, 20)[0]}
    assert found["<0.12.1"].inside_of == () and found["<0.12.1"].inside_said() == "no release inside"


def test_an_edge_found_bounded_keeps_that_status_when_the_budget_ends_its_search_of_other_pairings() -> None:
    def unmet(case: str, jax: Version, flax: Version) -> str | None:
        return "not_applicable: needs x" if flax == Version("0.11.2") else probe(case, jax, flax)

    def two(package: str, before: Version, bound: Version) -> list[Version]:
        return [Version("0.8.0"), Version("0.8.1")]

    found, spent = ranges.run(ranges.edges({}, [eager("<0.12.1")]), RELEASES, two, unmet, 2)
    assert spent == 2 and found[0].status == ranges.BOUNDED and not found[0].unreached


def test_a_declaration_the_checker_cannot_probe_is_refused_in_one_line_naming_the_case() -> None:
    for spec, said in (("<=0.8.1", "<=0.8.1 cannot be checked"), ("==0.8.1", "==0.8.1 cannot be checked"),
                       (">=0.9.0,<0.8.0", "holds no release")):
        entry = Breakage(USE_MESH, "x", "https://x", {"jax": SpecifierSet(spec)})
        with pytest.raises(ranges.DeclarationError, match=re.escape(said)) as raised:
            ranges.edges({}, [entry])
        assert str(raised.value).startswith(USE_MESH) and "\n" not in str(raised.value)
    bounded = Change("jax>=0.8.0,<0.8.2", "x", raises="TypeError", kind="api", fix="y")
    with pytest.raises(ranges.DeclarationError, match=re.escape("<0.8.2 cannot be checked")):
        ranges.edges({USE_MESH: bounded}, [])


def test_a_declaration_of_lower_and_upper_bounds_makes_an_edge_of_each() -> None:
    entry = Breakage(USE_MESH, "x", "https://x", {"jax": SpecifierSet(">=0.7.0,<0.8.1")})
    assert [edge.text for edge in ranges.edges({}, [entry])] == [">=0.7.0", "<0.8.1"]


def _change_edge(raises: str) -> ranges.Edge:
    change = Change("jax>=0.7.1", "use_mesh is removed", raises=raises, kind="api", fix="jax.set_mesh")
    [edge] = ranges.edges({USE_MESH: change}, [])
    return edge


def _failing_as(error_type: str, at_flax_0_12_0_only: bool = False) -> ranges.CaseProbe:
    """use_mesh's truth, its failure raising `error_type` (only with flax 0.12.0 where asked; AttributeError else)."""
    def answer(case: str, jax: Version, flax: Version) -> str | None:
        if jax < Version("0.7.1"):
            return ranges.PASS
        odd = not at_flax_0_12_0_only or flax == Version("0.12.0")
        return ranges.failed_as(error_type if odd else "AttributeError", "x")
    return answer


def test_a_change_edge_is_confirmed_only_by_a_failure_of_the_class_it_declares() -> None:
    edge = _change_edge("AttributeError")
    assert ranges.check(edge, RELEASES, partner, ranges.Budget(_failing_as("AttributeError"), 20)).status == (
        ranges.CONFIRMED)
    other = ranges.check(edge, RELEASES, partner, ranges.Budget(_failing_as("ImportError"), 20))
    assert other.status == ranges.UNCHECKED and "not the declared failure: ImportError: x" in other.why
    # A subclass's name is another class: ShardingTypeError is not TypeError (as the report's Changes view reads it).
    assert ranges.check(_change_edge("TypeError"), RELEASES, partner,
                        ranges.Budget(_failing_as("ShardingTypeError"), 20)).status == ranges.UNCHECKED


def test_a_failure_of_another_class_at_one_pairing_is_unjudged_and_the_next_pairing_judges_the_edge() -> None:
    edge = _change_edge("AttributeError")

    def two(package: str, before: Version, bound: Version) -> list[Version]:
        return [Version("0.12.0"), Version("0.11.2")]

    finding = ranges.check(edge, RELEASES, two, ranges.Budget(_failing_as("ImportError", True), 20))
    assert (finding.status, finding.held) == (ranges.CONFIRMED, Version("0.11.2"))


def test_an_import_error_is_no_failure_of_an_edge_that_declares_no_class_but_a_removal_s_import_error_is() -> None:
    plain = ranges.Edge("m::t", "jax", Version("0.7.1"), True, "known breakage jax>=0.7.1")
    assert ranges.declared_failure(plain, ranges.failed_as("ValueError")) == ranges.FAIL
    assert ranges.declared_failure(plain, ranges.failed_as("ImportError", "no MainTrace")).startswith(
        ranges.NOT_DECLARED)
    removal = ranges.Edge("m::t", "jax", Version("0.7.1"), True, "changed since jax>=0.7.1", raises=("ImportError",))
    assert ranges.declared_failure(removal, ranges.failed_as("ImportError", "no shard_map")) == ranges.FAIL


def test_a_breakage_s_raises_is_carried_by_each_of_its_edges() -> None:
    entry = Breakage(EAGER, "r", "https://x", {"flax": SpecifierSet(">=0.12.0,<0.12.1")}, raises=("ValueError",))
    live = Breakage(EAGER, "r", "https://x", {"flax": SpecifierSet(">=0.12.0")}, raises=("KeyError",))
    assert [edge.raises for edge in ranges.edges({}, [entry, live])] == [("ValueError",)] * 2 + [("KeyError",)] * 2


@pytest.mark.parametrize("limit", [2, 3, 40])
def test_an_edge_both_of_whose_sides_disagree_is_wrong_whether_or_not_the_budget_lets_the_search_end(
        limit: int) -> None:
    # Declared jax<0.8.0, but the case still fails at 0.8.0 and 0.8.1 (fixed in 0.8.2): both bound probes fail.
    late = Breakage(USE_MESH, "r", "https://x", {"jax": SpecifierSet("<0.8.0")})
    releases = {**RELEASES, "jax": [*RELEASES["jax"], Version("0.8.2"), Version("0.9.0")]}

    def fixed_in_0_8_2(case: str, jax: Version, flax: Version) -> str | None:
        return ranges.FAIL if jax < Version("0.8.2") else ranges.PASS

    [finding], spent = ranges.run(ranges.edges({}, [late]), releases, partner, fixed_in_0_8_2, limit)
    assert finding.status == ranges.WRONG and spent <= limit
    assert finding.found == ("<0.8.2" if limit == 40 else "")
    assert ("search not finished" in finding.why) == (limit < 40)


def test_an_edge_whose_second_side_the_budget_never_reached_is_unchecked_not_wrong() -> None:
    late = Breakage(USE_MESH, "r", "https://x", {"jax": SpecifierSet("<0.8.0")})
    [finding], _ = ranges.run(ranges.edges({}, [late]), RELEASES, partner, lambda *asked: ranges.FAIL, 1)
    assert finding.status == ranges.UNCHECKED and finding.unreached


def below_0_6_0(releases: dict[str, list[Version]], probe: ranges.CaseProbe) -> tuple[list[ranges.Finding], int]:
    """A breakage declared for jax<0.6.0, checked from jax 0.5.0 up (its range open below) with `probe`."""
    return ranges.run(ranges.edges({}, [broken("<0.6.0")]), releases, partner, probe, 40, {"jax": Version("0.5.0")})


def test_a_row_counts_the_releases_inside_where_the_case_s_needs_are_unmet() -> None:
    releases = {**RELEASES, "jax": [Version(v) for v in ("0.5.0", "0.5.1", "0.5.2", "0.5.3", "0.6.0")]}

    def needs_0_5_3(case: str, jax: Version, flax: Version) -> str | None:
        if jax < Version("0.5.3"):
            return "not_applicable: jax.sharding.AxisType is absent"
        return ranges.FAIL if jax < Version("0.6.0") else ranges.PASS

    found, _ = below_0_6_0(releases, needs_0_5_3)
    row = found[0].as_row()
    assert (row["status"], row["inside_releases"], row["inside_judged"], row["inside_unmet"]) == (
        ranges.CONFIRMED, 3, 0, 3)


def test_a_release_judged_before_a_nearer_one_was_found_unmet_is_not_counted_unmet(tmp_path: Path) -> None:
    releases = {**RELEASES, "jax": [Version(v) for v in ("0.5.0", "0.5.1", "0.5.2", "0.5.3", "0.5.4", "0.6.0")]}

    def unmet_at_0_5_2(case: str, jax: Version, flax: Version) -> str | None:
        # A need unmet at one release between two that meet it (its pairing lacks an API there, say).
        if jax == Version("0.5.2"):
            return "not_applicable: jax.sharding.AxisType is absent"
        return ranges.FAIL if jax < Version("0.6.0") else ranges.PASS

    # <0.6.0 from 0.5.0, the middle first: 0.5.1 and 0.5.0 judged, then 0.5.2 unmet, which lies nearer the bound.
    found, spent = below_0_6_0(releases, unmet_at_0_5_2)
    row = found[0].as_row()
    assert (row["status"], row["inside_releases"], row["inside_judged"], row["inside_unmet"]) == (
        ranges.CONFIRMED, 4, 3, 1)
    # The checker's own row reads back: its unmet and judged releases are told apart, never more than it owns.
    stored = ranges.store(tmp_path, found, spent, 40)
    assert outputs.read_ranges(stored)["edges"] == [row]
