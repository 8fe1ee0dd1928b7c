"""The compatibility verdicts: one per cell (reports/views/ lay them out as flax releases by jax releases).

"Which pairs work?" is the first question a maintainer asks, and the status matrix answers it only after reading
all of it. `verdict()` is the one rule that turns a cell's evidence (its collapsed results, counted) into one of
these tokens, the `verdict` column of compat.csv and compat.json, in the order it tries them:

- not_built: its environment could not be built (every record is install_error);
- broken: jax or flax themselves do not import in it, its backend does not start, or a smoke case (the core
  subset, `@case(..., smoke=True)`) does not pass for a reason no documented change explains;
- interrupted: it never finished, so what is missing is unknown;
- unaccounted: its files hold something the reader could not account for (an unreadable or torn line, a record of a
  newer schema, an expected case without a record, a retry without its earlier attempt, conflicting records, no
  collection recorded) or its identity does not agree (cell id, done marker, freeze and records name other
  versions): harness.results reads it, and names each;
- no_evidence: no applicable case ran (none recorded, or every one not applicable), or the cell recorded smoke
  cases and every one of them is not applicable (its core was never exercised): never works;
- partial: an applicable case does not pass and neither a documented change nor a declared known upstream bug
  explains it: something unexplained fails (its causes are named);
- flaky: an applicable case's attempts disagreed (failed, then passed): a failure that shows some of the time is not
  ruled out, so the cell is never a works tier (reports/verdicts/compare.py reads the same retry as INCONCLUSIVE);
- works_except_known_bugs: every failure is a declared known upstream bug failing as declared (xfailed:
  cases/known_breakages.toml, with its link) or a documented change failing as declared, and at least one is a
  known bug: code that avoids those bugs works, and so does every pair that has them too;
- works_for_current_code: every failure is a documented change failing as declared, i.e. the right answer for
  code written the old way;
- works_with_warnings: every applicable case passes, some with deprecation warnings;
- works: every applicable case passes cleanly.

Every failure is of one of three kinds, counted apart (KINDS): documented (a documented change, code must change),
known (a declared known upstream bug: status xfailed, its reason ending in its link), unexplained (the rest: ours to
look at). Two optional result columns feed it, each False where absent: `documented` (the failure is a documented
change failing as declared; reports/verdicts/documented.py decides it, `change_name` naming the change) and `smoke`
(the case is in the smoke subset).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import pandas as pd

from harness.vocabulary import INSTALL_ERROR, is_absent, is_cell_unusable, is_known_breakage, is_passing
from reports.data.tables import Matrix, tagged
from reports.data.text import as_text
from reports.verdicts.causes import KNOWN, UNDECLARED, causes
from reports.verdicts.coverage import coverages, family_text

WORKS = "works"
WARNED = "works_with_warnings"
CURRENT = "works_for_current_code"
KNOWN_BUGS = "works_except_known_bugs"
PARTIAL = "partial"
BROKEN = "broken"
NOT_BUILT = "not_built"
INTERRUPTED = "interrupted"
NO_EVIDENCE = "no_evidence"
FLAKY = "flaky"
UNACCOUNTED = "unaccounted"

#: Every token, best first (reports.views.present gives each its words, marks and meaning).
TOKENS: tuple[str, ...] = (WORKS, WARNED, CURRENT, KNOWN_BUGS, FLAKY, PARTIAL, BROKEN, NO_EVIDENCE, INTERRUPTED,
                           UNACCOUNTED, NOT_BUILT)

#: The three kinds of failure, in the order a report counts them: a documented change, a declared known upstream bug,
#: anything else.
DOCUMENTED_KIND, KNOWN_KIND, UNEXPLAINED_KIND = "documented", "known", "unexplained"
KINDS: tuple[str, ...] = (DOCUMENTED_KIND, KNOWN_KIND, UNEXPLAINED_KIND)

#: The optional result columns verdicts() reads, False where absent: the failure is a documented change failing
#: as declared (reports/verdicts/documented.py), and the case is in the smoke subset.
DOCUMENTED, SMOKE = "documented", "smoke"
#: The optional result column naming a documented failure's change; its cause signature stands in without it.
CHANGE_NAME = "change_name"
#: The result column saying a case's attempts disagreed (reports.data.tables.collapse); False where absent.
FLAKY_COLUMN = "flaky"

#: The columns of verdicts(), and of compat.csv: `failing` counts every applicable case that does not pass,
#: `documented` those of them a documented change explains, `known` those a declared known upstream bug explains,
#: `unexplained` the rest (KINDS), `flaky` the applicable cases whose attempts disagreed; `causes` are the
#: unexplained failures' signatures, `changes` the documented changes behind the documented ones, `known_bugs` the
#: known bugs (by link, else reason) behind the known ones, each list most cases first.
#: `sources` maps each package the cell built from a source to where it came from (harness.formats.Source), and
#: the `jax` and `flax` of such a package are its version as the cell id names it (0.12.6+tree.5a0b5832), so a
#: branch never shares a row with the release it is compared to. `backend` is the cell's (cpu, gpu, tpu), so cells of
#: the same pins on other backends are told apart; `coverage` says what ran of what was collected, the rest by cause
#: (reports.verdicts.coverage; a view writes the verdict with it whenever a case was left out), `short_of_devices`
#: how many cases the cell's devices left out, `family_coverage` the same per family; `family_verdicts` is the
#: verdict of each family's cases alone, {family: {verdict, documented, known, unexplained}} (by_family(), for a
#: maintainer who uses only some of them).
COLUMNS: list[str] = ["key", "cell_id", "run_id", "jax", "flax", "python", "backend", "verdict", "coverage",
                      "short_of_devices", "applicable", "failing", "documented", "known", "unexplained", "warned",
                      "flaky", "causes", "changes", "known_bugs", "sources", "family_coverage", "family_verdicts"]


@dataclass(frozen=True)
class Evidence:
    """What one cell's collapsed results say, counted: everything verdict() decides from."""

    #: Results recorded (any status), and how many of them say the environment was built, and that the cell's
    #: packages imported and its backend started.
    cases: int = 0
    built: int = 0
    usable: int = 0
    #: Whether the cell finished (its done marker exists).
    complete: bool = True
    #: Results that apply to the cell (not not_applicable), and of those: passing, passing with warnings.
    applicable: int = 0
    passing: int = 0
    warned: int = 0
    #: Applicable results that do not pass but a documented change explains.
    documented: int = 0
    #: Applicable results that do not pass, no documented change explains, but a declared known upstream bug does.
    known: int = 0
    #: Smoke cases that do not pass for a reason no documented change explains.
    smoke_failing: int = 0
    #: Smoke cases recorded, and of those the ones that apply to the cell.
    smoke: int = 0
    smoke_applicable: int = 0
    #: Results whose attempts disagreed (failed, then passed; or ran, then did not apply): never a works tier.
    flaky: int = 0
    #: What the reading of the cell's files could not account for (harness.results), lines.
    unaccounted: int = 0

    @property
    def undocumented(self) -> int:
        """Failures no documented change explains."""
        return self.applicable - self.passing - self.documented

    @property
    def unexplained(self) -> int:
        """Failures neither a documented change nor a declared known upstream bug explains."""
        return self.undocumented - self.known


def verdict(evidence: Evidence) -> str:
    """The one verdict of a cell: the first token of the module docstring's list whose condition its evidence
    meets."""
    if evidence.cases and not evidence.built:
        return NOT_BUILT
    if (evidence.cases and not evidence.usable) or evidence.smoke_failing:
        return BROKEN
    if not evidence.complete:
        return INTERRUPTED
    if evidence.unaccounted:
        return UNACCOUNTED
    if not evidence.applicable or (evidence.smoke and not evidence.smoke_applicable):
        return NO_EVIDENCE
    if evidence.unexplained:
        return PARTIAL
    if evidence.flaky:
        return FLAKY
    if evidence.known:
        return KNOWN_BUGS
    if evidence.documented:
        return CURRENT
    return WARNED if evidence.warned else WORKS


def _flag(results: pd.DataFrame, name: str) -> pd.Series:
    """An optional boolean result column, False where the column or its value is absent."""
    if name not in results:
        return pd.Series(False, index=results.index, dtype=bool)
    return results[name].eq(True).astype(bool)


def _marks(results: pd.DataFrame) -> pd.DataFrame:
    """Per result: whether it applies, passes, fails, fails as a documented change, fails as a declared known
    upstream bug, and passes with warnings."""
    statuses = results["status"].tolist()
    # Each distinct status asked once, not once per result.
    absent = {status: is_absent(status) for status in set(statuses)}
    passes = {status: is_passing(status) for status in absent}
    applicable = pd.Series([not absent[status] for status in statuses], index=results.index, dtype=bool)
    passing = applicable & pd.Series([passes[status] for status in statuses], index=results.index, dtype=bool)
    failing = applicable & ~passing
    documented = failing & _flag(results, DOCUMENTED)
    declared = results["known_breakage"] if "known_breakage" in results else pd.Series(None, index=results.index)
    # A test's own xfail mark is xfailed too, but no declared breakage: its range and its link were never checked.
    known = pd.Series([is_known_breakage(status, flag) for status, flag in zip(statuses, declared, strict=True)],
                      index=results.index, dtype=bool)
    return pd.DataFrame({"applicable": applicable, "passing": passing, "failing": failing,
                         "documented": documented, "known": failing & ~documented & known,
                         "warned": passing & results["warnings"].map(len).gt(0),
                         "flaky": _flag(results, FLAKY_COLUMN)})


def evidence(results: pd.DataFrame, complete: dict[str, bool],
             unaccounted: Mapping[str, int] | None = None) -> dict[str, Evidence]:
    """The evidence of each cell (`key`) of collapsed results; `complete` gives every key to report, with whether
    its cell finished (a key without results is counted empty); `unaccounted` how many lines its reading could not
    account for (none where absent)."""
    marks = _marks(results)
    # drop_duplicates(), not set(): records without a reason hold distinct NaNs, and a set keeps each of them.
    unusable = {text: is_cell_unusable(text) for text in results["reason"].drop_duplicates().tolist()}
    counts = pd.DataFrame({
        "key": results["key"], "cases": 1, "built": results["status"].ne(INSTALL_ERROR),
        "usable": ~results["reason"].map(unusable).astype(bool),
        **{name: marks[name] for name in ("applicable", "passing", "warned", "documented", "known", "flaky")},
        "smoke_failing": marks["failing"] & ~marks["documented"] & _flag(results, SMOKE),
        "smoke": _flag(results, SMOKE), "smoke_applicable": marks["applicable"] & _flag(results, SMOKE),
    }).groupby("key").sum().reindex(list(complete), fill_value=0)
    lost = unaccounted or {}
    return {str(key): Evidence(complete=complete[str(key)], unaccounted=lost.get(str(key), 0),
                               **{str(name): int(value) for name, value in row.items()})
            for key, row in counts.to_dict("index").items()}


def verdicts(matrix: Matrix, found: pd.DataFrame | None = None) -> pd.DataFrame:
    """One row per column key (version order): the cell, its verdict, how many applicable cases, how many of them do
    not pass, how many of those a documented change explains, a known upstream bug explains, nothing explains, how
    many passed with warnings, and behind each kind of failure what explains it, most cases first: the unexplained
    failures' causes (signatures), the documented changes (by name, else signature), the known bugs (known_bug()).

    `found` is causes() of the matrix when the caller has it already (a report shows both)."""
    results = matrix.results
    complete = {str(key): bool(done) for key, done in zip(matrix.cells.index, matrix.cells["complete"], strict=True)}
    lost = matrix.cells["unaccounted"] if "unaccounted" in matrix.cells else pd.Series([], dtype=object)
    counted = evidence(results, complete, {str(key): len(found) for key, found in lost.items()
                                           if isinstance(found, list)})
    marks = _marks(results)
    failing = marks["failing"]
    # Signatures once for every failing result, then counted per cell: one causes() call, not one per cell.
    if found is None:
        found = causes(results[failing].assign(flaky=False), matrix.cells)
    names = results[CHANGE_NAME] if CHANGE_NAME in results else pd.Series(None, index=results.index, dtype=object)
    kinds = [DOCUMENTED_KIND if documented else KNOWN_KIND if known else UNEXPLAINED_KIND
             for documented, known in zip(marks.loc[failing, "documented"], marks.loc[failing, "known"], strict=True)]
    # Only failures count: a full causes() table also holds flaky passes. A known bug is named by its own reason.
    failures = {(key, case): (kind, known_bug(reason) if kind == KNOWN_KIND else as_text(name))
                for key, case, kind, name, reason in zip(
                    results.loc[failing, "key"].tolist(), results.loc[failing, "case_id"].tolist(), kinds,
                    names[failing].tolist(), results.loc[failing, "reason"].tolist(), strict=True)}
    # Per kind, per key: {what explains it: failures}.
    tallies: dict[str, dict[str, dict[str, int]]] = {kind: {} for kind in KINDS}
    for signature, cases in zip(found["signature"], found["cases"], strict=True):
        for key, case in cases:
            if (key, case) in failures:
                kind, name = failures[key, case]
                tally = tallies[kind].setdefault(key, {})
                tally[name or signature] = tally.get(name or signature, 0) + 1
    covered = coverages(matrix)
    per_family = by_family(matrix, complete, counted)
    rows = []
    for key, cell in matrix.cells.iterrows():
        counts = counted[str(key)]
        coverage, families = covered[str(key)]
        sources = cell["sources"] if isinstance(cell.get("sources"), dict) else {}
        mine, theirs, bugs = (tallies[kind].get(str(key), {}) for kind in (UNEXPLAINED_KIND, DOCUMENTED_KIND,
                                                                            KNOWN_KIND))
        rows.append({
            "key": key, "cell_id": cell["cell_id"], "run_id": cell["run_id"],
            "jax": tagged(cell["jax"], sources, "jax"), "flax": tagged(cell["flax"], sources, "flax"),
            "python": as_text(cell["python"]), "backend": as_text(cell.get("backend")), "verdict": verdict(counts),
            "coverage": coverage.text(), "short_of_devices": sum(coverage.devices.values()),
            "applicable": counts.applicable, "failing": counts.applicable - counts.passing,
            "documented": counts.documented, "known": counts.known, "unexplained": counts.unexplained,
            "warned": counts.warned, "flaky": counts.flaky,
            "causes": sorted(mine, key=lambda signature: -mine[signature]),
            "changes": sorted(theirs, key=lambda name: -theirs[name]),
            "known_bugs": sorted(bugs, key=lambda name: -bugs[name]),
            "sources": sources,
            "family_coverage": [family_text(family, found) for family, found in families.items()],
            "family_verdicts": {family: {"verdict": verdict(found), "documented": found.documented,
                                         "known": found.known, "unexplained": found.unexplained}
                                for family, found in per_family.get(str(key), {}).items()},
        })
    return pd.DataFrame(rows, columns=COLUMNS)


def by_family(matrix: Matrix, complete: dict[str, bool], counted: Mapping[str, Evidence]) -> dict[
        str, dict[str, Evidence]]:
    """{key: {family: the evidence of that family's results alone}} (families in the order their cases come): the same
    rule, on a cell cut to one family, so a family's verdict is never better than the cell's evidence for it; what the
    cell's files could not account for counts against every family."""
    results = matrix.results
    if results.empty:
        return {}
    cut = results["key"].astype(str) + _FAMILY_SEPARATOR + results["family"].astype(str)
    parts = list(dict.fromkeys(cut.tolist()))
    found = evidence(results.assign(key=cut), {part: complete[part.split(_FAMILY_SEPARATOR)[0]] for part in parts},
                     {part: counted[part.split(_FAMILY_SEPARATOR)[0]].unaccounted for part in parts})
    by_key: dict[str, dict[str, Evidence]] = {}
    for part in parts:
        key, family = part.split(_FAMILY_SEPARATOR, 1)
        by_key.setdefault(key, {})[family] = found[part]
    return by_key


#: Joins a column key and a family into one key of evidence() (neither holds it).
_FAMILY_SEPARATOR = "\x1f"


def cause_kind(change: object, statuses: object, undeclared: object = False) -> str:
    """The kind of failure behind a cause of reports.verdicts.causes (its `change`, `statuses` and `undeclared`), as a
    cell counts it: documented (a declared change documents it), known (every result behind it is a declared known
    upstream bug: xfailed, none by a test's own mark), else unexplained."""
    if isinstance(change, str) and change:
        return DOCUMENTED_KIND
    if isinstance(statuses, list) and statuses == [KNOWN] and undeclared is False:
        return KNOWN_KIND
    return UNEXPLAINED_KIND


def regression_kinds(found: pd.DataFrame) -> dict[str, int]:
    """The cases behind causes() rows (an upgrade's regressions) counted by kind, every kind present."""
    counts = dict.fromkeys(KINDS, 0)
    undeclared = found[UNDECLARED] if UNDECLARED in found else pd.Series(True, index=found.index)
    for change, statuses, cases, unknown in zip(found["change"], found["statuses"], found["cases"], undeclared,
                                                strict=True):
        counts[cause_kind(change, statuses, unknown)] += len(cases)
    return counts


def known_bug(reason: object) -> str:
    """What names a declared known upstream bug: the link its xfail reason ends with (harness.cell.known writes
    'why [ranges] link'), else the reason itself; '' for none."""
    text = as_text(reason)
    words = text.split()
    return words[-1] if words and words[-1].startswith(("http://", "https://")) else text


def broken(table: pd.DataFrame) -> set[str]:
    """The column keys of verdicts() whose cell is broken: nothing works there, so one case's failure says nothing
    of the change that case documents."""
    return {str(key) for key in table.loc[table["verdict"].eq(BROKEN), "key"]}
