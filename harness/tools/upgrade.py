"""`nox -s upgrade`: run (or reuse) the baseline cell and the candidate cell; reports/compare.py gives the verdict.

`nox -s upgrade -- jax==X [flax==Y] [--baseline jax==A,flax==B | --baseline-from FILE] [--out DIR] [--force]`.
"""

from __future__ import annotations

import argparse
import re
from collections.abc import Callable
from pathlib import Path

from harness.host import adhoc, corpus, options
from harness.host.adhoc import CellRun
from harness.host.matrix import Cell
from harness.tools import pins

CANDIDATE = re.compile(r"^(jax|jaxlib|flax)\s*==", re.IGNORECASE)


def parser() -> argparse.ArgumentParser:
    """Arguments of `nox -s upgrade --` beyond the shared ones (--out, --cases, --force, ...)."""
    p = argparse.ArgumentParser(prog="nox -s upgrade --", add_help=False)
    baseline = p.add_mutually_exclusive_group()
    baseline.add_argument("--baseline", action="append", default=[], metavar="jax==A,flax==B",
                          help="baseline pins (default: the matrix's newest diagonal cell)")
    baseline.add_argument("--baseline-from", type=Path, metavar="FILE",
                          help="read the baseline pins from a project's uv.lock, pyproject.toml or requirements file")
    return p


def cells_for(argv: list[str], cells: list[Cell]) -> tuple[Cell, Cell, options.Options]:
    """Baseline and candidate cells, and the shared options, from `nox -s upgrade --` arguments."""
    namespace, rest = parser().parse_known_args(argv)
    wanted = [arg for arg in rest if CANDIDATE.match(arg)]
    opts = options.parse([arg for arg in rest if not CANDIDATE.match(arg)])
    if namespace.baseline_from:
        given: dict[str, str] | None = pins.read_pins(namespace.baseline_from)
    else:
        given = pins.parse_pins(namespace.baseline) or None
    baseline = pins.baseline_cell(cells, given)
    candidate = pins.candidate_cell(baseline, pins.parse_pins(wanted))
    if candidate.id == baseline.id:
        raise pins.PinError(f"the candidate is the baseline ({baseline.id})")
    return baseline, candidate, opts


def prepare(
    argv: list[str], cells: list[Cell], say: Callable[[str], object] = print
) -> tuple[CellRun, CellRun, options.Options]:
    """Run or reuse both cells; returns them (RUN:CELL refs for the comparison) and the options."""
    baseline, candidate, opts = cells_for(argv, cells)
    say(f"baseline  {baseline.id}\ncandidate {candidate.id}")
    expected = {case_id for case_id, _ in corpus.expected_cases(corpus.case_paths(opts.cases))}
    before = adhoc.run_cell(baseline, opts, expected, force=opts.force, say=say)
    after = adhoc.run_cell(candidate, opts, expected, force=opts.force, say=say)
    return before, after, opts
