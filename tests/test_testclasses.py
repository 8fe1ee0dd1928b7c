"""harness.host.testclasses: the tests of class-based suites, read from source, in pairs (what pytest collects, and
what it does not or what the source cannot show), and checked against pytest's own collection."""

from __future__ import annotations

from pathlib import Path

import pytest

from harness.host.testclasses import class_tests

SUITE = '''
import unittest

import _helpers
from _helpers import SharedTests


class _Base(unittest.TestCase):
    def test_inherited(self): ...


class ClippingTest(_Base):
    def test_clip(self): ...

    def helper(self): ...


class FromSibling(SharedTests, unittest.TestCase):
    def test_own(self): ...


class BySiblingModule(_helpers.SharedTests, unittest.TestCase):
    pass


class _Abstract(unittest.TestCase):
    __test__ = False

    def test_abstract(self): ...


class StillHidden(_Abstract):
    def test_hidden(self): ...


class ShownAgain(_Abstract):
    __test__ = True


class TestPlain:
    def test_p(self): ...


class TestPlainChild(TestPlain):
    def test_q(self): ...


class NotATest:
    def test_ignored(self): ...
'''
HELPERS = "class SharedTests:\n    def test_shared(self): ...\n"


def suite(folder: Path) -> Path:
    (folder / "_helpers.py").write_text(HELPERS)
    path = folder / "clipping_test.py"
    path.write_text(SUITE)
    return path


def test_the_scan_finds_what_pytest_collects_from_a_class_based_suite(pytester: pytest.Pytester) -> None:
    path = suite(pytester.path)
    collected = pytester.runpytest_subprocess("--collect-only", "-q", "-p", "no:cacheprovider", path.name)
    pytest_names = sorted(line.partition("::")[2] for line in collected.outlines if line.startswith(path.name))
    found = class_tests(path)
    assert sorted(found.found) == pytest_names and found.unknown == []
    assert "ClippingTest::test_inherited" in pytest_names and "FromSibling::test_shared" in pytest_names


def test_plain_classes_and_hidden_ones_are_not_collected(tmp_path: Path) -> None:
    found = class_tests(suite(tmp_path)).found
    assert not any(test.startswith(("NotATest::", "StillHidden::", "SharedTests::")) for test in found)
    assert "ShownAgain::test_abstract" in found


def test_a_base_from_elsewhere_makes_its_class_unknown(tmp_path: Path) -> None:
    path = tmp_path / "test_c.py"
    path.write_text("from somewhere_else import Mixin\n\nclass CTest(Mixin):\n    def test_own(self): ...\n")
    assert class_tests(path).unknown == ["CTest"]


def test_generated_test_names_make_their_class_unknown_but_keep_the_others(tmp_path: Path) -> None:
    path = tmp_path / "test_d.py"
    path.write_text("from absl.testing import parameterized\n\nclass DTest(parameterized.TestCase):\n"
                    "    @parameterized.parameters(1, 2)\n    def test_many(self, n): ...\n\n"
                    "    def test_one(self): ...\n")
    found = class_tests(path)
    assert found.found == ["DTest::test_one"] and found.unknown == ["DTest"]


def test_a_module_that_does_not_parse_has_no_class_tests(tmp_path: Path) -> None:
    path = tmp_path / "test_e.py"
    path.write_text("class (:\n")
    assert class_tests(path).found == []
