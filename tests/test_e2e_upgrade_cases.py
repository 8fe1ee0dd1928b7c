"""End to end, with real uv-built cells: an upgrade judges what pytest collected from a user's `--cases` folder
(class-based tests and a test inherited from a base class in a helper module included), and a test edited between
two upgrade runs reruns instead of repeating the first answer. Slow (real cells): marked e2e.

The cells are old and cheap: jax 0.4.38 with flax 0.10.2 (the baseline) and jax 0.4.30 with it (the candidate).
A case that asserts the baseline's jax version passes there and fails on the candidate: a regression made to order.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PINS = ("jax==0.4.30", "--baseline", "jax==0.4.38,flax==0.10.2")
PASSES = "def test_version():\n    assert True\n"
BREAKS = "import jax\n\n\ndef test_version():\n    assert jax.__version__ == '0.4.38', jax.__version__\n"
BASE = """import jax


class VersionChecks:
    def test_inherited_version(self):
        self.assertEqual(jax.__version__, "0.4.38")

    def test_inherited_passes(self):
        self.assertTrue(True)
"""
CLASSES = """import unittest

import pytest

from base_checks import VersionChecks


class VersionTest(VersionChecks, unittest.TestCase):
    def test_own(self):
        self.assertEqual(1 + 1, 2)


class TestParametrized:
    @pytest.mark.parametrize("n", [1, 2])
    def test_n(self, n):
        assert n > 0
"""


def upgrade(cases: Path, out: Path) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "SHARDMATRIX_RUN_ID"}
    return subprocess.run([sys.executable, "-m", "nox", "-s", "upgrade", "--", *PINS, "--cases", str(cases), "--out",
                           str(out)], cwd=ROOT, env=env, capture_output=True, text=True, timeout=1500, check=False)


@pytest.mark.e2e
def test_a_test_edited_between_two_upgrades_reruns_and_changes_the_answer(out: Path, tmp_path: Path) -> None:
    cases = tmp_path / "edited"
    cases.mkdir()
    (cases / "test_edited.py").write_text(PASSES, encoding="utf-8")
    first = upgrade(cases, out)
    assert first.returncode == 0, (first.stdout + first.stderr)[-3000:]
    assert "\nSAFE\n" in first.stdout
    (cases / "test_edited.py").write_text(BREAKS, encoding="utf-8")
    second = upgrade(cases, out)
    text = second.stdout + second.stderr
    # Before, both cells were reused by id ("reusing results of run ...") and the old SAFE came back.
    assert second.returncode == 1, text[-3000:]
    assert "\nUNSAFE\n" in text and "reused from run" not in text
    assert "test_edited::test_version" in (out / "report" / "compare.md").read_text(encoding="utf-8")


@pytest.mark.e2e
def test_a_class_based_suite_is_judged_case_by_case_and_its_regression_is_unsafe(out: Path, tmp_path: Path) -> None:
    cases = tmp_path / "classes"
    cases.mkdir()
    (cases / "base_checks.py").write_text(BASE, encoding="utf-8")
    (cases / "test_classes.py").write_text(CLASSES, encoding="utf-8")
    done = upgrade(cases, out)
    text = done.stdout + done.stderr
    # Before, a source scan found no case in this folder: both cells read 0/0 cases and the answer was SAFE.
    assert done.returncode == 1, text[-3000:]
    assert "\nUNSAFE\n" in text
    # Every collected test has a record in both cells (the inherited ones and each parameter), and each was judged.
    assert re.search(r"jax0\.4\.38-flax0\.10\.2-py3\.11: 5/5 cases, \d+ s: 5 passed \(", text), text[-3000:]
    assert re.search(r"jax0\.4\.30-flax0\.10\.2-py3\.11: 5/5 cases, \d+ s: 4 passed, 1 failed \(", text)
    assert re.search(r"\nNot judged \([^)]*\): 0\n", text) and "\nRecorded on one side only: 0\n" in text
    compare_md = (out / "report" / "compare.md").read_text(encoding="utf-8")
    assert "test_classes::VersionTest::test_inherited_version" in compare_md
    assert "Regressions (passing → broken): 1 case(s)" in text
