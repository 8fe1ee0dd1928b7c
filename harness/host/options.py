"""Command-line options of the sessions (what follows `--`), declared and parsed in one place, strictly.

An option nobody declared is refused in one line naming it, never passed on or dropped: a typo such as
`--timout 5` must not run with the default limit without a word. `upgrade`, `bisect` and `installed` build their
parsers on `parser(add_help=False)` (argparse parents), so they are as strict as the nox sessions.
"""

from __future__ import annotations

import argparse
import difflib
import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NoReturn

from harness.formats import ShardmatrixError
from harness.host import homes
from harness.runs import is_run_id, new_run_id

BUILTIN = "builtin"
RUN_ID_ENV = "SHARDMATRIX_RUN_ID"
#: What `nox -s report` passes on to `python -m reports` (its mutually exclusive choice of runs). The matrix
#: session takes none of them: its report is always the run it just made.
REPORT_OPTIONS = ("--run", "--all-runs", "--compare")


class OptionsError(ShardmatrixError, ValueError):
    """Session arguments that cannot be taken as given, phrased as one line; nothing runs."""


class Parser(argparse.ArgumentParser):
    """argparse made strict: no abbreviations, and an error is one OptionsError line instead of usage and exit 2."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        # An abbreviation is a guess: `--run` would silently mean `--run-id` on the matrix.
        kwargs["allow_abbrev"] = False
        super().__init__(*args, **kwargs)

    def error(self, message: str) -> NoReturn:
        """Raise OptionsError naming the session (argparse would print its usage and exit)."""
        raise OptionsError(f"{self.prog.removesuffix(' --')}: {message}")

    def parse_strictly(self, argv: Sequence[str]) -> argparse.Namespace:
        """Every argument, or OptionsError naming the first unknown option (or stray argument), or an option that
        takes one value given two different ones (argparse would keep the last without a word)."""
        namespace, rest = self.parse_known_intermixed_args(list(argv))
        if rest:
            self.error(self._unknown(rest))
        self._refuse_contradictions(list(argv))
        return namespace

    def _refuse_contradictions(self, argv: list[str]) -> None:
        single = [action for action in self._actions
                  if isinstance(action, argparse._StoreAction) and action.nargs is None and action.option_strings]
        for action in single:
            given = [argv[i + 1] if arg in action.option_strings and i + 1 < len(argv) else arg.split("=", 1)[1]
                     for i, arg in enumerate(argv)
                     if arg in action.option_strings or any(arg.startswith(f"{name}=") for name in action.option_strings
                                                            if name.startswith("--"))]
            if len(set(given)) > 1:
                name = max(action.option_strings, key=len)
                self.error(f"{name} given twice ({given[0]!r} and {next(v for v in given if v != given[0])!r}): "
                           "give it once")

    def _unknown(self, rest: list[str]) -> str:
        option = next((arg.split("=", 1)[0] for arg in rest if arg.startswith("-")), None)
        if option is None:
            return f"unexpected argument {rest[0]!r}"
        if option in REPORT_OPTIONS:
            return f"unknown option {option} (an option of nox -s report)"
        # Compared without the dashes every long option shares, so `--cells` is not "near" `--help`.
        known = {name[2:]: name for action in self._actions for name in action.option_strings if name.startswith("--")}
        typed = option.lstrip("-")
        # An abbreviation names what it abbreviates better than spelling likeness does (--base: --baseline).
        near = sorted(name for name in known if typed and name.startswith(typed)) or difflib.get_close_matches(
            typed, known, n=1)
        return f"unknown option {option}" + (f" (did you mean {known[near[0]]}?)" if near else "")


@dataclass(frozen=True)
class LeftOut:
    """Tests left out of every cell on purpose (a GPU-only or network-only test on CPU cells): pytest's own `-m` and
    `-k` expressions, and case ids deselected by name. They are never collected, so no cell records them and no
    verdict waits for their answer; the cache keys on them, so a stored run with another selection is not reused."""

    markers: str | None = None
    keywords: str | None = None
    deselect: tuple[str, ...] = ()

    def pytest_args(self) -> list[str]:
        """What every cell's pytest is given (the plugin deselects case ids: harness.cell.plugin)."""
        return [*(["-m", self.markers] if self.markers else []), *(["-k", self.keywords] if self.keywords else []),
                *(arg for case_id in self.deselect for arg in ("--shardmatrix-deselect", case_id))]

    def describe(self) -> str:
        """'-m "not gpu", --deselect net::test_download' ('' when nothing is left out)."""
        return ", ".join([*([f"-m {self.markers!r}"] if self.markers else []),
                          *([f"-k {self.keywords!r}"] if self.keywords else []),
                          *(f"--deselect {case_id}" for case_id in self.deselect)])


def add_left_out(p: Parser) -> None:
    """The one documented way to leave out tests that can never run in a cell (`nox -s upgrade`)."""
    group = p.add_argument_group("leaving out tests that can never run in these cells (never collected, so never "
                                 "recorded and never waited for; the same in both cells)")
    group.add_argument("-m", dest="left_out_markers", default=None, metavar="EXPR",
                       help="pytest's -m: run only the tests whose marks match EXPR, e.g. 'not gpu'")
    group.add_argument("-k", dest="left_out_keywords", default=None, metavar="EXPR",
                       help="pytest's -k: run only the tests whose names match EXPR, e.g. 'not download'")
    group.add_argument("--deselect", dest="left_out_cases", action="append", default=[], metavar="CASE_ID",
                       help="leave out this case (<file stem>::<test>, as reports name it; repeatable); an id no "
                            "case file holds is refused")


def left_out(namespace: argparse.Namespace) -> LeftOut:
    """The tests a namespace leaves out; nothing for a parser without add_left_out(). OptionsError for an empty
    expression (pytest would read it as no filter at all) or a malformed case id."""
    markers, keywords = getattr(namespace, "left_out_markers", None), getattr(namespace, "left_out_keywords", None)
    for flag, text in (("-m", markers), ("-k", keywords)):
        if text is not None and not text.strip():
            raise OptionsError(f"{flag} needs an expression (for example -m 'not gpu')")
        wrong = unparsed(text or "")
        if wrong:  # each cell's pytest would exit 4 on it, and the run read as crashed on both sides
            raise OptionsError(f"{flag} {text!r}: not a pytest {flag} expression ({wrong})")
    cases = tuple(dict.fromkeys(getattr(namespace, "left_out_cases", []) or []))
    bad = next((case_id for case_id in cases if not is_case_id(case_id)), None)
    if bad is not None:
        raise OptionsError(f"--deselect {bad!r}: expected a case id, <file stem>::<test> (as reports name it)")
    return LeftOut(markers or None, keywords or None, cases)


def unparsed(expression: str) -> str:
    """Why pytest cannot read a -k or -m expression ("" when it can, or when this pytest cannot tell)."""
    if not expression.strip():
        return ""
    try:
        from _pytest.mark.expression import Expression  # pytest's own grammar; private, so only where it is
    except ImportError:  # pragma: no cover - a host without pytest, or a pytest that moved it
        return ""
    try:
        Expression.compile(expression)
    except Exception as exc:  # pytest 8 raises its ParseError, pytest 9 a SyntaxError
        return " ".join(str(exc).split())
    return ""


def is_case_id(text: str) -> bool:
    """`<module>::<test>`, the module a file's stem, or the end of its path for a test file whose stem another
    shares (`core/misc_util_test`, harness.cell.records.module_name)."""
    module, sep, name = text.partition("::")
    return (bool(sep) and all(part.isidentifier() for part in module.split("/")) and bool(name.split("[")[0])
            and "/" not in name)


@dataclass
class Options:
    """What a matrix run was asked to do."""

    cells: list[str] = field(default_factory=list)
    out: Path = Path("out")
    run_id: str = ""
    cases: list[str] = field(default_factory=lambda: [BUILTIN])
    workers: int = 0
    timeout: float = 300.0
    suite_budget: float = 0.0
    devices: int | None = None
    reruns: int = 1
    resume: bool = False
    hard_grace: float = 10.0
    force: bool = False
    repeats: int = 1
    verbose: bool = False
    #: What every cell's environment gets besides its pins (harness.host.cellenv checks and applies them).
    project: Path | None = None
    extras: list[str] = field(default_factory=list)
    overrides: list[str] = field(default_factory=list)
    pre: bool = False
    indexes: list[str] = field(default_factory=list)
    #: Tests left out of every cell on purpose (`nox -s upgrade -- -m/-k/--deselect`).
    left_out: LeftOut = field(default_factory=LeftOut)
    #: Variables set for every cell's pytest (`--env NAME=VALUE`), in the order given.
    env: tuple[tuple[str, str], ...] = ()


def parser(prog: str = "nox -s matrix --", *, add_help: bool = True) -> Parser:
    """The options of a run of cells (matrix, cell; and the parent of upgrade, bisect and installed)."""
    p = Parser(prog=prog, add_help=add_help)
    p.add_argument("--cells", action="append", default=[], metavar="GLOB",
                   help="run only cells whose id matches GLOB (repeatable; default: every cell of the default set, "
                        "i.e. without default = false)")
    p.add_argument("--out", type=Path, default=None, metavar="DIR",
                   help="output folder: DIR/results/<run>/<cell>.jsonl and DIR/report/ (default: out; with --project, "
                        "a folder of the project's own outside its tree, see harness.host.homes)")
    p.add_argument("--run-id", default="", metavar="ID", help="run id to record under (default: a new one)")
    p.add_argument("--cases", action="append", default=None, metavar="DIR",
                   help=f"folder of pytest cases to run; '{BUILTIN}' is the shipped corpus (repeatable; "
                        f"default: {BUILTIN})")
    p.add_argument("--workers", type=int, default=0, metavar="N",
                   help="pytest-xdist worker processes per cell (default 0: cases run in the cell's own process, "
                        "which is restarted after a crash; workers cost a process start per cell and pay only on idle "
                        "cores)")
    p.add_argument("--reruns", type=int, default=1, metavar="N",
                   help="retry a failing case N times; differing outcomes are marked flaky (default 1)")
    p.add_argument("--repeats", type=int, default=1, metavar="N",
                   help="run each passing case N times; its timing is the median, compile and execute apart")
    p.add_argument("--force", action="store_true",
                   help="run every cell even when its inputs are unchanged since a stored run (default: reuse)")
    p.add_argument("--resume", metavar="RUN_ID", default="",
                   help="finish an interrupted run: skip complete cells, run only the cases not yet recorded")
    p.add_argument("--timeout", type=float, default=300.0, metavar="S", help="per-case time limit (default 300)")
    p.add_argument("--suite-budget", type=float, default=0.0, metavar="S",
                   help="a cell's whole-suite time limit: pytest stops after the test that passes it, and the cases "
                        "not run leave the cell stopped part way (default: none)")
    p.add_argument("--devices", type=int, default=None, metavar="N",
                   help="simulated CPU devices per cell (default: the cell's, normally 8)")
    p.add_argument("-v", "--verbose", action="store_true",
                   help="print each cell's pytest output as it runs (default: one progress line per cell; the "
                        "output goes to the cell's log file)")
    p.add_argument("--project", type=Path, default=None, metavar="DIR",
                   help="build this project (its pyproject.toml) into every cell with its dependencies, at its "
                        "lockfile's versions where the cell's pins allow; its tests are the cases unless --cases")
    p.add_argument("--with", dest="extras", action="append", default=[], metavar="REQ",
                   help="an extra requirement in every cell, e.g. 'optax==0.2.8' (repeatable)")
    p.add_argument("--override", action="append", default=[], metavar="PIN",
                   help="every cell's jax or flax from this pin or source instead, e.g. 'flax @ file:///src/flax' "
                        "(repeatable)")
    p.add_argument("--pre", action="store_true", help="allow pre-releases (jax==0.10.0rc1)")
    p.add_argument("--index", dest="indexes", action="append", default=[], metavar="URL",
                   help="an extra package index, e.g. for nightly wheels (repeatable)")
    p.add_argument("--env", action="append", default=[], metavar="NAME=VALUE",
                   help="a variable set for every cell's pytest, e.g. KERAS_BACKEND=jax (repeatable); a cell run "
                        "with other variables is not reused from the results cache")
    return p


#: Variables every cell's process has from shardmatrix itself (harness.host.runner): an --env of one would be
#: overridden, or would break the plugin's import or the device count.
RESERVED_ENV = ("JAX_PLATFORMS", "PYTHONPATH", "XLA_FLAGS", "JAX_NUM_CPU_DEVICES")


def environment(given: Sequence[str]) -> tuple[tuple[str, str], ...]:
    """`--env NAME=VALUE` arguments as (name, value) pairs; OptionsError naming one without a name or `=`, or one
    shardmatrix sets itself."""
    pairs = []
    for text in given:
        name, sep, value = text.partition("=")
        if not sep or not name.isidentifier():
            raise OptionsError(f"--env {text!r}: expected NAME=VALUE, e.g. KERAS_BACKEND=jax")
        if name in RESERVED_ENV:
            raise OptionsError(f"--env {name}: set by shardmatrix for every cell ({', '.join(RESERVED_ENV)})")
        pairs.append((name, value))
    return tuple(pairs)


def report_parser(prog: str = "nox -s report --") -> Parser:
    """The options of `nox -s report`: the output folder and what `python -m reports` takes to choose runs."""
    p = Parser(prog=prog)
    p.add_argument("--out", type=Path, default=Path("out"), metavar="DIR",
                   help="the folder holding results/; DIR/report/ is written (default: out)")
    runs = p.add_mutually_exclusive_group()
    runs.add_argument("--run", dest="runs", action="extend", nargs="+", default=[], metavar="RUN_ID",
                      help="report these runs side by side (default: the newest run)")
    runs.add_argument("--all-runs", action="store_true", help="report every run under DIR/results/")
    runs.add_argument("--compare", nargs=2, metavar=("BASELINE", "CANDIDATE"),
                      help="upgrade verdict between two stored runs (RUN, or RUN:CELL): exit 0 SAFE, 1 UNSAFE, "
                           "2 INCONCLUSIVE")
    return p


def parse(argv: Sequence[str], prog: str = "nox -s matrix --") -> Options:
    """Parse the arguments of a run of cells; OptionsError (one line) for anything not declared."""
    return from_namespace(parser(prog).parse_strictly(argv))


def from_namespace(namespace: argparse.Namespace) -> Options:
    """Options from a namespace parsed by `parser()` or a parser built on it."""
    run_id = namespace.resume or namespace.run_id or os.environ.get(RUN_ID_ENV) or new_run_id()
    if not is_run_id(run_id):
        # A report reads only folders named as runs, and orders them by the start their id records.
        raise OptionsError(f"run id {run_id!r} is not YYYYmmddTHHMMSSZ-<tag> (the UTC time the run started, e.g. "
                           f"{new_run_id()})")
    if namespace.suite_budget < 0:
        raise OptionsError(f"--suite-budget {namespace.suite_budget:g}: seconds of at least 0 (0: no limit)")
    return Options(
        cells=namespace.cells,
        # A project's files never land in its own tree: they would change its tree hash, and so every fingerprint.
        out=namespace.out or (homes.out_of(namespace.project) if namespace.project else Path("out")),
        run_id=run_id,
        # With a project and no --cases, its own tests are the corpus (harness.host.cellenv.prepare finds them).
        cases=namespace.cases or ([] if namespace.project else [BUILTIN]),
        workers=namespace.workers,
        timeout=namespace.timeout,
        suite_budget=namespace.suite_budget,
        devices=namespace.devices,
        reruns=namespace.reruns,
        resume=bool(namespace.resume),
        force=namespace.force,
        repeats=namespace.repeats,
        verbose=namespace.verbose,
        project=namespace.project,
        extras=namespace.extras,
        overrides=namespace.override,
        pre=namespace.pre,
        indexes=namespace.indexes,
        left_out=left_out(namespace),
        env=environment(getattr(namespace, "env", []) or []),
    )

