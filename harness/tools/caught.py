"""Which census reports the corpus catches: a report is caught when a case cites it and the range checker confirmed
that case's declared edge against releases (issue 30's definition), so a citation alone earns nothing.

Pure: it joins the census (harness.census), the corpus's `cites=` and the rows of one stored range check
(harness.outputs.read_ranges). The docs' census tables and `nox -s ranges` both say it from here.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from harness.census import Report

CAUGHT, NOT_CAUGHT, OFF_CPU = "caught", "not caught", "off CPU"


@dataclass(frozen=True)
class Catch:
    """One report's standing: caught, not caught (with why) or off CPU (no CPU cell can show it)."""

    report: Report
    status: str
    cases: tuple[str, ...] = ()
    why: str = ""


def catches(census: Mapping[str, Report], citations: Mapping[str, tuple[str, ...]],
            edges: Iterable[Mapping[str, Any]]) -> list[Catch]:
    """Each report's Catch, in census order. `edges` are a stored range check's rows (case, status, declared,
    package, found, why); a case counts when it has at least one confirmed edge and none wrong."""
    by_case: dict[str, list[Mapping[str, Any]]] = {}
    for row in edges:
        by_case.setdefault(str(row["case"]), []).append(row)
    citing: dict[str, list[str]] = {}
    for case_id, ids in sorted(citations.items()):
        for report_id in ids:
            citing.setdefault(report_id, []).append(case_id)
    found = []
    for report_id, report in census.items():
        cases = tuple(citing.get(report_id, ()))
        if not report.cpu:
            found.append(Catch(report, OFF_CPU, cases, report.uncited))
        elif not cases:
            found.append(Catch(report, NOT_CAUGHT, cases, f"no case cites it: {report.uncited}"))
        else:
            found.append(_judged(report, cases, by_case))
    return found


def _judged(report: Report, cases: tuple[str, ...], by_case: Mapping[str, list[Mapping[str, Any]]]) -> Catch:
    confirming = [case for case in cases if _confirms(by_case.get(case, []))]
    if confirming:
        return Catch(report, CAUGHT, tuple(confirming))
    rows = [row for case in cases for row in by_case.get(case, [])]
    if not rows:
        return Catch(report, NOT_CAUGHT, cases, "its cases declare no range the checker probed")
    wrong = [row for row in rows if row["status"] == "wrong"]
    shown = wrong or [row for row in rows if row["status"] != "confirmed"]
    row = shown[0]
    said = f"releases show {row['found']}" if row.get("found") else str(row.get("why") or "")
    return Catch(report, NOT_CAUGHT, cases,
                 f"edge {row['package']}{row['declared']} of {row['case']} is {row['status']}: {said}".rstrip(": "))


def _confirms(rows: list[Mapping[str, Any]]) -> bool:
    return any(row["status"] == "confirmed" for row in rows) and not any(row["status"] == "wrong" for row in rows)


def summary(found: list[Catch]) -> str:
    """One line: how many reports a CPU can show, how many of those are caught, and the share."""
    on_cpu = [catch for catch in found if catch.status != OFF_CPU]
    caught = sum(catch.status == CAUGHT for catch in on_cpu)
    share = f" ({100 * caught / len(on_cpu):.0f} %)" if on_cpu else ""
    return (f"{caught} of {len(on_cpu)} reports a CPU cell can show are caught{share}; "
            f"{len(found) - len(on_cpu)} of {len(found)} need more than a CPU")
