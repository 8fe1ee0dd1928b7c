from __future__ import annotations

import importlib.metadata
import platform
import sys
from pathlib import Path

import pytest

from harness.cell import health


def package(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str, source: str) -> None:
    (tmp_path / name).mkdir()
    (tmp_path / name / "__init__.py").write_text(source)
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setitem(sys.modules, name, None)  # so that the fake is forgotten after the test
    del sys.modules[name]


def test_a_cell_whose_packages_import_and_backend_starts_is_usable(tmp_path: Path, monkeypatch) -> None:
    package(tmp_path, monkeypatch, "fakejax_ok", "def devices():\n    return [object()]\n")
    assert health.check(("fakejax_ok",)) is None


def test_a_package_that_fails_to_import_is_named(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    package(tmp_path, monkeypatch, "fakeflax_broken", "raise ImportError('cannot import name x')\n")
    problem = health.check(("fakeflax_broken",))
    assert problem is not None
    assert problem.reason == "the cell's packages failed to import: fakeflax_broken: ImportError: cannot import name x"


def test_a_backend_that_cannot_start_is_the_problem(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    package(tmp_path, monkeypatch, "jax", "def devices():\n    raise RuntimeError('no backend\\ndetails')\n")
    problem = health.check(("jax",))
    assert problem is not None and isinstance(problem.cause, RuntimeError)
    assert problem.reason == "backend failed to start: RuntimeError: no backend"


def test_a_package_that_is_not_installed_is_not_checked() -> None:
    assert health.check(("a_package_that_is_not_installed_xyz",)) is None


def test_missing_name_pair() -> None:
    try:
        from pytest import no_such_name_xyz  # type: ignore[attr-defined]  # noqa: F401
    except ImportError as exc:
        missing = health.missing_name(exc)
    assert missing == f"pytest has no no_such_name_xyz (pytest {importlib.metadata.version('pytest')})"
    assert health.missing_name(ModuleNotFoundError("No module named 'json.gone'", name="json.gone")) == (
        f"json has no gone (python {platform.python_version()})")
    # Not a missing name: a package that is not installed at all, a plain error.
    assert health.missing_name(ModuleNotFoundError("No module named 'xyz_absent'", name="xyz_absent")) is None
    assert health.missing_name(ImportError("cannot import name 'a' from 'xyz_absent' (unknown location)")) is None
    assert health.missing_name(ValueError("cannot import name 'a' from 'json'")) is None
