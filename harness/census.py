"""The census of public breakage reports (`cases/census.toml`) and the citations cases make of it (`cites=`).

One owner of that file: its name, its schema version and its reader live here, and every consumer imports them. The
citations are read from the case sources without importing anything, as `changed=` is (harness.change), so the host
and the cells agree. `problems()` is the one place that decides whether census and corpus agree.

Imports nothing but the standard library (tomli on Python 3.10) and harness.formats: it runs on the host and in
cells.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Collection, Mapping
from dataclasses import dataclass
from datetime import date
from pathlib import Path
from typing import Any

from packaging.version import InvalidVersion, Version

from harness import formats
from harness.change import case_keyword
from harness.formats import ShardmatrixError

CENSUS_FILE = "census.toml"
#: 2: each report says how its releases were checked (`checked`), and the file says how it was searched (`[search]`).
#: 3: a report may name the report whose failure its own sits behind in every release (`behind`).
CENSUS_VERSION = 3
LIVE = "live"
UNRECORDED = "unrecorded"
#: How a report's releases were checked: both sides measured in cells, or only read (thread, changelog, fix commit).
CELLS, READ = "cells", "read"
CHECKED = (CELLS, READ)
_SEARCH_KEYS = {"date": str, "since": str, "until": str, "tools": str, "queries": list, "repositories": list}

# "owner/repo#N", as GitHub names an issue or pull request, or "owner/repo@abcdef1", a fix commit (a changelog's
# or a fix's own record, where no thread is the report).
REPORT_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]*/[A-Za-z0-9][A-Za-z0-9_.-]*(#[1-9][0-9]*|@[0-9a-f]{7,40})\Z")
DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")
#: A release a report's `appeared`/`fixed` names: 'jax==0.8.1', 'flax==0.12.0 with jax==0.8.0' (each pin a transition
#: of its own); `jaxlib==` is not jax's.
_PIN = re.compile(r"\b(jax|flax)==([0-9][0-9A-Za-z.+]*)")
_REQUIRED = ("id", "link", "family", "date", "appeared", "fixed", "summary")
_OPTIONAL = ("uncited", "cpu", "checked", "behind")
#: The report fields a schema brought, and the schema that brought them.
NEWER_FIELDS = {"checked": 2, "behind": 3}


class CensusError(ShardmatrixError, ValueError):
    """A census or citation that cannot be read or does not hold together, in one line naming it."""


@dataclass(frozen=True)
class Report:
    """One public report: where it is, which family it touches, when it was filed, the releases the sources name
    for its start and its fix (`LIVE` while none fixes it, `UNRECORDED` where they name none), and why no case
    cites it yet (`uncited`, empty once one does)."""

    id: str
    link: str
    family: str
    date: str
    appeared: str
    fixed: str
    summary: str
    uncited: str = ""
    #: False for a report no CPU cell can show (it needs an accelerator, several hosts or a downstream package, or
    #: shows no jax or flax behaviour at all; `uncited` says which): it stays out of the share of reports caught.
    cpu: bool = True
    #: CELLS where both sides of its releases were measured in cells, READ where they were only read.
    checked: str = READ
    #: The report whose failure its own sits behind in every release (the case fails on that one first), or "": no
    #: probe sees it apart, so it is not caught in its own right.
    behind: str = ""


def is_deprecation(report: Report) -> bool:
    """Whether a report is of a deprecation (its summary says so: 'deprecated', 'a deprecation'), which a case shows
    by warning; every other report is of a breakage (an error, a wrong value), which a case shows only by failing."""
    return "deprecat" in report.summary.lower()


@dataclass(frozen=True)
class Search:
    """How the census was searched, so the next search can repeat it and diff: when, over which window of report
    dates, with which tools, queries and repositories."""

    date: str
    since: str
    until: str
    tools: str
    queries: tuple[str, ...]
    repositories: tuple[str, ...]


def census_path(cases_dir: Path) -> Path:
    """Where the census of a case folder lives."""
    return Path(cases_dir) / CENSUS_FILE


def _document(path: Path) -> dict[str, Any]:
    """The census file's TOML, migrated to CENSUS_VERSION; CensusError for one that cannot be read or is newer."""
    source = Path(path)
    data = formats.read_toml(source, CensusError)
    version = data.get("schema_version")
    if not isinstance(version, int) or isinstance(version, bool) or version > CENSUS_VERSION or version < 1:
        raise CensusError(f"{source}: schema_version {version!r} is not one this shardmatrix reads "
                          f"(1 to {CENSUS_VERSION})")
    allowed = {"schema_version", "report"} | ({"search"} if version >= 2 else set())
    unknown_keys = set(data) - allowed
    if unknown_keys:
        raise CensusError(f"{source}: unknown top-level key(s) {', '.join(sorted(unknown_keys))}")
    if not isinstance(data.get("report", []), list):
        raise CensusError(f"{source}: report is {type(data['report']).__name__}, not an array of tables ([[report]])")
    if version >= 2:
        for index, row in enumerate(data.get("report", [])):
            if isinstance(row, dict) and "checked" not in row:
                raise CensusError(f"{source.name} report {index + 1} ({row.get('id')}): needs checked "
                                  f"({' or '.join(CHECKED)}: how its releases were checked)")
    # A field of a newer schema in a file that says an older one (written by hand, or the version not raised with it):
    # a migration would overwrite it or read it under rules it was not written for.
    for field, since in NEWER_FIELDS.items():
        newer = next((index for index, row in enumerate(data.get("report", []))
                      if isinstance(row, dict) and field in row), None) if version < since else None
        if newer is not None:
            raise CensusError(f"{source.name} report {newer + 1} ({data['report'][newer].get('id')}): {field} needs "
                              f"schema_version {since} (the file says {version})")
    if version < 2:
        data = update_to_2(data)
    return update_to_3(data) if version < 3 else data


def update_to_2(data: dict[str, Any]) -> dict[str, Any]:
    """A schema 1 census as schema 2: no report was checked in cells as far as it says, and no search recorded."""
    return {**data, "schema_version": 2,
            "report": [{**row, "checked": READ} if isinstance(row, dict) else row for row in data.get("report", [])]}


def update_to_3(data: dict[str, Any]) -> dict[str, Any]:
    """A schema 2 census as schema 3: no report sits behind another as far as it says."""
    return {**data, "schema_version": 3}


def read_search(path: Path) -> Search | None:
    """How the census was searched (its `[search]` table), None for a file that records none (schema 1);
    CensusError for a table missing a key, with an unknown one, or with a value of the wrong shape."""
    source = Path(path)
    table = _document(source).get("search")
    if table is None:
        return None
    where = f"{source.name} [search]"
    if not isinstance(table, dict):
        raise CensusError(f"{where}: is not a table")
    unknown = set(table) - set(_SEARCH_KEYS)
    missing = [key for key in _SEARCH_KEYS if key not in table]
    if unknown or missing:
        said = [f"unknown key(s) {', '.join(sorted(unknown))}"] if unknown else []
        said += [f"needs {', '.join(missing)}"] if missing else []
        raise CensusError(f"{where}: {'; '.join(said)}")
    for key, kind in _SEARCH_KEYS.items():
        value = table[key]
        if not isinstance(value, kind) or not value or (
                kind is list and not all(isinstance(item, str) and item.strip() for item in value)):
            raise CensusError(f"{where}: {key} must be a non-empty {'list of strings' if kind is list else 'string'}")
    for key in ("date", "since", "until"):
        if not _real_date(table[key]):
            raise CensusError(f"{where}: {key} {table[key]!r} is not a YYYY-MM-DD day")
    if table["since"] > table["until"]:
        raise CensusError(f"{where}: since {table['since']} is after until {table['until']}")
    bad = [repo for repo in table["repositories"] if not re.match(r"^[A-Za-z0-9][A-Za-z0-9_.-]*/[A-Za-z0-9_.-]+\Z",
                                                                  repo)]
    if bad:
        raise CensusError(f"{where}: repositories {', '.join(map(repr, bad))}: not owner/repo")
    return Search(table["date"], table["since"], table["until"], table["tools"], tuple(table["queries"]),
                  tuple(table["repositories"]))


def read_census(path: Path) -> dict[str, Report]:
    """{report id: Report} of a census file; CensusError for a newer schema, an unknown or missing field, a
    malformed id, link or date, or an id given twice."""
    source = Path(path)
    data = _document(source)
    found: dict[str, Report] = {}
    for index, row in enumerate(data.get("report", [])):
        report = _report(row, f"{source.name} report {index + 1}")
        twin = next((earlier for earlier in found if _same_report(earlier, report.id)), None)
        if twin is not None:
            said = "" if twin == report.id else f" (as {twin})"
            raise CensusError(f"{source.name}: report {report.id} is given twice{said}")
        found[report.id] = report
    return found


def _same_report(one: str, other: str) -> bool:
    """GitHub reads owner/repo case-blind, and a commit by any prefix of its hash: one report, however spelt."""
    one, other = one.lower(), other.lower()
    if "@" in one and "@" in other:
        (repo, commit), (other_repo, other_commit) = one.split("@"), other.split("@")
        return repo == other_repo and (commit.startswith(other_commit) or other_commit.startswith(commit))
    return one == other


def _real_date(text: str) -> bool:
    try:
        date.fromisoformat(text)
    except ValueError:
        return False
    return bool(DATE.match(text))


def pins(text: str) -> list[tuple[str, Version]]:
    """The (package, release) pins a census field names, in order: 'flax==0.12.1 with jax==0.8.2' gives both. A
    development or release-candidate pin keeps its full version (0.6.1.dev20250505), a trailing dot is dropped, and
    text that is no version is skipped: the one reading of a census field's releases (harness.tools.caught reads
    the transitions from it)."""
    found = []
    for package, release in _PIN.findall(text):
        try:
            found.append((package, Version(release.rstrip("."))))
        except InvalidVersion:
            continue
    return found


def _fixed_before_appeared(appeared: str, fixed: str) -> str | None:
    """'jax 0.8.1 <= 0.9.0' where the release a report names for its fix is not after its first bad one."""
    first = dict(pins(appeared))
    for package, release in pins(fixed):
        if package in first and release <= first[package]:
            return f"{package} {release} <= {first[package]}"
    return None


def _report(row: object, where: str) -> Report:
    if not isinstance(row, dict):
        raise CensusError(f"{where}: is not a table")
    missing = [key for key in _REQUIRED if not isinstance(row.get(key), str) or not row[key].strip()]
    if missing:
        raise CensusError(f"{where}: needs {', '.join(missing)} (each a non-empty string)")
    broken = [key for key in (*_REQUIRED, "uncited") if "\n" in str(row.get(key, ""))]
    if broken:
        raise CensusError(f"{where} ({row['id']!r}): {', '.join(broken)} spans lines (a census field is one line: "
                          "it is one row of the cases page's table)")
    unknown = set(row) - set(_REQUIRED) - set(_OPTIONAL)
    if unknown:
        raise CensusError(f"{where} ({row['id']}): unknown field(s) {', '.join(sorted(unknown))}")
    if not REPORT_ID.match(row["id"]):
        raise CensusError(f"{where}: id {row['id']!r} is not owner/repo#N or owner/repo@commit")
    if "#" in row["id"]:
        repo, number = row["id"].split("#")
        expected = rf"^https://github\.com/{re.escape(repo)}/(issues|pull)/{number}$"
    else:
        repo, commit = row["id"].split("@")
        expected = rf"^https://github\.com/{re.escape(repo)}/commit/{commit}[0-9a-f]*$"
    if not re.match(expected, row["link"]):
        raise CensusError(f"{where} ({row['id']}): link {row['link']!r} is not that issue, pull request or commit")
    if not _real_date(row["date"]):
        raise CensusError(f"{where} ({row['id']}): date {row['date']!r} is not a YYYY-MM-DD day")
    backwards = _fixed_before_appeared(row["appeared"], row["fixed"])
    if backwards:
        raise CensusError(f"{where} ({row['id']}): fixed {row['fixed']!r} is not after appeared {row['appeared']!r} "
                          f"({backwards})")
    uncited = row.get("uncited", "")
    if not isinstance(uncited, str):
        raise CensusError(f"{where} ({row['id']}): uncited must be a string (why no case cites it yet)")
    cpu = row.get("cpu", True)
    if not isinstance(cpu, bool):
        raise CensusError(f"{where} ({row['id']}): cpu must be true or false (whether a CPU cell can show it)")
    if not cpu and not uncited.strip():
        raise CensusError(f"{where} ({row['id']}): cpu = false needs `uncited` saying why no CPU cell can show it")
    checked = row.get("checked", READ)
    if checked not in CHECKED:
        raise CensusError(f"{where} ({row['id']}): checked {checked!r} is not {' or '.join(CHECKED)} (both sides "
                          "measured in cells, or only read)")
    behind = row.get("behind", "")
    if not isinstance(behind, str) or (behind and (not REPORT_ID.match(behind) or _same_report(behind, row["id"]))):
        raise CensusError(f"{where} ({row['id']}): behind {behind!r} is not another report's id (owner/repo#N or "
                          "owner/repo@commit)")
    return Report(**{key: row[key] for key in _REQUIRED}, uncited=uncited.strip(), cpu=cpu, checked=checked,
                  behind=behind)


# --- read from source -----------------------------------------------------------------------------------------------


def cited(path: Path) -> dict[str, tuple[str, ...]]:
    """{test name: the report ids its `@case(..., cites=(...))` names} of a case module, read from source alone.
    CensusError names a `cites=` that is not a tuple or list of string literals, or an id not shaped owner/repo#N."""
    source = Path(path)
    try:
        tree = ast.parse(source.read_text(encoding="utf-8"), filename=str(source))
    except (OSError, UnicodeDecodeError, SyntaxError) as exc:
        raise CensusError(f"{source}: cannot be read as Python ({exc})") from None
    found: dict[str, tuple[str, ...]] = {}
    for node in tree.body:
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) or not node.name.startswith("test"):
            continue
        for decorator in node.decorator_list:
            value = case_keyword(decorator, "cites")
            if value is not None:
                found[node.name] = _literal_ids(value, f"{source.name}::{node.name}")
    return found


def _literal_ids(node: ast.expr, where: str) -> tuple[str, ...]:
    try:
        value = ast.literal_eval(node)
    except ValueError:
        value = None
    if not isinstance(value, (tuple, list)) or not value or not all(isinstance(item, str) for item in value):
        raise CensusError(f"{where}: cites= must be a tuple of string literals such as ('google/flax#5112',) "
                          "(the host reads it without importing the case)")
    bad = [item for item in value if not REPORT_ID.match(item)]
    if bad:
        raise CensusError(f"{where}: cites {', '.join(map(repr, bad))}: not owner/repo#N or owner/repo@commit")
    return tuple(value)


def corpus_citations(cases_dir: Path) -> dict[str, tuple[str, ...]]:
    """{case id: cited report ids} of every case module of a folder that cites anything."""
    return {f"{file.stem}::{name}": ids for file in sorted(Path(cases_dir).glob("*.py"))
            if not file.name.startswith("_") for name, ids in cited(file).items()}


# --- the one verdict ------------------------------------------------------------------------------------------------


def problems(census: dict[str, Report], citations: dict[str, tuple[str, ...]],
             releases: Mapping[str, Collection[Version]] | None = None) -> list[str]:
    """One line per disagreement between the census and the corpus's citations: a cited report the census lacks,
    a report no case cites that gives no reason, a report a case cites that still says why none does, and a
    `behind` that cannot hold (_behind_problem); with the `releases` of jax and flax known (the index's, or those a
    stored check names), a pin that is none of them (a development pin, by the release it leads to)."""
    found: list[str] = []
    citing: dict[str, list[str]] = {}
    for case_id, ids in sorted(citations.items()):
        for report_id in ids:
            citing.setdefault(report_id, []).append(case_id)
            if report_id not in census:
                found.append(f"{case_id} cites {report_id}, which the census does not list")
    for report_id, report in sorted(census.items()):
        if report_id not in citing and not report.uncited:
            found.append(f"{report_id}: no case cites it and the census gives no `uncited` reason")
        if report_id in citing and report.uncited:
            found.append(f"{report_id}: cited by {', '.join(citing[report_id])}, but the census still says why "
                         f"not ({report.uncited!r}); drop `uncited`")
        if report.behind and (why := _behind_problem(report_id, census)):
            found.append(why)
        found += [f"{report_id}: {field} {package}=={release} is not a {package} release{_known(releases[package])}"
                  for field, text in (("appeared", report.appeared), ("fixed", report.fixed))
                  for package, release in pins(text)
                  if releases is not None and package in releases
                  and Version(release.base_version) not in set(releases[package])]
    return found


def _named(census: Mapping[str, Report], spelt: str) -> Report | None:
    """The report of the census an id names, however spelt (_same_report); None where it names none."""
    return next((census[key] for key in census if _same_report(spelt, key)), None)


def _behind_problem(report_id: str, census: Mapping[str, Report]) -> str:
    """Why a report's `behind` cannot hold ("" when it can): the report it names is not in the census, sits behind
    this one in turn (one of them must fail first), no CPU cell can show it while one can show this one, or it fails
    over fewer releases than this one (where this one fails alone, a probe sees it apart)."""
    report = census[report_id]
    other = _named(census, report.behind)
    if other is None:
        return f"{report_id}: behind {report.behind}, which the census does not list"
    chain, step = [report_id, other.id], other
    while step.behind:
        found = _named(census, step.behind)
        if found is None or found.id in chain[1:]:
            break  # a chain that ends, or a loop not through this report: its own members say it
        if found.id == report_id:
            return (f"{report_id}: behind {report.behind}, which sits behind it in turn ({' -> '.join(chain)} -> "
                    f"{report_id}): one of them fails first")
        chain.append(found.id)
        step = found
    if report.cpu and not other.cpu:
        return (f"{report_id}: behind {report.behind}, which no CPU cell can show: on a CPU this one fails alone, and "
                "a probe sees it apart")
    first, fix = dict(pins(report.appeared)), dict(pins(report.fixed))
    later = [f"{package}=={release}" for package, release in pins(other.appeared)
             if package in first and release > first[package]]
    earlier = [f"{package}=={release}" for package, release in pins(other.fixed)
               if package in fix and release < fix[package]]
    if later or earlier or (report.fixed == LIVE and other.fixed not in (LIVE, UNRECORDED)):
        said = (f"appeared at {later[0]}, after this one" if later else f"was fixed at {earlier[0]}, before this one"
                if earlier else f"was fixed ({other.fixed}) while this one is live")
        return f"{report_id}: behind {report.behind}, which {said}: where this one fails alone, a probe sees it apart"
    return ""


def _known(releases: Collection[Version]) -> str:
    return f" (of {len(releases)} known, {min(releases)} to {max(releases)})" if releases else " (none known)"
