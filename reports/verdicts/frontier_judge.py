"""A frontier probe's cell judged the way the compatibility table judges a cell: its results file read by reports'
loader, collapsed by reports.data.tables (which marks the documented failures), and given
reports.verdicts.compat.verdict, the one
verdict of a cell. A pair works when that verdict is works, works_with_warnings, works_for_current_code or
works_except_known_bugs: only documented changes and declared known upstream bugs fail, and the bugs are listed.

Here, on reports' verdicts floor, not in harness/tools/: shardmatrix.frontier imports it inside the function that
runs a probe, so the harness imports nothing of reports at module level, and `plan` and `merge` need no pandas
(`nox -s frontier` installs the report's dependencies).
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

from harness import vocabulary
from harness.results import read_cell
from harness.vocabulary import INSTALL_CAUSE
from reports.data.load import records_frame
from reports.data.tables import build_matrix
from reports.verdicts import compat

#: The verdicts that count as working for the frontier's ranges.
WORKING = (compat.WORKS, compat.WARNED, compat.CURRENT, compat.KNOWN_BUGS)
#: A cause is cut to this many characters: frontier.json keeps one per probe.
CAUSE_CHARS = 240


@dataclass(frozen=True)
class Judged:
    """A probe's verdict token, why it does not work in one line (empty when it does), the cases that fail for a
    reason nothing explains (neither a documented change nor a declared known upstream bug), each with its cause, and
    the cases a declared known upstream bug fails, each with the bug (reports.verdicts.compat.known_bug)."""

    verdict: str
    cause: str
    failing: dict[str, str]
    known: dict[str, str] = field(default_factory=dict)

    @property
    def works(self) -> bool:
        """Whether the verdict counts as working."""
        return self.verdict in WORKING


def probe_works(probe: Mapping[str, Any]) -> bool:
    """Whether a stored probe (frontier.json) says its pair works: `works` is true and its verdict, where recorded, is
    a working one; a probe whose two words disagree does not work."""
    verdict = probe.get("verdict")
    return probe.get("works") is True and (verdict is None or verdict in WORKING)


def deciding_probe(probes: Sequence[Mapping[str, Any]]) -> Mapping[str, Any]:
    """Of the probes of one pair, the one whose word stands: the whole corpus's over the core cases', and among
    those the first that does not work, so a pair recorded both failing and working never reads as working."""
    ranked = [probe for probe in probes if bool(probe.get("corpus"))] or list(probes)
    return next((probe for probe in ranked if not probe_works(probe)), ranked[-1])


def judge(results: Path, complete: bool, smoke_ids: Collection[str]) -> Judged:
    """The verdict of one probe's cell from its results file (`complete`: it finished), the smoke cases its core."""
    reading = read_cell(Path(results))
    records = reading.records
    if not records:
        verdict = compat.verdict(compat.Evidence(complete=complete))
        return Judged(verdict, "the probe's cell stopped before recording any case" if not complete
                      else "no case recorded", {})
    frame = records_frame(records)
    cells = frame[["run_id", "cell_id"]].drop_duplicates().assign(complete=complete)
    found = build_matrix(frame, cells)
    results_ = found.results.assign(**{compat.SMOKE: found.results["case_id"].isin(set(smoke_ids))})
    evidence = compat.evidence(results_, {str(key): complete for key in found.cells.index},
                               {str(key): len(reading.unaccounted) for key in found.cells.index})
    key = str(found.cells.index[0])
    verdict = compat.verdict(evidence[key])
    failing, known = _failing(results_), _known(results_)
    cause = reading.unaccounted[0] if verdict == compat.UNACCOUNTED else _cause(verdict, results_, failing, smoke_ids)
    return Judged(verdict, "" if verdict in WORKING else one_line(cause), failing, known)


def _known(results: pd.DataFrame) -> dict[str, str]:
    """{case: bug} of every case a declared known upstream bug fails as declared (xfailed, no documented change)."""
    documented = results[compat.DOCUMENTED].eq(True) if compat.DOCUMENTED in results else pd.Series(
        False, index=results.index)
    flags = results["known_breakage"] if "known_breakage" in results else pd.Series(None, index=results.index)
    return {str(case): compat.known_bug(reason) for case, status, reason, explained, flag in zip(
        results["case_id"], results["status"], results["reason"], documented, flags, strict=True)
        if vocabulary.is_known_breakage(status, flag) and not explained}


def _failing(results: pd.DataFrame) -> dict[str, str]:
    """{case: cause} of every applicable case that does not pass and nothing explains: neither a documented change
    nor a declared known upstream bug."""
    documented = results[compat.DOCUMENTED].eq(True) if compat.DOCUMENTED in results else pd.Series(
        False, index=results.index)
    found = {}
    flags = results["known_breakage"] if "known_breakage" in results else pd.Series(None, index=results.index)
    for case, status, error_type, message, reason, known, flag in zip(
            results["case_id"], results["status"], results["error_type"], results["error_message"],
            results["reason"], documented, flags, strict=True):
        if (vocabulary.is_absent(status) or vocabulary.is_passing(status) or known
                or vocabulary.is_known_breakage(status, flag)):
            continue
        error = ": ".join(str(part) for part in (error_type, message) if isinstance(part, str) and part)
        found[str(case)] = one_line(f"{status}: {error or (reason if isinstance(reason, str) else '')}")
    return found


def _cause(verdict: str, results: pd.DataFrame, failing: dict[str, str], smoke_ids: Collection[str]) -> str:
    """Why a probe does not work, in one line: the first core case that fails, else the first case."""
    if verdict == compat.NOT_BUILT:
        message = next((m for m in results["error_message"] if isinstance(m, str) and m), "")
        return one_line(f"{INSTALL_CAUSE}: {message}")
    if verdict == compat.INTERRUPTED:
        return "the probe's cell stopped before every case was recorded"
    if verdict == compat.NO_EVIDENCE:
        smoke = results["case_id"].isin(set(smoke_ids))
        if smoke.any() and results.loc[smoke, "status"].map(vocabulary.is_absent).all():
            return "no smoke (core) case applies (every one not applicable)"
        return "no case applies (every one not applicable)"
    if verdict == compat.FLAKY:
        flaky = [str(case) for case, found in zip(results["case_id"], results["flaky"], strict=True) if found is True]
        more = f" (and {len(flaky) - 1} more)" if len(flaky) > 1 else ""
        return one_line(f"{flaky[0] if flaky else 'a case'}: flaky, passed only after a failing attempt")[:200] + more
    first = next((c for c in sorted(failing) if c in smoke_ids), None) or next(iter(sorted(failing)), "")
    if not first:
        reason = next((r for r in results["reason"] if vocabulary.is_cell_unusable(r)), verdict)
        return one_line(str(reason))
    more = f" (and {len(failing) - 1} more)" if len(failing) > 1 else ""
    return one_line(f"{first}: {failing[first]}")[: 200] + more


def one_line(text: str) -> str:
    """The first line of a text, paths package-relative as in every report file, cut to CAUSE_CHARS."""
    first = vocabulary.relative_paths((text.strip().splitlines() or [""])[0])
    return first if len(first) <= CAUSE_CHARS else first[:CAUSE_CHARS - 3] + "..."
