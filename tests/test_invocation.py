"""harness.host.invocation: what the noxfile reads at load, and the environment its sessions share."""

from __future__ import annotations

from pathlib import Path

import pytest

from harness.host import invocation, matrix, options

ROOT = Path(__file__).resolve().parent.parent


def test_the_cells_are_the_matrix_files() -> None:
    assert {c.id for c in invocation.cells()} == {c.id for c in matrix.load(ROOT / "matrix.toml")}


def test_a_bad_matrix_stops_nox_in_one_line(tmp_path: Path) -> None:
    bad = tmp_path / "matrix.toml"
    bad.write_text('[[cell]]\ncolour="red"\n')
    with pytest.raises(SystemExit, match=rf"^shardmatrix: {bad}:1: cell #1: ") as stopped:
        invocation.nox_cells(bad)
    assert "\n" not in str(stopped.value)


def test_one_run_id_is_shared_and_a_given_one_kept() -> None:
    env: dict[str, str] = {}
    invocation.share(env)
    assert env[options.RUN_ID_ENV]
    given = {options.RUN_ID_ENV: "20261126T000000Z-abcd"}
    invocation.share(given)
    assert given[options.RUN_ID_ENV] == "20261126T000000Z-abcd"
