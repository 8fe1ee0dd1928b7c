"""What else an upgrade moved: the packages whose version differs between the baseline's and candidate's freezes."""

from __future__ import annotations

from packaging.utils import canonicalize_name

from harness.host.cellrun import CellRun

#: The packages an upgrade asks about; the line is about everything else.
ASKED = ("jax", "jaxlib", "flax")


def freeze_of(ran: CellRun) -> str:
    """The freeze stored beside a cell's results ("" when it has none: the cell was not built)."""
    return ran.files.freeze.read_text(encoding="utf-8") if ran.files.freeze.exists() else ""


def versions(freeze: str) -> dict[str, str]:
    """{package: version, or where it came from} of each line of a `uv pip freeze`."""
    found: dict[str, str] = {}
    for line in freeze.splitlines():
        line = line.strip()
        if not line or line.startswith(("#", "-e")):
            continue
        name, sep, version = line.partition("==")
        if not sep:
            name, sep, version = line.partition(" @ ")
        if sep:
            found[canonicalize_name(name)] = version.strip()
    return found


def changes(before: str, after: str, asked: tuple[str, ...] = ASKED) -> list[str]:
    """'optax 0.2.4 -> 0.2.5' for each package besides `asked` that differs, was added (-) or removed (-)."""
    old, new = versions(before), versions(after)
    lines = []
    for name in sorted(set(old) | set(new)):
        if name in asked or old.get(name) == new.get(name):
            continue
        lines.append(f"{name} {old.get(name, '(absent)')} -> {new.get(name, '(absent)')}")
    return lines


def line(before: str, after: str) -> str:
    """The upgrade's line about them ("" when either cell was not built, or nothing else moved)."""
    if not before or not after:
        return ""
    moved = changes(before, after)
    return f"the bump also moved: {', '.join(moved)}" if moved else "the bump moved nothing else"
