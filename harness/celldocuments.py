"""A cell's JSON documents beside its records: the collection (the cases its pytest was to run), the machine (the
stack it ran on) and the precision re-run (an accelerator cell's failed assertions at the highest matmul precision).

Each is one versioned JSON object, written atomically, at the path harness.cellrecord's `CellFiles` spells, and read
strictly: a file that does not read, is newer than its reader, is another cell's or is not shaped as written is a
FormatError naming it (harness.results.read_cell reports it as a problem of the cell). Imported inside every cell, by
the host and by reports/, so it imports nothing but the standard library and its dependency-free siblings.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from harness import formats, vocabulary
from harness.cellrecord import RESULTS_SUFFIX, CellFiles

#: Version 1: {"schema_version", "cell_id", "cases": [case ids]}.
COLLECTION_SCHEMA_VERSION = 1


def write_collection(results_file: Path, cell_id: str, cases: Sequence[str]) -> None:
    """Record the cases a cell's pytest collected, added to those recorded before (a resumed run collects only what
    is left to run)."""
    path = CellFiles.of(results_file).collection
    try:
        earlier = read_collection(results_file) or ()
    except formats.FormatError:
        earlier = ()
    merged = list(dict.fromkeys([*earlier, *cases]))
    formats.write_json_atomically(path, {"schema_version": COLLECTION_SCHEMA_VERSION, "cell_id": cell_id,
                                         "cases": merged})


#: Version 1: {"schema_version", "cell_id", "jax": {backend, devices: [{kind, compute_capability, memory_stats}],
#: distributions: {name: version} of jax, jaxlib and every plugin or pjrt, mismatched: [names whose version is not
#: jaxlib's]}, "nvidia_smi": [{name, driver_version, memory_total, compute_cap}] or null, "settings": {XLA_FLAGS,
#: XLA_PYTHON_CLIENT_*, JAX_*: value}, "x64": bool or null, "matmul_precision": str or null}.
MACHINE_SCHEMA_VERSION = 1


def write_machine(results_file: Path, cell_id: str, stack: Mapping[str, Any]) -> None:
    """Record the stack a cell ran on (harness.cell.stack asks jax, then nvidia-smi), once per cell."""
    formats.write_json_atomically(CellFiles.of(results_file).machine,
                                  {"schema_version": MACHINE_SCHEMA_VERSION, "cell_id": cell_id, **stack})


def read_machine(results_file: Path) -> dict[str, Any] | None:
    """The stack a cell ran on; None when none was recorded (a cell run before it was), FormatError when the file
    does not read, is newer than this reader, or is not shaped as write_machine writes it (what it says of jax is
    an object; its distributions name versions; its devices are objects)."""
    path = CellFiles.of(results_file).machine
    data = _document(path, "machine", MACHINE_SCHEMA_VERSION)
    if data is None:
        return None
    ask = data.get("jax", {})
    found = ask.get("distributions", {}) if isinstance(ask, dict) else None
    devices = ask.get("devices", []) if isinstance(ask, dict) else None
    if (not isinstance(found, dict) or not all(isinstance(v, str) for v in found.values())
            or not isinstance(devices, list) or not all(isinstance(d, dict) for d in devices)):
        raise formats.FormatError(path, "not a machine file (jax: an object of distributions and devices)")
    return data


def read_collection(results_file: Path) -> tuple[str, ...] | None:
    """The case ids a cell was expected to run; None when none was recorded, FormatError when it does not read or
    is another cell's (its cases say nothing of what this cell was to run)."""
    path = CellFiles.of(results_file).collection
    data = _document(path, "collection", COLLECTION_SCHEMA_VERSION, lowest=None)
    if data is None:
        return None
    cell_id = Path(results_file).name.removesuffix(RESULTS_SUFFIX)
    if data.get("cell_id") != cell_id:
        raise formats.FormatError(path, f"the collection of cell {data.get('cell_id')!r}, not of {cell_id!r}")
    if not isinstance(data.get("cases"), list):
        raise formats.FormatError(path, "not a collection (an object with a list of cases)")
    if not all(isinstance(case, str) for case in data["cases"]):
        raise formats.FormatError(path, "a case id that is not a string")
    return tuple(data["cases"])


#: {"schema_version", "cell_id", "settings": {variable: value}, "cases": {case id: {"status", "error_type",
#: "error_message"}}}: the final outcome of each case re-run at the highest matmul precision.
PRECISION_SCHEMA_VERSION = 1


def write_precision(results_file: Path, cell_id: str, settings: Mapping[str, str],
                    finals: Mapping[str, Mapping[str, Any]]) -> None:
    """Record the re-run's outcome of each case (its final record's status and error), atomically."""
    cases = {case_id: {key: record.get(key) for key in ("status", "error_type", "error_message")}
             for case_id, record in sorted(finals.items())}
    formats.write_json_atomically(CellFiles.of(results_file).precision, {
        "schema_version": PRECISION_SCHEMA_VERSION, "cell_id": cell_id, "settings": dict(settings), "cases": cases})


def read_precision(results_file: Path) -> dict[str, dict[str, Any]] | None:
    """Each re-run case's outcome at the highest matmul precision; None when the cell had no such re-run,
    FormatError when the file does not read, is newer than this reader, belongs to another cell, does not record that
    it ran at the highest precision, or holds a case that is not an outcome: a re-run that cannot be shown to be this
    cell's at that precision explains nothing."""
    path = CellFiles.of(results_file).precision
    data = _document(path, "precision", PRECISION_SCHEMA_VERSION)
    if data is None:
        return None
    cell_id = Path(results_file).name.removesuffix(RESULTS_SUFFIX)
    if data.get("cell_id") != cell_id:
        raise formats.FormatError(path, f"the re-run of cell {data.get('cell_id')!r}, not of {cell_id!r}")
    setting, value = vocabulary.MATMUL_PRECISION_SETTING
    settings = data.get("settings")
    if not isinstance(settings, dict) or settings.get(setting) != value:
        found = settings.get(setting) if isinstance(settings, dict) else None
        raise formats.FormatError(path, f"does not record a re-run at {setting}={value} (it says {found!r})")
    cases = data.get("cases")
    if not isinstance(cases, dict) or not all(isinstance(outcome, dict) and isinstance(outcome.get("status"), str)
                                              for outcome in cases.values()):
        raise formats.FormatError(path, "not a precision re-run (cases, each with a status)")
    return {str(case_id): dict(outcome) for case_id, outcome in cases.items()}


def _document(path: Path, kind: str, newest: int, lowest: int | None = 1) -> dict[str, Any] | None:
    """A cell's versioned JSON object of one `kind`; None when absent, FormatError naming the file when it does not
    read, is not an object, or has a schema outside lowest..newest (lowest None: any schema up to newest)."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return None
    except (OSError, UnicodeDecodeError) as error:
        raise formats.FormatError(path, f"unreadable ({error})") from None
    except ValueError as error:
        raise formats.FormatError(path, f"not valid JSON ({error})") from None
    if not isinstance(data, dict):
        raise formats.FormatError(path, f"not a {kind} file (a JSON object)")
    version = data.get("schema_version")
    if (not isinstance(version, int) or isinstance(version, bool) or version > newest
            or (lowest is not None and version < lowest)):
        raise formats.FormatError(path, f"{kind} schema {version!r}, this reader knows {newest}")
    return data
