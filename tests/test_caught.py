"""harness/tools/caught.py: a report is caught at its own transition, by a confirmed edge its citing case declares
now; a citation alone, an edge at another release or a stale stored row earns nothing."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from harness.census import Report
from harness.tools.caught import BOUNDS_ONLY, CAUGHT, NOT_CAUGHT, OFF_CPU, catches, inside_judged, summary, transitions
from harness.tools.ranges import BOUNDED


def _report(report_id: str, appeared: str = "jax==0.9.0", fixed: str = "live", uncited: str = "",
            cpu: bool = True) -> Report:
    return Report(report_id, "https://x", "fam", "2025-01-01", appeared, fixed, "s", uncited, cpu)


def _edge(case: str, status: str, declared: str = ">=0.9.0", found: str | None = None,
          package: str = "jax", inside: tuple[int, int] | None = (0, 0)) -> dict[str, object]:
    """A stored row; `inside` is (the releases inside its range it owns, those of them judged)."""
    row: dict[str, object] = {"case": case, "package": package, "declared": declared, "source": "known breakage",
                              "status": status, "found": found, "why": "w"}
    if inside is not None:  # a row of the bounds-only checker has no counts
        row["inside_releases"], row["inside_judged"] = inside
    return row


def _declared(*rows: dict[str, object]) -> set[tuple[str, str, str, str]]:
    return {(str(row["case"]), str(row["package"]), str(row["declared"]), str(row["source"])) for row in rows}


def _one(report: Report, citations: dict[str, tuple[str, ...]], rows: list[dict[str, object]],
         declared: set[tuple[str, str, str, str]] | None = None):  # type: ignore[no-untyped-def]
    (catch,) = catches({report.id: report}, citations, rows, _declared(*rows) if declared is None else declared)
    return catch


def test_a_confirmed_edge_at_the_report_s_first_bad_release_catches_it() -> None:
    catch = _one(_report("a/b#1"), {"m::t1": ("a/b#1",)}, [_edge("m::t1", "confirmed")])
    assert catch.status == CAUGHT and catch.cases == ("m::t1",)


def test_a_confirmed_edge_at_another_release_than_the_report_s_does_not_catch_it() -> None:
    catch = _one(_report("a/b#1", appeared="jax==0.8.1"), {"m::t1": ("a/b#1",)}, [_edge("m::t1", "confirmed")])
    assert catch.status == NOT_CAUGHT
    assert catch.why == ("no edge of its cases at its first release (jax>=0.8.1): a live edge says only that the "
                         "newest release fails")


def test_a_fixed_report_is_caught_where_its_case_passes_from_the_fix_on() -> None:
    rows = [_edge("m::t1", "confirmed"), _edge("m::t1", "confirmed", "<0.9.2")]
    catch = _one(_report("a/b#1", fixed="jax==0.9.2"), {"m::t1": ("a/b#1",)}, rows)
    assert catch.status == CAUGHT


def test_a_fixed_report_whose_case_still_fails_after_the_fix_is_not_caught() -> None:
    # The case's edge at the report's start is confirmed, but it declares no end at the fix: it still fails there.
    catch = _one(_report("a/b#1", fixed="flax==0.12.6"), {"m::t1": ("a/b#1",)}, [_edge("m::t1", "confirmed")])
    assert catch.status == NOT_CAUGHT and "flax<0.12.6" in catch.why


def test_a_stored_row_of_a_declaration_the_corpus_no_longer_makes_vouches_for_nothing() -> None:
    rows = [_edge("m::t1", "confirmed")]
    assert _one(_report("a/b#1"), {"m::t1": ("a/b#1",)}, rows, _declared(*rows)).status == CAUGHT
    stale = _one(_report("a/b#1"), {"m::t1": ("a/b#1",)}, rows, {("m::t1", "jax", ">=0.9.1", "known breakage")})
    assert stale.status == NOT_CAUGHT and "declare no checked edge" in stale.why
    # The same bound of a range whose other end moved since: the stored row spoke for the old range.
    moved = _one(_report("a/b#1"), {"m::t1": ("a/b#1",)}, rows, {("m::t1", "jax", ">=0.9.0", "known breakage <1")})
    assert moved.status == NOT_CAUGHT


def test_an_edge_confirmed_at_another_bound_than_declared_does_not_catch() -> None:
    rows = [_edge("m::t1", "confirmed", found=">=0.9.1")]
    assert _one(_report("a/b#1"), {"m::t1": ("a/b#1",)}, rows).status == NOT_CAUGHT


def test_a_wrong_edge_of_the_same_case_spoils_the_confirmed_one() -> None:
    rows = [_edge("m::t1", "confirmed"), _edge("m::t1", "wrong", "<0.12.1", "<0.12.2", "flax")]
    catch = _one(_report("a/b#1"), {"m::t1": ("a/b#1",)}, rows)
    assert catch.status == NOT_CAUGHT and "flax<0.12.1 of m::t1 is wrong: releases show <0.12.2" in catch.why


def test_a_live_report_is_caught_by_its_confirmed_live_edge_and_not_by_an_unchecked_one() -> None:
    report = _report("a/b#1", appeared="unrecorded")
    assert _one(report, {"m::t1": ("a/b#1",)}, [_edge("m::t1", "confirmed", "live")]).status == CAUGHT
    assert _one(report, {"m::t1": ("a/b#1",)}, [_edge("m::t1", "unchecked", "live")]).status == NOT_CAUGHT


def test_a_report_whose_census_row_names_no_release_cannot_be_caught() -> None:
    catch = _one(_report("a/b#1", appeared="unrecorded", fixed="unrecorded"), {"m::t1": ("a/b#1",)},
                 [_edge("m::t1", "confirmed")])
    assert catch.status == NOT_CAUGHT and "names no release" in catch.why


def test_a_citation_whose_case_declares_no_range_earns_nothing() -> None:
    catch = _one(_report("a/b#1"), {"m::t1": ("a/b#1",)}, [])
    assert catch.status == NOT_CAUGHT and "declare no checked edge" in catch.why


def test_one_confirming_case_of_several_is_enough() -> None:
    catch = _one(_report("a/b#1"), {"m::t1": ("a/b#1",), "m::t9": ("a/b#1",)}, [_edge("m::t9", "confirmed")])
    assert catch.status == CAUGHT and catch.cases == ("m::t9",)


def test_the_transitions_read_each_pin_and_a_development_release_as_the_release_it_leads_to() -> None:
    bad, good = transitions(_report("a/b#1", appeared="flax==0.12.1 with jax==0.8.2", fixed="flax==0.12.2"))
    assert bad == {("flax", ">=0.12.1"), ("jax", ">=0.8.2")} and good == {("flax", "<0.12.2")}
    bad, good = transitions(_report("a/b#1", appeared="jax==0.6.1.dev20250505", fixed="live"))
    assert bad == {("jax", ">=0.6.1")} and good == {("jax", "live"), ("flax", "live")}
    assert transitions(_report("a/b#1", appeared="jax nightly (2026-03)", fixed="unrecorded")) == (set(), set())


def test_the_summary_leaves_off_cpu_reports_out_of_the_share() -> None:
    census = {"a/b#1": _report("a/b#1"), "a/b#2": _report("a/b#2"), "a/b#3": _report("a/b#3", uncited="needs x"),
              "a/b#4": _report("a/b#4", uncited="needs a TPU", cpu=False)}
    rows = [_edge("m::t1", "confirmed")]
    found = catches(census, {"m::t1": ("a/b#1",)}, rows, _declared(*rows))
    assert [catch.status for catch in found] == [CAUGHT, NOT_CAUGHT, NOT_CAUGHT, OFF_CPU]
    assert found[2].why == "no case cites it: needs x"
    assert summary(found) == ("1 of 3 reports a CPU cell can show are caught at their own transition (33 %); "
                              "1 of 4 need more than a CPU")


def test_an_edge_bounded_by_its_case_s_needs_does_not_catch_the_report_and_says_so() -> None:
    bounded = _edge("m::t1", "bounded by the case's needs", declared=">=0.12.0", package="flax")
    catch = _one(_report("a/b#1", appeared="flax==0.12.0"), {"m::t1": ("a/b#1",)}, [bounded])
    assert catch.status == NOT_CAUGHT
    assert catch.why == "edge flax>=0.12.0 of m::t1 is bounded by the case's needs: w"


def test_a_live_report_with_a_first_release_is_not_caught_by_its_live_edge_alone() -> None:
    report = _report("a/b#1", appeared="flax==0.12.9")
    catch = _one(report, {"m::t1": ("a/b#1",)}, [_edge("m::t1", "confirmed", "live", package="jax")])
    assert catch.status == NOT_CAUGHT
    assert catch.why == ("no edge of its cases at its first release (flax>=0.12.9): a live edge says only that the "
                         "newest release fails")


def test_a_live_report_is_caught_at_its_first_release_only_with_its_case_s_live_edge_confirmed_too() -> None:
    report = _report("a/b#1", appeared="flax==0.12.9")
    first = _edge("m::t1", "confirmed", ">=0.12.9", package="flax")
    assert _one(report, {"m::t1": ("a/b#1",)}, [first, _edge("m::t1", "confirmed", "live")]).status == CAUGHT
    assert _one(report, {"m::t1": ("a/b#1",)}, [first]).status == CAUGHT  # a Change: no live edge declared
    unchecked = _one(report, {"m::t1": ("a/b#1",)}, [first, _edge("m::t1", "unchecked", "live")])
    assert unchecked.status == NOT_CAUGHT and unchecked.why == "edge jaxlive of m::t1 is unchecked: w"


def test_a_row_of_the_bounds_only_checker_waits_on_a_probe_inside_instead_of_catching() -> None:
    catch = _one(_report("a/b#1"), {"m::t1": ("a/b#1",)}, [_edge("m::t1", "confirmed", inside=None)])
    assert catch.status == BOUNDS_ONLY and catch.cases == ("m::t1",)
    assert "no release inside its range judged yet" in catch.why


def test_a_range_whose_inside_was_asked_but_never_judged_is_not_caught_and_one_judged_release_is_enough() -> None:
    # 3 of 14 releases inside asked, none of them judged (not applicable or not installable there), then one judged.
    assert _one(_report("a/b#1"), {"m::t1": ("a/b#1",)}, [_edge("m::t1", "confirmed", inside=(14, 0))]).status \
        == BOUNDS_ONLY
    assert _one(_report("a/b#1"), {"m::t1": ("a/b#1",)}, [_edge("m::t1", "confirmed", inside=(14, 1))]).status == CAUGHT


def test_the_inside_of_a_range_is_read_over_every_edge_of_its_declaration() -> None:
    # `>=A,<B`: the `>=` edge owns the inside; the `<B` row owns no release inside of its own.
    owner, other = {"inside_releases": 5, "inside_judged": 2}, {"inside_releases": 0, "inside_judged": 0}
    assert inside_judged([owner, other])
    assert inside_judged([other, other])  # no release lies inside the range: nothing there to judge
    assert not inside_judged([{"inside_releases": 7, "inside_judged": 0}, other])
    assert not inside_judged([owner, {}])  # one edge of the declaration from the bounds-only checker


def test_the_inside_is_read_from_the_row_s_counts_never_from_its_text() -> None:
    said = {"inside": "2 of 5 releases inside probed: 0.8.1, 0.8.2"}
    assert not inside_judged([said])  # the text alone, with no counts, is no evidence
    assert inside_judged([{**said, "inside_releases": 5, "inside_judged": 2}])
    assert not inside_judged([{"inside_releases": "5", "inside_judged": 2}])  # a count that is not a number
    assert not inside_judged([{"inside_releases": 5, "inside_judged": True}]) and not inside_judged([])


def test_the_summary_counts_the_reports_waiting_on_an_inside_probe_and_never_rounds_a_share_up() -> None:
    census = {f"a/b#{n}": _report(f"a/b#{n}") for n in range(1, 4)}
    rows = [_edge("m::t1", "confirmed"), _edge("m::t2", "confirmed", inside=None)]
    found = catches(census, {"m::t1": ("a/b#1",), "m::t2": ("a/b#2",)}, rows, _declared(*rows))
    assert summary(found) == ("1 of 3 reports a CPU cell can show are caught at their own transition (33 %); 1 more "
                              "confirmed at their bounds only, waiting on a probe inside their range; 0 of 3 need "
                              "more than a CPU")
    caught = {f"a/b#{n}": _report(f"a/b#{n}") for n in range(1, 4)}
    two = [_edge("m::t1", "confirmed")]
    share = summary(catches(caught, {"m::t1": ("a/b#1", "a/b#2")}, two, _declared(*two)))
    assert "(66 %)" in share  # 2 of 3 is 66.7 %: floored, not rounded up to 67


def _from(case: str, declared: str, status: str = "confirmed", source: str = "known breakage jax>=0.6.1,<0.7.0",
          inside: tuple[int, int] = (0, 0)) -> dict[str, object]:
    return {**_edge(case, status, declared, inside=inside), "source": source}


def test_a_fixed_report_is_caught_through_a_range_that_starts_where_it_appeared() -> None:
    report = _report("a/b#1", appeared="jax==0.6.1", fixed="jax==0.7.0")
    rows = [_from("m::t1", ">=0.6.1"), _from("m::t1", "<0.7.0")]
    assert _one(report, {"m::t1": ("a/b#1",)}, rows).status == CAUGHT
    # Where the case's needs begin at that release, the start reads bounded: the case could not fail before it.
    bounded = [_from("m::t1", ">=0.6.1", "bounded by the case's needs"), _from("m::t1", "<0.7.0")]
    assert _one(report, {"m::t1": ("a/b#1",)}, bounded).status == CAUGHT


def test_a_fixed_report_is_not_caught_through_a_range_open_below_where_it_appeared() -> None:
    # The case is declared broken before the report appeared: its failure there is another bug's, or the census's
    # start is wrong; either way the report's own transition is not shown.
    report = _report("a/b#1", appeared="jax==0.6.1", fixed="jax==0.7.0")
    rows = [_from("m::t1", "<0.7.0", source="known breakage jax<0.7.0")]
    catch = _one(report, {"m::t1": ("a/b#1",)}, rows)
    assert catch.status == NOT_CAUGHT
    assert catch.why == ("known breakage jax<0.7.0 of m::t1 does not start where the report appeared (jax>=0.6.1): "
                         "its case may fail before the report for another reason; declare the range from there")
    unchecked = [_from("m::t1", ">=0.6.1", "unchecked"), _from("m::t1", "<0.7.0")]
    assert _one(report, {"m::t1": ("a/b#1",)}, unchecked).status == NOT_CAUGHT
    # No recorded start: the fix edge alone is the transition.
    assert _one(_report("a/b#1", appeared="unrecorded", fixed="jax==0.7.0"), {"m::t1": ("a/b#1",)}, rows).status \
        == CAUGHT


def test_a_report_of_a_breakage_is_not_caught_by_a_case_that_only_warns_there() -> None:
    warned = _from("m::t1", ">=0.9.0", source="warned jax>=0.9.0")
    breakage = _one(_report("a/b#1"), {"m::t1": ("a/b#1",)}, [warned])
    assert breakage.status == NOT_CAUGHT and "declare no checked edge" in breakage.why
    deprecation = Report("a/b#1", "https://x", "fam", "2025-01-01", "jax==0.9.0", "live", "jax 0.9.0 deprecated x")
    assert _one(deprecation, {"m::t1": ("a/b#1",)}, [warned]).status == CAUGHT


def test_a_warned_edge_of_a_change_naming_no_warning_text_judges_nothing() -> None:
    deprecation = Report("a/b#1", "https://x", "fam", "2025-01-01", "jax==0.9.0", "live", "jax 0.9.0 deprecated x")
    warned = _from("m::t1", ">=0.9.0", source="warned jax>=0.9.0")
    (catch,) = catches({"a/b#1": deprecation}, {"m::t1": ("a/b#1",)}, [warned], _declared(warned), {"m::t1"})
    assert catch.status == NOT_CAUGHT
    assert catch.why == ("edge jax>=0.9.0 of m::t1 is unchecked: its change names no warning text, so any warning of "
                         "the case would have read as its own")
    (named,) = catches({"a/b#1": deprecation}, {"m::t1": ("a/b#1",)}, [warned], _declared(warned), {"m::t9"})
    assert named.status == CAUGHT


def test_checked_in_cells_is_backed_only_by_a_confirmed_edge_at_each_release_the_report_names() -> None:
    def cells(appeared: str, fixed: str) -> Report:
        return Report("a/b#1", "https://x", "fam", "2025-01-01", appeared, fixed, "s", checked="cells")

    both = [_from("m::t1", ">=0.6.1"), _from("m::t1", "<0.7.0")]
    assert not _one(cells("jax==0.6.1", "jax==0.7.0"), {"m::t1": ("a/b#1",)}, both).unbacked
    start_only = [_from("m::t1", ">=0.6.1"), _from("m::t1", "<0.7.0", "unchecked")]
    assert _one(cells("jax==0.6.1", "jax==0.7.0"), {"m::t1": ("a/b#1",)}, start_only).unbacked
    # A live report with no recorded start names only its newest release; one that names none backs nothing.
    assert not _one(cells("unrecorded", "live"), {"m::t1": ("a/b#1",)}, [_edge("m::t1", "confirmed", "live")]).unbacked
    found = catches({"a/b#1": cells("unrecorded", "unrecorded")}, {"m::t1": ("a/b#1",)}, both, _declared(*both))
    assert found[0].unbacked
    assert summary(found).endswith("; 1 of 1 that say their releases were checked in cells have no confirmed edge at "
                                   "each release they name")
    read = Report("a/b#1", "https://x", "fam", "2025-01-01", "unrecorded", "unrecorded", "s")
    assert not _one(read, {"m::t1": ("a/b#1",)}, both).unbacked  # "read" claims nothing of cells


def test_a_report_whose_failure_sits_behind_another_s_is_not_caught_through_their_one_edge() -> None:
    rows = [_edge("m::t1", "confirmed")]
    first = _report("a/b#1")
    behind = Report("a/b#2", "https://x", "fam", "2025-01-01", "jax==0.9.0", "live", "s", behind="a/b#1")
    found = catches({"a/b#1": first, "a/b#2": behind}, {"m::t1": ("a/b#1", "a/b#2")}, rows, _declared(*rows))
    assert [catch.status for catch in found] == [CAUGHT, NOT_CAUGHT]
    assert found[1].why.startswith("its failure sits behind a/b#1's in every release, so no probe sees it apart")


#: What a stored row may say, as harness.outputs' reader lets it through: bounds, statuses, what releases showed, and
#: the inside counts (None: the bounds-only checker's row).
_BOUNDS = (">=0.9.0", "<0.9.2", ">=0.8.0", "live")
_INSIDE = st.one_of(st.none(), st.tuples(st.integers(0, 3), st.integers(0, 3)).map(lambda c: (c[0], min(c))))
_ROWS = st.lists(st.tuples(st.sampled_from(_BOUNDS), st.sampled_from(("confirmed", "wrong", "unchecked")),
                           st.sampled_from((None, ">=0.9.1")), _INSIDE, st.sampled_from(("decl a", "decl b"))),
                 max_size=5)


@settings(max_examples=200, deadline=None)
@given(rows=_ROWS, fixed=st.sampled_from(("live", "jax==0.9.2")))
def test_no_report_is_caught_without_a_confirmed_row_at_its_transition_judged_inside(
        rows: list[tuple[str, str, str | None, tuple[int, int] | None, str]], fixed: str) -> None:
    # Whatever the stored rows say, CAUGHT needs a confirmed row found at its bound at the report's transition, a
    # declaration whose inside was judged (or holds no release), and no wrong row of the case.
    stored = []
    for declared, status, found, inside, source in rows:
        row: dict[str, object] = {"case": "m::t1", "package": "jax", "declared": declared, "source": source,
                                  "status": status, "found": found, "why": "w"}
        if inside is not None:
            row.update(inside="counted", inside_releases=inside[0], inside_judged=inside[1])
        stored.append(row)
    report = _report("a/b#1", fixed=fixed)
    (catch,) = catches({report.id: report}, {"m::t1": ("a/b#1",)}, stored, _declared(*stored))
    if catch.status != CAUGHT:
        return
    bad, good = transitions(report)
    wanted = good if fixed != "live" else bad | good
    assert not any(row["status"] == "wrong" for row in stored)
    assert any(row["status"] == "confirmed" and row["found"] is None and (row["package"], row["declared"]) in wanted
               and inside_judged([other for other in stored if other["source"] == row["source"]])
               for row in stored)


def test_a_fixed_report_is_caught_through_a_breakage_whose_other_package_s_range_starts_where_it_appeared() -> None:
    # jax 0.8.2 broke it with every flax before 0.12.2, which fixed it: one entry, jax>=0.8.2 and flax<0.12.2.
    report = _report("a/b#1", appeared="jax==0.8.2", fixed="flax==0.12.2")
    start = _from("m::t1", ">=0.8.2", source="known breakage jax>=0.8.2")
    fix = {**_from("m::t1", "<0.12.2", source="known breakage flax<0.12.2"), "package": "flax"}
    whole = "known breakage jax>=0.8.2, flax<0.12.2"
    joined = {("m::t1", "known breakage jax>=0.8.2"): whole, ("m::t1", "known breakage flax<0.12.2"): whole}
    (catch,) = catches({report.id: report}, {"m::t1": ("a/b#1",)}, [start, fix], _declared(start, fix), (), joined)
    assert catch.status == CAUGHT
    # Two entries of the case, each on one package, are two declarations: the flax range starts nowhere.
    (apart,) = catches({report.id: report}, {"m::t1": ("a/b#1",)}, [start, fix], _declared(start, fix))
    assert apart.status == NOT_CAUGHT and "does not start where the report appeared (jax>=0.8.2)" in apart.why


def test_a_range_whose_every_release_inside_lacks_the_case_s_needs_is_judged_inside_and_no_other() -> None:
    # `<0.6.0` of a case that needs an API first in 0.5.3 (the bound's failing side): 11 releases inside, none where
    # the case runs, so no hole can be there; one release inside that did not install leaves the range unjudged.
    every = {"inside_releases": 11, "inside_judged": 0, "inside_unmet": 11}
    assert inside_judged([every])
    assert not inside_judged([{**every, "inside_unmet": 10}])
    assert not inside_judged([{"inside_releases": 11, "inside_judged": 0}])  # a row of a checker that did not count


#: blackjax-devs/blackjax#932 and its case as the stored check holds them: the change `jax>=0.9.0` confirmed with
#: every release inside judged (0.9.0.1 to 0.12.0.1, the newest), and the change's warned range; no live edge, since
#: a change declares none.
_ENSEMBLE = "shard_map_modes_user::test_ensemble_step_closing_over_signs_from_the_last_step"
_CHANGE = "changed since jax>=0.9.0"


def _measured_in_cells(appeared: str = "jax==0.9.0", fixed: str = "live", summary_: str = "s") -> Report:
    return Report("blackjax-devs/blackjax#932", "https://x", "shard_map_modes", "2026-05-30", appeared, fixed,
                  summary_, checked="cells")


def _change_rows(**since: object) -> list[dict[str, object]]:
    warned = "warned jax>=0.8.1,<0.9.0"
    return [{**_from(_ENSEMBLE, ">=0.9.0", source=_CHANGE, inside=(11, 11)), **since},
            _from(_ENSEMBLE, ">=0.8.1", source=warned, inside=(2, 2)), _from(_ENSEMBLE, "<0.9.0", source=warned)]


def test_a_live_report_of_a_documented_change_is_backed_by_the_change_s_confirmed_edge_at_its_first_release() -> None:
    catch = _one(_measured_in_cells(), {_ENSEMBLE: ("blackjax-devs/blackjax#932",)}, _change_rows())
    assert catch.status == CAUGHT and not catch.unbacked


@pytest.mark.parametrize("status", ["unchecked", "wrong", BOUNDED])
def test_a_change_s_edge_that_is_not_confirmed_backs_nothing(status: str) -> None:
    rows = _change_rows(status=status)
    assert _one(_measured_in_cells(), {_ENSEMBLE: ("blackjax-devs/blackjax#932",)}, rows).unbacked


def test_a_change_s_edge_whose_releases_show_another_bound_backs_nothing() -> None:
    rows = _change_rows(found=">=0.9.1")
    assert _one(_measured_in_cells(), {_ENSEMBLE: ("blackjax-devs/blackjax#932",)}, rows).unbacked


def test_a_change_s_edge_never_probed_inside_does_not_stand_for_the_newest_release() -> None:
    cites: dict[str, tuple[str, ...]] = {_ENSEMBLE: ("blackjax-devs/blackjax#932",)}
    bounds_only = _change_rows()
    del bounds_only[0]["inside_releases"], bounds_only[0]["inside_judged"]
    assert _one(_measured_in_cells(), cites, bounds_only).unbacked
    assert _one(_measured_in_cells(), cites, _change_rows(inside_judged=0)).unbacked
    # A change at the newest release has nothing inside: its bound's failing side is the newest release.
    assert not _one(_measured_in_cells(), cites, _change_rows(inside_releases=0, inside_judged=0)).unbacked


@pytest.mark.parametrize("appeared", ["jax==0.8.1", "flax==0.9.0", "unrecorded"])
def test_a_change_at_another_release_than_the_report_s_first_backs_nothing(appeared: str) -> None:
    report = _measured_in_cells(appeared=appeared)
    assert _one(report, {_ENSEMBLE: ("blackjax-devs/blackjax#932",)}, _change_rows()).unbacked


def test_a_change_does_not_back_a_report_fixed_in_a_release() -> None:
    # The report says a release fixed it: only a confirmed edge at that fix backs that side, never a change.
    report = _measured_in_cells(fixed="jax==0.10.0")
    assert _one(report, {_ENSEMBLE: ("blackjax-devs/blackjax#932",)}, _change_rows()).unbacked


def test_another_case_s_change_backs_nothing() -> None:
    other = "shard_map_modes_user::test_another_case"
    rows = [{**row, "case": other} for row in _change_rows()]
    assert _one(_measured_in_cells(), {_ENSEMBLE: ("blackjax-devs/blackjax#932",), other: ()}, rows).unbacked


def test_a_bug_s_edge_at_the_first_release_backs_a_live_report_only_with_its_live_edge_confirmed() -> None:
    # A known breakage may be fixed: its `>=` edge alone says nothing of the newest release, its live edge does.
    start = _from(_ENSEMBLE, ">=0.9.0", source="known breakage jax>=0.9.0", inside=(11, 11))
    cites: dict[str, tuple[str, ...]] = {_ENSEMBLE: ("blackjax-devs/blackjax#932",)}
    live = _from(_ENSEMBLE, "live", "unchecked", source="known breakage jax>=0.9.0, live")
    assert _one(_measured_in_cells(), cites, [start]).unbacked
    assert _one(_measured_in_cells(), cites, [start, live]).unbacked
    assert not _one(_measured_in_cells(), cites, [start, {**live, "status": "confirmed"}]).unbacked


def test_a_warned_edge_at_the_first_release_is_no_change_that_backs_a_live_report() -> None:
    # A deprecation keeps its warned rows, but a warning's start is not where the change breaks the case.
    report = _measured_in_cells(summary_="jax 0.9.0 deprecated x")
    warned = _from(_ENSEMBLE, ">=0.9.0", source="warned jax>=0.9.0", inside=(11, 11))
    assert _one(report, {_ENSEMBLE: ("blackjax-devs/blackjax#932",)}, [warned]).unbacked
