"""Results cache: a cell whose inputs did not change is not run again; its stored results are reused.

A cell's inputs are its resolved environment (the `uv pip freeze` of its venv and its interpreter), the case
sources and known-breakage data, the harness's own sources, and the settings that can change an outcome
(devices, backend, time limit, retries). Their hash is stored in the cell's done marker; a later run of the same
cell with the same hash copies that run's records instead of running pytest.
"""

from __future__ import annotations

import hashlib
import json
import shutil
from dataclasses import dataclass
from pathlib import Path

from harness.cell.records import read_records
from harness.vocabulary import done_path, results_path

HARNESS = Path(__file__).resolve().parents[1]
#: Settings that may change a case's outcome or its timing; parallelism and output paths do not.
OUTCOME_SETTINGS = ("devices", "backend", "timeout", "reruns", "hard_grace", "repeats")


@dataclass(frozen=True)
class Hit:
    """A stored, complete run of the same cell with the same inputs."""

    run_id: str
    records: Path


def fingerprint(freeze: str, interpreter: str, case_roots: list[Path], settings: dict[str, object]) -> str:
    """The hash of everything that decides a cell's results."""
    digest = hashlib.sha256()
    digest.update(freeze.encode())
    digest.update(interpreter.encode())
    for root in [HARNESS, *case_roots]:
        for path in _sources(root):
            digest.update(str(path.relative_to(root)).encode())
            digest.update(path.read_bytes())
    digest.update(json.dumps({k: settings.get(k) for k in OUTCOME_SETTINGS}, sort_keys=True, default=str).encode())
    return digest.hexdigest()


def _sources(root: Path) -> list[Path]:
    if root.is_file():
        return [root]
    found = [p for pattern in ("*.py", "*.toml") for p in root.rglob(pattern) if "__pycache__" not in p.parts]
    return sorted(found)


def find(out_dir: Path, cell_id: str, key: str, before_run: str) -> Hit | None:
    """The newest earlier run in which this cell finished with the same fingerprint."""
    results = Path(out_dir) / "results"
    if not results.is_dir():
        return None
    for run in sorted((p.name for p in results.iterdir() if p.is_dir()), reverse=True):
        if run == before_run:
            continue
        marker = done_path(out_dir, run, cell_id)
        try:
            done = json.loads(marker.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        records = results_path(out_dir, run, cell_id)
        if done.get("fingerprint") == key and done.get("returncode") in (0, 1) and records.exists():
            return Hit(run, records)
    return None


def reuse(hit: Hit, destination: Path, run_id: str) -> int:
    """Copy a hit's records into this run under this run's id; returns how many were copied."""
    destination.parent.mkdir(parents=True, exist_ok=True)
    copied = 0
    with destination.open("w", encoding="utf-8") as out:
        # A corrupt line stays behind; the report of the old run already warned about it.
        for record in read_records(hit.records):
            record["run_id"] = run_id
            out.write(json.dumps(record, ensure_ascii=False) + "\n")
            copied += 1
    for sibling in (".freeze.txt", ".install.log"):
        source = hit.records.with_suffix(sibling)
        if source.exists() and not destination.with_suffix(sibling).exists():
            shutil.copyfile(source, destination.with_suffix(sibling))
    # The case sources the records came from, which reproducers are built from.
    sources = hit.records.with_suffix("") / "cases"
    if sources.is_dir():
        shutil.copytree(sources, destination.with_suffix("") / "cases", dirs_exist_ok=True)
    return copied
