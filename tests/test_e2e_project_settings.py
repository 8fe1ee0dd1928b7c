"""End to end, on real uv-built cells: a project whose pytest settings make every warning an error
(tests/werror_project: `addopts = "-Werror"`, a test calling `jax.make_mesh((1,), ("x",))`) is judged as its CI
judges it. jax 0.8.1's make_mesh warning fails that test there, so the upgrade from 0.8.0 is UNSAFE, named after
jax's documented change, and bisect finds 0.8.1; without -Werror the same upgrade is SAFE, the test newly
deprecated. Slow (real cells of jax 0.8.0 to 0.9.0, shared by the tests in file order): marked e2e.

Measured facts these rest on: jax 0.8.0's make_mesh does not warn; 0.8.1 to 0.8.3 warn (DeprecationWarning "The
default axis_types will change in JAX v0.9.0 ..."); 0.9.0 makes the axes Explicit, so the test's assertion fails.
flax 0.12.0 installs with each of them.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from e2e_support import copied_project, nox

ROOT = Path(__file__).resolve().parent.parent
FIXTURE = Path(__file__).resolve().parent / "werror_project"
WARNING_TEST = "test_mesh::test_the_default_mesh_has_auto_axes"
BASELINE = "jax==0.8.0,flax==0.12.0"


project = copied_project(FIXTURE, "meshcheck")


@pytest.mark.e2e
def test_with_werror_the_upgrade_to_jax_0_8_1_is_unsafe_naming_the_test_the_warning_and_the_change(
    project: Path, out: Path
) -> None:
    done = nox("-s", "upgrade", "jax==0.8.1", "--baseline", BASELINE, "--project", str(project), out=out)
    text = done.stdout + done.stderr
    assert done.returncode == 1, text[-3000:]
    assert "\nUNSAFE\n" in text and "Regressions (passing → broken): 1 case(s) from 1 cause(s)" in text
    assert "] DeprecationWarning: The default axis_types will change in JAX v0.9.0" in text
    assert f"cases: {WARNING_TEST}\n" in text
    assert "documented change: jax 0.9.0: jax.make_mesh without axis_types makes Explicit axes" in text
    # The changes the upgrade crosses list it too: its warning starts at the candidate.
    assert "(changed default; it warns from jax 0.8.1, an error where warnings are errors). Fix: pass " \
           "axis_types=(jax.sharding.AxisType.Auto,)" in text
    assert "2/2 cases, " in text and "1 passed, 1 failed" in text


@pytest.mark.e2e
def test_with_werror_bisect_finds_the_release_where_the_warning_first_fails_the_test(
    project: Path, out: Path
) -> None:
    done = nox("-s", "bisect", "--case", WARNING_TEST, "--good", "jax==0.8.0", "--bad", "jax==0.9.0", "--flax",
               "==0.12.0", "--project", str(project), out=out)
    text = done.stdout + done.stderr
    assert done.returncode == 0, text[-3000:]
    assert "last good: jax==0.8.0" in text
    first_bad = next(line for line in text.splitlines() if line.startswith("first bad: "))
    assert first_bad.startswith("first bad: jax==0.8.1 (jax0.8.1-flax0.12.0-py"), first_bad
    assert "): failed: DeprecationWarning: The default axis_types will change in JAX v0.9.0" in first_bad


@pytest.mark.e2e
def test_without_werror_the_same_upgrade_is_safe_and_the_test_newly_deprecated(project: Path, out: Path) -> None:
    pyproject = project / "pyproject.toml"
    text = pyproject.read_text(encoding="utf-8")
    assert 'addopts = "-Werror"' in text
    pyproject.write_text(text.replace('addopts = "-Werror"', 'addopts = "-ra"'), encoding="utf-8")
    done = nox("-s", "upgrade", "jax==0.8.1", "--baseline", BASELINE, "--project", str(project), out=out)
    text = done.stdout + done.stderr
    assert done.returncode == 0, text[-3000:]
    assert "\nSAFE\n" in text and "Regressions (passing → broken): 0 case(s)" in text
    deprecated = text.split("Newly deprecated (clean pass → pass with warnings): 1\n", 1)[1].splitlines()[0]
    assert deprecated.startswith(f"  {WARNING_TEST}: passed → passed  DeprecationWarning: The default axis_types "
                                 "will change in JAX v0.9.0"), deprecated
