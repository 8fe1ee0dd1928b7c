"""harness.host.testclasses: the tests of class-based suites, read from source, in pairs (what pytest collects, and
what it does not or what the source cannot show)."""

from __future__ import annotations

from pathlib import Path

from harness.host.testclasses import class_tests

ABSL = '''
from absl.testing import absltest, parameterized


class _Base(absltest.TestCase):
    __test__ = False

    def test_inherited(self): ...


class ClippingTest(_Base):
    def test_clip(self): ...

    def helper(self): ...


class NotATest:
    def test_ignored(self): ...
'''


def write(folder: Path, name: str, text: str) -> Path:
    path = folder / name
    path.write_text(text)
    return path


def test_a_testcase_subclass_and_what_it_inherits_in_the_module_are_found(tmp_path: Path) -> None:
    found = class_tests(write(tmp_path, "clipping_test.py", ABSL))
    assert found.found == ["ClippingTest::test_inherited", "ClippingTest::test_clip"] and found.unknown == []


def test_a_plain_class_and_a_hidden_base_are_not_collected(tmp_path: Path) -> None:
    found = class_tests(write(tmp_path, "clipping_test.py", ABSL)).found
    assert not any(test.startswith(("NotATest::", "_Base::")) for test in found)


def test_tests_inherited_from_a_sibling_helper_module_are_found(tmp_path: Path) -> None:
    write(tmp_path, "_helpers.py", "import unittest\n\nclass Shared(unittest.TestCase):\n    __test__ = False\n\n"
          "    def test_shared(self): ...\n")
    by_name = write(tmp_path, "test_a.py", "from ._helpers import Shared\n\nclass ATest(Shared):\n"
                    "    def test_own(self): ...\n")
    by_module = write(tmp_path, "test_b.py", "import _helpers\n\nclass BTest(_helpers.Shared):\n    pass\n")
    assert class_tests(by_name).found == ["ATest::test_shared", "ATest::test_own"]
    assert class_tests(by_module).found == ["BTest::test_shared"]


def test_a_base_from_elsewhere_makes_its_class_unknown(tmp_path: Path) -> None:
    found = class_tests(write(tmp_path, "test_c.py", "from somewhere_else import Mixin\n\nclass CTest(Mixin):\n"
                              "    def test_own(self): ...\n"))
    assert found.unknown == ["CTest"]


def test_generated_test_names_make_their_class_unknown_but_keep_the_others(tmp_path: Path) -> None:
    found = class_tests(write(tmp_path, "test_d.py", "from absl.testing import parameterized\n\n"
                              "class DTest(parameterized.TestCase):\n"
                              "    @parameterized.parameters(1, 2)\n    def test_many(self, n): ...\n\n"
                              "    def test_one(self): ...\n\n"
                              "class TestPlain:\n    def test_p(self): ...\n"))
    assert found.found == ["DTest::test_one", "TestPlain::test_p"] and found.unknown == ["DTest"]


def test_a_module_that_does_not_parse_has_no_class_tests(tmp_path: Path) -> None:
    assert class_tests(write(tmp_path, "test_e.py", "class (:\n")).found == []
