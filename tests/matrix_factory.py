"""What tests build a matrix from: the matrix.toml text of cells, and folders of cases.

Every test that writes a matrix or a case folder asks here, so a test reads as the cells it needs (`cell_toml("0.4.38",
"0.10.2", "3.11")`) instead of a TOML block copied from the test beside it.
"""

from __future__ import annotations

from pathlib import Path

#: The keys of a cell in the order matrix.toml writes them; jaxlib defaults to the cell's jax.
KEYS = ("id", "jax", "jaxlib", "flax", "python", "backend", "devices")


def cell_toml(jax: str, flax: str, python: str, **extra: str | int) -> str:
    """One `[[cell]]` table of matrix.toml: the versions, jaxlib == jax unless given, then `extra` (id, backend,
    devices) in matrix.toml's order."""
    values: dict[str, str | int] = {"jax": jax, "jaxlib": jax, "flax": flax, "python": python, **extra}
    unknown = set(values) - set(KEYS)
    if unknown:
        raise TypeError(f"not cell keys: {sorted(unknown)}")
    lines = [f"{key} = {values[key]}" if isinstance(values[key], int) else f'{key} = "{values[key]}"'
             for key in KEYS if key in values]
    return "\n".join(["[[cell]]", *lines]) + "\n"


def matrix_toml(*cells: str) -> str:
    """A matrix.toml of `cells` (each made by cell_toml()), a blank line between them."""
    return "\n" + "\n".join(cells)


def case_folder(tmp_path: Path, name: str = "mine", file: str = "test_one.py", tests: tuple[str, ...] = (
        "test_a", "test_b")) -> Path:
    """A folder `name` of cases under `tmp_path`: one file of passing `tests`."""
    folder = tmp_path / name
    folder.mkdir()
    (folder / file).write_text("".join(f"def {test}(): ...\n" for test in tests))
    return folder
