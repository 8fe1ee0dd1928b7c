"""What a cell is, and where its files disagree on it: the versions a cell id names, the versions its freeze pins,
and one line per disagreement between the cell id, its done marker, its freeze, its machine file and its records
(jax, jaxlib, flax, python, a source's build; the stack's plugins, backend and devices).

harness.results' reading of a cell (`read_cell`) asks this module for its `mismatches`; a cell whose identity is in
doubt gets no good verdict. Imported inside every cell, so it imports nothing but the standard library and its
dependency-free siblings.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from harness import formats, vocabulary
from harness.cellrecord import CellFiles, Record


def machine_problems(path: Path, cell_id: str, machine: Mapping[str, Any] | None, records: Sequence[Record],
                     claims: Mapping[str, str]) -> list[str]:
    """One line per way a cell's machine file disagrees with its cell id, its freeze (`claims`: what the id and the
    freeze name of jax, jaxlib and flax) and its records: the cell, jax's and jaxlib's versions, a plugin or pjrt
    whose version is not jaxlib's (computed from the versions), the backend and the device kind."""
    if machine is None:
        return []
    where = CellFiles.of(path).machine
    found = []
    if machine.get("cell_id") != cell_id:
        found.append(f"{where}: the stack of cell {machine.get('cell_id')!r}, not {cell_id!r}")
    asked = machine.get("jax")
    ask: dict[str, Any] = asked if isinstance(asked, dict) else {}
    versions: dict[str, Any] = ask.get("distributions") or {}
    recorded = {package: {str(record[package]) for record in records if record.get(package)}
                for package in ("jaxlib", "backend", "device_kind")}
    for package in ("jax", "jaxlib"):
        version = versions.get(package)
        if version is not None and package in claims and not _same(version, claims[package]):
            found.append(f"{where}: {package} {version}, but the cell is {package} {claims[package]}")
    frozen = _frozen_distributions(path)
    for name, version in sorted(versions.items()):
        if name not in ("jax", "jaxlib") and name in frozen and frozen[name] != version:
            found.append(f"{where}: {name} {version}, but the freeze pins {name}=={frozen[name]}")
    if versions.get("jaxlib") is not None and recorded["jaxlib"] - {versions["jaxlib"]}:
        found.append(f"{where}: jaxlib {versions['jaxlib']}, but the records name jaxlib "
                     f"{', '.join(sorted(recorded['jaxlib']))}")
    for name in vocabulary.plugin_mismatches(versions):
        found.append(f"{where}: {name} {versions[name]} does not match jaxlib {versions.get('jaxlib')}")
    backend = ask.get("backend")
    if isinstance(backend, str) and recorded["backend"] - {backend}:
        found.append(f"{where}: backend {backend}, but the records ran on {', '.join(sorted(recorded['backend']))}")
    kinds = {str(device.get("kind")) for device in ask.get("devices") or [] if device.get("kind")}
    if kinds and recorded["device_kind"] - kinds:
        found.append(f"{where}: devices {', '.join(sorted(kinds))}, but the records ran on "
                     f"{', '.join(sorted(recorded['device_kind']))}")
    return found


#: The packages whose versions every record, the freeze and the cell id must agree on.
IDENTITY = ("jax", "jaxlib", "flax")


#: A default cell id (harness.host.matrix.default_id): jax<v>-flax<v>-py<minor>[-<backend>], a version built from
#: a source carrying its build as +<label>.
_CELL_ID = re.compile(r"jax(?P<jax>[^-]+)-flax(?P<flax>[^-]+)-py(?P<python>\d+\.\d+)(?:-[A-Za-z0-9_.]+)?")


def cell_id_versions(cell_id: str) -> dict[str, str]:
    """What a default cell id names: jax, flax (each maybe with '+<label>') and python; {} for a custom id."""
    found = _CELL_ID.fullmatch(cell_id)
    return dict(found.groupdict()) if found else {}


def freeze_versions(text: str) -> dict[str, str]:
    """The released versions a freeze pins ('jax==0.9.2'), by package."""
    found = {}
    for line in text.split("\n"):
        name, sep, version = line.strip().partition("==")
        if sep and name.lower() in IDENTITY:
            found[name.lower()] = version.strip()
    return found


def _frozen_distributions(path: Path) -> dict[str, str]:
    """Every 'name==version' a cell's freeze pins, by normalized name ('jax-cuda12-plugin'); {} without a freeze."""
    try:
        text = CellFiles.of(path).freeze.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return {}
    pins = (line.strip().partition("==") for line in text.split("\n"))
    return {re.sub(r"[-_.]+", "-", name.strip()).lower(): version.strip() for name, sep, version in pins if sep}


def identity_problems(path: Path, cell_id: str, records: Sequence[Record],
                      done: dict[str, Any] | None, machine: Mapping[str, Any] | None = None) -> list[str]:
    """One line per disagreement between the cell id, its done marker, its freeze, its machine file and its records
    on what the cell is (jax, jaxlib, flax, python, a source's build; machine_problems for the stack)."""
    found = []
    if done is not None and done.get("cell_id") not in (None, cell_id):
        found.append(f"{CellFiles.of(path).done}: names cell {done.get('cell_id')!r}, not {cell_id!r}")
    named = cell_id_versions(cell_id)
    # What each package is, as the id names it: a release's version, or a source's '<version>+<label>' (its tag).
    claims: dict[str, str] = {package: named[package] for package in ("jax", "flax") if package in named}
    freeze_file = CellFiles.of(path).freeze
    try:
        text = freeze_file.read_text(encoding="utf-8", errors="replace")
    except (FileNotFoundError, IsADirectoryError, NotADirectoryError):
        text = None
    except OSError as error:
        found.append(f"{freeze_file}: unreadable ({error.strerror or error})")
        text = None
    if text is not None:
        frozen = freeze_versions(text)
        sources = formats.parse_sources(text)
        for package, claim in claims.items():
            source = sources.get(package)
            if source is not None and source.tag != claim:
                found.append(f"{freeze_file}: {package} built as {source.tag}, but the cell id names {package} {claim}")
            elif source is None and package in frozen and frozen[package] != claim:
                found.append(f"{freeze_file}: {package}=={frozen[package]}, but the cell id names {package} {claim}")
        claims = {**frozen, **claims}
    for record in records:
        where = f"{record.get('source', path)}:{record.get('line', '?')}"
        if record.get("cell_id") != cell_id:
            found.append(f"{where}: a record of cell {record.get('cell_id')!r} in {cell_id!r}'s file")
            break
        wrong = [f"{package} {record[package]} (the cell is {package} {claims[package]})" for package in IDENTITY
                 if record.get(package) and package in claims and not _same(record[package], claims[package])]
        python = record.get("python")
        if python and "python" in named and ".".join(python.split(".")[:2]) != named["python"]:
            wrong.append(f"python {python} (the cell is python {named['python']})")
        if wrong:
            found.append(f"{where}: the record names {', '.join(wrong)}")
            break  # one line per cell: the first record that disagrees names it
    return found + machine_problems(path, cell_id, machine, records, claims)


def _same(installed: str, claim: str) -> bool:
    """Whether an installed version is what the cell names: the same version, or the version of the source build
    the id names by tag ('0.12.6' of '0.12.6+tree.5a0b5832')."""
    return installed == claim or claim.startswith(f"{installed}+")
