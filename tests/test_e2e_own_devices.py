"""End to end, on real uv-built cells: a project shaped like a real JAX library (tests/owncount_project: its
conftest imports jax at module level and sets its own CPU device count to 2; `-Werror`, `filterwarnings = error` and
`-p no:cacheprovider` in its settings) gets at the default settings the answers it gets at `--devices 0`. The cell's
simulated devices are asked for in the environment pytest starts with, so nothing the harness does after the
project's conftest imported jax can warn; the project keeps its 2 devices, and the records say so.

Before this, the plugin asked for devices in pytest_configure, after the conftest had imported jax, and said so with
a UserWarning that -Werror turned into an INTERNALERROR: every test of both cells `crashed`, INCONCLUSIVE.

Measured facts these rest on: jax 0.8.0's make_mesh does not warn, 0.8.1 warns (DeprecationWarning "The default
axis_types will change in JAX v0.9.0"); `jax_num_cpu_devices` wins over XLA_FLAGS' host device count. Slow (real
cells of jax 0.8.0 and 0.8.1, shared by the tests in file order): marked e2e.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from e2e_support import copied_project, nox

from harness.runs import results_files

FIXTURE = Path(__file__).resolve().parent / "owncount_project"
MESH_TEST = "test_line::test_rows_split_over_the_line"
BASELINE = "jax==0.8.0,flax==0.12.0"


project = copied_project(FIXTURE, "meshlib")


def _upgrade(project: Path, out: Path, *devices: str) -> tuple[int, str, list[str]]:
    """The exit code, the output and the regressions' lines of an upgrade to jax 0.8.1."""
    done = nox("-s", "upgrade", "jax==0.8.1", "--baseline", BASELINE, "--project", str(project), *devices, out=out)
    text = done.stdout + done.stderr
    regressions = text.split("Regressions (passing → broken): ", 1)[-1].split("\n\n", 1)[0].splitlines()
    # Each run writes its reproducers under its own --out: the line naming one is the only one that differs.
    return done.returncode, text, [line for line in regressions if "reproduce: " not in line]


def _device_counts(out: Path) -> set[object]:
    """The device counts the cells' records say (the results files only: a cell's folder holds other JSONL, such as
    its timeline)."""
    return {json.loads(line).get("device_count") for run in (out / "results").iterdir() if run.is_dir()
            for path in results_files(run) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()}


@pytest.mark.e2e
def test_the_default_devices_give_the_answers_of_devices_0_and_the_tests_keep_their_two_devices(
    project: Path, tmp_path_factory: pytest.TempPathFactory
) -> None:
    default_out, zero_out = tmp_path_factory.mktemp("default"), tmp_path_factory.mktemp("zero")
    code, text, regressions = _upgrade(project, default_out)
    assert code == 1 and "\nUNSAFE\n" in text, text[-3000:]
    # Every test of both cells ran (they once all read `crashed`, pytest exiting 3 before any case).
    assert "jax0.8.0-flax0.12.0-py3.11: 2/2 cases, " in text and "jax0.8.1-flax0.12.0-py3.11: 2/2 cases, " in text
    assert "Not judged (crashed, timeout, install_error, an unknown status or conflicting records on a side): 0" \
        in text and "never started" not in text, text[-3000:]
    assert regressions[0] == "1 case(s) from 1 cause(s): 1 documented · 0 known upstream · 0 unexplained", regressions
    assert f"cases: {MESH_TEST}" in text and "] DeprecationWarning: The default axis_types will change" in text
    assert _device_counts(default_out) == {2}
    zero_code, zero_text, zero_regressions = _upgrade(project, zero_out, "--devices", "0")
    assert (zero_code, zero_regressions) == (code, regressions), zero_text[-3000:]
    assert _device_counts(zero_out) == {2}
