"""The `shardmatrix` command: one subcommand per nox session (matrix, upgrade, bisect, frontier, ranges, installed,
report, watch, ecosystem).

A subcommand is a function registered with its parser; the noxfile's sessions run the very same function (through
`python -m shardmatrix.command`), so the command and nox never differ. Adding one (e.g. `watch`) is one function
under `@subcommand`. A subcommand parses its own arguments, once, and calls reports with values (reports.cli's
`report`, `verdict`, `judge`), never through an argv. Bad input ends in one line and exit 64
(harness.formats.command); a verdict's exit code (0 SAFE, 1 UNSAFE, 2 INCONCLUSIVE) is passed on as it is.
"""

from __future__ import annotations

import importlib.util
import os
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

from harness.cellrecord import CellFiles
from harness.formats import ShardmatrixError, command
from harness.host import cellenv, cellrun, completeness, corpus, homes, installed, invocation, matrix, options, project
from harness.tools import bisect, range_check, upgrade
from shardmatrix import ecosystem, frontier, watch

#: The `prog` a subcommand names in its messages; the noxfile sets `nox -s <session> --` through this variable.
PROG_ENV = "SHARDMATRIX_PROG"
#: The subcommands that take the project the command is run from as --project when none is given.
PROJECT_HERE = ("matrix", "upgrade", "bisect", "watch")
#: What reports/ imports beyond the harness: dependencies of shardmatrix, missing only from a broken install.
REPORTS_NEED = ("pandas", "jinja2")


class CommandError(ShardmatrixError, ValueError):
    """A subcommand nobody declared, or one that cannot run here; one line."""


@dataclass(frozen=True)
class Subcommand:
    """A subcommand: what it runs, and the parser that checks its arguments before anything runs."""

    run: Callable[[list[str], str], int]
    parser: Callable[[str], options.Parser]
    title: str


SUBCOMMANDS: dict[str, Subcommand] = {}


def subcommand(name: str, parser: Callable[[str], options.Parser]
               ) -> Callable[[Callable[[list[str], str], int]], Callable[[list[str], str], int]]:
    """Register a subcommand `run(argv, prog) -> exit code` under `name`, its docstring's first line as its title."""

    def register(run: Callable[[list[str], str], int]) -> Callable[[list[str], str], int]:
        SUBCOMMANDS[name] = Subcommand(run, parser, (run.__doc__ or "").strip().splitlines()[0])
        return run

    return register


def get(name: str) -> Subcommand:
    """The subcommand `name`, or CommandError naming the ones there are."""
    if name not in SUBCOMMANDS:
        raise CommandError(f"unknown command {name!r} (commands: {', '.join(SUBCOMMANDS)})")
    return SUBCOMMANDS[name]


def check(name: str, argv: Sequence[str], prog: str) -> None:
    """Parse a subcommand's arguments strictly, running nothing: OptionsError names the first bad one (the noxfile's
    sessions check theirs before they install anything)."""
    get(name).parser(prog).parse_strictly(list(argv))


def project_here(argv: list[str], here: Path | None = None) -> list[str]:
    """`--project .` added when none is given and the folder run from is a project other than shardmatrix itself:
    inside a project, its tests are what is asked about. `--cases` of the project's own folders (optax keeps its
    tests beside its code, `--cases optax/_src`) still asks about the project: without it, its test extras were not
    installed and the runs landed in its tree. `--cases` naming anything else (`builtin`, a folder outside) runs
    those cases alone. A project that cannot be read as one (a stale lock, an unsupported one) is refused with its
    own reason, never run as if there were no project."""
    folder = Path.cwd() if here is None else here
    given = any(arg == "--project" or arg.startswith("--project=") for arg in argv)
    cases = _values(argv, "--cases")
    elsewhere = any(case == "builtin" or not (folder / case).resolve().is_relative_to(folder.resolve())
                    for case in cases)
    if given or elsewhere or "-h" in argv or "--help" in argv or not (folder / "pyproject.toml").is_file():
        return argv
    if project.name_of(folder) == "shardmatrix":
        return argv
    project.load(folder)  # ProjectError in one line, naming what is wrong with it
    return ["--project", str(folder), *argv]


def _values(argv: list[str], flag: str) -> list[str]:
    """Every value given to `flag` (`--cases A --cases=B`)."""
    return [argv[i + 1] if arg == flag else arg.split("=", 1)[1]
            for i, arg in enumerate(argv) if (arg == flag and i + 1 < len(argv)) or arg.startswith(f"{flag}=")]


def out_here(argv: list[str], here: Path | None = None) -> list[str]:
    """`--out` of the project run from added when none is given (`shardmatrix report` inside a project reads the runs
    its upgrades wrote to the project's own folder, harness.host.homes)."""
    folder = Path.cwd() if here is None else here
    given = any(arg == "--out" or arg.startswith("--out=") for arg in argv)
    if given or "-h" in argv or "--help" in argv or not (folder / "pyproject.toml").is_file() \
            or project.name_of(folder) == "shardmatrix":
        return argv
    return ["--out", str(homes.out_of(folder)), *argv]


# --- the subcommands ------------------------------------------------------------------------------------------------

def selected(argv: Sequence[str], prog: str, cells: list[matrix.Cell]
             ) -> tuple[options.Options, dict[str, matrix.Cell]]:
    """The options of a run of cells and {matrix cell id: the cell with the run's additions}, every argument, the
    corpus and the additions checked first: ShardmatrixError in one line, and nothing runs."""
    opts = options.parse(argv, prog=prog)
    additions = cellenv.prepare(opts)  # a bad --project, --with or source: refused before any build
    corpus.case_paths(opts.cases)  # a missing folder or two case files of one name: refused before any build
    homes.writable(opts.out, "--out")  # a file in the way found after the first cell was built would waste it
    return opts, {c.id: cellenv.apply(c, additions) for c in matrix.select(cells, opts.cells)}


def before_report(opts: options.Options, chosen: list[matrix.Cell], say: Callable[[str], object]) -> None:
    """After the cells ran: warn of stale known breakages, and record the cells that left nothing."""
    for line in corpus.stale_known_breakages(chosen, opts.cases):
        say(f"known breakage {line}")
    missing = cellrun.unreported(chosen, opts.out, opts.run_id, corpus.case_paths(opts.cases),
                                 cellrun.session_never_ran)
    for cell_id in missing:
        say(f"{cell_id}: recorded as install_error (its cell never ran)")


def unfinished(opts: options.Options, chosen: list[matrix.Cell]) -> str | None:
    """One line naming the cells the harness could not fully run (install_error, crashed, timeout, unfinished...)."""
    problems = completeness.problems([CellFiles(opts.out, opts.run_id, c.id) for c in chosen])
    return "cells the harness could not fully run: " + "; ".join(problems) if problems else None


def need_reports() -> None:
    """CommandError when a package reports need is missing, found without importing it: a subcommand asks before it
    parses or builds anything (a missing pandas must not cost two cells), and its --help and bad input, which need no
    report, answer without pandas."""
    missing = next((name for name in REPORTS_NEED if importlib.util.find_spec(name) is None), None)
    if missing is not None:
        raise _reports_missing(missing)


def _reports_missing(name: str | None) -> CommandError:
    return CommandError(f"reports need {name}, a dependency of shardmatrix: reinstall shardmatrix "
                        "(uv tool install --reinstall shardmatrix, or pip install --force-reinstall)")


def reports_cli() -> ModuleType:
    """reports.cli, whose `report`, `verdict` and `judge` the subcommands call, or CommandError naming what reports
    need. Imported when a subcommand first judges, after its arguments were parsed (need_reports checked first)."""
    try:
        from reports import cli
    except ModuleNotFoundError as missing:
        raise _reports_missing(missing.name) from None
    return cli


def judge(*args: Any, **kwargs: Any) -> Any:
    """reports.cli.judge, imported at the first judgment (watch and ecosystem are handed this)."""
    return reports_cli().judge(*args, **kwargs)


def draw_ecosystem(*args: Any, **kwargs: Any) -> Any:
    """reports.ecosystem_report.write, imported when an ecosystem run draws its report."""
    need_reports()
    from reports.ecosystem_report import write

    return write(*args, **kwargs)


@subcommand("matrix", options.parser)
def matrix_run(argv: list[str], prog: str) -> int:
    """Run every selected cell of the matrix, one after another, then build the report of the run."""
    need_reports()
    opts, chosen = selected(argv, prog, invocation.cells())
    for cell in chosen.values():
        if opts.resume and CellFiles(opts.out, opts.run_id, cell.id).complete:
            continue
        cellrun.probe(cell, opts)
    before_report(opts, list(chosen.values()), lambda line: print(f"warning: {line}", file=sys.stderr))
    code = int(reports_cli().report(opts.out, [opts.run_id]))
    problem = unfinished(opts, list(chosen.values()))
    if problem:
        raise CommandError(problem)
    return code


@subcommand("upgrade", upgrade.parser)
def upgrade_run(argv: list[str], prog: str) -> int:
    """Is the bump safe? Baseline and candidate cells, then the verdict: SAFE 0, UNSAFE 1, INCONCLUSIVE 2."""
    need_reports()  # before any build: a missing pandas must not cost two cells
    before, after, opts, changes = upgrade.prepare(argv, invocation.cells(), prog=prog)
    # Every case either cell recorded is judged: the records are pytest's collection of this corpus in each cell.
    return int(reports_cli().verdict(opts.out, before.ref, after.ref, declared=changes.rows))


@subcommand("bisect", bisect.parser)
def bisect_run(argv: list[str], prog: str) -> int:
    """The first release between --good and --bad where --case stops passing (binary search, probes cached)."""
    outcome = bisect.run(argv, invocation.cells(), prog=prog)
    if outcome.first_bad is None:
        print(f"shardmatrix: {outcome.refusal or 'no first bad release found'}", file=sys.stderr)
        return 1
    return 0


@subcommand("frontier", frontier.parser)
def frontier_run(argv: list[str], prog: str) -> int:
    """The jax range each flax release works with: OUT/report/frontier.* (probes cached)."""
    need_reports()  # before any build: each probe is judged by the report's verdict (reports.verdicts.compat)
    frontier.run(argv, prog=prog)
    return 0


@subcommand("ranges", range_check.parser)
def ranges_run(argv: list[str], prog: str) -> int:
    """Every declared range checked at its edges against releases: OUT/report/ranges.json (probes cached)."""
    range_check.run(argv, invocation.cells(), prog=prog)
    # A wrong edge is the corpus saying something false: the run fails so CI shows it, kept by --merge or found now.
    return range_check.stored_status(argv, prog)


@subcommand("installed", installed.parser)
def installed_run(argv: list[str], prog: str) -> int:
    """Record the corpus on this interpreter's own jax and flax as one cell: nothing is built."""
    return installed.record(argv, prog)


@subcommand("report", options.report_parser)
def report_run(argv: list[str], prog: str) -> int:
    """Rebuild the report from stored results only (default: the newest run; --run, --all-runs, --compare)."""
    need_reports()
    namespace = options.report_parser(prog).parse_strictly(argv)
    reports = reports_cli()
    if namespace.compare:
        return int(reports.verdict(namespace.out, *namespace.compare))
    return int(reports.report(namespace.out, namespace.runs, all_runs=namespace.all_runs))


@subcommand("watch", watch.parser)
def watch_run(argv: list[str], prog: str) -> int:
    """Judge each jax/flax release newer than the project's lock once (--state): upgrade, and bisect an UNSAFE one."""
    need_reports()  # before any build: each release is judged by the report's comparison
    return watch.run(argv, invocation.cells(), judge, prog=prog)


@subcommand("ecosystem", ecosystem.parser)
def ecosystem_run(argv: list[str], prog: str) -> int:
    """Will this release break the projects that use sharding? Their own tests, baseline against candidate."""
    need_reports()  # before any build: each project is judged by the report's comparison
    return ecosystem.run(argv, invocation.cells(), judge, draw_ecosystem, prog=prog)


# --- the command line -----------------------------------------------------------------------------------------------

def usage() -> str:
    """The command's help: its subcommands with their titles."""
    width = max(map(len, SUBCOMMANDS))
    lines = [f"  {name:<{width}}  {sub.title}" for name, sub in SUBCOMMANDS.items()]
    return ("usage: shardmatrix COMMAND [options]  (shardmatrix COMMAND --help for its options)\n\ncommands:\n"
            + "\n".join(lines))


@command
def main(argv: Sequence[str] | None = None) -> int:
    """`shardmatrix COMMAND [options]`: run one subcommand; its exit code, or 64 with one line for bad input."""
    args = list(sys.argv[1:] if argv is None else argv)
    if not args or args[0] in ("-h", "--help"):
        print(usage())
        return 0 if args else 64
    name, rest = args[0], args[1:]
    chosen = get(name)
    prog = os.environ.get(PROG_ENV) or f"shardmatrix {name}"
    if name in PROJECT_HERE:
        rest = project_here(rest)
    elif name == "report":
        rest = out_here(rest)
    return chosen.run(rest, prog)  # which parses its arguments, once, before anything is built


if __name__ == "__main__":
    raise SystemExit(main())
