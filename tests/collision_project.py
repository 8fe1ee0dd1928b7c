"""The one collision project: a project whose own top-level packages are named `reports`, `harness` and `cases`, and
whose tests folder is a package named `tests`, with a test that passes only where its own modules answer it.

The collision tests (built cells, installed mode) make it here, so they all ask the same of a cell."""

from __future__ import annotations

from pathlib import Path

#: The node id of the test that asserts the project's own modules answer.
OWN = "test_own_modules::test_the_projects_own_modules_answer"
OWN_TEST = '''import cases
import harness
import reports
from harness.steps import warmup

import tests


def test_the_projects_own_modules_answer() -> None:
    assert (reports.ORIGIN, cases.ORIGIN, tests.ORIGIN, harness.ORIGIN) == ("tinytrainer",) * 4
    assert warmup(10) == [0, 1, 2, 3, 4]
'''
#: The project's own `harness`: a package with a module of its own, as a trainer's training harness would be.
OWN_HARNESS = {"__init__.py": 'ORIGIN = "tinytrainer"\n',
               "steps.py": "def warmup(total: int) -> list[int]:\n    return list(range(total // 2))\n"}


def add_own_packages(project: Path) -> Path:
    """Give `project` its own `reports`, `cases`, `harness` and `tests` packages and the test of them; `project`."""
    for package in ("reports", "cases", "tests"):
        (project / package).mkdir(parents=True, exist_ok=True)
        (project / package / "__init__.py").write_text('ORIGIN = "tinytrainer"\n', encoding="utf-8")
    (project / "harness").mkdir()
    for name, text in OWN_HARNESS.items():
        (project / "harness" / name).write_text(text, encoding="utf-8")
    (project / "tests" / "test_own_modules.py").write_text(OWN_TEST, encoding="utf-8")
    return project
