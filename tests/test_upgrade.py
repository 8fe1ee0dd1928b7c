"""`nox -s upgrade` arguments: baseline and candidate cells, and the shared options passed through."""

from __future__ import annotations

from pathlib import Path

import pytest

from harness.host import matrix
from harness.tools import pins, upgrade

CELLS = matrix.load(Path(__file__).resolve().parent.parent / "matrix.toml")


def test_candidate_changes_only_what_is_given_and_options_pass_through(tmp_path: Path) -> None:
    baseline, candidate, opts = upgrade.cells_for(
        ["flax==0.12.8", "--out", str(tmp_path), "--cases", "builtin", "--cases", str(tmp_path), "--force"], CELLS
    )
    assert baseline.id == "jax0.12.0.1-flax0.12.12-py3.12"  # the matrix's newest cell
    assert (candidate.jax, candidate.flax, candidate.python) == ("0.12.0.1", "0.12.8", "3.12")
    assert opts.out == tmp_path and opts.cases == ["builtin", str(tmp_path)] and opts.force


def test_explicit_baseline_and_a_jax_bump_that_needs_a_newer_python() -> None:
    baseline, candidate, _ = upgrade.cells_for(["jax==0.12.0.1", "--baseline", "jax==0.10.2,flax==0.12.8"], CELLS)
    assert (baseline.jax, baseline.flax, baseline.python) == ("0.10.2", "0.12.8", "3.11")
    assert (candidate.jax, candidate.jaxlib, candidate.python) == ("0.12.0.1", "0.12.0.1", "3.12")


def test_a_candidate_equal_to_its_baseline_is_refused() -> None:
    with pytest.raises(pins.PinError, match="the candidate is the baseline"):
        upgrade.cells_for(["jax==0.12.0.1"], CELLS)
