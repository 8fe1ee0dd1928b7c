"""The figures of `nox -s bench`, each measured side by side in one run on this machine.

1. env build per cell on a warm cache: uv vs `python -m venv` + `pip install` of the same pins;
2. default-matrix wall time vs its lower bound (bare `import jax, flax` per cell plus the bare case bodies,
   divided by the cores used);
3. an unchanged re-run (results cache) vs the full run;
4. harness overhead per case: the plugin recording vs pytest without it, on trivial cases;
5. report build time for a synthetic 100 cells x 200 cases x 10 runs results tree;
6. the frontier: probes per flax release of each kind against its budget, seconds per probe and minutes (a small
   frontier, run fresh);
7. what a project costs a cell (`--project tests/downstream`: optax, a uv.lock, an editable install) on a warm cache;
8. `shardmatrix watch` from its start to the verdict on one new jax release of tests/downstream, warm cache, with
   the share spent building venvs, running tests and bisecting;
9. device counts: the matrix (or `--matrix-cells`) at --devices 1, 2 and 4 against 8: the cases that apply, the
   wall, and every (cell, case) whose status or exception type differs from 8 where the case applies at both;
10. corpus growth: the default matrix (or `--matrix-cells`) with the corpus at `--corpus-before` and with the
    checkout's, side by side, and the cells whose verdict the new cases changed (benchmarks/corpus_growth.py);
11. the range checker's probe budget, from a stored `nox -s ranges` run (`--ranges-from`);
12. a first `shardmatrix watch` of a copy of tests/downstream over its first N newer jax releases, its files in a
    home of their own: the baseline cells and candidate cells run against the target (the baseline once, at most one
    candidate cell a release), the bisects, and whether the project's tree was left as it was;
13. `shardmatrix ecosystem`: each project's cost (baseline and candidate cells, warm cache), the list's total, and the
    wall with J projects at a time (benchmarks/ecosystem_cost.py);
14. the range checker's inside probes: the same cases (`--ranges-case`) checked with `--inside every`, `middle` and
    `none` (the bounds only), side by side: probes, cells built, wall, and each wall's ratio to the bounds only's
    (benchmarks/range_cost.py).
"""

from __future__ import annotations

import argparse
import functools
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

from packaging.version import Version

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks import corpus_growth, ecosystem_cost, range_cost, time_budget  # noqa: E402
from harness import cellrecord, outputs, vocabulary  # noqa: E402
from harness.celldocuments import write_collection  # noqa: E402
from harness.cellrecord import RESULTS_SUFFIX, CellFiles, make_record, write_done  # noqa: E402
from harness.host import envbuild, matrix, runner  # noqa: E402
from harness.results import read_records, write_records  # noqa: E402
from harness.runs import new_run_id  # noqa: E402


def timed(action: Callable[[], object]) -> float:
    """Wall seconds of one call."""
    start = time.perf_counter()
    action()
    return time.perf_counter() - start


def run(*command: str | Path, **kwargs: object) -> subprocess.CompletedProcess[str]:
    """Run a command, failing loudly: a benchmark on a broken step means nothing."""
    done: subprocess.CompletedProcess[str] = subprocess.run(  # type: ignore[call-overload]
        [str(c) for c in command], capture_output=True, text=True, **kwargs
    )
    if done.returncode != 0:
        tail = (done.stdout + done.stderr)[-2000:]
        raise SystemExit(f"bench: {' '.join(map(str, command))} failed ({done.returncode}):\n{tail}")
    return done


def uv_build(cell: matrix.Cell, venv: Path) -> None:
    """A cell's venv as shardmatrix builds it: uv venv, then its pins and the harness (lock synced)."""
    run(*envbuild.uv_command(), "venv", "-q", "-p", cell.python, venv)
    problem = envbuild.install(cell, venv, venv.parent / f"{venv.name}.log")
    if problem is not None:
        raise RuntimeError(f"{cell.id}: {problem}")


def pip_build(cell: matrix.Cell, venv: Path) -> None:
    """The same packages the classic way: python -m venv, then pip install."""
    interpreter = shutil.which(f"python{cell.python}") or sys.executable
    run(interpreter, "-m", "venv", venv)
    run(envbuild.venv_python(venv), "-m", "pip", "install", "-q", "--disable-pip-version-check",
        *cell.requirements(), "-e", ROOT)


def env_builds(cells: list[matrix.Cell], scratch: Path) -> dict[str, float]:
    """Seconds per cell to build a venv with the cell's pins and the harness: uv on a warm cache vs venv + pip."""
    uv_times, pip_times = [], []
    for cell in cells:
        uv_build(cell, scratch / f"warm-{cell.id}")  # the figure is the warm-cache build: warm it first
        start = time.perf_counter()
        uv_build(cell, scratch / f"uv-{cell.id}")
        uv_times.append(time.perf_counter() - start)
        start = time.perf_counter()
        pip_build(cell, scratch / f"pip-{cell.id}")
        pip_times.append(time.perf_counter() - start)
    return {"uv_s": statistics.mean(uv_times), "pip_s": statistics.mean(pip_times)}


def import_seconds(cell: matrix.Cell) -> float:
    """A bare `import jax, flax` in the cell's venv, best of two."""
    venv = ROOT / ".nox" / ("cell-" + cell.id.replace(".", "-"))
    # As the cell imports them: from the bytecode its runs keep (harness.host.bytecode).
    env = runner.cell_environment(cell, runner.devices_for(cell, None))
    best = float("inf")
    for _ in range(2):
        start = time.perf_counter()
        run(envbuild.venv_python(venv), "-c", "import jax, flax", env=env)
        best = min(best, time.perf_counter() - start)
    return best


def matrix_runs(out: Path, cores: int, patterns: list[str] | None = None) -> dict[str, Any]:
    """The default matrix (or its cells matching `patterns`) from scratch (--force), its lower bound and its time
    budget (benchmarks/time_budget.py), then the same matrix unchanged. The bound counts each case's body once: a
    retry is a part of the gap, not of the work being measured."""
    nox = [sys.executable, "-m", "nox", "-s", "matrix", "--", *(f"--cells={p}" for p in patterns or [])]
    full_run, again_run = new_run_id(), new_run_id()
    began = time.time()
    full = timed(lambda: run(*nox, "--out", out, "--run-id", full_run, "--force", cwd=ROOT))
    ended = time.time()
    again = timed(lambda: run(*nox, "--out", out, "--run-id", again_run, cwd=ROOT))
    cells = matrix.select(matrix.load(ROOT / "matrix.toml"), patterns or [])
    imports = {cell.id: import_seconds(cell) for cell in cells}
    used = min(cores, len(cells))
    budget = time_budget.run_budget(time_budget.read_cells(out, full_run, [cell.id for cell in cells]), imports, used,
                                    began, ended)
    bodies = sum(budget[key] for key in time_budget.BOUND if key != "import")
    return {"full_s": full, "again_s": again, "bound_s": (sum(imports.values()) + bodies) / used,
            "imports_s": sum(imports.values()), "bodies_s": bodies, "cores": used, "budget": budget}


TRIVIAL = "import pytest\n\n@pytest.mark.parametrize('n', range({count}))\ndef test_trivial(n):\n    assert n >= 0\n"


def harness_overhead(scratch: Path, count: int = 500) -> float:
    """Milliseconds the plugin adds per case, recording on vs plugin off, best of three each."""
    folder = scratch / "trivial"
    folder.mkdir()
    (folder / "test_trivial.py").write_text(TRIVIAL.format(count=count))
    pytest = [sys.executable, "-m", "pytest", "test_trivial.py", "-q", "-p", "no:cacheprovider", "-n", "0"]
    # The plugin loads only by its module name (no entry point), as a cell loads it.
    off = min(timed(lambda: run(*pytest, cwd=folder)) for _ in range(3))
    on = min(timed(lambda: run(*pytest, "-p", "harness.cell.plugin", "--shardmatrix-devices", "0", "--shardmatrix-out",
                               folder / f"out{time.perf_counter_ns()}", cwd=folder)) for _ in range(3))
    return (on - off) / count * 1000


def report_build(scratch: Path, cells: int = 100, cases: int = 200, runs: int = 10) -> tuple[float, float]:
    """Wall and CPU seconds to build the report of the newest run of a synthetic tree (CPU time says what the build
    costs on a machine others share, where wall time also counts their load)."""
    from reports import build_report

    out = scratch / "synthetic"
    statuses = ["passed"] * 12 + ["failed", "not_applicable", "error", "xfailed"]
    for r in range(runs):
        run_id = f"20260101T{r:06d}Z-0000"
        for c in range(cells):
            cell_id = f"jax0.{c // 10}.{c % 10}-flax0.12.{c % 13}-py3.11"
            files = CellFiles(out, run_id, cell_id)
            records = []
            for k in range(cases):
                status = statuses[(c * 7 + k * 3 + r) % len(statuses)]
                records.append(make_record(
                    run_id=run_id, cell_id=cell_id, case_id=f"fam{k % 5}::test_{k}", family=f"fam{k % 5}",
                    status=status, duration_s=0.01 * (k % 17), compile_s=0.005, execute_s=0.005,
                    error_type="AssertionError" if status == "failed" else None,
                    error_message="values differ" if status == "failed" else None,
                    warnings=["DeprecationWarning: .value is deprecated"] if k % 11 == 0 else [],
                    jax=f"0.{c // 10}.{c % 10}", jaxlib=f"0.{c // 10}.{c % 10}", flax=f"0.12.{c % 13}",
                    numpy="2.3.1", python="3.11.7", backend="cpu", device_kind="cpu", device_count=8,
                    platform="Linux-x86_64", timestamp="2026-01-01T00:00:00+00:00"))
            write_records(files.results, records)
            write_collection(files.results, cell_id, [record["case_id"] for record in records])
            write_done(files.done, cell_id=cell_id, finished="2026-01-01T00:01:00+00:00", returncode=0,
                       fingerprint=None, reused_from=None, seconds=None)
    cpu = time.process_time()
    wall = timed(lambda: build_report(out))
    return wall, time.process_time() - cpu


def frontier_probes(out: Path, flax: str, jax: str) -> dict[str, Any]:
    """Run a frontier into a fresh folder (every probe built and run, on a warm package cache) and read back what
    it spent (frontier_spent)."""
    wall = timed(lambda: run(sys.executable, "-m", "shardmatrix.frontier", "run", "--flax", flax, "--jax", jax,
                             "--out", out, cwd=ROOT))
    return {**frontier_spent(out), "wall_s": wall}


def frontier_spent(out: Path) -> dict[str, Any]:
    """Each flax release's probes of each kind against its budget (shardmatrix.frontier_search.budget, which the
    search enforces), its minutes, and the seconds of the probes made (not reused), from OUT/frontier/."""
    documents = [outputs.read_frontier_release(path) for path in outputs.frontier_release_paths(out)]
    if not documents:
        raise SystemExit(f"bench: {out / 'frontier'} holds no frontier result: not a frontier's --out")
    documents.sort(key=lambda d: Version(d["flax"]))
    releases = {d["flax"]: {kind: (sum(1 for p in d["probes"] if p["corpus"] == (kind == "corpus")),
                                   d.get("budget", {}).get(kind, 0)) for kind in ("core", "corpus")} for d in documents}
    minutes = {d["flax"]: d["seconds"] / 60 for d in documents if "seconds" in d}
    seconds = [p["seconds"] for d in documents for p in d["probes"] if not p["reused"]]
    return {"releases": releases, "minutes": minutes, "per_probe_s": statistics.mean(seconds) if seconds else 0.0,
            "probes": len(seconds), "stopped": [d["flax"] for d in documents if d["row"].get("stopped")]}


def frontier_figure(found: dict[str, Any], what: str) -> str:
    """Figure 6's lines: one per flax release, then the totals."""
    spent: dict[str, dict[str, tuple[int, int]]] = found["releases"]
    within = all(n <= limit for kinds in spent.values() for n, limit in kinds.values()) and not found["stopped"]
    lines = [f"6. {what}: probes per flax release (budget core 3L+7, whole corpus 2L+6, L = ceil(log2 N))"]
    for flax, kinds in spent.items():
        took = f", {found['minutes'][flax]:.1f} min" if flax in found["minutes"] else ""
        lines.append(f"   flax {flax}: {kinds['core'][0]} of {kinds['core'][1]} core, {kinds['corpus'][0]} of "
                     f"{kinds['corpus'][1]} whole-corpus{took}")
    core = [kinds["core"][0] for kinds in spent.values()]
    corpus = [kinds["corpus"][0] for kinds in spent.values()]
    wall = f", {found['wall_s'] / 60:.1f} min wall" if "wall_s" in found else ""
    lines.append(f"   -> {'within' if within else 'OVER'} budget; {len(spent)} releases, core {min(core)} to "
                 f"{max(core)} per release, whole corpus {min(corpus)} to {max(corpus)}; {found['per_probe_s']:.1f} s "
                 f"per probe ({found['probes']} probes made{wall})")
    return "\n".join(lines)


def project_cost(scratch: Path) -> dict[str, float]:
    """Seconds to build and freeze one cell (jax 0.8.3, flax 0.12.6) with and without the fixture project, on a warm
    package cache: once resolving a new lock, once syncing the lock an earlier build left (a new venv each time)."""
    plain = matrix.Cell(id="bench", jax="0.8.3", jaxlib="0.8.3", flax="0.12.6", python="3.11")
    variants = {"plain": plain, "project": replace(plain, project=str(ROOT / "tests" / "downstream"))}

    def build(cell: matrix.Cell, venv: Path) -> None:
        uv_build(cell, venv)
        envbuild.freeze(venv, CellFiles.of(venv.parent / f"{venv.name}{RESULTS_SUFFIX}").freeze, cell)

    for name, cell in variants.items():
        build(cell, scratch / "project-warm" / name)  # the package cache and the project's build backend
    found: dict[str, float] = {}
    for name, cell in variants.items():
        folder = scratch / f"project-{name}"  # its own lock folder: the first build resolves, the second syncs
        found[f"{name}_new_lock_s"] = timed(functools.partial(build, cell, folder / "first"))
        found[f"{name}_lock_kept_s"] = timed(functools.partial(build, cell, folder / "second"))
    return found


class Phases:
    """Wall seconds spent inside wrapped functions, by phase; a call inside another phase's counts for that one (a
    bisect's builds are the bisect's), so the phases never overlap."""

    def __init__(self) -> None:
        self.spent: dict[str, float] = {}
        self._inside: list[str] = []

    def wrap(self, phase: str, function: Callable[..., Any]) -> Callable[..., Any]:
        """`function`, its calls timed under `phase` unless made within a phase already."""

        @functools.wraps(function)
        def timed_call(*args: Any, **kwargs: Any) -> Any:
            if self._inside:
                return function(*args, **kwargs)
            self._inside.append(phase)
            start = time.perf_counter()
            try:
                return function(*args, **kwargs)
            finally:
                self.spent[phase] = self.spent.get(phase, 0.0) + time.perf_counter() - start
                self._inside.pop()

        return timed_call


def one_release_index(release: str, locked: str) -> Callable[[str, str], Any]:
    """PyPI's JSON API with each project's releases cut to those up to `locked` and `release`: the index on the day
    `release` came out, for a project locked at `locked`."""
    return releases_index([release], locked)


def releases_index(releases: list[str], locked: str) -> Callable[[str, str], Any]:
    """PyPI's JSON API with each project's releases cut to those up to `locked` and `releases`."""
    from harness.tools import index

    def fetch(url: str, accept: str = "application/json") -> Any:
        document = index.fetch_json(url, accept)
        if isinstance(document, dict) and isinstance(document.get("releases"), dict):
            kept = {}
            for text, files in document["releases"].items():
                try:
                    version = Version(text)
                except ValueError:
                    continue
                if version <= Version(locked) or version in {Version(r) for r in releases}:
                    kept[text] = files
            document = {**document, "releases": kept}
        return document

    return fetch


def watch_phases(scratch: Path, release: str = "0.9.0") -> dict[str, Any]:
    """Seconds from `shardmatrix watch` starting to its verdict on one new jax release of tests/downstream (locked at
    jax 0.8.3), after a first run warmed the package cache and the venvs, split into building venvs, running tests
    and bisecting (the rest: the index, the comparison, the report)."""
    from unittest import mock

    from harness.host import adhoc, cellrun, invocation
    from reports.cli import judge
    from shardmatrix import watch, watch_files

    project = ROOT / "tests" / "downstream"
    fetch = one_release_index(release, "0.8.3")

    def once(folder: Path) -> int:
        argv = ["--project", str(project), "--package", "jax", "--out", str(folder / "out"), "--state",
                str(folder / "state.json"), "--json", str(folder / "summary.json")]
        return watch.run(argv, invocation.cells(), judge, fetch=fetch, say=lambda line: None)

    once(scratch / "watch-warm")
    phases = Phases()
    with mock.patch.object(adhoc, "ensure_venv", phases.wrap("venvs", adhoc.ensure_venv)), \
            mock.patch.object(cellrun, "install", phases.wrap("venvs", cellrun.install)), \
            mock.patch.object(cellrun, "run_pytest", phases.wrap("tests", cellrun.run_pytest)), \
            mock.patch.object(watch.bisect, "run", phases.wrap("bisect", watch.bisect.run)):
        start = time.perf_counter()
        once(scratch / "watch")
        total = time.perf_counter() - start
    summary = watch_files.read_summary(scratch / "watch" / "summary.json")
    return {"total_s": total, "verdict": summary["verdict"], "release": release, **phases.spent,
            "cells": time_budget.ran_cells(scratch / "watch" / "out")}


def watch_figure(found: dict[str, Any]) -> str:
    """Figure 8's line."""
    total = found["total_s"]
    parts = [(name, found.get(key, 0.0)) for name, key in (("venv builds", "venvs"), ("tests", "tests"),
                                                           ("bisect", "bisect"))]
    rest = total - sum(seconds for _, seconds in parts)
    shares = ", ".join(f"{name} {seconds:.0f} s ({100 * seconds / total:.0f} %)" for name, seconds in parts)
    line = (f"8. watch, one new release (jax {found['release']} on tests/downstream, warm cache): {total:.0f} s to "
            f"{found['verdict']}: {shares}, the rest {rest:.0f} s")
    # Each cell that ran its tests is a project cell of the upgrade the watch runs (its baseline, its candidate, a
    # bisect's probe): its own budget.
    cells: dict[str, dict[str, float]] = found.get("cells", {})
    return "\n".join([line, *(text for ref, parts in cells.items()
                              for text in time_budget.cell_lines(f"cell {ref}", parts))])


def first_watch(scratch: Path, count: int = 3, fetch: Callable[[str, str], Any] | None = None) -> dict[str, Any]:
    """A first `shardmatrix watch --package jax` of a copy of tests/downstream (locked at jax 0.8.3) over its first
    `count` newer jax releases (`fetch`: the index, default PyPI's cut to them), its files in a home of their own
    (harness.host.homes): the cells whose tests ran (reused ones run none), the baseline's and the candidates', the
    bisects, the seconds, and whether the project's tree hash is what it was."""
    from unittest import mock

    from harness.host import cellrun, homes, invocation, project
    from harness.tools import index
    from reports.cli import judge
    from shardmatrix import watch, watch_files

    copy = scratch / "first-watch" / "tinytrainer"
    shutil.copytree(ROOT / "tests" / "downstream", copy, ignore=shutil.ignore_patterns("__pycache__", ".venv"))
    locked = "0.8.3"
    if fetch is None:
        fetch = releases_index([str(v) for v in watch.newer("jax", locked, index.fetch_json)[:count]], locked)
    releases = [str(v) for v in watch.newer("jax", locked, fetch)]
    tree = project.tree_hash(copy)
    ran: list[str] = []
    bisects: list[list[str]] = []
    real_pytest, real_bisect = cellrun.run_pytest, watch.bisect.run

    def run_pytest(cell: matrix.Cell, *args: Any, **kwargs: Any) -> Any:
        ran.append(cell.id)
        return real_pytest(cell, *args, **kwargs)

    def bisect(argv: list[str], *args: Any, **kwargs: Any) -> Any:
        bisects.append(argv)
        return real_bisect(argv, *args, **kwargs)

    with mock.patch.dict(os.environ, {homes.HOME_ENV: str(scratch / "first-watch-home")}), \
            mock.patch.object(cellrun, "run_pytest", run_pytest), mock.patch.object(watch.bisect, "run", bisect):
        start = time.perf_counter()
        watch.run(["--project", str(copy), "--package", "jax"], invocation.cells(), judge, fetch=fetch,
                  say=lambda line: None)
        seconds = time.perf_counter() - start
        judged = watch_files.read_state(homes.state_of(copy))
    baseline = [cell for cell in ran if cell.startswith(f"jax{locked}-")]
    return {"releases": releases, "baseline_runs": len(baseline), "candidate_runs": len(ran) - len(baseline),
            "bisects": len(bisects), "seconds": seconds, "verdict": watch_files.worst([j.verdict for j in judged]),
            "tree_unchanged": project.tree_hash(copy) == tree}


def first_watch_figure(found: dict[str, Any]) -> str:
    """Figure 12's line: the cells a first watch ran against its target."""
    releases = found["releases"]
    within = found["baseline_runs"] <= 1 and found["candidate_runs"] <= len(releases) and found["tree_unchanged"]
    span = f"jax {releases[0]} .. {releases[-1]}" if releases else "no newer jax"
    return (f"12. first watch over {len(releases)} releases ({span} on tests/downstream): {found['verdict']} in "
            f"{found['seconds']:.0f} s; baseline run {found['baseline_runs']}x (target 1), candidate cells "
            f"{found['candidate_runs']} for {len(releases)} releases (target <= {len(releases)}), "
            f"{found['bisects']} bisect(s), project tree {'unchanged' if found['tree_unchanged'] else 'CHANGED'} "
            f"-> {'within target' if within else 'OVER target'}")


#: Figure 9's device counts; the last is the one the others are measured against (a default cell's).
DEVICE_COUNTS = (1, 2, 4, 8)
#: A (cell, case)'s outcome at one device count: its final attempt's status and exception type ('' for none).
Outcome = tuple[str, str]
Outcomes = dict[tuple[str, str], Outcome]


def outcomes(out: Path, run_id: str, cell_ids: list[str]) -> Outcomes:
    """Each (cell, case)'s final status and exception type in one run (harness.cellrecord.final_records)."""
    found: Outcomes = {}
    for cell_id in cell_ids:
        path = CellFiles(out, run_id, cell_id).results
        finals = cellrecord.final_records(read_records(path)) if path.is_file() else {}
        for case_id, record in finals.items():
            found[cell_id, case_id] = (str(record.get("status")), str(record.get("error_type") or ""))
    return found


def device_runs(out: Path, patterns: list[str] | None,
                counts: tuple[int, ...] = DEVICE_COUNTS) -> dict[int, tuple[float, Outcomes]]:
    """The matrix (or its cells matching `patterns`) run fresh at each device count: its wall and outcomes. A first
    run, not timed, builds what the cells need (or reuses a stored run), so no count's wall pays for the builds."""
    nox = [sys.executable, "-m", "nox", "-s", "matrix", "--", *(f"--cells={p}" for p in patterns or [])]
    cells = [cell.id for cell in matrix.select(matrix.load(ROOT / "matrix.toml"), patterns or [])]
    run(*nox, "--out", out, "--run-id", new_run_id(), cwd=ROOT)
    found: dict[int, tuple[float, Outcomes]] = {}
    for count in counts:
        run_id = new_run_id()
        wall = timed(functools.partial(run, *nox, "--out", out, "--run-id", run_id, "--force", "--devices",
                                       str(count), cwd=ROOT))
        found[count] = (wall, outcomes(out, run_id, cells))
    return found


def _applies(found: Outcomes) -> set[tuple[str, str]]:
    return {key for key, (status, _) in found.items() if status != vocabulary.NOT_APPLICABLE}


def _said(outcome: Outcome) -> str:
    status, error = outcome
    return f"{status} {error}" if error else status


def device_figure(found: dict[int, tuple[float, Outcomes]], what: str) -> str:
    """Figure 9's lines: per device count, the cases that apply and the wall; against the most devices, how many of
    the cases that apply there apply here, and every (cell, case) that applies at both and differs in status or
    exception type."""
    base = max(found)
    wall_base, at_base = found[base]
    applies_base = _applies(at_base)
    lines = [f"9. device counts, {what}: the cases that apply and the wall at each count; each (cell, case) that "
             f"applies at both and differs from {base} devices in status or exception type"]
    for count in sorted(found):
        wall, at = found[count]
        applies = _applies(at)
        if count == base:
            lines.append(f"   {count} devices: {len(applies)} of {len(at)} apply, {wall:.0f} s")
            continue
        both = sorted(applies & applies_base)
        differ = [key for key in both if at[key] != at_base[key]]
        share = f" ({100 * len(both) / len(applies_base):.0f} %)" if applies_base else ""
        only = len(applies - applies_base)
        lines.append(f"   {count} devices: {len(applies)} of {len(at)} apply, {len(both)} of the {len(applies_base)} "
                     f"that apply at {base}{share}{f', {only} only here' if only else ''}; {wall:.0f} s vs "
                     f"{wall_base:.0f} s; {len(differ) or 'no'} difference{'' if len(differ) == 1 else 's'}")
        lines += [f"     {cell} {case}: {_said(at_base[cell, case])} at {base}, {_said(at[cell, case])} at {count}"
                  for cell, case in differ]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    """Measure and print the figures."""
    parser = argparse.ArgumentParser(prog="nox -s bench --")
    parser.add_argument("--cells", type=int, default=2, help="cells timed for figure 1 (pip is slow)")
    parser.add_argument("--skip-matrix", action="store_true",
                        help="skip figures 2, 3, 9 and 10 (each runs the matrix)")
    parser.add_argument("--matrix-cells", action="append", metavar="GLOB",
                        help="figures 2, 3, 9 and 10 on the cells whose id matches GLOB (repeatable; default: every "
                        "cell), for a quick comparison of two checkouts or figure 9 on a few cells")
    parser.add_argument("--out", type=Path, default=None, help="where the matrix runs write (default: scratch)")
    parser.add_argument("--frontier-flax", default="==0.10.2", metavar="SPEC",
                        help="flax releases of figure 6's frontier (default ==0.10.2)")
    parser.add_argument("--frontier-jax", default=">=0.7.0,<=0.9.2", metavar="SPEC",
                        help="jax releases of figure 6's frontier (default >=0.7.0,<=0.9.2)")
    parser.add_argument("--frontier-from", type=Path, default=None, metavar="OUT",
                        help="figure 6 from the frontier an earlier `nox -s frontier -- --out OUT` measured (the "
                        "default one takes most of an hour) instead of running a small one")
    parser.add_argument("--corpus-before", default=corpus_growth.BEFORE_REF, metavar="REF",
                        help=f"figure 10's corpus before: cases/ at this git ref (default {corpus_growth.BEFORE_REF}, "
                        "before the census's cases)")
    parser.add_argument("--ranges-from", type=Path, default=None, metavar="OUT",
                        help="figure 11 from the range check an earlier `nox -s ranges -- --out OUT` stored")
    parser.add_argument("--first-watch", type=int, default=3, metavar="N",
                        help="figure 12's first watch: the first N jax releases newer than tests/downstream's lock "
                        "(default 3)")
    parser.add_argument("--ecosystem-candidate", default="jax==0.9.0", metavar="PKG==X",
                        help="figure 13's candidate (default jax==0.9.0, as of its upload day)")
    parser.add_argument("--ecosystem-project", action="append", default=[], metavar="NAME",
                        help="figure 13 on this project of cases/ecosystem.toml (repeatable; default: every one, those "
                        "out of reach skipped)")
    parser.add_argument("--ecosystem-jobs", default="1,2", metavar="J,J",
                        help="figure 13's parallel jobs to compare (default 1,2)")
    parser.add_argument("--ranges-case", action="append", default=[], metavar="CASE_ID",
                        help="figure 14 on this case's declared ranges (repeatable; default: "
                        f"{len(range_cost.DEFAULT_CASES)} cases, one of each kind of range)")
    parser.add_argument("--only", type=int, action="append", choices=range(1, 15), metavar="N",
                        help="measure only figure N (repeatable), e.g. --only 5 for the report build alone")
    parser.add_argument("--watch-release", default="0.9.0", metavar="X",
                        help="figure 8's new jax release for tests/downstream, locked at 0.8.3 (default 0.9.0)")
    args = parser.parse_args(argv)
    wanted = set(args.only or range(1, 15))
    if args.skip_matrix:
        wanted -= {2, 3, 9, 10}
    if args.only and 11 in wanted and args.ranges_from is None:
        parser.error("--only 11 needs --ranges-from OUT (a stored `nox -s ranges -- --out OUT`)")
    cores = os.cpu_count() or 1
    print(f"machine: {platform.node()} · {platform.processor() or platform.machine()} · {cores} cores · "
          f"Python {platform.python_version()}")
    with tempfile.TemporaryDirectory(prefix="shardmatrix-bench-") as tmp:
        scratch = Path(tmp)
        if 1 in wanted:
            cells = matrix.load(ROOT / "matrix.toml")[: args.cells]
            builds = env_builds(cells, scratch)
            print(f"1. env build per cell (warm cache): uv {builds['uv_s']:.2f} s vs venv+pip {builds['pip_s']:.1f} s "
                  f"-> {builds['pip_s'] / builds['uv_s']:.0f}x faster (target >= 25x and <= 1.5 s)")
        if wanted & {2, 3}:
            figures = matrix_runs(args.out or scratch / "out", cores, args.matrix_cells)
            which = f"cells {' '.join(args.matrix_cells)}" if args.matrix_cells else "default matrix"
            print(f"2. {which}: {figures['full_s']:.0f} s vs lower bound {figures['bound_s']:.0f} s "
                  f"(imports {figures['imports_s']:.0f} s + case bodies, first attempts, "
                  f"{figures['bodies_s']:.0f} s over "
                  f"{figures['cores']} cores) -> {figures['full_s'] / figures['bound_s']:.2f}x (target <= 1.2x)")
            print("\n".join(time_budget.budget_lines(figures["budget"], figures["cores"], figures["full_s"])))
            print(f"3. unchanged re-run: {figures['again_s']:.1f} s vs full {figures['full_s']:.0f} s "
                  f"-> {100 * figures['again_s'] / figures['full_s']:.1f} % (target <= 5 %)")
        if 4 in wanted:
            print(f"4. harness overhead: {harness_overhead(scratch):.2f} ms per case (target <= 5 ms)")
        if 5 in wanted:
            wall, cpu = report_build(scratch)
            print(f"5. report build, 100 cells x 200 cases x 10 runs: {wall:.2f} s ({cpu:.2f} s CPU) "
                  "(target <= 1.5 s)")
        if 6 in wanted:
            if args.frontier_from:
                print(frontier_figure(frontier_spent(args.frontier_from), f"the frontier in {args.frontier_from}"))
            else:
                found = frontier_probes(scratch / "frontier", args.frontier_flax, args.frontier_jax)
                print(frontier_figure(found, f"frontier --flax '{args.frontier_flax}' --jax '{args.frontier_jax}'"))
        if 7 in wanted:
            cost = project_cost(scratch)
            new = cost["project_new_lock_s"] - cost["plain_new_lock_s"]
            kept = cost["project_lock_kept_s"] - cost["plain_lock_kept_s"]
            print(f"7. a project cell (tests/downstream) vs the same cell without it, warm cache: {new:+.2f} s with a "
                  f"new lock ({cost['project_new_lock_s']:.2f} s vs {cost['plain_new_lock_s']:.2f} s), {kept:+.2f} s "
                  f"with the lock kept ({cost['project_lock_kept_s']:.2f} s vs {cost['plain_lock_kept_s']:.2f} s) "
                  "(target <= +3 s)")
        if 8 in wanted:
            print(watch_figure(watch_phases(scratch, args.watch_release)))
        if 9 in wanted:
            which = f"cells {' '.join(args.matrix_cells)}" if args.matrix_cells else "default matrix"
            print(device_figure(device_runs(args.out or scratch / "out", args.matrix_cells), which))
        if 10 in wanted:
            which = f"cells {' '.join(args.matrix_cells)}" if args.matrix_cells else "default matrix"
            out = args.out or scratch / "out"
            cell_ids = [cell.id for cell in matrix.select(matrix.load(ROOT / "matrix.toml"), args.matrix_cells or [])]
            before, after, changes, verdict = corpus_growth.growth_runs(
                ROOT, out, scratch, args.matrix_cells, args.corpus_before, run, timed, cell_ids)
            print(corpus_growth.growth_figure(before, after, args.corpus_before, which))
            print(corpus_growth.changes_text(changes, verdict))
            print(f"    wrote {out / 'report' / corpus_growth.CHANGES_MD}")
        if 11 in wanted and args.ranges_from is None:
            print("11. the range checker: not shown (--ranges-from OUT reads a stored `nox -s ranges -- --out OUT`)")
        elif 11 in wanted:
            print(corpus_growth.ranges_figure(corpus_growth.ranges_spent(args.ranges_from),
                                              f"the range check in {args.ranges_from}"))
        if 12 in wanted:
            print(first_watch_figure(first_watch(scratch, args.first_watch)))
        if 13 in wanted:
            from shardmatrix import ecosystem_list

            names = args.ecosystem_project or [entry.name for entry in ecosystem_list.load()]
            runner = ecosystem_cost.run_project(ROOT, args.ecosystem_candidate.split())
            jobs = [int(count) for count in args.ecosystem_jobs.split(",")]
            print(ecosystem_cost.figure(ecosystem_cost.measure(names, runner, scratch / "ecosystem", jobs),
                                        f"{args.ecosystem_candidate} on {len(names)} project(s)"))
        if 14 in wanted:
            cases = args.ranges_case or list(range_cost.DEFAULT_CASES)
            sides = range_cost.cost_runs(ROOT, args.out or scratch, cases, run, timed)
            print(range_cost.cost_figure(sides, f"{len(cases)} case(s): {', '.join(cases)}"))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
