"""Shared test configuration: pytester drives the plugin in throwaway pytest sessions; durations stay per test."""

from __future__ import annotations

from pathlib import Path

import pytest

from harness.case import MARKER
from harness.host import durations, homes

pytest_plugins = ["pytester"]
#: The plugin as pytester's sessions load it: by its module name, as a cell loads its staged copy
#: (`-p shardmatrix_cell.cell.plugin`); the shardmatrix distribution has no pytest11 entry point (pyproject.toml).
PLUGIN = "harness.cell.plugin"


def pytest_configure(config: pytest.Config) -> None:
    """Declare the marker @case gives (the plugin declares it where it is loaded): this suite's own tests define cases
    without the plugin, which their pytest runs of tests/faults load by module name (two copies would clash)."""
    config.addinivalue_line("markers", f"{MARKER}: a shardmatrix case (harness.case); the plugin reads it in a cell")


# Deliberately broken cases, run only through the harness by test_faults.py; downstream projects, only in cells.
collect_ignore = ["faults", "downstream", "tptrainer", "werror_project", "owncount_project", "locks"]


@pytest.fixture(autouse=True)
def durations_folder(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Cells finished by a test keep their durations in a folder of the test's own, never in this checkout's .nox
    (where they would order the next real matrix)."""
    folder = tmp_path_factory.mktemp("durations")
    monkeypatch.setattr(durations, "FOLDER", folder)
    return folder


@pytest.fixture(autouse=True)
def project_homes(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A project's own files (harness.host.homes) go to a folder of the test's own, never the user's ~/.local/state."""
    folder = tmp_path_factory.mktemp("homes")
    monkeypatch.setenv(homes.HOME_ENV, str(folder))
    return folder


@pytest.fixture(scope="module")
def out(tmp_path_factory: pytest.TempPathFactory, request: pytest.FixtureRequest) -> Path:
    """A test module's own output folder, shared by its tests: an end-to-end module builds its cells once."""
    return tmp_path_factory.mktemp(request.module.__name__.removeprefix("test_"))


@pytest.fixture
def pytester(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> pytest.Pytester:
    """pytester whose sessions, in process or not, load the plugin (PYTEST_PLUGINS); `-p no:harness.cell.plugin`
    leaves it out."""
    monkeypatch.setenv("PYTEST_PLUGINS", PLUGIN)
    return pytester
