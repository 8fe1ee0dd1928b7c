"""Tests for reports/views/compat_grid.py: the compatibility grid's layout, flax by jax."""

from __future__ import annotations

from record_factory import record

from reports.data.load import records_frame
from reports.data.tables import Matrix, build_matrix
from reports.verdicts import compat
from reports.views.compat_grid import grid, origins


def matrix_of_pairs() -> Matrix:
    return build_matrix(records_frame([record(jax="0.12.0.1", flax="0.8.5"), record(jax="0.12.0.1", flax="0.12.12"),
                                       record(jax="0.4.38", flax="0.10.2")]))


def test_the_grid_puts_newest_flax_first_and_oldest_jax_first() -> None:
    layout = grid(compat.verdicts(matrix_of_pairs()))
    assert list(layout.index) == ["0.12.12", "0.10.2", "0.8.5"] and list(layout.columns) == ["0.4.38", "0.12.0.1"]
    assert layout.at["0.10.2", "0.4.38"] == ["c1"] and layout.at["0.8.5", "0.4.38"] == []


def test_a_table_built_from_releases_only_has_no_origins() -> None:
    assert origins(compat.verdicts(matrix_of_pairs())) == {}
