"""`shardmatrix watch`: judge each jax/flax release newer than the project's lock, once.

The story of a run, top to bottom (`run`): read the project's locked jax/jaxlib/flax; list every newer release on
the index (a jax release only with a jaxlib of its version; pre-releases and dev releases with --pre; the extra
indexes of --index too); leave out those the state already judged from this baseline; for each of the rest, oldest
first, run `upgrade` from the lock to it and take its verdict; for an UNSAFE one whose regressions no documented
change explains, when a dependency such as optax or numpy moved with it, run the candidate once more with that
dependency held at its locked version and name the one that flips the verdict (`co_moving`); unless a co-moving
dependency is the cause, name the first bad release of its first regressed case: from the releases judged before
it when they tell (`named_before`: each cause is bisected once, and a release whose previous release was judged
passing that case is its own first bad release), else by a bisect from the locked release to it (the upgrade proved
both ends, so they are trusted); list the documented changes crossed with their fixes and which regressed case each
explains, and the reproducers; print each release's verdict as it is judged, and save the state after it (a killed
run keeps what it judged); write the JSON summary (--json). Its exit code is the worst verdict among the releases
judged from this baseline, remembered ones included: 0 SAFE (or nothing newer), 1 UNSAFE, 2 INCONCLUSIVE.
"""

from __future__ import annotations

import argparse
import shutil
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from packaging.version import InvalidVersion, Version

from harness.formats import ShardmatrixError
from harness.host import cellenv, homes, options
from harness.host.matrix import Cell
from harness.runs import new_run_id
from harness.tools import bisect, index, moved, pins, upgrade
from shardmatrix import watch_files
from shardmatrix.watch_files import INCONCLUSIVE, UNSAFE, Judgment

#: The packages watched, in the order they are judged; jaxlib follows jax.
PACKAGES = ("jax", "flax")
#: Dependencies besides jax, jaxlib and flax whose own release can break a project (issue 25): when one moved with
#: the release and no documented change explains a regression, it is held back once to see whether it is the cause.
CO_MOVING = ("numpy", "ml-dtypes", "optax", "scipy", "opt-einsum", "chex", "orbax-checkpoint")
#: The options of watch alone: they are not passed on to the upgrades and bisects it runs.
OWN = ("--state", "--json", "--package")
#: Options of `upgrade` that `bisect` does not take (it runs one module, and reads only its case's record).
LEFT_OUT = ("-m", "-k", "--deselect")

#: reports.cli.judge: the verdict of a candidate run against its baseline, compare.md and reproducers written.
Judge = Callable[..., Any]


class WatchError(ShardmatrixError, ValueError):
    """A watch that cannot run as asked (no project, nothing locked to watch), in one line."""


def parser(prog: str = "nox -s watch --") -> options.Parser:
    """Arguments of `shardmatrix watch`: the state and summary files, the packages, and the shared options (--project,
    --pre, --index, --out ...) passed on to each upgrade."""
    p = options.Parser(prog=prog, parents=[options.parser(add_help=False)])
    options.add_left_out(p)
    p.add_argument("--state", type=Path, default=None, metavar="FILE",
                   help=f"the releases already judged, read and rewritten (default: {homes.STATE_FILE} in the "
                        "project's own folder outside its tree, see harness.host.homes; keep it as an artifact "
                        "between scheduled runs)")
    p.add_argument("--json", type=Path, default=None, metavar="FILE",
                   help="write a JSON summary: each release's verdict, first bad release, changes and reproducers")
    p.add_argument("--package", action="append", default=[], choices=PACKAGES,
                   help="watch only this package (repeatable; default: jax and flax, those the project locks)")
    for action in p._actions:  # the shared options mean more here: they choose which releases are listed
        if "--pre" in action.option_strings:
            action.help = "list pre-releases and dev releases (nightlies) too, and allow them in the cells"
        elif "--index" in action.option_strings:
            action.help = ("an extra package index (e.g. jax's nightly wheels) whose releases are listed too and "
                           "installed from (repeatable)")
    return p


def own_run() -> list[str]:
    """A run id of its own for one release's upgrade, whatever the environment says (a nox invocation shares one
    with all its sessions through $SHARDMATRIX_RUN_ID): the cache reuses a baseline only from another run."""
    return ["--run-id", new_run_id()]


def without(argv: Sequence[str], flags: Sequence[str]) -> list[str]:
    """`argv` less the given options and their values (`--flag VALUE` or `--flag=VALUE`)."""
    kept: list[str] = []
    skip = False
    for arg in argv:
        if skip:
            skip = False
        elif arg in flags:
            skip = True
        elif not any(arg.startswith(f"{flag}=") for flag in flags):
            kept.append(arg)
    return kept


def newer(package: str, locked: str, fetch: index.Fetch, pre: bool = False,
          indexes: Sequence[str] = ()) -> list[Version]:
    """The releases of `package` newer than `locked`, oldest first, on PyPI and the extra indexes; a jax release
    only with a jaxlib of its version (a cell pins jaxlib to jax)."""
    def listed(name: str) -> set[Version]:
        found = set(index.releases(name, fetch, pre))
        for url in indexes:
            found |= set(index.extra_releases(url, name, fetch, pre))
        return found

    found = listed(package)
    if package == "jax":
        found &= listed("jaxlib")
    return sorted(v for v in found if v > Version(locked))


def baseline_of(namespace: argparse.Namespace, cells: list[Cell]) -> tuple[str, dict[str, str], Cell]:
    """The project's root, its locked pins, and the baseline cell they make; WatchError without a project."""
    opts = options.from_namespace(namespace)
    additions = cellenv.prepare(opts)
    if additions.project is None:
        raise WatchError("watch needs a project: run it inside one, or give --project DIR")
    if not additions.project.locked and "jax" not in pins.project_pins(additions.project, ranges=True):
        # The pins' own refusal advises upgrade's --baseline, which watch has not: the releases it judges are those
        # newer than what the project runs, so that must be written down in the project (haliax, optax: a range).
        raise WatchError(f"{additions.project.root}: no lock and no exact jax pin in its pyproject.toml (jax==X): "
                         "watch judges the releases newer than the project's own jax, so lock it (`uv lock`) or pin "
                         "jax; for one release, `upgrade jax==X --baseline jax==A,flax==B` needs neither")
    locked = pins.project_pins(additions.project)
    return str(additions.project.root), locked, pins.baseline_cell(cells, locked)


def run(argv: list[str], cells: list[Cell], judge: Judge, fetch: index.Fetch = index.fetch_json,
        say: Callable[[str], object] = print, prog: str = "nox -s watch --",
        store: watch_files.Store | None = None) -> int:
    """`shardmatrix watch`: judge each new release once (module docstring); the worst verdict's exit code. The
    judgments are kept in `store` (default: the --state file; the rolling issue can be another store)."""
    namespace = parser(prog).parse_strictly(argv)
    if namespace.run_id or namespace.resume:
        # One run id for every release would make each release's baseline the same run as its candidate, which the
        # results cache never reuses from: the baseline would be built again for every release.
        raise options.OptionsError(f"{prog} judges each release in a run of its own: --run-id and --resume are "
                                   "not taken")
    if namespace.json:
        watch_files.check_writable(namespace.json, "--json")
    if store is None and namespace.state:
        watch_files.check_writable(namespace.state, "--state")
    root, locked, base = baseline_of(namespace, cells)
    baseline = {"jax": base.jax, "jaxlib": base.jaxlib, "flax": base.flax}
    store = store or watch_files.FileStore(namespace.state or homes.state_of(root))
    # Where the judgments and the runs go is checked before anything is judged: a file in the way found only when the
    # first release's judgment is saved loses that judgment (and the cells built for it).
    home = f"(${homes.HOME_ENV}: {homes.root()})"
    if isinstance(store, watch_files.FileStore):
        homes.writable(store.path.parent, "--state" if namespace.state else f"the watch state's folder {home}")
    homes.writable(options.from_namespace(namespace).out, "--out" if namespace.out else f"the output folder {home}")
    kept = store.load()
    known = {j.key for j in kept if not watch_files.distrust(j)}  # a SAFE its fields doubt is judged again
    watched = [p for p in PACKAGES if (not namespace.package or p in namespace.package) and p in locked]
    found = [(p, str(v)) for p in watched
             for v in newer(p, locked[p], fetch, namespace.pre, namespace.indexes)]
    todo = [(p, v) for p, v in found if watch_files.key_of(p, v, baseline) not in known]
    listed, again = set(found), {watch_files.key_of(p, v, baseline) for p, v in todo}
    remembered = [j for j in watch_files.standing(kept, baseline, watched) if j.key not in again]
    say(f"watching {', '.join(f'{p}=={locked[p]}' for p in watched)} of {root}: {len(found)} newer release(s), "
        f"{len(todo)} not judged yet")
    kept_in = f"; state {store.path}" if isinstance(store, watch_files.FileStore) else ""
    say(f"files: {options.from_namespace(namespace).out}{kept_in}")
    shared = without(argv, OWN)
    judged: list[Judgment] = []
    for package, version in todo:
        earlier = [j for j in kept if j.baseline == baseline and j.package == package]
        listed_before = [v for p, v in found if p == package and Version(v) < Version(version)]
        made = judge_release(package, version, baseline, shared, cells, judge, fetch, say, prog,
                             earlier=earlier, listed_before=listed_before)
        judged.append(made)
        kept = [j for j in kept if j.key != made.key] + [made]  # a doubted SAFE gives way to its new judgment
        store.save(kept)  # after each release: a killed run keeps what it judged
        for line in describe(made):  # as it is judged: a long first watch shows its answers as they come
            say(line)
    for old in remembered:
        bad = f": first bad {old.first_bad}" if old.first_bad else ""
        gone = "" if (old.package, old.version) in listed else "; no longer listed on the index"
        why = f"; {old.reason}" if old.reason and old.verdict == INCONCLUSIVE else ""
        say(f"{old.package} {old.version}: {old.verdict}: {watch_files.coverage_line(old)} (judged before{bad}{gone})"
            f"{why}")
    data = watch_files.summary(root, baseline, judged, remembered)
    if namespace.json:
        say(f"wrote {watch_files.write_summary(namespace.json, data)}")
    return watch_files.EXIT_CODES[data["verdict"]]


def judge_release(package: str, version: str, baseline: Mapping[str, str], shared: list[str], cells: list[Cell],
                  judge: Judge, fetch: index.Fetch, say: Callable[[str], object], prog: str,
                  earlier: Sequence[Judgment] = (), listed_before: Sequence[str] = ()) -> Judgment:
    """Upgrade from the baseline to `package==version`, and for UNSAFE name the first bad release of its first
    regressed case: from the releases judged before it from this baseline (`earlier`; `listed_before`, the releases
    of the package listed between the baseline and it) when they tell (named_before), else by a bisect."""
    say(f"--- {package} {version}: upgrade from {package}=={baseline[package]}")
    try:
        before, after, opts, changes = upgrade.prepare([*shared, *own_run(), f"{package}=={version}"], cells,
                                                            say=say, prog=prog)
    except pins.PinError as refused:  # e.g. it cannot be installed with the project's other pins: an answer too
        return Judgment(package, version, dict(baseline), INCONCLUSIVE, reason=str(refused), tests=0, tests_judged=0)
    judged = judge(opts.out, before.ref, after.ref, declared=changes.rows)
    comparison = judged.comparison
    regressions = comparison.regressions
    regressed = sorted(set(map(str, regressions["case_id"])))
    errors = {str(case): str(detail or "") for case, detail in zip(regressions["case_id"], regressions["detail"],
                                                                    strict=True)}
    saved = watch_files.report_path(opts.out, package, version)
    saved.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(judged.written, saved)
    old, new = moved.versions(moved.freeze_of(before)), moved.versions(moved.freeze_of(after))
    made = Judgment(
        package, version, dict(baseline), comparison.verdict, reason=comparison.reason, regressed=regressed,
        coverage=comparison.coverage, tests=comparison.cases, tests_judged=judged_count(comparison),
        changes=crossed(changes.rows, baseline, {**baseline, package: version}, errors),
        reproducers=sorted(path for (cell, case), path in judged.links.items()
                           if cell == after.cell.id and case in regressed),
        report=str(saved), moved=moved.changes(moved.freeze_of(before), moved.freeze_of(after)))
    if made.verdict != UNSAFE or not regressed:
        return made
    suspects = [(name, old[name]) for name in CO_MOVING if name in old and name in new and old[name] != new[name]]
    made = co_moving(made, suspects, shared, cells, judge, say, prog)
    if made.cause and made.cause != package:  # a dependency that moved with it broke the project, not the release
        return made
    named = named_before(made, earlier, listed_before, errors)
    if named is not None:
        say(f"--- {package} {version}: first bad release {named.first_bad} for {named.case}, from the releases "
            "judged before it (not bisected)")
        return named
    return first_bad(made, shared, cells, fetch, say, prog)


def judged_count(comparison: Any) -> int:
    """The tests a comparison judged: those compared, less those not applicable for devices on both sides and those
    it could not judge (missing on a side, no answer, could not run, left out by one side's devices or API)."""
    unjudged = {str(case) for table in (comparison.missing, comparison.unjudged, comparison.unrun, comparison.left_out)
                for case in table["case_id"]}
    return max(0, comparison.cases - sum(comparison.short.values()) - len(unjudged))


def named_before(made: Judgment, earlier: Sequence[Judgment], listed_before: Sequence[str],
                 errors: Mapping[str, str]) -> Judgment | None:
    """The judgment with its first bad release named without a bisect, else None. Each cause is bisected once: a
    regressed case whose first bad release an earlier judgment named is taken from it, unless a release judged since
    passed it again. And a bisect would only re-run what was judged: when the release listed just before this one
    was judged (not INCONCLUSIVE) without its first regressed case regressing, or there is none (the baseline passed
    it), this release is where that case stops passing, its first bad one, with its own error."""
    this = Version(made.version)
    older = {j.version: j for j in earlier if Version(j.version) < this}
    for named in sorted(older.values(), key=lambda j: Version(j.version)):
        if not (named.first_bad and named.case in made.regressed):
            continue
        try:
            since = Version(named.first_bad.partition("==")[2])
        except InvalidVersion:  # a remembered answer this cannot read vouches for nothing: a bisect will tell
            continue
        passed_again = any(since < Version(j.version) and j.verdict != INCONCLUSIVE and named.case not in j.regressed
                           for j in older.values())
        if since <= this and not passed_again:
            return _with(made, case=named.case, first_bad=named.first_bad, first_bad_error=named.first_bad_error)
    case = made.regressed[0]
    previous = older.get(listed_before[-1]) if listed_before else None
    if not listed_before or (previous is not None and previous.verdict != INCONCLUSIVE
                             and case not in previous.regressed):
        return _with(made, case=case, first_bad=f"{made.package}=={made.version}", first_bad_error=errors.get(case, ""))
    return None


def co_moving(made: Judgment, suspects: Sequence[tuple[str, str]], shared: list[str], cells: list[Cell],
              judge: Judge, say: Callable[[str], object], prog: str) -> Judgment:
    """Tell a regression of the release from one of a dependency that moved with it: when no documented change
    explains every regressed case and a co-moving dependency moved, the candidate runs once more with each such
    dependency held at its locked version (`--with NAME==OLD`); the one whose hold stops the regressions is the
    `cause`. The release itself is the cause when every hold ran and none did; "" when a hold could not run."""
    explained = {case for entry in made.changes for case in entry.get("explains", [])}
    if not suspects or set(made.regressed) <= explained:
        return made
    held: list[dict[str, Any]] = []
    for name, version in suspects:
        say(f"--- {made.package} {made.version} with {name} held at {version}")
        try:
            before, after, opts, changes = upgrade.prepare(
                [*shared, *own_run(), f"{made.package}=={made.version}", "--with", f"{name}=={version}"], cells,
                say=say, prog=prog)
        except pins.PinError as refused:  # the release needs the newer one: both stay plausible
            held.append({"package": name, "version": version, "verdict": "", "still_regressed": [],
                         "reason": str(refused)})
            continue
        comparison = judge(opts.out, before.ref, after.ref, declared=changes.rows).comparison
        still = sorted(set(map(str, comparison.regressions["case_id"])) & set(made.regressed))
        held.append({"package": name, "version": version, "verdict": comparison.verdict, "still_regressed": still,
                     "reason": comparison.reason})
        if comparison.verdict != INCONCLUSIVE and not still:
            return _with(made, held=held, cause=name)
    ran_all = all(entry["verdict"] and entry["verdict"] != INCONCLUSIVE for entry in held)
    return _with(made, held=held, cause=made.package if ran_all else "")


def first_bad(made: Judgment, shared: list[str], cells: list[Cell], fetch: index.Fetch,
              say: Callable[[str], object], prog: str) -> Judgment:
    """The judgment with the first release where its first regressed case stops passing (or why none was named)."""
    package, case = made.package, made.regressed[0]
    other = next(p for p in PACKAGES if p != package)
    argv = [*without(shared, LEFT_OUT), "--case", case, "--good", f"{package}=={made.baseline[package]}",
            "--bad", f"{package}=={made.version}", f"--{other}", f"=={made.baseline[other]}", "--trust-ends"]
    try:
        outcome = bisect.run(argv, cells, fetch=fetch, say=say, prog=prog)
    except ShardmatrixError as refused:  # an index that cannot be read, a case it cannot find: the verdict stands
        return _with(made, case=case, reason=_joined(made.reason, f"bisect of {case} refused: {refused}"))
    if outcome.first_bad is None:
        return _with(made, case=case, reason=_joined(made.reason, outcome.refusal or f"bisect of {case} named no "
                                                                                      "first bad release"))
    bad = outcome.first_bad
    return _with(made, case=case, first_bad=f"{package}=={bad.version}", first_bad_error=bad.error)


def _with(made: Judgment, **changed: Any) -> Judgment:
    return Judgment(**{**made.to_json(), **changed})


def _joined(*reasons: str) -> str:
    return "; ".join(reason for reason in reasons if reason)


def crossed(declared: Sequence[tuple[str, Mapping[str, Any]]], baseline: Mapping[str, str],
            candidate: Mapping[str, str], errors: Mapping[str, str]) -> list[dict[str, Any]]:
    """The documented changes of `declared` (upgrade.prepare's, as harness.change.as_rows) that a move from baseline to
    candidate crosses (reports.verdicts.documented_upgrade.between: label,
    kind, fix, cases), each with `explains`: the regressed cases (`errors`: case id -> 'Type: message') whose own error
    is that change's (reports.verdicts.documented.explains), never those that merely raise its exception class."""
    # Here, not at the top: the command imports without pandas, so that --help and bad input need none.
    from reports.verdicts import documented, documented_upgrade

    found = documented_upgrade.between(declared, baseline, candidate)
    for entry in found:
        mine = [change for _, change in declared if documented.label(change) == entry["label"]]
        entry["explains"] = sorted(case for case, error in errors.items()
                                   if any(documented.explains(change, error.partition(": ")[0],
                                                              error.partition(": ")[2], candidate) for change in mine))
        entry.pop("order", None)
    return found


def describe(made: Judgment) -> list[str]:
    """The short human summary of one release."""
    head = f"{made.package} {made.version}: {made.verdict}: {watch_files.coverage_line(made)}"
    if made.regressed:
        head += f" ({len(made.regressed)} regressed: {', '.join(made.regressed[:3])}" + \
                (" ...)" if len(made.regressed) > 3 else ")")
    lines = [head + (f"; {made.reason}" if made.reason else "")]
    if made.first_bad:
        lines.append(f"  first bad release: {made.first_bad} ({made.case}: {made.first_bad_error})")
    for entry in made.changes:
        explains = f"; explains {', '.join(entry['explains'])}" if entry.get("explains") else ""
        lines.append(f"  documented change: {entry['label']} ({entry['kind']}). Fix: {entry['fix']}{explains}")
    if made.moved:
        lines.append(f"  also moved: {', '.join(made.moved)}")
    for entry in made.held:
        answer = entry["verdict"] or "could not run"
        lines.append(f"  with {entry['package']} held at {entry['version']}: {answer}"
                     + (f" ({entry['reason']})" if entry["reason"] and not entry["verdict"] else ""))
    if made.cause and made.cause != made.package:
        lines.append(f"  cause: {made.cause} moved with it; held at its locked version, the regression goes away")
    elif made.held and made.cause:
        lines.append(f"  cause: {made.package} itself (holding what moved with it changes nothing)")
    lines.extend(f"  reproducer: {path}" for path in made.reproducers)
    if made.report:
        lines.append(f"  report: {made.report}")
    return lines
