"""The compatibility table: one verdict per cell, laid out as flax releases by jax releases.

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
- partial: an applicable case does not pass and no documented change explains it (its causes are named);
- flaky: an applicable case's attempts disagreed (failed, then passed): a failure that shows some of the time is not
  ruled out, so the cell is never a works tier (reports/compare.py reads the same retry as INCONCLUSIVE);
- works_for_current_code: every failure is a documented change failing as declared, i.e. the right answer for
  code written the old way ("N changes break older code");
- works_with_warnings: every applicable case passes, some with deprecation warnings;
- works: every applicable case passes cleanly.

Two optional result columns feed it, each False where absent: `documented` (the failure is a documented change
failing as declared; reports/changes.py decides it, `change_name` naming the change) and `smoke` (the case is in
the smoke subset).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NamedTuple

import pandas as pd

from harness import outputs
from harness.formats import Source
from harness.vocabulary import INSTALL_ERROR, is_absent, is_cell_unusable, is_passing
from reports.data.matrix import Matrix, tagged, version_key
from reports.data.text import as_text
from reports.verdicts.causes import causes
from reports.verdicts.coverage import coverages, family_text

WORKS = "works"
WARNED = "works_with_warnings"
CURRENT = "works_for_current_code"
PARTIAL = "partial"
BROKEN = "broken"
NOT_BUILT = "not_built"
INTERRUPTED = "interrupted"
NO_EVIDENCE = "no_evidence"
FLAKY = "flaky"
UNACCOUNTED = "unaccounted"

#: Each token, best first, with its one-line meaning for the legend.
VERDICTS: dict[str, str] = {
    WORKS: "every applicable case passes",
    WARNED: "every applicable case passes; some raise deprecation warnings",
    CURRENT: "only documented changes fail: code written for these releases works, older code breaks",
    FLAKY: "a case's attempts disagreed (failed, then passed): a failure that shows some of the time is not ruled "
           "out",
    PARTIAL: "an applicable case fails and no documented change explains it (its causes are listed)",
    BROKEN: "jax or flax do not import, the backend does not start, or a smoke (core) case fails",
    NO_EVIDENCE: "no applicable case ran, or none of its smoke (core) cases applies: nothing says it works",
    INTERRUPTED: "the run was interrupted (no done marker): the cases it never ran are unknown",
    UNACCOUNTED: "its results files hold what the reader could not account for, or name another cell: unknown",
    NOT_BUILT: "the cell's environment could not be built",
}



class Look(NamedTuple):
    """How a token reads in a report: its words, an emoji mark (Markdown), a text symbol and a CSS class (HTML,
    reports/_page.py)."""

    words: str
    mark: str
    symbol: str
    css_class: str


LOOKS: dict[str, Look] = {
    WORKS: Look("works", "\N{WHITE HEAVY CHECK MARK}", "\N{CHECK MARK}", "v-works"),
    WARNED: Look("works with warnings", "\N{WARNING SIGN}\N{VARIATION SELECTOR-16}",
                 "\N{WARNING SIGN}\N{VARIATION SELECTOR-15}", "v-warned"),
    CURRENT: Look("works for current code", "\N{BALLOT BOX WITH CHECK}\N{VARIATION SELECTOR-16}",
                  "\N{BALLOT BOX WITH CHECK}", "v-current"),
    FLAKY: Look("flaky", "\N{CLOCKWISE RIGHTWARDS AND LEFTWARDS OPEN CIRCLE ARROWS}", "\N{CLOCKWISE OPEN CIRCLE ARROW}",
                "v-flaky"),
    PARTIAL: Look("partial", "\N{LARGE ORANGE DIAMOND}", "\N{CIRCLE WITH LEFT HALF BLACK}", "v-partial"),
    BROKEN: Look("broken", "\N{CROSS MARK}", "\N{BALLOT X}", "v-broken"),
    NO_EVIDENCE: Look("no evidence", "\N{WHITE QUESTION MARK ORNAMENT}", "?", "v-no-evidence"),
    INTERRUPTED: Look("interrupted", "\N{DOUBLE VERTICAL BAR}\N{VARIATION SELECTOR-16}",
                      "\N{DOUBLE VERTICAL LINE}", "v-interrupted"),
    UNACCOUNTED: Look("unaccounted", "\N{BLACK QUESTION MARK ORNAMENT}", "\N{INTERROBANG}", "v-unaccounted"),
    NOT_BUILT: Look("not built", "\N{PACKAGE}", "\N{EMPTY SET}", "v-not-built"),
}

#: The optional result columns verdicts() reads, False where absent: the failure is a documented change failing
#: as declared (reports/changes.py), and the case is in the smoke subset.
DOCUMENTED, SMOKE = "documented", "smoke"
#: The optional result column naming a documented failure's change; its cause signature stands in without it.
CHANGE_NAME = "change_name"
#: The result column saying a case's attempts disagreed (reports.matrix.collapse); False where absent.
FLAKY_COLUMN = "flaky"

#: The columns of verdicts(), and of compat.csv: `failing` counts every applicable case that does not pass,
#: `documented` those of them a documented change explains, `flaky` the applicable cases whose attempts disagreed;
#: `causes` are the undocumented failures' signatures, `changes` the documented changes behind the rest.
#: `sources` maps each package the cell built from a source to where it came from (harness.formats.Source), and
#: the `jax` and `flax` of such a package are its version as the cell id names it (0.12.6+tree.5a0b5832), so a
#: branch never shares a row with the release it is compared to. `backend` is the cell's (cpu, gpu, tpu), so cells of
#: the same pins on other backends are told apart; `coverage` says what ran of what was collected, the rest by cause
#: (reports.verdicts.coverage; a view writes the verdict with it whenever a case was left out), `short_of_devices`
#: how many cases the cell's devices left out, `family_coverage` the same per family.
COLUMNS: list[str] = ["key", "cell_id", "run_id", "jax", "flax", "python", "backend", "verdict", "coverage",
                      "short_of_devices", "applicable", "failing", "documented", "warned", "flaky", "causes", "changes",
                      "sources", "family_coverage"]


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
    if evidence.undocumented:
        return PARTIAL
    if evidence.flaky:
        return FLAKY
    if evidence.documented:
        return CURRENT
    return WARNED if evidence.warned else WORKS


def _flag(results: pd.DataFrame, name: str) -> pd.Series:
    """An optional boolean result column, False where the column or its value is absent."""
    if name not in results:
        return pd.Series(False, index=results.index, dtype=bool)
    return results[name].eq(True).astype(bool)


def _marks(results: pd.DataFrame) -> pd.DataFrame:
    """Per result: whether it applies, passes, fails, fails as a documented change, and passes with warnings."""
    statuses = results["status"].tolist()
    # Each distinct status asked once, not once per result.
    absent = {status: is_absent(status) for status in set(statuses)}
    passes = {status: is_passing(status) for status in absent}
    applicable = pd.Series([not absent[status] for status in statuses], index=results.index, dtype=bool)
    passing = applicable & pd.Series([passes[status] for status in statuses], index=results.index, dtype=bool)
    failing = applicable & ~passing
    return pd.DataFrame({"applicable": applicable, "passing": passing, "failing": failing,
                         "documented": failing & _flag(results, DOCUMENTED),
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
        **{name: marks[name] for name in ("applicable", "passing", "warned", "documented", "flaky")},
        "smoke_failing": marks["failing"] & ~marks["documented"] & _flag(results, SMOKE),
        "smoke": _flag(results, SMOKE), "smoke_applicable": marks["applicable"] & _flag(results, SMOKE),
    }).groupby("key").sum().reindex(list(complete), fill_value=0)
    lost = unaccounted or {}
    return {str(key): Evidence(complete=complete[str(key)], unaccounted=lost.get(str(key), 0),
                               **{str(name): int(value) for name, value in row.items()})
            for key, row in counts.to_dict("index").items()}


def verdicts(matrix: Matrix, found: pd.DataFrame | None = None) -> pd.DataFrame:
    """One row per column key (version order): the cell, its verdict, how many applicable cases, how many of them do
    not pass, how many of those a documented change explains, how many passed with warnings, the causes of the
    other failures (signatures, most cases first) and the documented changes (by name, else signature).

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
    # Only failures count: a full causes() table also holds flaky passes.
    failures = {(key, case): (known, as_text(name)) for key, case, known, name in zip(
        results.loc[failing, "key"].tolist(), results.loc[failing, "case_id"].tolist(),
        marks.loc[failing, "documented"].tolist(), names[failing].tolist(), strict=True)}
    # Per key: {signature: failures} of the undocumented failures, {change: failures} of the documented ones.
    tallies: dict[bool, dict[str, dict[str, int]]] = {False: {}, True: {}}
    for signature, cases in zip(found["signature"], found["cases"], strict=True):
        for key, case in cases:
            if (key, case) in failures:
                known, name = failures[key, case]
                tally = tallies[known].setdefault(key, {})
                tally[name or signature] = tally.get(name or signature, 0) + 1
    covered = coverages(matrix)
    rows = []
    for key, cell in matrix.cells.iterrows():
        counts = counted[str(key)]
        coverage, families = covered[str(key)]
        sources = cell["sources"] if isinstance(cell.get("sources"), dict) else {}
        mine, theirs = tallies[False].get(str(key), {}), tallies[True].get(str(key), {})
        rows.append({
            "key": key, "cell_id": cell["cell_id"], "run_id": cell["run_id"],
            "jax": tagged(cell["jax"], sources, "jax"), "flax": tagged(cell["flax"], sources, "flax"),
            "python": as_text(cell["python"]), "backend": as_text(cell.get("backend")), "verdict": verdict(counts),
            "coverage": coverage.text(), "short_of_devices": sum(coverage.devices.values()),
            "applicable": counts.applicable, "failing": counts.applicable - counts.passing,
            "documented": counts.documented, "warned": counts.warned, "flaky": counts.flaky,
            "causes": sorted(mine, key=lambda signature: -mine[signature]),
            "changes": sorted(theirs, key=lambda name: -theirs[name]),
            "sources": sources,
            "family_coverage": [family_text(family, found) for family, found in families.items()],
        })
    return pd.DataFrame(rows, columns=COLUMNS)


def broken(table: pd.DataFrame) -> set[str]:
    """The column keys of verdicts() whose cell is broken: nothing works there, so one case's failure says nothing
    of the change that case documents."""
    return {str(key) for key in table.loc[table["verdict"].eq(BROKEN), "key"]}


def label(token: str) -> str:
    """A token as words: 'works_with_warnings' -> 'works with warnings'."""
    return LOOKS[token].words if token in LOOKS else token


def detail(row: Mapping[Any, Any] | pd.Series) -> str:
    """What a verdict adds to its words: 'k of n fail' (partial), 'attempts disagreed in k of n' (flaky), 'N changes
    break older code' (works for current code); empty otherwise."""
    if row["verdict"] == PARTIAL:
        return f"{row['failing']} of {row['applicable']} fail"
    if row["verdict"] == FLAKY and row.get("flaky"):
        return f"attempts disagreed in {row['flaky']} of {row['applicable']}"
    if row["verdict"] == CURRENT:
        count = len(row["changes"])
        return f"{count} {'change breaks' if count == 1 else 'changes break'} older code"
    return ""


def describe(row: Mapping[Any, Any] | pd.Series) -> str:
    """A verdict as a reader sees it: 'works', 'partial: 3 of 40 fail', 'works for current code: 2 changes break
    older code'; with its coverage when any case was left out ('works (on 19 of 103 cases: 80 need 8 devices)')."""
    extra = detail(row)
    said = f"{label(str(row['verdict']))}: {extra}" if extra else label(str(row["verdict"]))
    covered = coverage_note(row)
    return f"{said} {covered}" if covered else said


def coverage_note(row: Mapping[Any, Any] | pd.Series) -> str:
    """'(on 19 of 103 cases: 80 need 8 devices, 4 need an API this cell lacks)' whenever the cell left any case out
    (its coverage names a cause: devices, a missing API, no record); empty when every collected case ran."""
    ran, _, rest = as_text(row.get("coverage")).partition(" (")
    return f"(on {ran} cases: {rest.removesuffix(')')})" if rest else ""


def grid(table: pd.DataFrame) -> pd.DataFrame:
    """Flax releases (rows, newest first) by jax releases (columns, oldest first), each holding the column keys of
    its cells (several when a pair ran on several Pythons or runs); empty where no cell pairs them. A cell on an
    accelerator has a column of its own, '0.11.2 (gpu)', never a slot shared with the CPU cell of its pins."""
    backends = table["backend"].tolist() if "backend" in table else [None] * len(table)
    columns = [(jax, backend if isinstance(backend, str) and backend not in ("", "cpu") else "")
               for jax, backend in zip(table["jax"], backends, strict=True)]
    ordered = sorted(dict.fromkeys(columns), key=lambda column: (version_key(column[0]), column[1]))
    jaxes = [f"{jax} ({backend})" if backend else jax for jax, backend in ordered]
    named = dict(zip(ordered, jaxes, strict=True))
    flaxes = sorted(dict.fromkeys(table["flax"]), key=version_key, reverse=True)
    slots: dict[tuple[str, str], list[str]] = {}
    for key, column, flax in zip(table["key"], columns, table["flax"], strict=True):
        slots.setdefault((flax, named[column]), []).append(key)
    layout = pd.DataFrame([[slots.get((flax, jax), []) for jax in jaxes] for flax in flaxes],
                          index=flaxes, columns=jaxes, dtype=object)
    layout.index.name, layout.columns.name = "flax", "jax"
    return layout


def origins(table: pd.DataFrame) -> dict[str, str]:
    """Where each source-built version of the table came from, by the version grid() names it: {'0.12.6+tree.5a0b
    5832': '/src/flax'}; a row or column label reads '0.12.6+tree.5a0b5832 (from /src/flax)'."""
    if "sources" not in table:
        return {}
    return {source.tag: source.shown for found in table["sources"] if isinstance(found, dict)
            for source in found.values()}


def write(table: pd.DataFrame, report_dir: Path) -> tuple[Path, Path]:
    """compat.csv (causes and changes joined by ' | ', sources as 'flax 0.12.6+tree.5a0b5832 from
    file:///src/flax') and compat.json (a list of objects, sources as {package: {version, where, label}}), each row
    carrying its schema_version (harness.outputs owns both files)."""
    csv_path, json_path = Path(report_dir) / outputs.COMPAT_CSV.name, Path(report_dir) / outputs.COMPAT_JSON.name
    sources: list[dict[str, Source]] = ([found if isinstance(found, dict) else {} for found in table["sources"]]
                                        if "sources" in table else [{} for _ in range(len(table))])
    outputs.write_frame(csv_path, outputs.COMPAT_CSV, table.assign(
        causes=[" | ".join(found) for found in table["causes"]],
        family_coverage=[" | ".join(found) for found in table["family_coverage"]],
        changes=[" | ".join(found) for found in table["changes"]],
        sources=[" | ".join(f"{s.package} {s.tag} from {s.where}" for _, s in sorted(found.items()))
                 for found in sources]))
    records = table.to_dict("records")
    for record, found in zip(records, sources, strict=True):
        record["sources"] = {name: {"version": s.version, "where": s.where, "label": s.label}
                             for name, s in sorted(found.items())}
    return csv_path, outputs.write_rows(json_path, outputs.COMPAT_JSON, records)
