"""End to end, on real uv-built cells: a project shaped like a tensor-parallel trainer (tests/tptrainer: its own
package, a root conftest.py building the 1 x tp mesh in a fixture, a `tests` package of class-based tests
parametrized over tp = 1, 2, a uv.lock) upgraded from its locked jax 0.8.3 to 0.9.2, on one and on two simulated
devices, before and after its fix. One pair of cells (tinytrainer's pins, so uv's cache is shared). Slow: marked e2e.

Measured facts these rest on (2026-11-26): tptrainer's vocab-sharded `table[ids]` under `jax.make_mesh((1, tp),
...)` without axis_types passes on jax 0.8.3 and raises ShardingTypeError on jax 0.9.2 at tp = 1 and 2, in its
gather and forward tests (the forward pass starts with that gather); with `axis_types=(AxisType.Auto,) * 2` every
test passes on both. On one device, make_mesh refuses the tp = 2 mesh in the fixture ("Number of devices 1 must be
>= the product of mesh_shape (1, 2)") on both jax releases.
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest
from e2e_support import nox, project_copy

from harness import cellrecord, results

FIXTURE = Path(__file__).resolve().parent / "tptrainer"
CELLS = ("jax0.8.3-flax0.12.6-py3.11", "jax0.9.2-flax0.12.6-py3.11")
GATHER = "test_embed::TestEmbedding::test_gather_gives_the_rows"
FORWARD = "test_forward::TestForward::test_logits_are_embeddings_times_the_head"
NUMERICS = "test_numerics::TestNumerics::test_stacked_layers_match_a_float32_numpy_reference"
TP2 = (f"{GATHER}[2]", f"{FORWARD}[2]", f"{NUMERICS}[2]")
MESH = '    return jax.make_mesh((1, tp), ("data", "model"))\n'
MESH_WITH_AUTO_AXES = ('    return jax.make_mesh((1, tp), ("data", "model"), '
                       'axis_types=(jax.sharding.AxisType.Auto,) * 2)\n')


def upgrade(project: Path, out: Path, devices: int) -> tuple[str, subprocess.CompletedProcess[str]]:
    """The upgrade's output (stdout and stderr) and the finished process."""
    done = nox("-s", "upgrade", "jax==0.9.2", "--project", str(project), "--devices", str(devices), out=out)
    return done.stdout + done.stderr, done


def final_records(out: Path, text: str) -> dict[str, dict[str, dict[str, object]]]:
    """{cell: {case: its last record}} of the run the upgrade's progress lines name (their log paths)."""
    runs = set(re.findall(r"/results/([^/]+)/jax[^/]+\.log\)", text))
    assert len(runs) == 1, text[-3000:]
    run = runs.pop()
    files = {cell: cellrecord.CellFiles(out, run, cell).results for cell in CELLS}
    return {cell: {str(record["case_id"]): record for record in results.read_records(path)}
            for cell, path in files.items()}


@pytest.fixture(scope="module")
def before_fix(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return project_copy(tmp_path_factory, FIXTURE, "tptrainer")


@pytest.fixture(scope="module")
def fixed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The same project with its fix: the mesh's axes said to be Auto, as they were by default before jax 0.9."""
    project = project_copy(tmp_path_factory, FIXTURE, "tptrainer")
    mesh = project / "src" / "tptrainer" / "mesh.py"
    text = mesh.read_text(encoding="utf-8")
    assert MESH in text
    mesh.write_text(text.replace(MESH, MESH_WITH_AUTO_AXES), encoding="utf-8")
    return project


@pytest.mark.e2e
def test_on_one_device_the_code_before_its_fix_is_unsafe_naming_only_its_tp1_gathers(before_fix: Path, out: Path
                                                                                       ) -> None:
    text, done = upgrade(before_fix, out, devices=1)
    assert done.returncode == 1, text[-3000:]
    assert "\nUNSAFE: 4 of 7 tests judged (3 need 2 devices)\n" in text
    assert "Regressions (passing → broken): 2 case(s) from 1 cause(s)" in text and "ShardingTypeError" in text
    assert f"cases: {GATHER}[1], {FORWARD}[1]\n" in text
    assert "**Coverage:** 4 of 7 tests judged (3 need 2 devices)" in (out / "report" / "compare.md").read_text()
    # Its tp = 2 tests are short of devices on both sides, the mesh fixture's own error kept beside the reason.
    for cell, cases in final_records(out, text).items():
        assert len(cases) == 7, (cell, sorted(cases))
        for case in TP2:
            record = cases[case]
            # Run once: a retry would run on the same one device.
            assert (record["status"], record["reason"], record["devices_needed"], record["attempt"]) == (
                "not_applicable", "needs 2 devices, cell has 1", 2, 1), (cell, record)
            assert record["error_type"] == "ValueError" and "product of mesh_shape (1, 2)" in str(
                record["error_message"]), (cell, record)


@pytest.mark.e2e
def test_on_one_device_the_fixed_code_is_safe_with_its_coverage(fixed: Path, out: Path) -> None:
    text, done = upgrade(fixed, out, devices=1)
    assert done.returncode == 0, text[-3000:]
    assert "\nSAFE: 4 of 7 tests judged (3 need 2 devices)\n" in text
    assert text.count(": 7/7 cases, ") == 2 and text.count("4 passed, 3 not_applicable") == 2, text[-3000:]


@pytest.mark.e2e
def test_on_two_devices_every_test_is_judged_and_the_tp2_gathers_break_too(before_fix: Path, fixed: Path,
                                                                            out: Path) -> None:
    text, done = upgrade(before_fix, out, devices=2)
    assert done.returncode == 1, text[-3000:]
    assert "\nUNSAFE\n" in text and "tests judged" not in text
    assert "Regressions (passing → broken): 4 case(s) from 1 cause(s)" in text
    assert f"cases: {GATHER}[1], {GATHER}[2], {FORWARD}[1], {FORWARD}[2]\n" in text
    text, done = upgrade(fixed, out, devices=2)
    assert done.returncode == 0, text[-3000:]
    assert "\nSAFE\n" in text and "tests judged" not in text
    assert text.count(": 7/7 cases, ") == 2 and text.count("7 passed (log: ") == 2, text[-3000:]
