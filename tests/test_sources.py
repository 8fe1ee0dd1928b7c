"""Direct references: what counts as one, a tree built once per content and named by it, a wheel, bad ones."""

from __future__ import annotations

from pathlib import Path

import pytest

from harness.host import sources

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
    assert sources.is_reference(spec) is expected


def test_a_tree_is_built_once_per_content_and_named_by_it(tmp_path: Path) -> None:
    src, built = tree(tmp_path / "flax"), tmp_path / "built"
    first = sources.resolve(f"flax @ {src.as_uri()}", built)
    assert (first.package, first.version) == ("flax", "0.12.6")
    assert first.label.startswith("tree.") and first.tag == f"0.12.6+{first.label}"
    assert first.requirement.startswith("flax @ file://") and first.requirement.endswith(".whl")
    wheel = Path(first.requirement.partition("file://")[2])
    stamp = wheel.stat().st_mtime_ns
    assert sources.resolve(f"flax @ {src.as_uri()}", built) == first
    assert wheel.stat().st_mtime_ns == stamp  # not rebuilt
    tree(src, "VALUE = 2\n")
    edited = sources.resolve(f"flax @ {src.as_uri()}", built)
    assert edited.label != first.label and edited.requirement != first.requirement


def test_a_wheel_is_named_by_its_bytes(tmp_path: Path) -> None:
    built = sources.resolve(f"flax @ {tree(tmp_path / 'flax').as_uri()}", tmp_path / "built")
    wheel = Path(built.requirement.partition("file://")[2])
    origin = sources.resolve(f"flax @ {wheel.as_uri()}", tmp_path / "built")
    assert origin.version == "0.12.6" and origin.label.startswith("wheel.")


def test_a_missing_source_is_refused_in_one_line(tmp_path: Path) -> None:
    with pytest.raises(sources.SourceError, match=r"no such file or folder .*nowhere$"):
        sources.resolve(f"flax @ {(tmp_path / 'nowhere').as_uri()}", tmp_path / "built")


def test_a_source_that_does_not_build_says_why_in_one_line(tmp_path: Path) -> None:
    broken = tree(tmp_path / "flax")
    (broken / "pyproject.toml").write_text(PYPROJECT.replace('version = "0.12.6"', 'version = "not a version"'))
    with pytest.raises(sources.SourceError, match=r"does not build: ") as caught:
        sources.resolve(f"flax @ {broken.as_uri()}", tmp_path / "built")
    assert "\n" not in str(caught.value)


def test_a_tree_of_another_package_is_refused(tmp_path: Path) -> None:
    with pytest.raises(sources.SourceError, match="builds flax, not jax"):
        sources.resolve(f"jax @ {tree(tmp_path / 'flax').as_uri()}", tmp_path / "built")
