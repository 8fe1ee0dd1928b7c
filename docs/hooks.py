"""MkDocs hooks: every table the tool can write is generated at build time, from the code or a stored run.

A page asks for a table with a marker, `<!-- shardmatrix:NAME -->` (on a line of its own for a table);
`on_page_markdown` replaces it with `TABLES[NAME]()`. Tables from the code (statuses, verdicts, file columns, the
documented changes read from the cases' source) cannot drift from it; tables from a run (the frontier, the bench
figures) come from the files under docs/data/, each named in docs/data/runs.toml with the date, commit and machine
that produced it.
tests/test_docs.py checks what these tables say against the code.
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "docs" / "data"
RUNS = DATA / "runs.toml"
MARKER = re.compile(r"<!-- shardmatrix:([a-z0-9-]+) -->")

# Outside a code span these would start emphasis, a link or HTML, or end a table cell.
_SPECIAL = re.compile(r"([\\*_\[\]<|])")


class DocsError(Exception):
    """A marker no table answers, or a stored run that cannot be read: the build stops naming it."""


def cell(text: object) -> str:
    """Text made safe for a Markdown table cell: code spans kept, everything else escaped, no line breaks."""
    parts = str(text).replace("\n", " ").split("`")
    if len(parts) % 2 == 0:  # an unpaired backtick: no code span at all
        return _SPECIAL.sub(r"\\\1", "`".join(parts))
    # Odd parts are inside code spans: only a pipe needs its escape there.
    return "`".join(part.replace("|", "\\|") if index % 2 else _SPECIAL.sub(r"\\\1", part)
                    for index, part in enumerate(parts))


def table(header: list[str], rows: list[list[str]]) -> str:
    """A Markdown table of already escaped cells."""
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join(" --- " for _ in header) + "|"]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return "\n".join(lines)


def codes(names: list[str] | tuple[str, ...]) -> str:
    """Names as a comma-separated list of code spans."""
    return ", ".join(f"`{name}`" for name in names)


# --- tables from the code -----------------------------------------------------------------------------------------


def statuses() -> str:
    """Every status with its class and meaning (harness.vocabulary.MEANINGS), then what any other status means."""
    from harness import vocabulary

    rows = [[f"`{status}`", vocabulary.status_class(status), cell(meaning)]
            for status, meaning in vocabulary.MEANINGS.items()]
    rows.append(["anything else", vocabulary.UNKNOWN,
                 "a status this vocabulary does not know (a newer writer, a corrupt file): never passing, and any "
                 "verdict that meets it is inconclusive"])
    return table(["status", "class", "meaning"], rows)


def verdicts() -> str:
    """Every compatibility verdict, best first, with its words, its token and its meaning (reports.views.present)."""
    from reports.views.present import VERDICTS, label

    rows = [[cell(label(token)), f"`{token}`", cell(meaning)] for token, meaning in VERDICTS.items()]
    return table(["verdict", "token in compat.csv", "meaning"], rows)


def change_kinds() -> str:
    """Each kind a documented change declares, with how a report words it (harness.vocabulary.CHANGE_KINDS)."""
    from harness.vocabulary import CHANGE_KINDS

    return table(["kind=", "the report says"], [[f"`{kind}`", cell(words)] for kind, words in CHANGE_KINDS.items()])


def compat_columns() -> str:
    """The columns of compat.csv and compat.json (reports.verdicts.compat.COLUMNS)."""
    from reports.verdicts.compat import COLUMNS

    return codes(COLUMNS)


def changes_columns() -> str:
    """The columns of changes.csv (reports.verdicts.documented_table.COLUMNS)."""
    from reports.verdicts.documented_table import COLUMNS

    return codes(COLUMNS)


def frontier_columns() -> str:
    """The columns of frontier.csv (shardmatrix.frontier_report.COLUMNS)."""
    from shardmatrix.frontier_report import COLUMNS

    return codes(COLUMNS)


def frontier_case_columns() -> str:
    """The columns of frontier_cases.csv (shardmatrix.frontier_report.CASE_COLUMNS)."""
    from shardmatrix.frontier_report import CASE_COLUMNS

    return codes(CASE_COLUMNS)


def record_fields() -> str:
    """Every field of a results record, in order, and the schema version (harness.vocabulary)."""
    from harness.cellrecord import FIELDS, SCHEMA_VERSION

    return f"{codes(FIELDS)} (schema version {SCHEMA_VERSION})"


def watch_options() -> str:
    """The options of `shardmatrix watch` a caller keeps stable (its own and the shared ones it reads), with their
    help (shardmatrix.watch.parser)."""
    from shardmatrix import watch

    wanted = (*watch.OWN, "--project", "--pre", "--index", "--out")
    actions = {action.option_strings[-1]: action for action in watch.parser()._actions if action.option_strings}
    rows = [[f"`{flag}`" + (f" `{actions[flag].metavar}`" if actions[flag].metavar else ""),
             cell(str(actions[flag].help).replace("%(default)s", str(actions[flag].default)))] for flag in wanted]
    return table(["option", "what it does"], rows)


def watch_fields() -> str:
    """The fields of a judgment (shardmatrix.watch_files.Judgment), in the state and the JSON summary, and the
    two files' schema versions."""
    import dataclasses

    from shardmatrix import watch_files

    names = [field.name for field in dataclasses.fields(watch_files.Judgment)]
    return (f"{codes(names)} (state schema version {watch_files.STATE_VERSION}, summary schema version "
            f"{watch_files.SUMMARY_VERSION})")


def watch_doubts() -> str:
    """What a remembered verdict and a coverage line promise, from shardmatrix.watch_files: the doubts that make a
    remembered SAFE INCONCLUSIVE, and the coverage line's forms as coverage_line() writes them."""
    from shardmatrix import watch_files
    from shardmatrix.watch_files import Judgment

    def line(**fields: Any) -> str:
        return watch_files.coverage_line(Judgment("jax", "0.9.0", {}, watch_files.SAFE, **fields))

    doubts = "\n".join(f"- {doubt}" for doubt in watch_files.DOUBTS.values())
    forms = [line(tests=7, tests_judged=7), line(coverage="4 of 7 tests judged (3 need 2 devices)", tests=7,
                                                 tests_judged=4), line(tests=0, tests_judged=0), line()]
    return (f"A remembered SAFE is INCONCLUSIVE, saying why, when it is\n\n{doubts}\n\nThe coverage line reads "
            + ", ".join(f"`{form}`" for form in forms[:-1]) + f" or, for a judgment kept before counts were, "
            f"`{forms[-1]}`.")


def declared_changes() -> list[dict[str, Any]]:
    """One row per documented change of the shipped corpus, read from the cases' source as `nox -s upgrade` reads
    them (nothing is imported), in the order the report's Changes view lists them."""
    from harness.tools.upgrade import declare
    from harness.vocabulary import CHANGE_KINDS, CHANGE_PACKAGES
    from reports.verdicts.documented import release, version_order

    rows: dict[tuple[str, str], dict[str, Any]] = {}
    for case_id, change in sorted(declare([]).items()):
        record = change.as_record()
        package, version = release(record)
        row = rows.setdefault((change.since or change.warned or "", change.what), {
            "package": package, "release": version, "what": change.what, "kind": CHANGE_KINDS[change.kind],
            "warned": change.warned or "", "fix": change.fix, "cases": []})
        row["cases"].append(case_id)
    return sorted(rows.values(), key=lambda row: (
        CHANGE_PACKAGES.index(row["package"]) if row["package"] in CHANGE_PACKAGES else len(CHANGE_PACKAGES),
        version_order(row["release"]), row["what"]))


def changes() -> str:
    """The documented changes table: release, what changed, kind, where it warned first, the cases and the fix."""
    rows = [[cell(f"{row['package']} {row['release']}"), cell(row["what"]), cell(row["kind"]),
             f"`{row['warned']}`" if row["warned"] else "", "<br>".join(f"`{case}`" for case in row["cases"]),
             cell(row["fix"])] for row in declared_changes()]
    return table(["release", "what changed", "kind", "warned from", "cases", "fix"], rows)


# --- tables from a stored run --------------------------------------------------------------------------------------


def stored_runs() -> dict[str, dict[str, Any]]:
    """docs/data/runs.toml: for each stored run, its file, date, commit, machine and command."""
    from harness.formats import read_toml

    runs = read_toml(RUNS, DocsError)
    for name, run in runs.items():
        missing = [key for key in ("file", "date", "commit", "machine", "command") if not run.get(key)]
        if missing:
            raise DocsError(f"{RUNS}: [{name}] lacks {', '.join(missing)}")
        if not (DATA / run["file"]).is_file():
            raise DocsError(f"{RUNS}: [{name}] names {run['file']}, which is not in {DATA}")
        _check_runs(name, run.get("runs", []))
    return runs


#: What each of a stored file's runs says (`[[<name>.runs]]`): a file several runs merged into lists them one by one.
RUN_KEYS = ("date", "commit", "command", "probed", "note")


def _check_runs(name: str, runs: object) -> None:
    if not isinstance(runs, list):
        raise DocsError(f"{RUNS}: [{name}] runs is not a list of [[{name}.runs]] tables")
    for number, each in enumerate(runs, 1):
        missing = [key for key in RUN_KEYS if not isinstance(each, dict) or not each.get(key)]
        if missing:
            raise DocsError(f"{RUNS}: [[{name}.runs]] number {number} lacks {', '.join(missing)}")


def _stored(name: str) -> tuple[dict[str, Any], str]:
    runs = stored_runs()
    if name not in runs:
        raise DocsError(f"{RUNS}: no [{name}]")
    run = runs[name]
    return run, (DATA / run["file"]).read_text(encoding="utf-8")


#: How long a stored run's command, commit, machine and note may be, together, before they fold away: past it, the
#: page would open with paragraphs of how it was measured before the numbers a reader came for.
PROVENANCE_INLINE_CHARS = 400
#: The summary of a folded provenance.
PROVENANCE_SUMMARY = "how this was measured"


def provenance(run: dict[str, Any]) -> str:
    """The line that says where a stored table came from: all of it inline when short, else where it came from in one
    line and the command, note and each of its runs folded into a <details> block (md_in_html renders its Markdown)."""
    note = f" {run['note']}" if run.get("note") else ""
    runs = "".join(f"\n\n- {each['date']}, commit `{each['commit']}`: `{each['command']}`; probed {each['probed']}. "
                   f"{each['note']}" for each in run.get("runs", []))
    note += runs
    said = sum(len(run[key]) for key in ("command", "commit", "machine")) + len(note)
    if not runs and said <= PROVENANCE_INLINE_CHARS:
        return (f"*Generated from `docs/data/{run['file']}`: `{run['command']}` on {run['date']}, commit "
                f"`{run['commit']}`, on {run['machine']}.{note}*")
    return (f"*Generated from `docs/data/{run['file']}` on {run['date']}.*\n\n<details markdown=\"1\">\n"
            f"<summary>{PROVENANCE_SUMMARY}</summary>\n\nCommit `{run['commit']}`, on {run['machine']}: "
            f"`{run['command']}`\n\n{note.strip()}\n\n</details>")


def frontier_table(text: str) -> list[str]:
    """The table at the top of a frontier.md (its lines that start with '|')."""
    lines = text.splitlines()
    start = next((i for i, line in enumerate(lines) if line.startswith("| flax |")), None)
    if start is None:
        raise DocsError("the stored frontier.md has no table ('| flax | ...')")
    end = next((i for i in range(start, len(lines)) if not lines[i].startswith("|")), len(lines))
    return lines[start:end]


def frontier() -> str:
    """The default frontier's table, as `nox -s frontier` wrote it at the top of frontier.md."""
    run, text = _stored("frontier")
    return provenance(run) + "\n\n" + "\n".join(frontier_table(text))


def _text_block(name: str) -> str:
    run, text = _stored(name)
    return provenance(run) + "\n\n```text\n" + text.rstrip("\n") + "\n```"


#: Stored runs shown as the tool printed them, after their provenance: the figures of `nox -s bench` (all of them;
#: figure 6 for the default frontier and rerun after the census's cases; figures 8 to 11 and 14, each on its own;
#: figure 2 with its time budget).
TEXT_BLOCKS = ("bench", "bench-frontier", "bench-frontier-rerun", "bench-devices", "bench-watch", "bench-corpus",
               "bench-budget", "bench-range-cost")


#: How figure 10's list of changed cells opens (benchmarks/corpus_growth.changes_markdown): a stored file that does
#: not is some other file.
CORPUS_CHANGES_OPENINGS = (re.compile(r"\d+ cells? changed verdict \(the compare: [A-Z]+\):"),
                           re.compile(r"No cell's verdict changed \(the compare: [A-Z]+\)\."))


def corpus_changes() -> str:
    """Each default cell whose verdict the census's cases changed, with the cases and changes behind it: the list
    figure 10 of `nox -s bench` wrote (OUT/report/corpus-growth.md), after the line saying how it was measured."""
    run, text = _stored("corpus-changes")
    first = text.splitlines()[0] if text.strip() else ""
    if not any(opening.fullmatch(first) for opening in CORPUS_CHANGES_OPENINGS):
        raise DocsError(f"docs/data/{run['file']}: not figure 10's list of changed cells (it opens {first!r})")
    return provenance(run) + "\n\n" + text.rstrip("\n")


#: How figure 11 states a range check (benchmarks/corpus_growth.ranges_figure): its edges by status, then its probes.
FIGURE_11 = re.compile(r"(?P<edges>\d+) declared edges?: (?P<confirmed>\d+) confirmed, (?P<wrong>\d+) wrong, "
                       r"(?P<unchecked>\d+) unchecked.*\n.*-> (?P<probes>\d+) of (?P<budget>\d+) probes")


def stored_range_check() -> tuple[dict[str, Any], dict[str, Any]]:
    """The stored range check and its run; DocsError when it holds a wrong edge (the docs would state a range the
    releases contradict) or when its own counts disagree with its rows."""
    from harness.outputs import read_ranges

    run, _ = _stored("ranges")
    document = dict(read_ranges(DATA / run["file"]))
    edges = document["edges"]
    for row in edges:
        if row["status"] == "wrong":
            raise DocsError(f"docs/data/{run['file']}: edge {row['package']}{row['declared']} of {row['case']} is "
                            f"wrong (releases show {row['found']}): correct the declaration and re-check it")
    for status in ("wrong", "unchecked"):
        counted = sum(row["status"] == status for row in edges)
        if document.get(status) != counted:
            raise DocsError(f"docs/data/{run['file']}: says {document.get(status)} {status} but holds {counted}")
    return run, document


def bench_ranges() -> str:
    """Figure 11 as `nox -s bench` printed it, after it is checked against the stored range check it was drawn from:
    a figure that states other counts or probes than that check stops the build."""
    run, text = _stored("bench-ranges")
    _, document = stored_range_check()
    stated = FIGURE_11.search(text)
    if stated is None:
        raise DocsError(f"docs/data/{run['file']}: not figure 11 (no 'N declared edges: ... -> P of B probes')")
    edges = document["edges"]
    holds = {"edges": len(edges), "probes": document["probes"], "budget": document["budget"],
             **{status: sum(row["status"] == status for row in edges)
                for status in ("confirmed", "wrong", "unchecked")}}
    differ = [f"{key} {stated[key]} (the check holds {value})" for key, value in holds.items()
              if int(stated[key]) != value]
    if differ:
        raise DocsError(f"docs/data/{run['file']}: figure 11 disagrees with the stored range check: "
                        + ", ".join(differ))
    return _text_block("bench-ranges")


def ranges() -> str:
    """The stored range check: its counts, then every edge it did not confirm and every need gone undeclared."""
    run, document = stored_range_check()
    edges = document["edges"]
    from harness.outputs import RANGE_STATUSES

    counts = {status: sum(row["status"] == status for row in edges) for status in RANGE_STATUSES}
    probed_inside = sum(bool(row.get("inside")) for row in edges)
    said = (f"{len(edges)} declared edges: " + ", ".join(f"{n} {status}" for status, n in counts.items())
            + f"; {document['probes']} of {document['budget']} probes. Inside the declared ranges: "
            + (f"{probed_inside} of {len(edges)} edges say what was probed inside theirs." if probed_inside
               else "not probed (this check ran before the checker probed inside a range)."))
    rows = [[f"`{row['case']}`", cell(f"{row['package']}{row['declared']}"), cell(row["source"]), row["status"],
             cell(row["found"] or ""), cell(row["why"])] for row in edges if row["status"] != "confirmed"]
    shown = table(["case", "edge", "declared by", "status", "releases show", "why"], rows) if rows else ""
    gone = [[f"`{row['case']}`", cell(row["held"]), cell(row["unmet"]), cell(row["reason"])]
            for row in document["needs_without_change"]]
    if gone:
        shown += "\n\nNeeds that held and went away with no change declared:\n\n"
        shown += table(["case", "held at", "unmet at", "reason"], gone)
    return f"{provenance(run)}\n\n{said}\n\n{shown}".rstrip() + "\n"


def census() -> str:
    """The census of public reports, one table per family (harness.tools.census_table, from cases/census.toml, the
    cases' `cites=` and the stored range check), after the line that says how many are caught; DocsError where the
    census and the corpus disagree (a citation the census lacks, a pin that is no release the stored check or the
    matrix names: harness.census.problems)."""
    from harness.census import census_path, read_census
    from harness.tools.census_table import (
        CASES_DIR,
        census_problems,
        census_search,
        census_summary,
        census_table,
        standing_rows,
    )

    run, document = stored_range_check()
    problems = census_problems(document["edges"])
    if problems:
        more = f" (and {len(problems) - 1} more: `shardmatrix ranges` prints them)" if len(problems) > 1 else ""
        raise DocsError(f"cases/census.toml: {problems[0]}{more}")
    # Every family the census counts gets its table: a report of a family spelt otherwise is shown, not dropped.
    families = sorted({report.family for report in read_census(census_path(CASES_DIR)).values()})
    # A row of a case changed since its check, or never stamped, catches nothing (standing_rows).
    edges = standing_rows(document)
    stale = sum(str(row["why"]).startswith("stale") for row in edges)
    held = (f" {stale} of the {len(edges)} stored rows are of cases changed since they were checked, or whose check "
            "recorded no digest of them: they catch nothing until re-checked or stamped (`shardmatrix ranges --stamp`)."
            if stale else "")
    tables = "\n\n".join(f"### {family}\n\n{census_table(family, edges)}" for family in families)
    return f"{provenance(run)}\n\n**{census_summary(edges)}.**{held} {census_search()}\n\n{tables}"


#: Runs recorded on accelerator machines, kept as test data (CI has no GPU): one folder each, with provenance.toml.
ACCELERATOR_RUNS = ROOT / "tests" / "data"


def accelerator_runs() -> str:
    """Every stored accelerator run: per cell, what ran of what was collected, the outcomes, the wall, the compile
    and execute split and jax's memory and precision settings; then each accelerator cell against its CPU twin."""
    from harness.formats import read_toml
    from harness.results import read_cell
    from harness.runs import results_files
    from reports.data.load import cells_frame, records_frame
    from reports.data.tables import build_matrix
    from reports.verdicts import divergence
    from reports.verdicts.coverage import coverages

    parts = []
    for folder in sorted(ACCELERATOR_RUNS.glob("*/provenance.toml")):
        about = read_toml(folder, DocsError)
        readings = [read_cell(path, run.name) for run in sorted((folder.parent / "results").iterdir())
                    for path in results_files(run)]
        matrix = build_matrix(records_frame([r for reading in readings for r in reading.records]),
                              cells_frame(readings))
        covered = coverages(matrix)
        walls = {(r.run_id, r.cell_id): (r.done or {}).get("seconds") for r in readings}
        rows = []
        for key, info in matrix.cells.iterrows():
            mine = matrix.results[matrix.results["key"] == key]
            passed = mine[mine["status"].isin(["passed", "passed_deprecated"])]
            counts = mine["status"].value_counts()
            machine = info["machine"] if isinstance(info["machine"], dict) else None
            settings = "not recorded" if machine is None else " ".join(
                f"`{name}={value}`" for name, value in sorted(machine.get("settings", {}).items())
                if name != "JAX_PLATFORMS") or "jax's defaults"
            kind = "" if info["device_kind"] == info["backend"] else f" ({cell(info['device_kind'])})"
            rows.append([f"`{info['run_id']}`", f"{info['backend']}{kind}",
                         str(info["device_count"]), covered[str(key)][0].text(),
                         ", ".join(f"{n} {status}" for status, n in counts.items()),
                         f"{walls.get((info['run_id'], info['cell_id'])) or ''}",
                         f"{passed['compile_s'].sum():.1f} / {passed['execute_s'].sum():.1f}", settings])
        def name(key: str, cells: Any = matrix.cells) -> str:
            return str(cells.loc[key, "run_id"])

        pairs = divergence.twins(matrix)
        found = divergence.table(matrix, pairs)
        lines = divergence.compared(matrix, found, name, pairs) + divergence.unpaired(matrix, name, pairs)
        shown = "\n".join(f"- {cell(line)}" for line in lines) + "".join(
            f"\n- `{row['case_id']}`: {cell(row['accelerator_outcome'])} on the accelerator, "
            f"{cell(row['cpu_outcome'])} on the CPU; **{row['label']}**" for row in found.to_dict("records"))
        parts.append(
            f"### {about['title']}\n\n*`tests/data/{folder.parent.name}/`: {about['command']} on {about['date']}, "
            f"commit `{about['commit']}`, on {about['machine']}.*\n\n"
            + table(["run", "cell", "devices", "cases run", "outcomes", "wall (s)", "compile / execute (s, passed)",
                     "jax settings"], rows) + "\n\n" + shown)
    return "\n\n".join(parts)


#: The caller workflow of the fixture downstream repository, which tests/test_workflow_upgrade_check_runs.py drives.
CALLER = ROOT / "tests" / "downstream" / ".github" / "workflows" / "shardmatrix.yml"


def caller() -> str:
    """The downstream caller workflow, verbatim: the very file the workflow tests run."""
    return "```yaml\n" + CALLER.read_text(encoding="utf-8").rstrip("\n") + "\n```"


def upgrade_check_inputs() -> str:
    """Every input of the reusable workflow with its type, default and description (its `workflow_call`)."""
    import yaml

    spec = yaml.safe_load((ROOT / ".github" / "workflows" / "upgrade-check.yml").read_text(encoding="utf-8"))
    declared = spec[True]["workflow_call"]["inputs"]  # YAML reads `on:` as True
    def shown(default: object) -> str:
        # As YAML writes it: `false`, `120`, a string bare; an empty string as nothing.
        return "" if default == "" else f"`{default if isinstance(default, str) else json.dumps(default)}`"

    rows = [[f"`{name}`", what.get("type", "string"), shown(what.get("default", "")),
             cell(what.get("description", ""))] for name, what in declared.items()]
    return table(["input", "type", "default", "what it does"], rows)


def ecosystem_replay() -> str:
    """The stored ecosystem runs (runs.toml entries named ecosystem-*), each as the tool wrote its ecosystem.json:
    per release, what each project's own tests said, and what it flagged."""
    from harness.ecosystem_summary import read_ecosystem

    parts = []
    for name, run in stored_runs().items():
        if not name.startswith("ecosystem-"):
            continue
        document = read_ecosystem(DATA / run["file"])
        rows = []
        for project in document["projects"]:
            flagged = [f"`{c['example'] or c['signature']}`" for c in project.get("causes", [])]
            said = "; ".join(flagged) or project.get("reason") or project.get("coverage") or ""
            rows.append([cell(project["name"]), cell(project.get("revision") or ""), project["verdict"],
                         str(project.get("tests") or ""), cell(said)])
        parts.append(f"**{' '.join(document['candidate'])}** against {document['baseline']}, as of "
                     f"{document['as_of']}: **{document['verdict']}**\n\n"
                     + table(["project", "revision", "verdict", "tests", "flagged, or why not judged"], rows)
                     + f"\n\n{provenance(run)}")
    if not parts:
        raise DocsError(f"{RUNS}: no [ecosystem-*] run stored")
    return "\n\n".join(parts) + "\n"


#: What a replay's project row may say of it beside the project's own fix (docs/data/ecosystem-fixes.toml).
FIX_KINDS = ("flagged and fixed", "flagged and never fixed", "fixed, not flagged", "not flagged, nothing to fix")
FIXES = DATA / "ecosystem-fixes.toml"


def ecosystem_fixes() -> str:
    """Each stored replay's projects beside their own later fixes (docs/data/ecosystem-fixes.toml), every row's verdict
    checked against its stored run, and every kind counted (a kind with no row says 0)."""
    from harness.ecosystem_summary import read_ecosystem
    from harness.formats import read_toml

    rows = read_toml(FIXES, DocsError).get("row")
    if not isinstance(rows, list):
        raise DocsError(f"{FIXES}: no [[row]] tables")
    runs = stored_runs()
    shown = []
    for row in rows:
        if row.get("run") not in runs or row.get("kind") not in FIX_KINDS:
            raise DocsError(f"{FIXES}: {row.get('run')!r} is no stored run, or {row.get('kind')!r} no kind")
        document = read_ecosystem(DATA / runs[row["run"]]["file"])
        stored = {p["name"]: p["verdict"] for p in document["projects"]}
        flagged = row["kind"].startswith("flagged")
        if stored.get(row["project"]) != row["verdict"] or flagged != (row["verdict"] == "UNSAFE"):
            raise DocsError(f"{FIXES}: {row['run']} {row['project']}: says {row['verdict']}, {row['kind']}; the "
                            f"stored run says {stored.get(row['project'])}")
        shown.append([cell(" ".join(document["candidate"])), cell(document["as_of"]), cell(row["project"]),
                      row["verdict"], cell(row["kind"]), cell(row["fix"] or "none"), cell(row["why"])])
    counts = ", ".join(f"{kind}: {sum(row['kind'] == kind for row in rows)}" for kind in FIX_KINDS)
    return (table(["release", "as of", "project", "verdict", "beside its fix", "the project's fix", "why"], shown)
            + f"\n\n{counts}. *Fixes read from each project's git history on 2026-11-27; each row's run is shown above "
            "with its date, commit and machine.*\n")


def ecosystem_sharding() -> str:
    """The `-k` expression that selects a project's sharding-related tests by default."""
    from shardmatrix import ecosystem_list

    return f"`{ecosystem_list.SHARDING}`"


def ecosystem_projects() -> str:
    """The projects `shardmatrix ecosystem` runs, from cases/ecosystem.toml: where their tests come from and why."""
    from shardmatrix import ecosystem_list

    rows = []
    for entry in ecosystem_list.load():
        where = (f"git {entry.repository} at " + ("the day's last commit" if entry.at == "date" else
                                                   f"tag `{entry.tag}`") if entry.source == "git"
                 else f"its {entry.source} on the index")
        selection = "every test" if entry.whole else "sharding-related (`-k`)"
        rows.append([cell(entry.name), cell(where), codes(entry.tests), cell(selection + (
            f", `-m {entry.markers}`" if entry.markers else "")), cell(entry.why)])
    return table(["project", "tests from", "folders", "selection", "why"], rows)


TABLES: dict[str, Callable[[], str]] = {
    "statuses": statuses,
    "verdicts": verdicts,
    "change-kinds": change_kinds,
    "compat-columns": compat_columns,
    "changes-columns": changes_columns,
    "frontier-columns": frontier_columns,
    "frontier-case-columns": frontier_case_columns,
    "record-fields": record_fields,
    "watch-options": watch_options,
    "watch-fields": watch_fields,
    "watch-doubts": watch_doubts,
    "changes": changes,
    "frontier": frontier,
    **{name: functools.partial(_text_block, name) for name in TEXT_BLOCKS},
    "corpus-changes": corpus_changes,
    "census": census,
    "ranges": ranges,
    "bench-ranges": bench_ranges,
    "caller": caller,
    "upgrade-check-inputs": upgrade_check_inputs,
    "accelerator-runs": accelerator_runs,
    "ecosystem-projects": ecosystem_projects,
    "ecosystem-sharding": ecosystem_sharding,
    "ecosystem-replay": ecosystem_replay,
    "ecosystem-fixes": ecosystem_fixes,
}


def render(markdown: str) -> str:
    """The page with every marker replaced by its table; DocsError naming a marker no table answers."""
    unknown = sorted(set(MARKER.findall(markdown)) - set(TABLES))
    if unknown:
        raise DocsError(f"unknown marker(s): {', '.join(unknown)} (known: {', '.join(TABLES)})")
    return MARKER.sub(lambda found: TABLES[found.group(1)](), markdown)


def on_page_markdown(markdown: str, **_: object) -> str:
    """MkDocs' hook: a page's Markdown before it is rendered."""
    return render(markdown)
