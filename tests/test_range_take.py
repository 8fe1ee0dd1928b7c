"""harness/tools/range_take.py: a finished check's rows are taken into the stored document case by case, only for the
cases whose every edge declared now it settled, and a check that speaks for another corpus, kept rows of an earlier
check or ran otherwise is refused in one line."""

from __future__ import annotations

import json
import os
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import pytest

from harness import outputs
from harness.tools import range_take
from harness.tools.range_take import Check, TakeError, adopt, read_check, unsettled

A, B, C = "m::test_a", "m::test_b", "m::test_c"
#: Each case's one declaration: A `>=0.7.0,<0.8.0` (two edges), B and C `>=0.9.0`.
DECLARED = {(A, "jax", ">=0.7.0", "known breakage jax>=0.7.0,<0.8.0"),
            (A, "jax", "<0.8.0", "known breakage jax>=0.7.0,<0.8.0"),
            (B, "jax", ">=0.9.0", "changed since jax>=0.9.0"), (C, "flax", ">=0.12.0", "changed since flax>=0.12.0")}
DIGESTS = {A: "a-now", B: "b-now", C: "c-now"}
RUN = "20261128T124000Z-cd34"


def _rows(case: str, status: str = "confirmed", why: str = "") -> list[dict[str, Any]]:
    return [{"case": case, "package": package, "declared": declared, "source": source, "status": status,
             "found": None, "why": why, "inside": "no release inside", "inside_releases": 0, "inside_judged": 0}
            for case_, package, declared, source in sorted(DECLARED) if case_ == case]


def _document(rows: list[dict[str, Any]], stamps: dict[str, dict[str, Any]], commit: str | None = "c-check",
              probes: int = 4, budget: int = 10, **more: Any) -> dict[str, Any]:
    return {"schema_version": 2, "probes": probes, "budget": budget,
            "wrong": sum(row["status"] == "wrong" for row in rows),
            "unchecked": sum(row["status"] == "unchecked" for row in rows), "edges": rows,
            "needs_without_change": [], "options": {}, "commit": commit, "cases": stamps, **more}


def _stored() -> dict[str, Any]:
    """The stored check: A and B unchecked, stamped at an older commit; C's rows from a bounds-only checker."""
    c_rows = [{k: v for k, v in row.items() if not k.startswith("inside")} for row in _rows(C)]
    old = {case: {"digest": f"{case[-1]}-old", "commit": "c-old"} for case in (A, B)}
    return _document([*_rows(A, "unchecked", "budget spent"), *_rows(B, "unchecked", "budget spent"), *c_rows],
                     old, commit=None, probes=100, budget=300,
                     needs_without_change=[{"case": B, "held": "jax 0.6.2", "unmet": "jax 0.9.0", "reason": "old"}])


def _check(rows: list[dict[str, Any]], cases: tuple[str, ...] = (A, B), **more: Any) -> Check:
    stamps = {case: {"digest": DIGESTS[case], "commit": "c-check"} for case in cases}
    return Check(_document(rows, stamps, **more), Path("check/report/ranges.json"), RUN, "2026-11-28")


def test_a_case_whose_every_declared_edge_the_check_confirmed_replaces_its_stored_rows_and_stamp() -> None:
    adopted = adopt(_stored(), _check([*_rows(A), *_rows(B, "wrong", "0.9.1 passes")]), DECLARED, DIGESTS)
    assert adopted.taken == (A,)
    edges = adopted.document["edges"]
    assert [(row["case"], row["status"]) for row in edges if row["case"] == A] == [(A, "confirmed"), (A, "confirmed")]
    assert adopted.document["cases"][A] == {"digest": "a-now", "commit": "c-check", "run": RUN, "date": "2026-11-28"}
    # A case with one edge wrong keeps what was stored of it, rows and stamp.
    assert [row["status"] for row in edges if row["case"] == B] == ["unchecked"]
    assert adopted.document["cases"][B] == {"digest": "b-old", "commit": "c-old"}
    assert adopted.left == {B: "jax>=0.9.0 [changed since jax>=0.9.0] is wrong: 0.9.1 passes"}


def test_an_edge_bounded_by_the_case_s_needs_is_settled_and_an_unchecked_one_is_not() -> None:
    bounded = [{**row, "status": "bounded by the case's needs"} if row["declared"] == ">=0.7.0" else row
               for row in _rows(A)]
    assert unsettled(bounded, {key for key in DECLARED if key[0] == A}) == ""
    unreached = _rows(A)[:1] + _rows(A, "unchecked", "the probe budget (40) is spent")[1:]
    assert unsettled(unreached, {key for key in DECLARED if key[0] == A}) == (
        "jax>=0.7.0 [known breakage jax>=0.7.0,<0.8.0] is unchecked: the probe budget (40) is spent")


def test_a_case_with_an_edge_declared_now_that_the_check_holds_no_row_of_is_not_taken() -> None:
    adopted = adopt(_stored(), _check(_rows(A)[:1] + _rows(B)), DECLARED, DIGESTS)
    assert adopted.taken == (B,)
    assert adopted.left == {A: "jax>=0.7.0 [known breakage jax>=0.7.0,<0.8.0] is not in the check"}


def test_the_counts_are_recomputed_the_probes_and_budgets_add_up_and_the_check_s_commit_is_recorded() -> None:
    adopted = adopt(_stored(), _check([*_rows(A), *_rows(B)], probes=7, budget=40), DECLARED, DIGESTS)
    document = adopted.document
    assert (document["wrong"], document["unchecked"]) == (0, 0)
    assert (document["probes"], document["budget"]) == (107, 340)
    assert document["commit"] == "c-check" and document["options"] == {}
    left = adopt(_stored(), _check([*_rows(A), *_rows(B, "unchecked")]), DECLARED, DIGESTS).document
    assert (left["wrong"], left["unchecked"]) == (0, 1)  # B's stored row stands, and is counted


def test_rows_are_replaced_where_their_case_stood_and_a_case_new_to_the_document_comes_last() -> None:
    stored = _stored()
    stored["edges"] = [row for row in stored["edges"] if row["case"] != B]
    adopted = adopt(stored, _check([*_rows(B), *_rows(A)]), DECLARED, DIGESTS)
    assert [row["case"] for row in adopted.document["edges"]] == [A, A, C, B]
    # The stored document is not changed in place: the adopted one is a new document.
    assert [row["status"] for row in stored["edges"] if row["case"] == A] == ["unchecked", "unchecked"]


def test_a_row_of_a_declaration_the_corpus_no_longer_makes_is_not_taken_with_its_case() -> None:
    dropped = {**_rows(B)[0], "declared": ">=0.8.0", "source": "changed since jax>=0.8.0"}
    adopted = adopt(_stored(), _check([*_rows(B), dropped]), DECLARED, DIGESTS)
    assert adopted.taken == (B,)
    assert [row["declared"] for row in adopted.document["edges"] if row["case"] == B] == [">=0.9.0"]


def test_a_taken_case_s_needs_gone_with_no_change_are_the_check_s_and_other_cases_keep_theirs() -> None:
    need = {"case": A, "held": "jax 0.6.2", "unmet": "jax 0.7.0", "reason": "new"}
    taken = adopt(_stored(), _check(_rows(A), needs_without_change=[need]), DECLARED, DIGESTS).document
    assert taken["needs_without_change"] == [{"case": B, "held": "jax 0.6.2", "unmet": "jax 0.9.0", "reason": "old"},
                                             need]
    replaced = adopt(_stored(), _check(_rows(B), needs_without_change=[]), DECLARED, DIGESTS).document
    assert replaced["needs_without_change"] == []  # B was taken, and the check found none of its needs gone


def test_only_the_cases_asked_are_taken() -> None:
    adopted = adopt(_stored(), _check([*_rows(A), *_rows(B)]), DECLARED, DIGESTS, asked=[B])
    assert adopted.taken == (B,) and adopted.left == {}
    assert adopted.document["cases"][A] == {"digest": "a-old", "commit": "c-old"}


def test_a_case_asked_that_the_check_holds_no_row_of_is_refused_in_one_line() -> None:
    with pytest.raises(TakeError, match=f"^--case {C}: the check at check/report/ranges.json holds no row of it$"):
        adopt(_stored(), _check([*_rows(A), *_rows(B)]), DECLARED, DIGESTS, asked=[C])


@pytest.mark.parametrize("digests", [{**DIGESTS, B: "b-changed"}, {A: "a-now"}])
def test_a_check_of_a_case_changed_or_gone_since_is_stale_and_refused_in_one_line(digests: dict[str, str]) -> None:
    with pytest.raises(TakeError, match=f"^--take check/report/ranges.json: stale: case {B} was checked as its "
                                        "source and declaration were then, not as they are now"):
        adopt(_stored(), _check([*_rows(A), *_rows(B)]), DECLARED, digests)
    # Not asked, it spoils nothing: the other cases are taken.
    assert adopt(_stored(), _check([*_rows(A), *_rows(B)]), DECLARED, digests, asked=[A]).taken == (A,)


def test_a_check_that_recorded_no_digest_of_a_case_is_stale() -> None:
    check = _check([*_rows(A), *_rows(B)], cases=(A,))
    with pytest.raises(TakeError, match=f"stale: case {B} was checked"):
        adopt(_stored(), check, DECLARED, DIGESTS)


def test_a_check_holding_rows_of_another_commit_than_its_own_was_merged_and_is_refused() -> None:
    check = _check([*_rows(A), *_rows(B)])
    stamps = {**check.document["cases"], A: {"digest": "a-now", "commit": "c-earlier"}}
    merged = Check({**check.document, "cases": stamps}, check.path, check.run, check.date)
    with pytest.raises(TakeError, match="it holds rows checked at c-earlier, not at its own commit c-check: a check "
                                        "run with --merge, whose probes would count twice"):
        adopt(_stored(), merged, DECLARED, DIGESTS)


def test_a_check_taken_already_is_refused_and_another_run_of_it_is_taken() -> None:
    check = _check([*_rows(A), *_rows(B)])
    once = adopt(_stored(), check, DECLARED, DIGESTS).document
    with pytest.raises(TakeError, match=f"its run {RUN} was taken already \\(the stored stamp of {A} names it\\): its "
                                        "probes would count twice"):
        adopt(once, check, DECLARED, DIGESTS)
    # A later run at a later commit is another check; one that says the same at the same commit brings nothing new.
    later = {**check.document, "commit": "c-later",
             "cases": {case: {**stamp, "commit": "c-later"} for case, stamp in check.document["cases"].items()}}
    assert adopt(once, Check(later, check.path, "20261129T080000Z-ef56", "2026-11-29"), DECLARED, DIGESTS).taken == (
        A, B)
    same = adopt(once, Check(check.document, check.path, "20261129T080000Z-ef56", "2026-11-29"), DECLARED, DIGESTS)
    assert same.taken == () and same.document == once


def test_a_check_run_with_other_options_than_the_stored_one_is_refused_in_one_line() -> None:
    check = _check([*_rows(A), *_rows(B)], options={"timeout": 60.0})
    with pytest.raises(TakeError, match=r"checked with options \{'timeout': 60.0\}, the stored document with none"):
        adopt(_stored(), check, DECLARED, DIGESTS)


def test_a_check_that_probed_less_inside_than_the_stored_one_is_refused_in_one_line() -> None:
    check = _check([*_rows(A), *_rows(B)], options={"inside": "none"})
    with pytest.raises(TakeError, match=r"checked with options \{'inside': 'none'\}, the stored document with none"):
        adopt(_stored(), check, DECLARED, DIGESTS)


def test_what_was_taken_and_left_is_said_one_line_each() -> None:
    check = _check([*_rows(A), *_rows(B, "wrong", "0.9.1 passes")])
    lines = range_take.describe(adopt(_stored(), check, DECLARED, DIGESTS), check, Path("docs/data/ranges.json"))
    assert lines == [f"not taken: {B}: jax>=0.9.0 [changed since jax>=0.9.0] is wrong: 0.9.1 passes",
                     f"ranges: took 1 case(s) of the check at check/report/ranges.json (commit c-check, run {RUN} "
                     "of 2026-11-28); 1 left with their stored rows; docs/data/ranges.json now holds 4 edge(s), 0 "
                     "wrong, 1 unchecked; 104 of 310 probes"]


def _folder(tmp_path: Path, document: dict[str, Any] | str | None, runs: tuple[str, ...] = ()) -> Path:
    folder = tmp_path / "check"
    (folder / "report").mkdir(parents=True)
    if document is not None:
        text = document if isinstance(document, str) else json.dumps(document)
        (folder / "report" / "ranges.json").write_text(text)
    for run in runs:
        (folder / "results" / run).mkdir(parents=True)
        (folder / "results" / run / "jax0.8.1-flax0.12.1-py3.11.jsonl").write_text("")
    return folder


def test_a_check_folder_is_read_with_the_day_its_newest_run_started(tmp_path: Path) -> None:
    document = _check(_rows(A)).document
    check = read_check(_folder(tmp_path, document, ("20261127T230000Z-ab12", RUN)))
    assert (check.run, check.date) == (RUN, "2026-11-28") and check.document["edges"] == document["edges"]
    assert check.path == tmp_path / "check" / "report" / "ranges.json"


@pytest.mark.parametrize(("document", "runs", "fault"), [
    (None, ("20261128T124000Z-cd34",), "no report/ranges.json in it: not the --out folder of a finished `ranges` run"),
    ("{not json", ("20261128T124000Z-cd34",), "range check is not valid JSON"),
    ("[]", ("20261128T124000Z-cd34",), "range check is a JSON list, not an object"),
    ({"schema_version": 3}, ("20261128T124000Z-cd34",), "range check schema 3 is newer than this reader knows (2)"),
    ({**_document(_rows(A), {}), "schema_version": 1}, ("20261128T124000Z-cd34",),
     "a range check of schema 1, not 2: it recorded no digest of its cases"),
    (_document(_rows(A), {}), (), "no run under results/, so the day the check ran is unknown"),
])
def test_a_check_folder_that_is_not_a_finished_check_of_this_schema_is_refused_in_one_line(
        tmp_path: Path, document: dict[str, Any] | str | None, runs: tuple[str, ...], fault: str) -> None:
    with pytest.raises(TakeError, match=r"^--take ") as caught:
        read_check(_folder(tmp_path, document, runs))
    assert fault in str(caught.value) and str(tmp_path / "check") in str(caught.value)
    assert "\n" not in str(caught.value)


def test_a_check_folder_that_is_missing_is_refused_in_one_line(tmp_path: Path) -> None:
    with pytest.raises(TakeError, match=f"^--take {tmp_path / 'nope'}: no such folder"):
        read_check(tmp_path / "nope")


def test_an_adopted_document_reads_back_whole(tmp_path: Path) -> None:
    adopted = adopt(_stored(), _check([*_rows(A), *_rows(B)]), DECLARED, DIGESTS)
    path = outputs.write_stored_ranges(tmp_path / "ranges.json", adopted.document)
    assert outputs.read_ranges(path)["edges"] == adopted.document["edges"]


def test_a_case_a_later_check_took_keeps_its_stored_rows_and_an_earlier_one_s_are_replaced() -> None:
    stored = _stored()
    stored["cases"][A] = {"digest": "a-now", "commit": "c-new", "run": "20261129T080000Z-ef56", "date": "2026-11-29"}
    stored["cases"][B] = {"digest": "b-now", "commit": "c-old", "run": "20261127T080000Z-ef56", "date": "2026-11-27"}
    check = _check([*_rows(A), *_rows(B)])
    adopted = adopt(stored, check, DECLARED, DIGESTS)
    assert adopted.taken == (B,)
    assert adopted.left == {A: "its stored rows are of a later check (run 20261129T080000Z-ef56 of 2026-11-29) than "
                               "this one: a take never replaces newer rows with older ones"}
    assert [row["status"] for row in adopted.document["edges"] if row["case"] == A] == ["unchecked", "unchecked"]
    assert adopted.document["cases"][A]["run"] == "20261129T080000Z-ef56"
    # A later check of the case as it was before (another digest) speaks for it no more: this one's rows replace it.
    stored["cases"][A]["digest"] = "a-old"
    assert adopt(stored, check, DECLARED, DIGESTS).taken == (A, B)


def test_a_stored_stamp_whose_run_is_no_run_id_is_never_taken_for_older() -> None:
    stored = _stored()
    stored["cases"][A] = {"digest": "a-now", "commit": "c-old", "run": "by hand", "date": "2026-11-28"}
    assert adopt(stored, _check([*_rows(A), *_rows(B)]), DECLARED, DIGESTS).taken == (B,)


def test_a_check_copied_into_the_stored_document_takes_nothing_and_leaves_it_as_it_was() -> None:
    check = _check([*_rows(A), *_rows(B)])
    copied = {**check.document, "cases": {case: dict(stamp) for case, stamp in check.document["cases"].items()}}
    adopted = adopt(copied, check, DECLARED, DIGESTS)
    assert adopted.taken == () and adopted.document == copied
    assert adopted.left[A] == ("its stored rows are the check's already (the same rows, digest and commit): nothing "
                               "new to take")
    # The same rows at another commit are a new check that agrees: taken, its probes added.
    elsewhere = {**copied, "cases": {**copied["cases"], A: {"digest": "a-now", "commit": "c-earlier"}}}
    assert adopt(elsewhere, check, DECLARED, DIGESTS).taken == (A,)


def test_a_take_that_takes_nothing_adds_no_probes_and_taking_it_again_adds_none_either() -> None:
    check = _check([*_rows(A, "wrong", "0.7.1 passes"), *_rows(B, "unchecked", "budget spent")], probes=9, budget=9)
    once = adopt(_stored(), check, DECLARED, DIGESTS)
    assert once.taken == () and once.document == _stored()
    assert adopt(once.document, check, DECLARED, DIGESTS).document == _stored()
    said = range_take.describe(once, check, Path("docs/data/ranges.json"))[-1]
    assert "took 0 case(s)" in said and "docs/data/ranges.json is left as it was, and holds 4 edge(s)" in said
    assert "100 of 300 probes" in said


def test_a_check_whose_document_is_the_stored_one_is_refused_in_one_line(tmp_path: Path) -> None:
    folder = _folder(tmp_path, _check(_rows(A)).document, (RUN,))
    check = read_check(folder)
    link = tmp_path / "link.json"
    link.symlink_to(check.path)
    for stored in (check.path, link):
        with pytest.raises(TakeError, match=f"^--take {folder}: its report/ranges.json is the stored document "
                                            f"{stored} itself: take a check into another document$"):
            range_take.refuse_itself(check, stored)
    copy = tmp_path / "copy.json"
    copy.write_text(check.path.read_text())
    range_take.refuse_itself(check, copy)  # a copy is another file: adopt leaves each case the check already holds
    range_take.refuse_itself(check, tmp_path / "not-yet.json")


def test_a_check_whose_report_was_written_before_its_newest_run_started_is_refused_in_one_line(tmp_path: Path) -> None:
    folder = _folder(tmp_path, _check(_rows(A)).document, ("20261127T230000Z-ab12", RUN))
    report = folder / "report" / "ranges.json"
    before = datetime(2026, 11, 28, 12, 39, tzinfo=timezone.utc).timestamp()  # the newest run started at 12:40
    os.utime(report, (before, before))
    with pytest.raises(TakeError, match=f"^--take {folder}: its report/ranges.json was written at 2026-11-28 "
                                        f"12:39:00 UTC, before its newest run {RUN} started: take the check once "
                                        "that run has finished$"):
        read_check(folder)
    after = datetime(2026, 11, 28, 13, 5, tzinfo=timezone.utc).timestamp()
    os.utime(report, (after, after))
    assert read_check(folder).run == RUN


def test_a_take_of_a_file_instead_of_a_check_folder_is_refused_in_one_line(tmp_path: Path) -> None:
    stored = outputs.write_stored_ranges(tmp_path / "ranges.json", _stored())
    with pytest.raises(TakeError, match=f"^--take {stored}: a file, not a folder: give the --out folder of a finished "
                                        "`ranges` run, whose report/ranges.json it takes"):
        read_check(stored)


def _inside_of_a(judged: int) -> list[dict[str, Any]]:
    """A's rows, its lower edge owning one release inside, `judged` of it judged."""
    said = "1 of 1 releases inside probed: 0.7.1" if judged else "0 of 1 releases inside probed"
    return [{**row, "inside": said, "inside_releases": 1, "inside_judged": judged} if row["declared"] == ">=0.7.0"
            else row for row in _rows(A)]


def test_a_check_that_judged_nothing_inside_never_replaces_stored_rows_that_did() -> None:
    stored = _stored()
    stored["edges"] = [*_inside_of_a(1), *(row for row in stored["edges"] if row["case"] != A)]
    stored["cases"][A] = {"digest": "a-now", "commit": "c-old"}
    adopted = adopt(stored, _check([*_inside_of_a(0), *_rows(B)]), DECLARED, DIGESTS)
    assert adopted.taken == (B,)
    assert adopted.left == {A: "its stored rows judged releases inside its ranges, and the check's did not (its "
                               "budget spent at the bounds, say): a take never replaces evidence with less"}
    # More evidence replaces less.
    stored["edges"] = [*_inside_of_a(0), *(row for row in stored["edges"] if row["case"] != A)]
    assert adopt(stored, _check([*_inside_of_a(1), *_rows(B)]), DECLARED, DIGESTS).taken == (A, B)
