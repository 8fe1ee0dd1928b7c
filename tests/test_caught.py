"""harness/tools/caught.py: a report is caught when a citing case's edge is confirmed, never for a citation alone."""

from __future__ import annotations

from harness.census import Report
from harness.tools.caught import CAUGHT, NOT_CAUGHT, OFF_CPU, catches, summary


def _report(report_id: str, uncited: str = "", cpu: bool = True) -> Report:
    return Report(report_id, "https://x", "fam", "2025-01-01", "x", "live", "s", uncited, cpu)


def _edge(case: str, status: str, found: str | None = None) -> dict[str, object]:
    return {"case": case, "package": "jax", "declared": ">=0.9.0", "status": status, "found": found, "why": "w"}


CENSUS = {"a/b#1": _report("a/b#1"), "a/b#2": _report("a/b#2"), "a/b#3": _report("a/b#3", "needs x"),
          "a/b#4": _report("a/b#4", "needs a TPU", cpu=False)}


def test_a_confirmed_edge_catches_and_a_wrong_one_does_not() -> None:
    found = catches(CENSUS, {"m::t1": ("a/b#1",), "m::t2": ("a/b#2",)},
                    [_edge("m::t1", "confirmed"), _edge("m::t2", "confirmed"), _edge("m::t2", "wrong", "<0.9.1")])
    status = {catch.report.id: catch for catch in found}
    assert status["a/b#1"].status == CAUGHT and status["a/b#1"].cases == ("m::t1",)
    assert status["a/b#2"].status == NOT_CAUGHT and "is wrong: releases show <0.9.1" in status["a/b#2"].why
    assert status["a/b#3"].status == NOT_CAUGHT and status["a/b#3"].why == "no case cites it: needs x"
    assert status["a/b#4"].status == OFF_CPU


def test_a_citation_whose_case_declares_no_range_earns_nothing() -> None:
    (catch,) = [c for c in catches(CENSUS, {"m::t1": ("a/b#1",)}, []) if c.report.id == "a/b#1"]
    assert catch.status == NOT_CAUGHT and "declare no range" in catch.why


def test_one_confirming_case_of_several_is_enough() -> None:
    found = catches(CENSUS, {"m::t1": ("a/b#1",), "m::t9": ("a/b#1",)}, [_edge("m::t9", "confirmed")])
    assert found[0].status == CAUGHT and found[0].cases == ("m::t9",)


def test_the_summary_leaves_off_cpu_reports_out_of_the_share() -> None:
    found = catches(CENSUS, {"m::t1": ("a/b#1",)}, [_edge("m::t1", "confirmed")])
    assert summary(found) == "1 of 3 reports a CPU cell can show are caught (33 %); 1 of 4 need more than a CPU"
