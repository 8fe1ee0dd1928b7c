"""End to end, with real uv-built cells: an upgrade that breaks, one that does not, a reproducer run with
`uv run` in a clean folder, and a bisection across flax releases. Slow (several real cells): marked e2e.

Measured facts these rest on (2026-11 matrix): with jax 0.12.0.1, flax 0.12.8 fails every NNX case that
flax 0.12.12 passes (jax.experimental.hijax has no HiPrimitive); jax 0.11.1 -> 0.11.2 with flax 0.12.12 changes no
status; partitioned_metadata::test_nnx_with_partitioning_outside_any_mesh passes on flax 0.11.x and breaks from
flax 0.12.0 (a documented change: failed, which bisection counts as bad).
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest
from e2e_support import nox

from harness.host import interpreters

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def unsafe(out: Path) -> subprocess.CompletedProcess[str]:
    return nox("-s", "upgrade", "flax==0.12.8", "--baseline", "jax==0.12.0.1,flax==0.12.12", out=out)


@pytest.mark.e2e
def test_a_breaking_bump_is_unsafe_with_its_regressions(unsafe: subprocess.CompletedProcess[str], out: Path) -> None:
    text = unsafe.stdout + unsafe.stderr
    assert unsafe.returncode == 1, text[-3000:]  # UNSAFE; 2 would be INCONCLUSIVE
    assert "\nUNSAFE\n" in text
    # Regressions come grouped by cause: one line per cause, its cells, its cases, one reproducer; no traceback.
    assert "AttributeError: module 'jax.experimental.hijax' has no attribute 'HiPrimitive'" in text
    assert "cells: jax 0.12.0.1 \N{MULTIPLICATION SIGN} flax 0.12.8" in text
    assert "reproduce: uv run" in text
    assert "Traceback" not in text
    compare_md = (out / "report" / "compare.md").read_text(encoding="utf-8")
    assert "nnx_sharded_merge::test_linear_split_shard_merge" in compare_md


@pytest.mark.e2e
def test_a_reproducer_prints_the_recorded_error_in_a_clean_folder(
    unsafe: subprocess.CompletedProcess[str], out: Path, tmp_path: Path
) -> None:
    scripts = sorted((out / "report" / "repro").glob("jax0.12.0.1-flax0.12.8-py3.12/nnx_sharded_merge__*.py"))
    assert scripts, unsafe.stdout[-2000:]
    clean = tmp_path / "clean"
    clean.mkdir()
    shutil.copy(scripts[0], clean / "repro.py")
    uv = shutil.which("uv") or "uv"
    # As a user's shell would be: not inside the tests session's venv (nox points VIRTUAL_ENV and UV_PYTHON at it).
    env = {k: v for k, v in os.environ.items() if k not in ("VIRTUAL_ENV", "UV_PYTHON", "UV_PROJECT_ENVIRONMENT")}
    interpreters.expose_pyenv_versions(env)  # python3.12 must answer through pyenv's shims
    # Not --offline: uv's cached index pages need not list the pinned release, though its wheels are cached.
    done = subprocess.run([uv, "run", "--no-project", "repro.py"], cwd=clean, capture_output=True,
                          text=True, timeout=600, check=False, env=env)
    assert done.returncode == 1, done.stderr[-2000:]
    assert "reproduced: AttributeError: module 'jax.experimental.hijax' has no attribute 'HiPrimitive'" in done.stdout


@pytest.mark.e2e
def test_a_patch_bump_that_changes_nothing_is_safe(out: Path) -> None:
    done = nox("-s", "upgrade", "jax==0.11.2", "--baseline", "jax==0.11.1,flax==0.12.12", out=out)
    assert done.returncode == 0, (done.stdout + done.stderr)[-3000:]
    assert "\nSAFE\n" in done.stdout and "Regressions (passing → broken): 0 case(s) from 0 cause(s)" in done.stdout


@pytest.mark.e2e
def test_bisect_finds_the_first_bad_flax_in_fewer_builds_than_a_linear_scan(out: Path) -> None:
    # flax 0.12.2 does not install beside jax 0.7.2 (it needs jax>=0.8.1): as an end it is only taken on trust.
    done = nox("-s", "bisect", "--case", "partitioned_metadata::test_nnx_with_partitioning_outside_any_mesh",
               "--good", "flax==0.11.0", "--bad", "flax==0.12.2", "--jax", "==0.7.2", "--trust-ends", out=out)
    text = done.stdout + done.stderr
    assert done.returncode == 0, text[-3000:]
    assert "last good: flax==0.11.2" in text and "first bad: flax==0.12.0" in text
    assert "probes: 2 environment(s) (a linear scan needs 3)" in text


@pytest.mark.e2e
def test_bisect_refuses_an_end_that_does_not_do_what_it_says(out: Path) -> None:
    # flax 0.12.0 fails the case: as --good it is refused, not printed as "last good".
    done = nox("-s", "bisect", "--case", "partitioned_metadata::test_nnx_with_partitioning_outside_any_mesh",
               "--good", "flax==0.12.0", "--bad", "flax==0.12.2", "--jax", "==0.7.2", out=out)
    text = done.stdout + done.stderr
    assert done.returncode == 1, text[-3000:]
    assert "refused: --good 0.12.0 does not pass (failed" in text and "last good" not in text
    done = nox("-s", "bisect", "--case", "partitioned_metadata::test_nnx_with_partitioning_outside_any_mesh",
               "--good", "flax==0.11.0", "--bad", "flax==0.12.2", "--jax", "==0.7.2", out=out)
    text = done.stdout + done.stderr
    assert done.returncode == 1, text[-3000:]
    assert "refused: --bad 0.12.2 cannot be judged (install_error" in text and "first bad" not in text
