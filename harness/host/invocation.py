"""What the noxfile asks of the harness when nox loads it: the cells it declares sessions for, and the environment
its sessions (child processes under `nox -j`) share. Nothing else runs at load, so `nox -l` does only this."""

from __future__ import annotations

import os
from collections.abc import MutableMapping
from pathlib import Path

from harness.formats import ShardmatrixError
from harness.host import bytecode, durations, interpreters, matrix, options, plan


def cells(matrix_file: Path | None = None) -> list[matrix.Cell]:
    """The matrix's cells ($SHARDMATRIX_MATRIX, else the shipped matrix.toml) in the order to start them: the longest
    (as last measured here) first, so no core idles at the end while one long cell runs alone; never-run ones first.

    MatrixError names the culprit in one line."""
    found = matrix.load(matrix_file or plan.default_matrix())
    seconds = durations.cell_seconds()
    return durations.longest_first(found, lambda c: seconds.get(c.id))


def nox_cells(matrix_file: Path | None = None) -> list[matrix.Cell]:
    """`cells()` for the noxfile: a bad matrix stops nox before any session, in one line (SystemExit), since no
    session can be declared without it."""
    try:
        return cells(matrix_file)
    except ShardmatrixError as error:
        raise SystemExit(f"shardmatrix: {error}") from None


def share(environ: MutableMapping[str, str] | None = None) -> None:
    """Set what every session of one nox invocation must agree on, in the environment its children inherit: one run
    id for all cells, pyenv's versions visible (nox looks a cell's interpreter up before its session starts), and
    where bytecode is kept when the shell says to write none (harness.host.bytecode)."""
    env = os.environ if environ is None else environ
    interpreters.expose_pyenv_versions(env)  # type: ignore[arg-type]
    env.setdefault(options.RUN_ID_ENV, options.new_run_id())
    # Each session is a nox process of its own that imports the harness anew: compiled once, not by every session.
    bytecode.keep(env)
