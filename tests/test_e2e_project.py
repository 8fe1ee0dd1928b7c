"""End to end, on real uv-built cells: a downstream project (tests/downstream: its own package, optax, a uv.lock,
class-based tests, a root conftest.py, pytest settings of its own) asks whether jax 0.9.2 is safe for it, then a
Flax branch (a tree built here from the released flax's own files plus one deliberate change) runs through
`upgrade` and `matrix --override`. Slow (several real cells, shared by the tests in file order): marked e2e.

Measured facts these rest on: tinytrainer's vocab-sharded `table[ids]` under a default jax.make_mesh passes on jax
0.8.3 and raises ShardingTypeError on jax 0.9.2 (Explicit axes); `.at[ids].get(out_sharding=...)` passes on both.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
from e2e_support import copied_project, nox

ROOT = Path(__file__).resolve().parent.parent
FIXTURE = Path(__file__).resolve().parent / "downstream"
BREAKING = "test_embed::TestEmbedding::test_lookup_gives_the_rows"
FLAX_BREAKING = "test_model::TestHead::test_the_head_is_affine"
GATHER = '''@jax.jit
def lookup(table: jax.Array, ids: jax.Array) -> jax.Array:
    """The rows of `ids`: jax 0.9 makes make_mesh axes Explicit, and this gather then needs an out_sharding."""
    return table[ids]
'''
GATHER_WITH_OUT_SHARDING = '''def lookup(table: jax.Array, ids: jax.Array) -> jax.Array:
    """The rows of `ids`, replicated: said explicitly, as jax 0.9's Explicit axes require."""
    return _gather(table, ids, NamedSharding(table.sharding.mesh, P()))


@functools.partial(jax.jit, static_argnums=2)
def _gather(table: jax.Array, ids: jax.Array, out: NamedSharding) -> jax.Array:
    return table.at[ids].get(out_sharding=out)
'''


def flax_tree(folder: Path, change: str) -> Path:
    """A flax 0.12.6 source tree made of the released wheel's own files, with `change` made to nnx.Linear."""
    site = folder / "site"
    if not site.exists():
        subprocess.run([shutil.which("uv") or "uv", "pip", "install", "--quiet", "--no-deps", "--target", str(site),
                        "flax==0.12.6"], check=True)
    tree = folder / "flax"
    shutil.rmtree(tree, ignore_errors=True)
    shutil.copytree(site / "flax", tree / "src" / "flax", ignore=shutil.ignore_patterns("__pycache__"))
    metadata = (site / "flax-0.12.6.dist-info" / "METADATA").read_text(encoding="utf-8").splitlines()
    requires = [line.partition(":")[2].strip() for line in metadata
                if line.startswith("Requires-Dist:") and "extra ==" not in line]
    (tree / "pyproject.toml").write_text(
        '[build-system]\nrequires = ["uv_build>=0.8,<0.14"]\nbuild-backend = "uv_build"\n\n'
        f'[project]\nname = "flax"\nversion = "0.12.6"\nrequires-python = ">=3.11"\ndependencies = {requires!r}\n',
        encoding="utf-8")
    linear = tree / "src" / "flax" / "nnx" / "nn" / "linear.py"
    text = linear.read_text(encoding="utf-8")
    start = text.index("class Linear(Module)")
    end = text.index("    return y\n", start)
    linear.write_text(text[:end] + f"    return {change}\n" + text[end + len("    return y\n"):], encoding="utf-8")
    return tree


project = copied_project(FIXTURE, "tinytrainer")


@pytest.fixture(scope="module")
def unsafe(project: Path, out: Path) -> subprocess.CompletedProcess[str]:
    return nox("-s", "upgrade", "jax==0.9.2", "--project", str(project), out=out)


@pytest.mark.e2e
def test_the_project_is_unsafe_on_jax_0_9_naming_the_one_case_that_breaks(
    unsafe: subprocess.CompletedProcess[str], out: Path
) -> None:
    text = unsafe.stdout + unsafe.stderr
    assert unsafe.returncode == 1, text[-3000:]
    # The baseline is the project's lock: jax 0.8.3, flax 0.12.6, and optax at its locked 0.2.5 (0.2.8 exists).
    assert "baseline  jax0.8.3-flax0.12.6-py3.11\ncandidate jax0.9.2-flax0.12.6-py3.11" in text
    assert "\nUNSAFE\n" in text and "Regressions (passing → broken): 1 case(s) from 1 cause(s)" in text
    assert f"cases: {BREAKING}\n" in text and "ShardingTypeError" in text
    freezes = sorted((out / "results").glob("*/jax0.8.3-flax0.12.6-py3.11.freeze.txt"))
    assert "optax==0.2.5" in freezes[-1].read_text().splitlines()
    assert "the bump moved nothing else" in text or "the bump also moved: " in text
    # Every test ran, the one needing the project's pytest settings (its pythonpath) and root conftest included.
    assert "4/4 cases, " in text and "3 passed, 1 failed" in text


@pytest.mark.e2e
def test_written_with_out_sharding_it_is_safe_and_the_edit_is_run_not_reused(
    unsafe: subprocess.CompletedProcess[str], project: Path, out: Path
) -> None:
    embed = project / "src" / "tinytrainer" / "embed.py"
    text = embed.read_text(encoding="utf-8")
    assert GATHER in text
    text = text.replace("import jax\n", "import functools\n\nimport jax\n", 1)
    embed.write_text(text.replace(GATHER, GATHER_WITH_OUT_SHARDING), encoding="utf-8")
    done = nox("-s", "upgrade", "jax==0.9.2", "--project", str(project), out=out)
    text = done.stdout + done.stderr
    assert done.returncode == 0, text[-3000:]
    assert "\nSAFE\n" in text and "reused" not in text  # the edit is a new fingerprint for both cells


@pytest.mark.e2e
def test_without_the_project_the_same_tests_are_inconclusive_with_the_hint(project: Path, out: Path) -> None:
    done = nox("-s", "upgrade", "jax==0.9.2", "--baseline", "jax==0.8.3,flax==0.12.6", "--cases",
               str(project / "tests"), out=out)
    text = done.stdout + done.stderr
    assert done.returncode == 2, text[-3000:]
    assert "INCONCLUSIVE" in text
    assert "No module named 'tinytrainer' in both cells: is the project installed? (--project DIR)" in text


@pytest.mark.e2e
def test_a_flax_branch_breaks_as_a_regression_named_by_its_source_and_an_edit_reruns(
    unsafe: subprocess.CompletedProcess[str], project: Path, out: Path, tmp_path_factory: pytest.TempPathFactory
) -> None:
    folder = tmp_path_factory.mktemp("branch")
    tree = flax_tree(folder, "y + 1")
    done = nox("-s", "upgrade", f"flax @ {tree.as_uri()}", "--project", str(project), out=out)
    text = done.stdout + done.stderr
    assert done.returncode == 1, text[-3000:]
    assert "candidate jax0.8.3-flax0.12.6+tree." in text and f"cases: {FLAX_BREAKING}\n" in text
    assert "Regressions (passing → broken): 1 case(s) from 1 cause(s)" in text
    first = next(line for line in text.splitlines() if line.startswith("candidate ")).split()[1]
    freeze = next((out / "results").glob(f"*/{first}.freeze.txt")).read_text()
    assert f"# flax 0.12.6 from {tree.as_uri()} (tree." in freeze

    flax_tree(folder, "y + 2")  # a second edit: a new cell, run, never served the first one's results
    done = nox("-s", "matrix", "--cells", "jax0.8.1-flax0.12.6-py3.11", "--override", f"flax @ {tree.as_uri()}",
               "--project", str(project), out=out)
    text = done.stdout + done.stderr
    ran = [line for line in text.splitlines() if line.startswith("jax0.8.1-flax0.12.6+tree.") and ": 4/4 cases" in line]
    assert len(ran) == 1 and ran[0].split("-")[1] != first.split("-")[1], text[-3000:]
    assert "1 failed" in ran[0] and "reused" not in ran[0]
