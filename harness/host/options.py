"""Command-line options shared by the nox sessions (what follows `--`), parsed in one place."""

from __future__ import annotations

import argparse
import os
from dataclasses import dataclass, field
from pathlib import Path

from harness.cell.records import new_run_id

BUILTIN = "builtin"
RUN_ID_ENV = "SHARDMATRIX_RUN_ID"


@dataclass
class Options:
    """What a matrix run was asked to do."""

    cells: list[str] = field(default_factory=list)
    out: Path = Path("out")
    run_id: str = ""
    cases: list[str] = field(default_factory=lambda: [BUILTIN])
    workers: int = 0
    timeout: float = 300.0
    devices: int | None = None
    reruns: int = 1
    resume: bool = False
    hard_grace: float = 10.0
    force: bool = False
    repeats: int = 1
    report_args: list[str] = field(default_factory=list)


def parser() -> argparse.ArgumentParser:
    """The argparse parser for session arguments."""
    p = argparse.ArgumentParser(prog="nox -s matrix --", add_help=True)
    p.add_argument("--cells", action="append", default=[], metavar="GLOB",
                   help="run only cells whose id matches GLOB (repeatable; default: every cell)")
    p.add_argument("--out", type=Path, default=Path("out"), metavar="DIR",
                   help="output folder: DIR/results/<run>/<cell>.jsonl and DIR/report/ (default: out)")
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
    p.add_argument("--devices", type=int, default=None, metavar="N",
                   help="simulated CPU devices per cell (default: the cell's, normally 8)")
    return p


def parse(argv: list[str]) -> Options:
    """Parse session posargs; unknown arguments are passed on to the report builder."""
    namespace, rest = parser().parse_known_args(argv)
    run_id = namespace.resume or namespace.run_id or os.environ.get(RUN_ID_ENV) or new_run_id()
    return Options(
        cells=namespace.cells,
        out=namespace.out,
        run_id=run_id,
        cases=namespace.cases or [BUILTIN],
        workers=namespace.workers,
        timeout=namespace.timeout,
        devices=namespace.devices,
        reruns=namespace.reruns,
        resume=bool(namespace.resume),
        force=namespace.force,
        repeats=namespace.repeats,
        report_args=rest,
    )
