"""Coverage beside every verdict: of the cases a cell collected, how many ran, and why the rest did not.

A verdict on 19 cases of 103 is not a verdict on 103: "19 of 103 (80 need 8 devices, 4 need an API this cell
lacks)" says what the verdict stands on. A case that ran is one that applied to the cell (any status but
not_applicable, as compat's `applicable` counts it). The rest is split by cause: the devices a case needed (the
record's `devices_needed`), an API or version the cell lacks (any other not-applicable case), and a collected case
with no record. Collected is the cell's recorded collection; where none was read, the cases recorded.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import pandas as pd

from harness.vocabulary import is_absent
from reports.data.tables import Matrix


@dataclass(frozen=True)
class Coverage:
    """What ran of what was collected in one cell (or one family of it), the rest counted by cause."""

    ran: int = 0
    collected: int = 0
    #: Not-applicable cases by the devices they needed: {8: 80}.
    devices: Mapping[int, int] = field(default_factory=dict)
    #: Not-applicable cases for an API or version the cell lacks.
    absent: int = 0
    #: Collected cases the cell recorded nothing for.
    missing: int = 0

    @property
    def short_of_devices(self) -> bool:
        """Whether devices left any case out."""
        return any(self.devices.values())

    @property
    def left_out(self) -> bool:
        """Whether any collected case did not run (its devices, an API the cell lacks, no record): then every view
        writes the verdict with its coverage."""
        return self.ran < self.collected

    def text(self) -> str:
        """'19 of 103 (80 need 8 devices, 4 need an API this cell lacks)'; '103 of 103' when everything ran."""
        rest = [f"{count} {'needs' if count == 1 else 'need'} {needed} devices"
                for needed, count in sorted(self.devices.items()) if count]
        if self.absent:
            rest.append(f"{self.absent} {'needs' if self.absent == 1 else 'need'} an API this cell lacks")
        if self.missing:
            rest.append(f"{self.missing} not recorded")
        said = f"{self.ran} of {self.collected}"
        return f"{said} ({', '.join(rest)})" if rest else said


def _count(finals: list[tuple[str, Any, Any]], collected: list[str]) -> Coverage:
    """The coverage of (case id, status, devices needed) final results against the case ids collected."""
    recorded = {case for case, _, _ in finals}
    devices: dict[int, int] = {}
    ran = absent = 0
    for _, status, needed in finals:
        if not is_absent(status):
            ran += 1
        elif isinstance(needed, int | float) and not pd.isna(needed):
            devices[int(needed)] = devices.get(int(needed), 0) + 1
        else:
            absent += 1
    missing = sum(1 for case in collected if case not in recorded)
    return Coverage(ran=ran, collected=len(set(collected) | recorded), devices=devices, absent=absent,
                    missing=missing)


def _family(case_id: str, recorded: Mapping[str, str]) -> str:
    """The family of a collected case: its record's, else its id's module ('sharded_gathers::test_x')."""
    if case_id in recorded:
        return recorded[case_id]
    family, sep, _ = case_id.partition("::")
    return family if sep else "(none)"


def coverages(matrix: Matrix) -> dict[str, tuple[Coverage, dict[str, Coverage]]]:
    """Each column key's coverage, and its coverage per family (families in the order their cases come)."""
    results = matrix.results
    needed = results["devices_needed"] if "devices_needed" in results else pd.Series(None, index=results.index)
    by_key: dict[str, list[tuple[str, str, Any, Any]]] = {}
    for key, case, family, status, devices in zip(results["key"].tolist(), results["case_id"].tolist(),
                                                   results["family"].tolist(), results["status"].tolist(),
                                                   needed.tolist(), strict=True):
        by_key.setdefault(str(key), []).append((str(case), str(family), status, devices))
    found: dict[str, tuple[Coverage, dict[str, Coverage]]] = {}
    cells = matrix.cells
    collected_of = cells["collected"] if "collected" in cells else pd.Series(None, index=cells.index, dtype=object)
    for key, collected in collected_of.items():
        rows = by_key.get(str(key), [])
        cases = list(collected) if isinstance(collected, list) else [case for case, *_ in rows]
        recorded = {case: family for case, family, *_ in rows}
        family_of = {case: _family(case, recorded) for case in cases}
        families = list(dict.fromkeys([family for _, family, *_ in rows] + list(family_of.values())))
        per_family = {family: _count([(c, s, d) for c, f, s, d in rows if f == family],
                                     [case for case in cases if family_of[case] == family]) for family in families}
        found[str(key)] = (_count([(c, s, d) for c, _, s, d in rows], cases), per_family)
    return found


def family_text(family: str, coverage: Coverage) -> str:
    """One family's coverage: 'sharded_gathers: 3 of 20 (17 need 8 devices)', or 'sharded_gathers: nothing ran, 0 of
    28 (27 need 8 devices, 1 needs an API this cell lacks)'."""
    if coverage.collected and not coverage.ran:
        return f"{family}: nothing ran, {coverage.text()}"
    return f"{family}: {coverage.text()}"


def short_cells(matrix: Matrix) -> dict[str, str]:
    """Each cell that left cases out (for its devices or an API it lacks), by its id, with its coverage ('19 of 103
    (80 need 8 devices)'), in column order; none for a cell that ran every case it collected."""
    covered = coverages(matrix)
    return {str(cell): covered[str(key)][0].text() for key, cell in matrix.cells["cell_id"].items()
            if covered[str(key)][0].left_out}
