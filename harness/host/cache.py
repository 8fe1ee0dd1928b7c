"""Results cache: a cell whose inputs did not change is not run again; its stored results are reused.

The one reuse path of every cell run (matrix cells, upgrade, bisect and frontier probes). A cell's inputs are its
resolved environment (the `uv pip freeze` of its venv and its interpreter), the case sources and known-breakage
data, which of them pytest is given (a probe of a few cases is not the whole corpus), the harness's own sources but
its release tools (harness/tools judge cells on the host and never run in one, so a change to the range checker
does not rebuild every cell it probes), and the settings that can change an outcome (`Settings`, the one list).
Their hash is stored in the cell's done marker; a later run of the same cell with the same hash copies that run's
records instead of running pytest.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import shutil
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from harness.cellrecord import CellFiles, read_done
from harness.formats import FormatError
from harness.results import copy_records
from harness.runs import run_start

HARNESS = Path(__file__).resolve().parents[1]
#: The harness's host-side judges: harness.cell never imports them (tests/test_layout.py), nor do they shape a run.
_NOT_A_CELL_INPUT = HARNESS / "tools"


@dataclass(frozen=True)
class Settings:
    """The settings of a cell run that may change a case's outcome or its timing, and so its fingerprint;
    parallelism, output paths and verbosity do not."""

    devices: int
    backend: str
    timeout: float
    reruns: int
    hard_grace: float
    repeats: int
    #: Seconds the whole suite may run before pytest stops after the test that passed them (0: no limit).
    suite_budget: float = 0.0
    #: Variables set for the cell's pytest (`--env`, an ecosystem project's `env`): a test may read them.
    environment: tuple[tuple[str, str], ...] = ()


#: The names of the outcome settings, in the order the fingerprint hashes them.
OUTCOME_SETTINGS = tuple(field.name for field in dataclasses.fields(Settings))


@dataclass(frozen=True)
class Hit:
    """A stored, complete run of the same cell with the same inputs."""

    run_id: str
    records: Path


def fingerprint(freeze: str, interpreter: str, case_roots: Sequence[Path], settings: Settings,
                selection: Sequence[str]) -> str:
    """The hash of everything that decides a cell's results; `selection` names what pytest is given (selection())."""
    digest = hashlib.sha256()
    digest.update(freeze.encode())
    digest.update(interpreter.encode())
    for root in [HARNESS, *case_roots]:
        for path in _sources(root):
            digest.update(str(path.relative_to(root) if root.is_dir() else path.name).encode())
            digest.update(path.read_bytes())
    fields = dataclasses.asdict(settings)
    # A run without a suite budget or variables keeps the fingerprint it always had.
    for unset in [name for name in ("suite_budget", "environment") if not fields[name]]:
        del fields[unset]
    digest.update(json.dumps(fields, sort_keys=True, default=str).encode())
    digest.update(json.dumps(sorted(selection)).encode())
    return digest.hexdigest()


def selection(paths: Sequence[Path]) -> list[str]:
    """What pytest is given, independent of where the checkout is: each file or folder by name, a node id
    ('<file>::<Class>::<test>') by its file's name and its node part."""
    named = []
    for path in paths:
        file, sep, node = str(path).partition("::")
        named.append(Path(file).name + sep + node)
    return sorted(named)


def left_out(arguments: Sequence[str]) -> list[str]:
    """The arguments that leave tests out (harness.host.options.LeftOut), as one selection entry; none without any,
    so a run that leaves nothing out keeps the fingerprint it always had."""
    return [f"left out: {json.dumps(list(arguments))}"] if arguments else []


def _sources(root: Path) -> list[Path]:
    if root.is_file():
        return [root]
    found = [p for pattern in ("*.py", "*.toml") for p in root.rglob(pattern)
             if "__pycache__" not in p.parts and _NOT_A_CELL_INPUT not in p.parents]
    return sorted(found)


def find(files: CellFiles, key: str) -> Hit | None:
    """The newest other run in which this cell finished with the same fingerprint."""
    results = Path(files.out) / "results"
    if not results.is_dir():
        return None
    # Newest first by the start each run id records (a folder not named as a run after those, by name).
    for run in sorted((p.name for p in results.iterdir() if p.is_dir()), reverse=True,
                      key=lambda name: (run_start(name) is not None, str(run_start(name) or ""), name)):
        if run == files.run_id:
            continue
        stored = files.in_run(run)
        try:
            done = read_done(stored.done)
        except FormatError:
            continue  # a marker nobody can read vouches for nothing
        if done is not None and done.get("fingerprint") == key and done.get("returncode") in (0, 1) \
                and stored.results.exists():
            return Hit(run, stored.results)
    return None


def reuse(hit: Hit, files: CellFiles) -> int:
    """Copy a hit's records into `files` under their run's id, with what the reader needs to account for them (the
    cases its pytest collected, its freeze, its install log, the stack it ran on, its precision re-run and case
    sources); returns how many were copied."""
    stored = CellFiles.of(hit.records)
    # Line by line, problems included: a reused cell reads as its source did, never cleaner.
    copied = copy_records(hit.records, files.results, hit.run_id, files.run_id)
    for source, target in ((stored.collection, files.collection), (stored.freeze, files.freeze),
                           (stored.install_log, files.install_log), (stored.machine, files.machine),
                           (stored.precision, files.precision)):
        if source.exists() and not target.exists():
            shutil.copyfile(source, target)
    # The case sources the records came from, which reproducers are built from.
    if stored.sources.is_dir():
        shutil.copytree(stored.sources, files.sources, dirs_exist_ok=True)
    return copied
