"""Writing result records: complete records in schema order, case ids from node ids, a line-flushed writer.

The schema itself (fields, version, paths) is harness.vocabulary's."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from datetime import datetime, timezone
from pathlib import Path
from typing import IO, Any

from harness.formats import dump_jsonl_line, parse_jsonl
from harness.vocabulary import COLLECTION_CASE, FIELDS, SCHEMA_VERSION

#: The fault log of a cell's own pytest process when cases run in it (no xdist worker).
IN_PROCESS = "main"


def case_id_from_nodeid(nodeid: str) -> str:
    """'cases/sharded_gathers.py::test_take[x]' -> 'sharded_gathers::test_take[x]'."""
    path, _, rest = nodeid.partition("::")
    return f"{Path(path).stem}::{rest or COLLECTION_CASE}"


def family_from_nodeid(nodeid: str) -> str:
    """The family of a case that declares none: its module's name."""
    return Path(nodeid.partition("::")[0]).stem


def write_atomically(path: Path, payload: dict[str, Any]) -> None:
    """Write a JSON file so that readers see either nothing or all of it."""
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    partial.write_text(json.dumps(payload) + "\n", encoding="utf-8")
    os.replace(partial, path)


def new_run_id(now: datetime | None = None) -> str:
    """A run id that sorts chronologically and does not collide between two runs in the same second."""
    now = now or datetime.now(timezone.utc)
    return f"{now:%Y%m%dT%H%M%SZ}-{os.urandom(2).hex()}"


def make_record(**values: Any) -> dict[str, Any]:
    """A complete record: known fields in schema order, unknown field names refused."""
    unknown = set(values) - set(FIELDS)
    if unknown:
        raise ValueError(f"unknown record fields: {sorted(unknown)}")
    record = {name: values.get(name) for name in FIELDS}
    record["schema_version"] = SCHEMA_VERSION
    record["timestamp"] = values.get("timestamp") or datetime.now(timezone.utc).isoformat()
    if record["warnings"] is None:
        record["warnings"] = []
    if record["attempt"] is None:
        record["attempt"] = 1
    return record


def first_line(text: object, limit: int = 500) -> str:
    """The first non-empty line of a message, trimmed, so one record stays one readable line."""
    for line in str(text).splitlines():
        if line.strip():
            return line.strip()[:limit]
    return ""


def read_records(path: Path) -> Iterator[dict[str, Any]]:
    """The records of a results file, skipping lines that cannot be read (the report warns about those)."""
    if not Path(path).exists():
        return
    # errors="replace": a torn multi-byte character costs one line, not the file (as the report reads it).
    for _number, record in parse_jsonl(Path(path).read_text(encoding="utf-8", errors="replace")):
        if isinstance(record, dict):
            yield record


def recorded_case_ids(path: Path) -> set[str]:
    """Case ids already in a results file."""
    return {str(record["case_id"]) for record in read_records(path) if "case_id" in record}


class JsonlWriter:
    """Appends records to one file, one JSON object per line, flushed per line so a killed run keeps them."""

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._file: IO[str] = self.path.open("a", encoding="utf-8")

    def write(self, record: dict[str, Any]) -> None:
        """Write one record as one line and flush it."""
        self._file.write(dump_jsonl_line(record))
        self._file.flush()

    def close(self) -> None:
        """Close the file; later writes raise."""
        self._file.close()
