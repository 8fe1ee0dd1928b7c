"""`shardmatrix ecosystem`: will this jax or flax release break the projects that use sharding? Their own tests say.

The story of a run, top to bottom (`run`): read the list (`cases/ecosystem.toml`, shardmatrix.ecosystem_list) and the
arguments; the day the world is taken as it stood (`--as-of`, default the candidate's own upload day, read from the
index); the baseline (`--baseline`, default the release before the candidate, with the other package held at a
release that loads on both sides: shardmatrix.ecosystem_baseline); then for each project: its tests as they stood
that day (shardmatrix.ecosystem_sources; a source this machine cannot reach is skipped with one line), an `upgrade`
of that project from the baseline to the candidate with the other packages resolved as of that day (uv's
--exclude-newer), judged by the report's comparison (`judge`); a project that cannot be installed at either side is
INCONCLUSIVE, naming the conflict. With --bisect, each cause's first bad release (harness.tools.bisect, once per
cause). Last, the ecosystem report (`draw`: reports/ecosystem_report.py) groups the regressions by cause across
projects and writes OUT/report/ecosystem.{md,json}. The exit code is the worst project's: UNSAFE 1 over INCONCLUSIVE
2 over SAFE 0; nothing judged at all is INCONCLUSIVE.
"""

from __future__ import annotations

import argparse
import json
import shlex
from collections.abc import Callable, Sequence
from datetime import date, datetime, timedelta, timezone
from pathlib import Path
from typing import Any

from packaging.version import Version

from harness import ecosystem_summary
from harness.formats import INCONCLUSIVE_EXIT, SAFE_EXIT, UNSAFE_EXIT, ShardmatrixError
from harness.host import hang, options
from harness.host.cellrun import CellRun
from harness.host.matrix import Cell
from harness.runs import new_run_id
from harness.tools import bisect, index, moved, pins, upgrade
from shardmatrix import ecosystem_baseline, ecosystem_list, ecosystem_merge, ecosystem_sources, releases, watch

SAFE, UNSAFE, INCONCLUSIVE, SKIPPED = "SAFE", "UNSAFE", "INCONCLUSIVE", "SKIPPED"
EXIT_CODES = {SAFE: SAFE_EXIT, UNSAFE: UNSAFE_EXIT, INCONCLUSIVE: INCONCLUSIVE_EXIT}

#: reports.cli.judge: a candidate run against its baseline (compare.md, reproducers written).
Judge = Callable[..., Any]
#: reports.ecosystem_report.write: the ecosystem report from the projects' outcomes; the run's verdict and the paths
#: written.
Draw = Callable[[Path, dict[str, Any]], tuple[str, list[Path]]]


class EcosystemError(ShardmatrixError, ValueError):
    """An ecosystem run that cannot start as asked (no candidate, a baseline the index does not know), one line."""


def parser(prog: str = "nox -s ecosystem --") -> options.Parser:
    """Arguments of `shardmatrix ecosystem`: the candidate, the baseline, the day, the projects, where to write."""
    p = options.Parser(prog=prog)
    p.add_argument("candidate", nargs="*", metavar="PKG==X",
                   help="the candidate: jax==X and/or flax==Y, or a source such as 'jax @ git+https://...'")
    p.add_argument("--baseline", default="", metavar="jax==A,flax==B",
                   help="the baseline (default: the release before the candidate, with the matrix's partner of it)")
    p.add_argument("--as-of", default="", metavar="YYYY-MM-DD",
                   help="take each project, and every other package, as it stood on that day (default: the "
                        "candidate's upload day on the index; today for a source)")
    p.add_argument("--list", dest="list_file", type=Path, default=None, metavar="FILE",
                   help="the projects (default: the shipped cases/ecosystem.toml)")
    p.add_argument("--only", action="append", default=[], metavar="NAME", help="run only this project (repeatable)")
    p.add_argument("--bisect", action="store_true",
                   help="for each cause, the first release where its first project's test stops passing")
    fan = p.add_mutually_exclusive_group()
    fan.add_argument("--plan", action="store_true",
                     help="print the selected projects as a GitHub matrix's include list ([{\"project\": NAME}, "
                          "...]) and run nothing: the fan-out of one job per project")
    fan.add_argument("--merge", nargs="+", type=Path, default=[], metavar="DIR",
                     help="the fan-in: one report from the output folders of runs of one candidate, baseline and "
                          f"day (each DIR/report/{ecosystem_summary.ECOSYSTEM_JSON.name}), written under --out; a "
                          "selected project no folder judged is INCONCLUSIVE; nothing is run")
    p.add_argument("--whole-suite", action="store_true",
                   help="run every test of each project's folders, not only the sharding-related ones")
    p.add_argument("--out", type=Path, default=Path("out"), metavar="DIR", help="output folder (default: out)")
    p.add_argument("--force", action="store_true", help="run every cell again instead of reusing stored results")
    p.add_argument("--pre", action="store_true", help="allow pre-releases (jax==0.10.0rc1)")
    p.add_argument("--index", dest="indexes", action="append", default=[], metavar="URL",
                   help="an extra package index (e.g. jax's nightly wheels), passed to every cell")
    p.add_argument("-v", "--verbose", action="store_true", help="print each cell's pytest output")
    return p


def run(argv: Sequence[str], cells: list[Cell], judge: Judge, draw: Draw, fetch: index.Fetch = index.fetch_json,
        say: Callable[[str], object] = print, prog: str = "nox -s ecosystem --") -> int:
    """`shardmatrix ecosystem` (module docstring): the worst project's exit code."""
    namespace = parser(prog).parse_strictly(list(argv))
    entries = ecosystem_list.select(ecosystem_list.load(namespace.list_file), namespace.only)
    if namespace.plan:
        return plan(namespace, entries, cells, fetch, say)
    if namespace.merge:
        return merge(namespace, entries, draw, say)
    candidate, day, chosen = sides(namespace, cells, fetch)
    baseline = chosen.pins
    say(f"ecosystem: {len(entries)} project(s) as of {day.isoformat()}, baseline {baseline} ({chosen.held}), "
        f"candidate {' '.join(namespace.candidate)}")
    shared = shared_argv(namespace, day)
    head = {"candidate": list(namespace.candidate), "baseline": baseline, "as_of": day.isoformat(),
            "whole_suite": bool(namespace.whole_suite), "held": chosen.held}
    outcomes: list[dict[str, Any]] = []
    for number, entry in enumerate(entries):
        outcomes.append(project_outcome(entry, day, [*namespace.candidate, "--baseline", baseline, *shared], cells,
                                        judge, fetch, say, prog, namespace.whole_suite, head))
        # After each project: a run stopped part way keeps the report of what it judged, the rest named pending.
        draw(Path(namespace.out), {**head, "projects": public(outcomes),
                                   "pending": [e.name for e in entries[number + 1:]]})
    if namespace.bisect:
        # The verdict's own world: its day's --exclude-newer (and releases out by then), --pre, --index.
        bisect_causes(outcomes, candidate, pins.parse_pins([baseline], pre=namespace.pre), cells, fetch, say, prog,
                      shared)
    judged = public(outcomes)
    verdict, written = draw(Path(namespace.out), {**head, "projects": judged, "pending": []})
    ecosystem_merge.stale_reports(Path(namespace.out), head, say)
    for project in judged:
        say(f"{project['name']}: {project['verdict']}" + (f": {project['reason']}" if project["reason"] else ""))
    for path in written:
        say(f"wrote {path}")
    say(verdict)
    return EXIT_CODES[verdict]


def sides(namespace: argparse.Namespace, cells: list[Cell], fetch: index.Fetch
          ) -> tuple[dict[str, str], date, ecosystem_baseline.Baseline]:
    """The candidate's pins, the day and the baseline a run (or the plan of one) compares; EcosystemError (or
    pins.PinError) in one line for a candidate, baseline or day that cannot be, before any project is fetched."""
    asked, origins = pins.split_sources(namespace.candidate)
    candidate = pins.parse_pins(asked, pre=namespace.pre)
    if not candidate and not origins:
        raise EcosystemError("name the candidate, e.g. jax==0.9.0 (or flax==Y, or 'jax @ git+https://...')")
    day = as_of(namespace.as_of, candidate, fetch)
    chosen = (ecosystem_baseline.Baseline(namespace.baseline, "as --baseline gives it") if namespace.baseline
              else ecosystem_baseline.default(candidate, cells, fetch, day, namespace.pre))
    # A bad --baseline, one older than the candidate, or a side the day could not install.
    check_sides(candidate, pins.parse_pins([chosen.pins], pre=namespace.pre), day, fetch)
    return candidate, day, chosen


def plan(namespace: argparse.Namespace, entries: list[ecosystem_list.Entry], cells: list[Cell], fetch: index.Fetch,
         say: Callable[[str], object]) -> int:
    """`--plan`: the selected projects as a GitHub matrix's include list, run nothing. A candidate, baseline or day
    given is checked as a run checks it, so that a typo fails once here rather than in every project's job."""
    given = [flag for dest, flag in NOT_FOR_PLAN if getattr(namespace, dest)]
    given += ["--out"] if Path(namespace.out) != Path("out") else []
    if given:
        raise EcosystemError(f"{given[0]} means nothing for --plan, which runs and writes nothing: give it to the "
                             "projects' runs")
    if namespace.candidate:
        sides(namespace, cells, fetch)
    elif namespace.baseline or namespace.as_of:
        raise EcosystemError("--plan: --baseline and --as-of are checked against a candidate: name it too "
                             "(e.g. jax==0.9.0)")
    say(json.dumps([{"project": entry.name} for entry in entries]))
    return SAFE_EXIT


#: Options of a run that mean nothing for a plan, which runs nothing and writes nothing (refused beside --plan, with
#: an --out other than the default): dest, flag. --pre and --index still steer its check of the candidate.
NOT_FOR_PLAN = (("bisect", "--bisect"), ("force", "--force"), ("whole_suite", "--whole-suite"),
                ("verbose", "--verbose"))
#: Options of a run that mean nothing for a fan-in, which runs nothing (refused beside --merge): dest, flag.
NOT_FOR_MERGE = (("bisect", "--bisect"), ("force", "--force"), ("indexes", "--index"), ("verbose", "--verbose"))


def merge(namespace: argparse.Namespace, entries: list[ecosystem_list.Entry], draw: Draw,
          say: Callable[[str], object]) -> int:
    """`--merge`: one report from the parts' summaries, which must be of the run the command line names."""
    out = Path(namespace.out)
    verdict, written = draw(out, ecosystem_merge.merged(namespace.merge, entries, say, out, merged_run(namespace)))
    for path in written:
        say(f"wrote {path}")
    say(verdict)
    return EXIT_CODES[verdict]


def merged_run(namespace: argparse.Namespace) -> dict[str, Any]:
    """The run --merge's parts must be of, as far as the command line names it: the candidate (and then whether whole
    suites ran), the baseline, the day; EcosystemError in one line for an option that means nothing to a merge, or a
    pin or day that cannot be."""
    given = [flag for dest, flag in NOT_FOR_MERGE if getattr(namespace, dest)]
    if given:
        raise EcosystemError(f"{given[0]} means nothing for --merge, which runs nothing: give it to the parts' runs")
    asked: dict[str, Any] = {}
    if namespace.candidate:
        named, _origins = pins.split_sources(namespace.candidate)
        pins.parse_pins(named, pre=namespace.pre)
        asked.update(candidate=list(namespace.candidate), whole_suite=bool(namespace.whole_suite))
    elif namespace.whole_suite:
        asked["whole_suite"] = True
    if namespace.baseline:
        pins.parse_pins([namespace.baseline], pre=namespace.pre)
        asked["baseline"] = namespace.baseline
    if namespace.as_of:
        asked["as_of"] = ecosystem_sources.parse_day(namespace.as_of).isoformat()
    return asked


def public(outcomes: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The outcomes as the report keeps them (what only --bisect needs left out)."""
    return [{k: v for k, v in o.items() if k != "bisect_argv"} for o in outcomes]


def as_of(text: str, candidate: dict[str, str], fetch: index.Fetch, today: date | None = None) -> date:
    """The day asked for, else the candidate's upload day (the later of the two when jax and flax are both named:
    the first day both existed), else today (a source); EcosystemError for a day after today (the index cannot say
    how the world will stand)."""
    if text:
        day = ecosystem_sources.parse_day(text)
        today = today or datetime.now(timezone.utc).date()
        if day > today:
            raise EcosystemError(f"--as-of {day.isoformat()} is after today ({today.isoformat()}): no project or "
                                 "index has stood there yet")
        return day
    days = [ecosystem_sources.upload_day(package, candidate[package], fetch) for package in ("jax", "flax")
            if package in candidate]
    return max(days) if days else date.today()


def check_sides(candidate: dict[str, str], baseline: dict[str, str], day: date, fetch: index.Fetch) -> None:
    """EcosystemError when the baseline is newer than the candidate in a package both name, or moves nothing (the
    regressions would be the candidate's fixes, read backwards; a package named alike on both sides is held), or
    when a release either side names was not on the index by the end of `day` (every project's cells are resolved
    as of that day: none could install it). A release the index does not list (a nightly from --index) is left to
    the cells to find."""
    both = sorted(set(candidate) & set(baseline))
    # A package named alike on both sides is held (jax==0.9.0 flax==0.12.1 against jax==0.8.2,flax==0.12.1); one
    # newer in the baseline, or nothing that moves, is no bump.
    newer = [p for p in both if Version(baseline[p]) > Version(candidate[p])]
    moved = [p for p in both if Version(baseline[p]) < Version(candidate[p])]
    wrong = newer or ([] if moved else both)
    if wrong:
        package = wrong[0]
        raise EcosystemError(f"--baseline {package}=={baseline[package]} is not older than the candidate "
                             f"{package}=={candidate[package]}: give the earlier release as the baseline")
    for side, named in (("candidate", candidate), ("baseline", baseline)):
        for package, version in sorted(named.items()):
            try:
                uploaded = releases.upload_dates(fetch(index.json_api(package), "application/json")
                                                 ).get(Version(version))
            except (OSError, ValueError, KeyError, TypeError):
                continue  # the cells will say what the index does not
            if uploaded is not None and uploaded >= ecosystem_sources.end_of(day):
                raise EcosystemError(f"the {side} {package}=={version} reached the index on "
                                     f"{uploaded.date().isoformat()}, after --as-of {day.isoformat()}: no project "
                                     "could install it as of that day")


def shared_argv(namespace: argparse.Namespace, day: date) -> list[str]:
    """What every project's upgrade takes from the command line: the day's index, the output, the shared flags."""
    argv = ["--exclude-newer", (day + timedelta(days=1)).isoformat(), "--out", str(namespace.out)]
    argv += ["--force"] * namespace.force + ["--pre"] * namespace.pre + ["-v"] * namespace.verbose
    for url in namespace.indexes:
        argv += ["--index", url]
    return argv


def project_argv(entry: ecosystem_list.Entry, root: Path, whole_suite: bool) -> list[str]:
    """The upgrade arguments of one project: its folder and tests, its selection, devices, budget and needs."""
    argv = ["--project", str(root), "--devices", str(entry.devices), "--timeout", f"{entry.budget:g}",
            "--suite-budget", f"{entry.suite_budget:g}", "--run-id", new_run_id()]
    for test in entry.tests:
        argv += ["--cases", str(root / test)]
    keywords = entry.keyword_expression(whole_suite)
    argv += ["-k", keywords] if keywords else []
    argv += ["-m", entry.markers] if entry.markers else []
    for requirement in entry.requires:
        argv += ["--with", requirement]
    argv += [arg for e in entry.exclude if e.kind == "test" for arg in ("--deselect", e.target)]
    for name, value in with_ignored(entry, root):  # the cells' variables, in the results cache's fingerprint too
        argv += ["--env", f"{name}={value}"]
    return argv


#: The variable pytest reads extra options from: how a path the list leaves out reaches each cell's pytest.
PYTEST_ADDOPTS = "PYTEST_ADDOPTS"


def with_ignored(entry: ecosystem_list.Entry, root: Path) -> list[tuple[str, str]]:
    """The entry's variables, and pytest's --ignore of each path it leaves out as PYTEST_ADDOPTS (which the list
    refuses in `env`): pytest then never imports that path, as a module that fails at collection needs."""
    # pytest splits the variable as a shell would: a folder with a space in its path stays one argument.
    ignored = " ".join(shlex.quote(f"--ignore={root / e.target}") for e in entry.exclude if e.kind == "path")
    return [*entry.env, *([(PYTEST_ADDOPTS, ignored)] if ignored else [])]


def project_outcome(entry: ecosystem_list.Entry, day: date, common: list[str], cells: list[Cell], judge: Judge,
                    fetch: index.Fetch, say: Callable[[str], object], prog: str, whole_suite: bool = False,
                    head: dict[str, Any] | None = None) -> dict[str, Any]:
    """One project's verdict from its own tests: SKIPPED (a source out of reach), INCONCLUSIVE (no such revision, or
    it cannot be installed at a side), else the upgrade's verdict with its causes, reproducers and pins; its own
    report is written naming the run (`head`: candidate, baseline, day)."""
    made: dict[str, Any] = {"name": entry.name, "why": entry.why, "source": entry.source, "revision": "",
                            "verdict": INCONCLUSIVE, "reason": "", "coverage": "", "causes": [],
                            "excluded": [{"what": e.describe(), "reason": e.reason} for e in entry.exclude],
                            "env": dict(entry.env), "selection": entry.selection()}
    say(f"--- {entry.name}")
    try:
        fetched = ecosystem_sources.fetch(entry, day, fetch)
    except ecosystem_sources.Unavailable as skipped:
        reason = str(skipped).removeprefix(f"{entry.name}: ")  # the report names the project beside it
        say(f"{entry.name}: skipped: {reason}")
        return {**made, "verdict": SKIPPED, "reason": reason}
    except ecosystem_sources.SourceError as problem:
        reason = str(problem).removeprefix(f"{entry.name}: ")
        say(f"{entry.name}: {reason}")
        return {**made, "reason": reason}
    made["revision"] = fetched.revision
    say(f"{entry.name}: {fetched.revision}")
    try:
        before, after, opts, changes = upgrade.prepare(
            [*common, *project_argv(entry, fetched.root, whole_suite)], cells, say=say, prog=prog)
    except ShardmatrixError as refused:  # e.g. it cannot be installed with the candidate: an answer too, named
        say(f"{entry.name}: {refused}")
        return {**made, "reason": str(refused)}
    try:
        judged = judge(opts.out, before.ref, after.ref, declared=changes.rows)
    except ShardmatrixError as unread:  # results the comparison cannot read: this project unjudged, the run goes on
        say(f"{entry.name}: {unread}")
        return {**made, "reason": str(unread)}
    comparison = judged.comparison
    reason = comparison.reason
    if comparison.verdict == INCONCLUSIVE:
        reason = why_unjudged(reason, before, after, entry, opts.left_out.describe())
    # The project's own report names its run: one left in the folder by an earlier run is told apart from it.
    saved = ecosystem_summary.write_ecosystem_project_report(Path(opts.out) / "report", entry.name,
                                                   Path(judged.written).read_text(encoding="utf-8"), head or {})
    out = Path(opts.out)
    # What the verdict stands on: of the tests compared, those that could show a regression (not skipped or failing
    # on both sides), as upgrade's own coverage counts them.
    return {**made, "verdict": comparison.verdict, "reason": reason,
            "coverage": comparison.evidence or comparison.coverage,
            "tests": comparison.cases, "bisect_argv": project_argv(entry, fetched.root, whole_suite),
            "baseline": before.cell.id, "candidate": after.cell.id, "report": within(saved, out),
            "changes_from": within(Path(changes.file), out),
            "pins": {"baseline": moved.versions(moved.freeze_of(before)),
                     "candidate": moved.versions(moved.freeze_of(after))},
            "causes": causes_of(comparison.causes, judged.links, after.cell.id, comparison.removed)}


def within(path: Path, out: Path) -> str:
    """A file the summary names, relative to the output folder when it lies there: a stored or uploaded summary
    names no machine's scratch folder."""
    try:
        return Path(path).resolve().relative_to(Path(out).resolve()).as_posix()
    except ValueError:
        return str(path)


#: What pytest-timeout's session timeout writes when a suite passed its budget (--session-timeout).
SESSION_TIMEOUT = "session-timeout: "


def past_budget(log: Path) -> bool:
    """Whether a cell's pytest stopped at the suite's budget, as its log says."""
    try:
        return SESSION_TIMEOUT in Path(log).read_text(encoding="utf-8", errors="replace")
    except OSError:
        return False


def why_unjudged(reason: str, before: CellRun, after: CellRun, entry: ecosystem_list.Entry, selection: str) -> str:
    """An INCONCLUSIVE project's reason, led by what stopped its cells where that is known: a suite stuck in its
    collection, a selection that selects no test on either side, a suite past its budget."""
    hung = [(side.cell.id, said) for side in (before, after) if (said := hung_in_collection(side.files.log))]
    if hung:
        return f"its suite {hung[0][1]} (in {hung[0][0]})"
    if all(selected_nothing(side) for side in (before, after)):
        return (f"its selection ({selection or 'its test folders'}) selects no test in either cell: check its "
                f"tests, keywords and markers in the list ({reason})")
    if any(past_budget(side.files.log) for side in (before, after)):
        return f"its suite ran past its budget of {entry.suite_budget:g} s in a cell and was stopped: {reason}"
    return reason


def selected_nothing(side: CellRun) -> bool:
    """Whether a cell's pytest collected no test at all (harness.host.cellrun records it so, NoCasesCollected)."""
    finals = side.finals()
    return bool(finals) and all(record.get("error_type") == "NoCasesCollected" for record in finals.values())


def hung_in_collection(log: Path) -> str:
    """What a cell's log says of a pytest the host stopped in collection (harness.host.hang): "hung in collection
    after N s: ..."; "" when it was not."""
    try:
        text = Path(log).read_text(encoding="utf-8", errors="replace")
    except OSError:
        return ""
    return next((line.partition(f"{hang.HUNG_MARK}: ")[2].strip() for line in text.splitlines()
                 if line.startswith(f"{hang.HUNG_MARK}: ")), "")


def causes_of(found: Any, links: dict[tuple[str, str], str], cell_id: str, removed: Any = None
              ) -> list[dict[str, Any]]:
    """A comparison's regression causes (reports.verdicts.causes rows) as plain data: signature, the documented
    change's label, an example error, the case ids, and one reproducer of the candidate's; then its removals
    (passing -> skipped, `removed`), each skip's reason a cause of its own (reports.verdicts.ecosystem_judge)."""
    from reports.verdicts.ecosystem_judge import removals  # reports only once the arguments are parsed

    gone = removals(removed.to_dict("records")) if removed is not None else []
    for cause in gone:
        cause["reproducer"] = next((links[(cell_id, case)] for case in cause["cases"] if (cell_id, case) in links), "")
    made: list[dict[str, Any]] = []
    for row in found.to_dict("records"):
        cases = sorted({str(case) for _, case in row["cases"]})
        reproducer = next((links[(cell_id, case)] for case in cases if (cell_id, case) in links), "")
        made.append({"signature": str(row["signature"]), "change": str(row.get("change") or ""),
                     "example": str(row["example"]), "cases": cases, "reproducer": reproducer})
    return made + gone


#: The options of a project's upgrade that `bisect` does not take (it runs the case's module whole).
NOT_BISECTED = ("-k", "-m", "--deselect", "--run-id")


def bisect_causes(outcomes: list[dict[str, Any]], candidate: dict[str, str], baseline: dict[str, str],
                  cells: list[Cell], fetch: index.Fetch, say: Callable[[str], object], prog: str,
                  shared: list[str]) -> None:
    """`--bisect`: each cause's first bad release, searched once per row of the report's causes (a signature shared
    across projects once; a test's own check, which the report keeps to its project, once per project) from the
    baseline's release of the bumped package to the candidate's, the other package held at the baseline's, with
    the first test of the first project showing it; written into every cause of that row as `first_bad`, or
    `bisect`: why none was named. Only a bump of one package named by release can be bisected; otherwise every
    cause says so."""
    from reports.verdicts.ecosystem_judge import shared as across_projects  # the report's rows, so each is searched

    bumped = [name for name in ("jax", "flax") if name in candidate]
    if len(bumped) != 1 or any(name not in baseline for name in ("jax", "flax")):
        said = "only a bump of jax or of flax by release, against a baseline naming both, can be bisected"
        say(f"--bisect: {said}")
        for cause in (cause for outcome in outcomes for cause in outcome["causes"]):
            cause["bisect"] = said
        return
    package = bumped[0]
    other = "flax" if package == "jax" else "jax"
    ends = ["--good", f"{package}=={baseline[package]}", "--bad", f"{package}=={candidate[package]}",
            f"--{other}", f"=={baseline[other]}", "--trust-ends"]
    found: dict[tuple[str, str], dict[str, str]] = {}
    for outcome in outcomes:
        for cause in outcome["causes"]:
            row = (cause["signature"], "" if across_projects(cause["signature"]) else outcome["name"])
            if row not in found:
                found[row] = first_bad(outcome, cause, [*shared, *ends], package, cells, fetch, say, prog)
            cause.update(found[row])


def is_removal(signature: str) -> bool:
    """Whether a cause is a removal (reports.verdicts.ecosystem_judge.removals: 'skipped: <the skip's words>')."""
    from reports.verdicts.ecosystem_judge import SKIPPED_NOW

    return signature.startswith(f"{SKIPPED_NOW}: ")


def first_bad(outcome: dict[str, Any], cause: dict[str, Any], argv: list[str], package: str, cells: list[Cell],
              fetch: index.Fetch, say: Callable[[str], object], prog: str) -> dict[str, str]:
    """One cause's bisect of its first test in `outcome`'s project: {"first_bad": "jax==X"}, or {"bisect": why
    none was named}."""
    if not cause["cases"]:
        return {"bisect": "no test of this cause to bisect"}
    say(f"--- bisect {outcome['name']}: {cause['cases'][0]}")
    # A removal (passing -> skipped) is found where the test stops passing, whatever the way: a probe where it skips
    # itself is the answer there, not a probe to pass over.
    removal = ["--stops-passing"] if is_removal(cause["signature"]) else []
    try:
        found = bisect.run([*watch.without(outcome["bisect_argv"], NOT_BISECTED), *argv, *removal, "--case",
                            cause["cases"][0]], cells, fetch=fetch, say=say, prog=prog)
    except ShardmatrixError as refused:
        return {"bisect": f"refused: {refused}"}
    if found.first_bad is None:
        return {"bisect": found.refusal or "no first bad release named"}
    return {"first_bad": f"{package}=={found.first_bad.version}"}
