"""What the end-to-end tests share: a nox session run from this checkout, and a copy of a fixture project."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parent.parent


def nox(*args: str, out: Path) -> subprocess.CompletedProcess[str]:
    """`nox <first two args> -- <the rest> --out OUT` from the checkout, as a user runs it (a run id of its own)."""
    env = {k: v for k, v in os.environ.items() if k != "SHARDMATRIX_RUN_ID"}
    return subprocess.run([sys.executable, "-m", "nox", *args[:2], "--", *args[2:], "--out", str(out)], cwd=ROOT,
                          env=env, capture_output=True, text=True, timeout=1500, check=False)


def copied_project(fixture: Path, name: str) -> Any:
    """A module-scoped `project` fixture: one copy of a fixture project (project_copy) shared by a module's tests."""

    @pytest.fixture(scope="module")
    def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
        return project_copy(tmp_path_factory, fixture, name)

    return project


def project_copy(factory: pytest.TempPathFactory, fixture: Path, name: str) -> Path:
    """A copy of a fixture project in a folder `name`, as a user's checkout the test may edit."""
    copy = factory.mktemp("checkout") / name
    shutil.copytree(fixture, copy, ignore=shutil.ignore_patterns("__pycache__", ".venv"))
    return copy
