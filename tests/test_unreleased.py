"""Direct references: what counts as one, a tree built once per content and named by it, a wheel, bad ones."""

from __future__ import annotations

import subprocess
import zipfile
from pathlib import Path

import pytest

from harness.host import unreleased
from harness.host.matrix import Origin

PYPROJECT = """[build-system]
requires = ["uv_build>=0.8,<0.14"]
build-backend = "uv_build"

[project]
name = "flax"
version = "0.12.6"
"""


def tree(root: Path, text: str = "VALUE = 1\n") -> Path:
    (root / "src" / "flax").mkdir(parents=True, exist_ok=True)
    (root / "pyproject.toml").write_text(PYPROJECT)
    (root / "src" / "flax" / "__init__.py").write_text(text)
    return root


@pytest.mark.parametrize(("spec", "expected"), [
    ("flax @ file:///src/flax", True), ("flax @ git+https://github.com/google/flax@main", True),
    ("flax==0.12.6", False), ("jax==0.9.2", False),
])
def test_a_direct_reference_is_told_from_a_pin(spec: str, expected: bool) -> None:
    assert unreleased.is_reference(spec) is expected


def test_a_tree_is_built_once_per_content_and_named_by_it(tmp_path: Path) -> None:
    src, built = tree(tmp_path / "flax"), tmp_path / "built"
    first = unreleased.resolve(f"flax @ {src.as_uri()}", built)
    assert (first.package, first.version) == ("flax", "0.12.6")
    assert first.label.startswith("tree.") and first.tag == f"0.12.6+{first.label}"
    assert first.requirement.startswith("flax @ file://") and first.requirement.endswith(".whl")
    wheel = Path(first.requirement.partition("file://")[2])
    stamp = wheel.stat().st_mtime_ns
    assert unreleased.resolve(f"flax @ {src.as_uri()}", built) == first
    assert wheel.stat().st_mtime_ns == stamp  # not rebuilt
    tree(src, "VALUE = 2\n")
    edited = unreleased.resolve(f"flax @ {src.as_uri()}", built)
    assert edited.label != first.label and edited.requirement != first.requirement


def test_a_wheel_is_named_by_its_bytes(tmp_path: Path) -> None:
    built = unreleased.resolve(f"flax @ {tree(tmp_path / 'flax').as_uri()}", tmp_path / "built")
    wheel = Path(built.requirement.partition("file://")[2])
    origin = unreleased.resolve(f"flax @ {wheel.as_uri()}", tmp_path / "built")
    assert origin.version == "0.12.6" and origin.label.startswith("wheel.")


def test_a_missing_source_is_refused_in_one_line(tmp_path: Path) -> None:
    with pytest.raises(unreleased.SourceError, match=r"no such file or folder .*nowhere$"):
        unreleased.resolve(f"flax @ {(tmp_path / 'nowhere').as_uri()}", tmp_path / "built")


def test_a_source_that_does_not_build_says_why_in_one_line(tmp_path: Path) -> None:
    broken = tree(tmp_path / "flax")
    (broken / "pyproject.toml").write_text(PYPROJECT.replace('version = "0.12.6"', 'version = "not a version"'))
    with pytest.raises(unreleased.SourceError, match=r"does not build: ") as caught:
        unreleased.resolve(f"flax @ {broken.as_uri()}", tmp_path / "built")
    assert "\n" not in str(caught.value)


def test_a_tree_of_another_package_is_refused(tmp_path: Path) -> None:
    with pytest.raises(unreleased.SourceError, match="builds flax, not jax"):
        unreleased.resolve(f"jax @ {tree(tmp_path / 'flax').as_uri()}", tmp_path / "built")


def repository(root: Path) -> tuple[Path, list[str]]:
    """A git repository of the tree with two commits (VALUE = 1, then 2) on its default branch, tagged v1 at the
    first; its commit ids, oldest first."""
    def git(*args: str) -> str:
        return subprocess.run(["git", "-C", str(root), *args], capture_output=True, text=True, check=True).stdout

    tree(root)
    git("init", "--quiet")
    git("add", ".")
    git("-c", "user.name=t", "-c", "user.email=t@t", "commit", "--quiet", "-m", "one")
    git("tag", "v1")
    tree(root, "VALUE = 2\n")
    git("-c", "user.name=t", "-c", "user.email=t@t", "commit", "--quiet", "-am", "two")
    return root, [line.strip() for line in git("rev-list", "--reverse", "HEAD").splitlines()]


def built_value(origin: Origin) -> str:
    wheel = Path(origin.requirement.partition("file://")[2])
    with zipfile.ZipFile(wheel) as archive:
        return archive.read("flax/__init__.py").decode()


@pytest.mark.parametrize("ref", ["", "@v1", "@FIRST", "@FIRST_ABBREVIATED"])
def test_a_git_url_is_built_at_the_ref_it_names(tmp_path: Path, ref: str) -> None:
    repo, (first, second) = repository(tmp_path / "flax")
    ref = ref.replace("FIRST_ABBREVIATED", first[:10]).replace("FIRST", first)
    origin = unreleased.resolve(f"flax @ git+{repo.as_uri()}{ref}", tmp_path / "built")
    commit, value = (second, "VALUE = 2\n") if not ref else (first, "VALUE = 1\n")
    assert built_value(origin) == value
    assert (origin.label, origin.version) == (f"git.{commit[:8]}", "0.12.6")  # the commit names the cell


def test_a_git_ref_nobody_has_is_refused_in_one_line(tmp_path: Path) -> None:
    repo, _ = repository(tmp_path / "flax")
    with pytest.raises(unreleased.SourceError, match=r"cannot be cloned: .*no-such-branch") as caught:
        unreleased.resolve(f"flax @ git+{repo.as_uri()}@no-such-branch", tmp_path / "built")
    assert "\n" not in str(caught.value)
