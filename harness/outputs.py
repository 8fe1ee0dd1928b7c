"""Every file shardmatrix writes besides a cell's own: its name, its schema version, its migrations, its reader,
and the one atomic writer every report file goes through.

A sibling of harness.formats (a cell's own files) with the same rule: it imports nothing but the standard library
and harness.formats, so the host, the tools and reports/ read a file the same way.

How a version travels (asv's rule: a reader refuses a newer file and migrates an older one through `update_to_N`):
- A JSON document (an object) holds `schema_version` at its top.
- A table, a CSV or a JSON list of rows, holds it in every row, as the first column: a results record carries its
  schema_version the same way. A column keeps the file a plain CSV that pandas, csvkit and a spreadsheet read
  with no option; a leading `# schema_version` comment line would need `comment="#"` (which also cuts any unquoted
  field holding a '#', such as a cause naming 'issue #123') or `skiprows=1`, and a spreadsheet shows it as a row.
  A table with no rows has nothing to migrate.
- A file written before it carried a version is version 1; each reader brings it up through the same migrations.
- Views for people (matrix.md, matrix.html, compare.md, frontier.md) carry no version: no program reads them back.
"""

from __future__ import annotations

import contextlib
import csv
import io
import json
import os
import re
import tempfile
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from harness import formats
from harness.formats import ShardmatrixError

Row = dict[str, Any]
VERSION_KEY = "schema_version"


class OutputFileError(ShardmatrixError):
    """A file of ours that cannot be read as its format says, phrased as one line naming it: '<path>: <why>'."""

    def __init__(self, path: Path | str, why: str) -> None:
        super().__init__(f"{path}: {why}")
        self.path, self.why = Path(path), why


class FrontierFileError(OutputFileError):
    """A frontier file this reader cannot read, phrased as one line naming it."""


# --- the one writer -----------------------------------------------------------------------------------------------


@contextlib.contextmanager
def replacing(path: Path, binary: bool = False) -> Iterator[IO[Any]]:
    """A handle on a temporary sibling of `path`, renamed over it when the block ends and removed when it fails:
    a reader (or the next build) sees the previous file whole or the new one whole, never half of either."""
    path = Path(path)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    except OSError as exc:  # a file where the folder should be, no permission, no space: the user's to fix
        raise OutputFileError(path, f"cannot be written ({exc.strerror or exc})") from None
    try:
        stream: IO[Any] = os.fdopen(handle, "wb") if binary else os.fdopen(handle, "w", encoding="utf-8", newline="")
        with stream:
            yield stream
        try:
            os.replace(temporary, path)
        except OSError as exc:  # a folder by that name, say
            raise OutputFileError(path, f"cannot be replaced ({exc.strerror or exc})") from None
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise


def write_atomically(path: Path, content: str | bytes) -> Path:
    """Write `content` to `path` through a temporary sibling and a rename (replacing); returns `path`."""
    with replacing(path, binary=isinstance(content, bytes)) as stream:
        stream.write(content)
    return Path(path)


# --- formats, versions, migrations --------------------------------------------------------------------------------


def stamped(version: int) -> Callable[[Row], Row]:
    """The migration to a version whose only change is that the file carries its version."""
    def update(row: Row) -> Row:
        return {VERSION_KEY: version, **{k: v for k, v in row.items() if k != VERSION_KEY}}
    update.__name__ = f"update_to_{version}"
    update.__doc__ = f"Version {version - 1} -> {version}: the same content, now carrying its schema version."
    return update


@dataclass(frozen=True)
class Format:
    """One file's name, its current schema version, what a reader of it is told it is, its migrations
    (`migrations[n]`, an `update_to_n`, turns a version n-1 row or document into a version n one), and the error
    its reader raises."""

    name: str
    version: int
    what: str
    migrations: Mapping[int, Callable[[Row], Row]] = field(default_factory=dict)
    error_class: type[OutputFileError] = OutputFileError

    def migrate(self, item: Row, where: Path | str) -> Row:
        """Bring one row or document to `version`; OutputFileError naming `where` for a newer or unreadable one."""
        found = item.get(VERSION_KEY, 1)
        if isinstance(found, str) and found.strip().isdigit():  # a CSV's column reads as text
            found = int(found)
        if not isinstance(found, int) or isinstance(found, bool) or found < 1:
            raise self.error(where, f"{self.what} schema_version {found!r} is not a version")
        if found > self.version:
            raise self.error(where, f"{self.what} schema {found} is newer than this reader knows ({self.version}); "
                                    "update shardmatrix to read it")
        for target in range(found + 1, self.version + 1):
            if target not in self.migrations:
                raise self.error(where, f"{self.what} schema {found} has no migration to version {target}")
            item = self.migrations[target](item)
            item[VERSION_KEY] = target
        return {**item, VERSION_KEY: self.version} if found == self.version else item

    def error(self, where: Path | str, why: str) -> OutputFileError:
        """The error a reader of this file raises, naming `where`."""
        return self.error_class(where, why)


def read_text(path: Path, what: str, error: type[OutputFileError] = OutputFileError) -> str:
    """A file's text, or one line naming it: missing, a folder, not UTF-8."""
    try:
        return Path(path).read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        raise error(path, f"{what} is not UTF-8 text (byte {exc.start})") from None
    except OSError as exc:
        raise error(path, f"{what} unreadable ({exc.strerror or exc})") from None


def read_json(path: Path, fmt: Format) -> Any:
    """A JSON file of `fmt`, parsed; one line naming it when it is not valid JSON."""
    try:
        return json.loads(read_text(path, fmt.what, fmt.error_class))
    except json.JSONDecodeError as exc:
        raise fmt.error(path, f"{fmt.what} is not valid JSON ({exc.msg}, line {exc.lineno})") from None


def read_document(path: Path, fmt: Format) -> Row:
    """A JSON document (an object carrying schema_version) of `fmt`, migrated to its version."""
    data = read_json(path, fmt)
    if not isinstance(data, dict):
        raise fmt.error(path, f"{fmt.what} is a JSON {type(data).__name__}, not an object")
    return fmt.migrate(data, path)


def write_document(path: Path, fmt: Format, content: Mapping[str, Any], indent: int | None = 1) -> Path:
    """Write a JSON document of `fmt`, its schema_version first."""
    document = {VERSION_KEY: fmt.version, **{k: v for k, v in content.items() if k != VERSION_KEY}}
    return write_atomically(path, json.dumps(document, indent=indent, ensure_ascii=False) + "\n")


def rows_of(data: Any, fmt: Format, where: Path | str) -> list[Row]:
    """The rows of a JSON list of `fmt`, each migrated; one line naming `where` when it is not a list of objects."""
    if not isinstance(data, list):
        raise fmt.error(where, f"{fmt.what} is a JSON {type(data).__name__}, not a list of rows")
    bad = next((number for number, row in enumerate(data, 1) if not isinstance(row, dict)), None)
    if bad is not None:
        raise fmt.error(where, f"{fmt.what}: row {bad} is not an object")
    return [fmt.migrate(row, where) for row in data]


def read_rows(path: Path, fmt: Format) -> list[Row]:
    """The rows of a JSON list of `fmt` (compat.json), each migrated to its version."""
    return rows_of(read_json(path, fmt), fmt, path)


def write_rows(path: Path, fmt: Format, rows: Sequence[Mapping[Any, Any]]) -> Path:
    """Write a JSON list of `fmt`, each row carrying schema_version first."""
    return write_atomically(path, json.dumps(versioned_rows(fmt, rows), indent=1, ensure_ascii=False) + "\n")


def versioned_rows(fmt: Format, rows: Sequence[Mapping[Any, Any]]) -> list[Row]:
    """Each row with `fmt`'s schema_version first."""
    return [{VERSION_KEY: fmt.version, **{k: v for k, v in row.items() if k != VERSION_KEY}} for row in rows]


def read_csv(path: Path, fmt: Format) -> list[Row]:
    """The rows of a CSV of `fmt` as text fields, each migrated to its version (schema_version as an int)."""
    text = read_text(path, fmt.what, fmt.error_class)
    try:
        rows = list(csv.DictReader(io.StringIO(text, newline="")))
    except csv.Error as exc:
        raise fmt.error(path, f"{fmt.what} is not CSV ({exc})") from None
    return [fmt.migrate(dict(row), path) for row in rows]


def write_frame(path: Path, fmt: Format, frame: Any) -> Path:
    """Write a pandas DataFrame as a CSV of `fmt` (DataFrame.to_csv(index=False)), schema_version its first column."""
    stamped_frame = frame.drop(columns=[VERSION_KEY], errors="ignore")
    stamped_frame.insert(0, VERSION_KEY, fmt.version)
    return write_atomically(path, stamped_frame.to_csv(index=False))


def write_dicts(path: Path, fmt: Format, columns: Sequence[str], rows: Sequence[Mapping[str, Any]]) -> Path:
    """Write rows as a CSV of `fmt` with exactly `columns` after schema_version (csv.DictWriter)."""
    with replacing(path) as stream:
        writer = csv.DictWriter(stream, fieldnames=[VERSION_KEY, *columns])
        writer.writeheader()
        writer.writerows({VERSION_KEY: fmt.version, **row} for row in rows)
    return Path(path)


# --- the report folder, OUT/report ------------------------------------------------------------------------------

#: The long-form table (reports.data.longform): one row per (run, cell, case). 2: schema_version, the first column.
RESULTS_CSV = Format("results.csv", 2, "results table", {2: stamped(2)})


def compat_update_to_3(row: Row) -> Row:
    """compat 2 -> 3: a version 2 row did not say its backend or its coverage (what ran of what was collected), so
    they read as unknown (null), and no case is known to have been left out for its devices."""
    return {**row, "backend": None, "coverage": None, "short_of_devices": 0, "family_coverage": None,
            VERSION_KEY: 3}


def compat_update_to_4(row: Row) -> Row:
    """compat 3 -> 4: a version 3 row did not count its failures by kind (documented, known upstream, unexplained)
    nor judge each family, so those read as unknown (null); its verdict stays as judged then."""
    return {**row, "known": None, "unexplained": None, "known_bugs": None, "family_verdicts": None, VERSION_KEY: 4}


#: The compatibility verdicts (reports.verdicts.compat), one row per cell. 2: schema_version in every row; 3:
#: `backend`, `coverage`, `short_of_devices` and `family_coverage` (reports.verdicts.coverage); 4: `known`,
#: `unexplained` and `known_bugs` (failures counted by kind), `family_verdicts`, the verdict works_except_known_bugs.
COMPAT_MIGRATIONS = {2: stamped(2), 3: compat_update_to_3, 4: compat_update_to_4}
COMPAT_CSV = Format("compat.csv", 4, "compat table", COMPAT_MIGRATIONS)
COMPAT_JSON = Format("compat.json", 4, "compat list", COMPAT_MIGRATIONS)
#: The documented changes (reports.verdicts.documented), one row per change. 2: schema_version, the first column.
CHANGES_CSV = Format("changes.csv", 2, "changes table", {2: stamped(2)})
#: The views: read by people, never by a program, so unversioned.
MATRIX_MD, MATRIX_HTML, COMPARE_MD = "matrix.md", "matrix.html", "compare.md"


def compare_update_to_2(document: Row) -> Row:
    """compare.json 1 -> 2: a version 1 verdict did not count its regressions by kind (null: unknown)."""
    return {**document, "regressions": None, VERSION_KEY: 2}


#: An upgrade's verdict for programs (reports.cli writes it beside compare.md; the action reads it for its outputs):
#: `verdict`, `coverage` (what it was judged on when cases were left out: for devices on both sides, or not
#: applicable on one side only; '' when every case was judged on both sides) and `reasons`. 2: `regressions`, the
#: regressed cases counted by kind as the compatibility table counts a cell's failures ({documented, known,
#: unexplained}: reports.verdicts.compat.KINDS).
COMPARE_JSON = Format("compare.json", 2, "upgrade verdict", {2: compare_update_to_2})
#: The reproducers' folder of a report (reports.views.repro).
REPRO_DIR = "repro"


# --- the frontier -------------------------------------------------------------------------------------------------


def frontier_release_update_to_2(document: Row) -> Row:
    """flax-<v>.json 1 -> 2: version 1 searched the core (smoke) cases alone, so its range is the core range and the
    whole corpus's range is unknown (empty); its probes were all core probes, and it kept no budget."""
    row = dict(document.get("row", {}))
    row.update(core_from=row.get("works_from", ""), core_to=row.get("works_to", ""), works_from="", works_to="",
               hole_chance="", narrower="", stopped="measured by a schema 1 frontier: core cases only")
    probes = [{"verdict": None, "corpus": False, **probe} for probe in document.get("probes", [])]
    return {**document, "row": row, "cases": [], "probes": probes}


def frontier_update_to_2(document: Row) -> Row:
    """frontier.json 1 -> 2: each release document through frontier_release_update_to_2."""
    releases = document.get("releases", [])
    return {**document, "releases": [frontier_release_update_to_2(r) if isinstance(r, dict) and
                                     r.get(VERSION_KEY, 1) == 1 else r for r in releases]}


def frontier_release_update_to_3(document: Row) -> Row:
    """flax-<v>.json 2 -> 3: version 2 counted a declared known upstream bug as a failure, so its whole-corpus range
    holds none (`known_bugs` empty) and a range that only such bugs cut short reads narrower or none."""
    row = document.get("row", {})
    # A malformed row is left as found: the frontier's reader refuses it in one line.
    return {**document, "row": {**row, "known_bugs": ""} if isinstance(row, dict) else row, VERSION_KEY: 3}


def frontier_update_to_3(document: Row) -> Row:
    """frontier.json 2 -> 3: each release document through frontier_release_update_to_3."""
    releases = document.get("releases", [])
    # A version 1 release inside it went through frontier_update_to_2 already, its own version left at 1.
    return {**document, "releases": [frontier_release_update_to_3(r) if isinstance(r, dict) and
                                     r.get(VERSION_KEY, 1) < 3 else r for r in releases], VERSION_KEY: 3}


def frontier_csv_update_to_3(row: Row) -> Row:
    """frontier.csv 2 -> 3: as frontier_release_update_to_3, no known bug listed beside a version 2 range."""
    return {**row, "known_bugs": "", VERSION_KEY: 3}


#: frontier.csv: the whole-corpus range (documented changes and declared known upstream bugs excepted, the bugs that
#: fail inside it in `known_bugs`, their links joined by spaces) and its edges, beside the core range; each release
#: document's `row` holds them all.
FRONTIER_COLUMNS = ("flax", "declared_jax", "core_from", "core_to", "works_from", "works_to", "first_broken_below",
                    "first_broken_above", "cause_below", "cause_above", "probes", "holes", "hole_chance", "narrower",
                    "known_bugs", "stopped")
#: frontier_cases.csv: one row per (flax, case) whose range is narrower than the core range.
FRONTIER_CASE_COLUMNS = ("flax", "case", "works_from", "works_to", "first_broken_below", "first_broken_above",
                         "cause_below", "cause_above")
#: What the frontier view reads of a row, and of every probe.
VIEW_ROW_KEYS = ("flax", "declared_jax", "core_from", "core_to", "works_from", "works_to", "holes", "probes")
PROBE_KEYS = ("jax", "works", "cell", "cause")

#: OUT/report/frontier.json: {"schema_version", "jax": [versions], "releases": [flax-<v>.json documents]}.
#: 2: the whole-corpus range beside the core range, the narrower cases, the budget, each probe's verdict and kind.
#: 3: the row's `known_bugs` (a range where only declared known bugs and documented changes fail is a range).
FRONTIER_JSON = Format("frontier.json", 3, "frontier", {2: frontier_update_to_2, 3: frontier_update_to_3},
                       FrontierFileError)
#: OUT/frontier/flax-<v>.json, one flax release: flax, row, cases, requirement, evidence, candidates, declared_ok,
#: budget, probes; seconds (the wall of measuring it, absent before 2026-11-24).
FRONTIER_RELEASE = Format("flax-{flax}.json", 3, "frontier release",
                          {2: frontier_release_update_to_2, 3: frontier_release_update_to_3}, FrontierFileError)
#: OUT/report/frontier.csv (a row per flax release) and frontier_cases.csv (a row per narrower case).
#: 2: schema_version, the first column; 3 (frontier.csv): `known_bugs`.
FRONTIER_CSV = Format("frontier.csv", 3, "frontier table", {2: stamped(2), 3: frontier_csv_update_to_3},
                      FrontierFileError)
FRONTIER_CASES_CSV = Format("frontier_cases.csv", 2, "frontier cases table", {2: stamped(2)}, FrontierFileError)
FRONTIER_MD = "frontier.md"
FRONTIER_SCHEMA_VERSION = FRONTIER_JSON.version
FRONTIER_FILENAME = FRONTIER_JSON.name


def frontier_document(jax: list[str], releases: list[Row]) -> Row:
    """The content of OUT/report/frontier.json: every jax release asked for and one document per flax release."""
    return {VERSION_KEY: FRONTIER_JSON.version, "jax": jax, "releases": releases}


def read_frontier(path: Path) -> Row:
    """A frontier.json, migrated to FRONTIER_JSON's version; FrontierFileError naming it when it is not one."""
    document = read_document(path, FRONTIER_JSON)
    if not isinstance(document.get("releases"), list) or not isinstance(document.get("jax"), list):
        raise FrontierFileError(path, "frontier without its `jax` and `releases` lists")
    bad = [n for n, r in enumerate(document["releases"], 1) if not _is_release(r)]
    if bad or not all(isinstance(jax, str) for jax in document["jax"]):
        raise FrontierFileError(path, f"frontier release {bad[0]} is not a flax release's document (flax, "
                                      "requirement, row, probes)" if bad else "frontier `jax` is not a list of texts")
    return document


def frontier_release_path(out: Path, flax: str) -> Path:
    """Where one flax release's frontier result is stored: OUT/frontier/flax-<v>.json."""
    return Path(out) / "frontier" / FRONTIER_RELEASE.name.format(flax=flax)


def frontier_release_paths(out: Path) -> list[Path]:
    """Every stored flax release's result under OUT/frontier, by name."""
    return sorted((Path(out) / "frontier").glob(FRONTIER_RELEASE.name.format(flax="*")))


def read_frontier_release(path: Path) -> Row:
    """One flax release's frontier result, migrated; FrontierFileError naming it when it is not one."""
    document = read_document(path, FRONTIER_RELEASE)
    if not _is_release(document, FRONTIER_COLUMNS, whole=True):
        raise FrontierFileError(path, "not a flax release's frontier document (flax, requirement, a row of every "
                                      "frontier.csv column, probes, evidence, candidates)")
    return document


def _is_release(document: object, row_keys: Sequence[str] = VIEW_ROW_KEYS, whole: bool = False) -> bool:
    """Whether a flax release's document has what its readers index: flax, requirement, a row of `row_keys` (text),
    probes (jax, works, cell, cause), and where present declared_ok, cases and budget of their shapes; `whole`: also
    its evidence and candidates (what merge and the bench read)."""
    if not isinstance(document, dict) or not all(isinstance(document.get(key), str) for key in ("flax", "requirement")):
        return False
    row, probes = document.get("row"), document.get("probes")
    cases, budget = document.get("cases", []), document.get("budget", {"core": 0, "corpus": 0})
    return (isinstance(row, dict) and all(isinstance(row.get(key), str) for key in row_keys)
            and isinstance(probes, list) and all(
                isinstance(p, dict) and isinstance(p.get("jax"), str) and isinstance(p.get("works"), bool)
                and all(key in p for key in PROBE_KEYS) for p in probes)
            and _texts(document.get("declared_ok", []))
            and isinstance(cases, list) and all(
                isinstance(c, dict) and all(isinstance(c.get(key), str) for key in FRONTIER_CASE_COLUMNS)
                for c in cases)
            and isinstance(budget, dict) and all(isinstance(budget.get(key), int) for key in ("core", "corpus"))
            and (not whole or all(_texts(document.get(key)) for key in ("evidence", "candidates"))))


def _texts(value: object) -> bool:
    """Whether a value is a list of texts."""
    return isinstance(value, list) and all(isinstance(item, str) for item in value)


# --- the CI plans ---------------------------------------------------------------------------------------------------

#: The fan-out plan (harness.host.plan): a JSON list of {"schema_version", "cell", "session", "python", "backend"
#: [, "runner"]}, the `include` of a GitHub Actions matrix, so a list of rows, each carrying its version.
PLAN = Format("plan", 2, "plan", {2: stamped(2)})
#: The frontier's plan (shardmatrix.frontier plan): a JSON list of {"schema_version", "flax"}.
FRONTIER_PLAN = Format("frontier plan", 2, "frontier plan", {2: stamped(2)}, FrontierFileError)


def plan_json(fmt: Format, entries: Sequence[Mapping[str, Any]]) -> str:
    """A plan as the one JSON line a workflow reads."""
    return json.dumps(versioned_rows(fmt, entries))


def read_plan(text: str, fmt: Format, key: str, where: str) -> list[Row]:
    """The entries of a plan's JSON (each migrated), each with a text `key`; one line naming `where` if not one."""
    data = formats.parse_json(text, list, lambda why: fmt.error(where, f"{fmt.what} is {why}"))
    for number, entry in enumerate(data, 1):
        if not isinstance(entry, dict) or not isinstance(entry.get(key), str):
            raise fmt.error(where, f"{fmt.what} entry {number} has no {key!r}: {json.dumps(entry)[:80]}")
    return rows_of(data, fmt, where)


def plan_text(path: str, stdin: IO[str], what: str) -> str:
    """The text of a plan named on a command line (`-`: stdin); one line naming it when unreadable."""
    if path == "-":
        try:
            return stdin.read()
        except UnicodeDecodeError as exc:
            raise OutputFileError("stdin", f"{what} is not UTF-8 text (byte {exc.start})") from None
    return read_text(Path(path), what)


# --- durations ------------------------------------------------------------------------------------------------------

#: .nox/<DURATIONS_FOLDER>/<cell id>.json, {"schema_version", "cell_id", "seconds"}: one cell's last wall time.
DURATIONS = Format("{cell}.json", 2, "durations", {2: stamped(2)})
DURATIONS_FOLDER = ".shardmatrix-durations"


def write_duration(folder: Path, cell_id: str, seconds: float) -> Path:
    """Keep one cell's wall seconds in `folder` (atomically: cells finish concurrently)."""
    return write_document(Path(folder) / DURATIONS.name.format(cell=cell_id), DURATIONS,
                          {"cell_id": cell_id, "seconds": round(seconds, 2)}, indent=None)


def read_durations(folder: Path) -> dict[str, float]:
    """{cell id: seconds} of every duration kept in `folder`; a file that cannot be read is left out (a duration
    only orders work, and a guess at an order never changes a result)."""
    found: dict[str, float] = {}
    for path in Path(folder).glob(DURATIONS.name.format(cell="*")):
        try:
            seconds = read_document(path, DURATIONS).get("seconds")
        except OutputFileError:
            continue
        if isinstance(seconds, (int, float)) and not isinstance(seconds, bool):
            found[path.stem] = float(seconds)
    return found


# --- the upgrade's declarations ---------------------------------------------------------------------------------------

#: OUT/report/upgrade-changes-<run>.json, the documented changes of a corpus that `nox -s upgrade` hands the report:
#: {"schema_version": 1, "changes": [{"case_id": ..., "change": {CHANGE_KEYS...}}, ...]}.
DECLARATIONS = Format("upgrade-changes-{run}.json", 1, "declarations file")
DECLARATIONS_VERSION = DECLARATIONS.version


def declarations_path(report_dir: Path, run_id: str) -> Path:
    """Where `nox -s upgrade` writes the declarations of its candidate run."""
    return Path(report_dir) / DECLARATIONS.name.format(run=run_id)


def write_declarations(path: Path, rows: Sequence[Mapping[str, Any]]) -> Path:
    """Write the declarations file: rows of {"case_id", "change"}."""
    return write_document(path, DECLARATIONS, {"changes": list(rows)})


def read_declarations(path: Path) -> list[tuple[str, Row]]:
    """(case id, change) of each entry of a declarations file; one line naming it when it is not one."""
    document = read_document(path, DECLARATIONS)
    rows = document.get("changes")
    if not isinstance(rows, list) or not all(isinstance(row, dict) and isinstance(row.get("change"), dict)
                                             for row in rows):
        raise OutputFileError(path, "`changes` is not a list of {case_id, change} objects")
    return [("" if row.get("case_id") is None else str(row.get("case_id")), row["change"]) for row in rows]


# --- the range checker (harness.tools.ranges) ------------------------------------------------------------------------

#: What a range check's document and its rows hold (harness.tools.ranges writes them): every reader may rely on it.
RANGE_STATUSES = ("confirmed", "wrong", "unchecked", "bounded by the case's needs")
RANGE_COUNTS = ("probes", "budget", "wrong", "unchecked")
RANGE_EDGE_TEXT = ("case", "package", "declared", "source", "why")
RANGE_NEED_TEXT = ("case", "held", "unmet", "reason")
#: The options of a run that change what a probe's cell answers and that `nox -s ranges` accepts: a document records
#: those given (`options`), and checks run with other values are not merged.
RANGE_OPTIONS = ("timeout", "devices", "suite_budget")
#: How far inside its ranges a check probed (`--inside`, harness.tools.ranges.INSIDE): recorded as the option
#: `inside` where it was not every release, so a check of less evidence is never merged into, or taken over, one of
#: more.
RANGE_INSIDE = ("none", "middle", "every")

#: How a row's `inside` says how much of a range's inside was judged (version 1 said it only so): read here alone, by
#: the migration to version 2 and by the reader, which holds a version 2 row's text to its counts.
_V1_INSIDE = re.compile(r"(\d+) of (\d+) releases inside probed(?:, (\d+) of them judged)?")
_V1_NOTHING_OWNED = ("no release inside", "nothing inside probed")
#: How a row that is not confirmed says it took no count of its inside (harness.tools.ranges.Finding.inside_said).
_NOT_CONFIRMED_INSIDE = "nothing inside probed"


def _inside_counts(text: str) -> tuple[int, int] | None:
    """(the releases inside the row owns, those judged), as a row's `inside` text says it; None where it says it in no
    known way."""
    if text.startswith(_V1_NOTHING_OWNED):
        return 0, 0
    match = _V1_INSIDE.match(text)
    if match is None:
        return None
    return int(match.group(2)), int(match.group(3) if match.group(3) is not None else match.group(1))


def _ranges_update_to_2(document: Row) -> Row:
    """Version 1 -> 2: each row that says how much of its inside was probed gets the number of releases inside it owns
    (`inside_releases`) and of those judged (`inside_judged`), read from its `inside` text (the one place that text
    is parsed); a row without `inside` (the bounds-only checker's) stays without. The document gets no `options`
    given, no `commit` and no case digests (`cases`): a check of version 1 recorded none, so none of its rows is known
    to speak for a case's current source (harness.tools.case_digest stamps them where git shows the case unchanged)."""
    rows = document.get("edges")
    if isinstance(rows, list):
        document["edges"] = [_row_to_2(row) for row in rows]
    # Whatever a version 1 file holds under those keys no version 1 checker wrote: digests there would pass its rows
    # off as checks of the cases as they are.
    return {**document, "options": {}, "commit": None, "cases": {}}


def _row_to_2(row: Any) -> Any:
    if not isinstance(row, dict) or not isinstance(row.get("inside"), str) or "inside_judged" in row:
        return row
    counts = _inside_counts(row["inside"])
    return row if counts is None else {**row, "inside_releases": counts[0], "inside_judged": counts[1]}


RANGES_JSON = Format("ranges.json", 2, "range check", {2: _ranges_update_to_2})


def write_ranges(out: Path, content: Mapping[str, Any]) -> Path:
    """Write the range checker's document (`ranges.json` under `out`)."""
    return write_stored_ranges(Path(out) / RANGES_JSON.name, content)


def write_stored_ranges(path: Path, content: Mapping[str, Any]) -> Path:
    """Write a range checker's document at `path`, whatever its name (a stored one: docs/data/ranges.json)."""
    return write_document(Path(path), RANGES_JSON, content)


def ranges_version(path: Path) -> int:
    """The schema version a range checker's document was written with, before any migration (a document that says
    none is version 1); one line naming the file where it is not a JSON object."""
    data = read_json(path, RANGES_JSON)
    if not isinstance(data, dict):
        raise RANGES_JSON.error(path, f"{RANGES_JSON.what} is a JSON {type(data).__name__}, not an object")
    found = data.get(VERSION_KEY, 1)
    if isinstance(found, str) and found.strip().isdigit():  # as Format.migrate reads it
        found = int(found)
    # Not a version at all: 0, which read_ranges refuses in its own words.
    return found if isinstance(found, int) and not isinstance(found, bool) else 0


def read_ranges(path: Path) -> Row:
    """A range checker's document, migrated to the version this reader knows, and checked whole: its counts are
    whole numbers, each edge has its texts, a known status, a `found` that is text or null and, where it says what
    was probed inside (`inside`), the count judged (`inside_judged`); each need gone undeclared its texts; the
    options, commit and case digests it was checked with. One line naming the file and the first thing not so."""
    document = read_document(path, RANGES_JSON)
    for name in RANGE_COUNTS:
        value = document.get(name)
        if not _is_count(value):
            raise RANGES_JSON.error(path, f"range check: {name} is {value!r}, not a count")
    if document["probes"] > document["budget"]:
        # A probe is built only within the budget, and a merge or a take adds up both: more is no check's count.
        raise RANGES_JSON.error(path, f"range check: probes {document['probes']} exceed its budget "
                                      f"{document['budget']}: a check builds no more probes than its budget")
    for key, texts in (("edges", RANGE_EDGE_TEXT), ("needs_without_change", RANGE_NEED_TEXT)):
        rows = document.get(key)
        if not isinstance(rows, list):
            raise RANGES_JSON.error(path, f"range check: {key} is {type(rows).__name__}, not a list of rows")
        for number, row in enumerate(rows, 1):
            missing = [name for name in texts if not isinstance(row, dict) or not isinstance(row.get(name), str)]
            if missing:
                raise RANGES_JSON.error(path, f"range check: {key} row {number} has no text {missing[0]}")
            if key == "edges":
                _check_edge_row(path, number, row)
    _check_one_row_per_edge(path, document["edges"])
    _check_provenance(path, document)
    return document


def _check_one_row_per_edge(path: Path, rows: list[Row]) -> None:
    # The checker writes one row per declared edge; a second one (two documents pasted together) could say the
    # opposite, and a reader would take whichever it met first.
    seen: dict[tuple[Any, ...], int] = {}
    for number, row in enumerate(rows, 1):
        key = tuple(row.get(name) for name in ("case", "package", "declared", "source"))
        if key in seen:
            raise RANGES_JSON.error(path, f"range check: edges row {number} repeats row {seen[key]}'s edge "
                                          f"({row['case']} {row['package']}{row['declared']} [{row['source']}]): "
                                          "one row per edge")
        seen[key] = number


def _is_count(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def _check_edge_row(path: Path, number: int, row: Row) -> None:
    if row.get("status") not in RANGE_STATUSES or not isinstance(row.get("found"), str | None):
        raise RANGES_JSON.error(path, f"range check: edges row {number} has status {row.get('status')!r} "
                                      f"and found {row.get('found')!r}")
    if row["status"] == "confirmed" and row.get("found") is not None:
        # Only a wrong edge names the bound the releases show: a confirmed one found the declared bound.
        raise RANGES_JSON.error(path, f"range check: edges row {number} is confirmed, but found {row.get('found')!r}: "
                                      "only a wrong edge names the bound the releases show")
    inside, owned, judged = row.get("inside"), row.get("inside_releases"), row.get("inside_judged")
    if "inside" in row and not isinstance(inside, str):
        raise RANGES_JSON.error(path, f"range check: edges row {number} has inside {inside!r}, not text")
    said = [name in row for name in ("inside", "inside_releases", "inside_judged")]
    counted = _is_count(owned) and _is_count(judged) and int(str(judged)) <= int(str(owned))
    if any(said) and not (all(said) and counted):
        raise RANGES_JSON.error(path, f"range check: edges row {number} has inside {inside!r}, inside_releases "
                                      f"{owned!r} and inside_judged {judged!r}: a row that says what it probed "
                                      "inside counts the releases it owns there and those judged, no more")
    if row["status"] == "confirmed" and isinstance(inside, str) and inside.startswith(_NOT_CONFIRMED_INSIDE):
        # Its counts (none inside) were never taken: a confirmed edge counts the releases inside its range.
        raise RANGES_JSON.error(path, f"range check: edges row {number} is confirmed, but its inside says {inside!r}")
    unmet = row.get("inside_unmet", 0)
    if not _is_count(unmet) or ("inside_unmet" in row and not counted) or (
            counted and int(str(unmet)) + int(str(judged)) > int(str(owned))):
        raise RANGES_JSON.error(path, f"range check: edges row {number} has inside_unmet {unmet!r}: the releases "
                                      f"inside where the case's needs are unmet, no more than the {owned!r} it owns "
                                      f"less the {judged!r} judged")
    told = _inside_counts(inside) if isinstance(inside, str) else None
    if told is not None and told != (owned, judged):
        raise RANGES_JSON.error(path, f"range check: edges row {number} has inside {inside!r}, which says "
                                      f"{told[0]} releases inside and {told[1]} judged, but inside_releases {owned!r} "
                                      f"and inside_judged {judged!r}")


def _range_option(name: object, value: object) -> bool:
    if name == "inside":
        return value in RANGE_INSIDE[:-1]  # every release inside is the default, recorded as no option
    return name in RANGE_OPTIONS and isinstance(value, int | float) and not isinstance(value, bool)


def _check_provenance(path: Path, document: Row) -> None:
    options, commit, cases = document.get("options"), document.get("commit"), document.get("cases")
    if not isinstance(options, dict) or any(not _range_option(name, value) for name, value in options.items()):
        raise RANGES_JSON.error(path, f"range check: options {options!r} are not {', '.join(RANGE_OPTIONS)} "
                                      f"with numbers, or inside as one of {', '.join(RANGE_INSIDE[:-1])}")
    if not isinstance(commit, str | None):
        raise RANGES_JSON.error(path, f"range check: commit {commit!r} is not text or null")
    if not isinstance(cases, dict) or not all(
            isinstance(stamp, dict) and isinstance(stamp.get("digest"), str)
            and isinstance(stamp.get("commit"), str | None)
            and all(isinstance(stamp.get(key, ""), str) for key in ("run", "date")) for stamp in cases.values()):
        raise RANGES_JSON.error(path, "range check: cases is not {case id: {digest, commit, and where taken by "
                                      "--take, run and date}}")
