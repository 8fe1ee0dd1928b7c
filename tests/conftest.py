"""Shared test configuration: pytester drives the plugin in throwaway pytest sessions; durations stay per test."""

from __future__ import annotations

from pathlib import Path

import pytest

from harness.host import durations, homes

pytest_plugins = ["pytester"]

# Deliberately broken cases, run only through the harness by test_faults.py; downstream projects, only in cells.
collect_ignore = ["faults", "downstream", "tptrainer", "werror_project", "locks"]


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
