"""`nox -s upgrade`: run (or reuse) the baseline cell and the candidate cell; the verdict is
reports/verdicts/compare.py's.

`nox -s upgrade -- jax==X [flax==Y | 'flax @ file:///src/flax'] [--project DIR] [--baseline jax==A,flax==B |
--baseline-from FILE] [--exclude-newer DAY] [--out DIR] [--force] [-m EXPR] [-k EXPR] [--deselect CASE_ID ...]`.
`--exclude-newer` resolves both cells' other packages as the index stood before that day. `-m`, `-k` and
`--deselect` leave out, in both cells, tests that can never run there (GPU-only, network-only): they are never
collected, so they are recorded nowhere and the verdict does not wait for them (options.LeftOut). With --project,
the baseline is the project's locked environment.
The answer is the verdict's exit code (reports.cli.verdict, which the command calls with the cells and the documented
changes as values): SAFE, UNSAFE or INCONCLUSIVE (a cell that did not finish, or cases that could not be judged; the
reason is printed in one line). After it come the documented changes between baseline and candidate, read from the
cases' source (`declare`).
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Sequence
from dataclasses import replace
from datetime import date
from pathlib import Path

from harness import outputs
from harness.cell.source import case_files
from harness.change import Change, Declarations, as_rows, declared, write_declarations
from harness.host import cellenv, cellrun, corpus, envbuild, homes, options, unreleased
from harness.host.cellrun import CellRun
from harness.host.matrix import Cell
from harness.tools import moved, pins


def parser(prog: str = "nox -s upgrade --") -> options.Parser:
    """Arguments of `nox -s upgrade --`: the candidate's pins, the baseline, and the shared options."""
    p = options.Parser(prog=prog, parents=[options.parser(add_help=False)])
    options.add_left_out(p)
    p.add_argument("candidate", nargs="*", metavar="PKG==X",
                   help="the candidate's pins: jax==X and/or flax==Y (jaxlib follows jax), or a source such as "
                        "'flax @ file:///src/flax'")
    baseline = p.add_mutually_exclusive_group()
    baseline.add_argument("--baseline", action="append", default=[], metavar="jax==A,flax==B",
                          help="baseline pins (default: the --project's locked versions, else the matrix's newest "
                               "diagonal cell)")
    baseline.add_argument("--baseline-from", type=Path, metavar="FILE",
                          help="read the baseline pins from a project's uv.lock, pyproject.toml or requirements file")
    p.add_argument("--exclude-newer", type=day_argument, default=None, metavar="YYYY-MM-DD",
                   help="resolve both cells' other packages as the index stood before that day (uv --exclude-newer)")
    return p


def day_argument(text: str) -> str:
    """A YYYY-MM-DD day, as matrix.toml's exclude_newer and uv's --exclude-newer take it (upgrade's and bisect's
    --exclude-newer); argparse names the option otherwise."""
    try:
        return date.fromisoformat(text).isoformat()
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a YYYY-MM-DD day") from None


def cells_for(argv: Sequence[str], cells: list[Cell], prog: str = "nox -s upgrade --"
              ) -> tuple[Cell, Cell, options.Options]:
    """Baseline and candidate cells, and the shared options, from `nox -s upgrade --` arguments.

    OptionsError for an undeclared option, PinError for pins that make no cell."""
    namespace = parser(prog).parse_strictly(argv)
    opts = options.from_namespace(namespace)
    additions = cellenv.prepare(opts)
    # A project's own pins fill what --baseline leaves out (a range of its pins nothing); without one, the default
    # cell's do. Its lower bounds are resolved with each cell's pins (envbuild.resolves, below).
    named_baseline = bool(namespace.baseline or namespace.baseline_from)
    given = pins.project_pins(additions.project, ranges=named_baseline) if additions.project else {}
    if namespace.baseline_from:
        given = pins.read_pins(namespace.baseline_from)
    elif namespace.baseline:
        named = pins.parse_pins(namespace.baseline, pre=opts.pre)
        given = {**{k: v for k, v in given.items() if k != "jaxlib" or "jax" not in named}, **named}
    baseline = pins.baseline_cell(cells, given or None)
    asked, origins = pins.candidate_pins(namespace.candidate, pre=opts.pre)  # refused before a source is built
    built = tuple(map(unreleased.resolve, origins))
    candidate = pins.candidate_cell(baseline, asked, built)
    baseline, candidate = cellenv.apply(baseline, additions), cellenv.apply(candidate, additions)
    if namespace.exclude_newer:
        baseline, candidate = (replace(cell, exclude_newer=namespace.exclude_newer) for cell in (baseline, candidate))
    if candidate.id == baseline.id:
        raise pins.PinError(f"the candidate is the baseline ({baseline.id})")
    if additions.project or additions.extras or candidate.sources or namespace.exclude_newer:
        for cell in (baseline, candidate):  # a conflict with the project's other pins, named by uv, before a build
            problem = envbuild.resolves(cell)
            if problem:
                raise pins.PinError(f"{cell.id} cannot be installed: {problem}")
    return baseline, candidate, opts


def prepare(
    argv: Sequence[str], cells: list[Cell], say: Callable[[str], object] = print, prog: str = "nox -s upgrade --"
) -> tuple[CellRun, CellRun, options.Options, Declarations]:
    """Run both cells, each reused through the results cache when its inputs are unchanged; returns them (RUN:CELL
    refs for the comparison), the options, and the documented changes (see `declare`), also written to a file for
    `python -m reports --compare ... --changes-from` and for later processes.

    Every argument and the corpus are checked before anything is built. The comparison judges every case either
    cell recorded: the records are what pytest collected from this corpus in each cell (the cache reuses only a
    run of the same case sources), so no list read from source decides which cases count. A cell that stops part
    way is returned as it is (`interrupted`): it has no done marker, so the comparison reads it as unfinished."""
    baseline, candidate, opts = cells_for(argv, cells, prog)
    paths = corpus.case_paths(opts.cases)  # a missing folder or two case files of one name: refused before any build
    refuse_unknown_deselected(opts.left_out.deselect, paths)
    documented = declare(opts.cases)  # a declaration the host cannot read: refused before any build too
    homes.writable(opts.out, "--out")  # a file in the way found after the baseline was built would waste it
    say(f"baseline  {baseline.id}\ncandidate {candidate.id}")
    if opts.left_out.describe():
        say(f"left out on purpose in both cells (never collected, never judged): {opts.left_out.describe()}")
    before = cellrun.probe(baseline, opts, say=say)
    after = cellrun.probe(candidate, opts, say=say)
    line = moved.line(moved.freeze_of(before), moved.freeze_of(after))
    if line:
        say(line)
    file = write_declarations(outputs.declarations_path(Path(opts.out) / "report", after.run_id), documented)
    return before, after, opts, Declarations(as_rows(documented), file)


def refuse_unknown_deselected(asked: Sequence[str], paths: list[Path]) -> None:
    """OptionsError naming the `--deselect` ids that no case file holds (misspelt: leaving out nothing would run and
    judge the very test meant to be left out). A test of a class whose tests a source scan cannot list is taken on
    trust."""
    known = {case_id.split("[")[0] for case_id, _ in corpus.expected_cases(paths)}
    opaque = corpus.unknowable_classes(paths)
    unknown = [case_id for case_id in asked if case_id.split("[")[0] not in known
               and not any(case_id.startswith(f"{prefix}::") for prefix in opaque)]
    if unknown:
        raise options.OptionsError(f"--deselect {', '.join(unknown)}: no such case in the corpus (case ids read "
                                   "<file stem>::<test>, as reports name them)")


def declare(cases: list[str]) -> dict[str, Change]:
    """{case id: Change} of the shipped corpus and of the cases asked for, read from source: an upgrade lists the
    documented changes it crosses even where the cases it ran do not cover them. ChangeError names a bad one."""
    paths = [*corpus.case_paths([corpus.BUILTIN]), *corpus.case_paths([c for c in cases if c != corpus.BUILTIN])]
    files = dict.fromkeys(file for path in paths for file in ([path] if path.is_file() else case_files(path, False)))
    return {f"{file.stem}::{name}": change for file in files for name, change in declared(file).items()}
