"""harness.host.corpus: what --cases entries resolve to, read from source."""

from __future__ import annotations

from pathlib import Path

import pytest
from matrix_factory import case_folder

from harness.cell import known
from harness.host import corpus, matrix


def test_case_paths_builtin_and_folder(tmp_path: Path) -> None:
    paths = corpus.case_paths(["builtin", str(case_folder(tmp_path))])
    assert all(p.suffix == ".py" and p.parent.name == "cases" for p in paths[:-1])
    assert paths[-1] == tmp_path / "mine"
    with pytest.raises(corpus.CorpusError, match="--cases nowhere: no such folder"):
        corpus.case_paths(["nowhere"])


def test_expected_cases_from_folder(tmp_path: Path) -> None:
    expected = [("test_one::test_a", "test_one"), ("test_one::test_b", "test_one")]
    assert corpus.expected_cases([case_folder(tmp_path)]) == expected


def test_one_folder_given_twice_is_one_corpus(tmp_path: Path) -> None:
    folder = str(case_folder(tmp_path))
    assert corpus.case_paths([folder, folder]) == [tmp_path / "mine"]


def test_test_files_of_one_name_are_told_apart_by_the_end_of_their_path(tmp_path: Path) -> None:
    """A project's tests/core beside tests/deprecated/v1, each with a test_one.py (penzai's misc_util_test.py): each
    is named by the shortest end of its path no other one ends with; a file of a name of its own keeps its stem."""
    folder = case_folder(tmp_path)
    for deeper in ("core", "deprecated/v1"):
        (folder / deeper).mkdir(parents=True)
        (folder / deeper / "test_one.py").write_text("def test_c(): ...\n")
    (folder / "core" / "test_own.py").write_text("def test_d(): ...\n")
    assert corpus.case_paths([str(folder)]) == [folder]  # no longer refused
    names = corpus.qualified_names([folder])
    assert names == {(folder / "test_one.py").resolve(): "mine/test_one",
                     (folder / "core" / "test_one.py").resolve(): "core/test_one",
                     (folder / "deprecated" / "v1" / "test_one.py").resolve(): "v1/test_one"}
    assert sorted(case for case, _ in corpus.expected_cases([folder])) == [
        "core/test_one::test_c", "mine/test_one::test_a", "mine/test_one::test_b", "test_own::test_d",
        "v1/test_one::test_c"]


def test_the_shipped_corpus_keeps_its_stem_ids_beside_test_files_that_share_a_name(tmp_path: Path) -> None:
    """Pair of the above: only files whose stem another shares are named by their path; the shipped corpus's ids
    stay <stem>::<test> (stored results and known breakages name them so), whatever folder runs beside it."""
    folder = case_folder(tmp_path)
    (folder / "core").mkdir()
    (folder / "core" / "test_one.py").write_text("def test_c(): ...\n")
    paths = corpus.case_paths(["builtin", str(folder)])
    shipped = [case for case, _ in corpus.expected_cases(paths) if not case.startswith(("mine/", "core/"))]
    assert shipped and all("/" not in case.partition("::")[0] for case in shipped)
    assert shipped == [case for case, _ in corpus.expected_cases(corpus.case_paths(["builtin"]))]


def test_expected_cases_of_a_node_id_is_that_one_case(tmp_path: Path) -> None:
    folder = case_folder(tmp_path)
    node = Path(f"{folder / 'test_one.py'}::test_b")
    assert corpus.expected_cases([node]) == [("test_one::test_b", "test_one")]


CLASS_SUITE = ("import unittest\n\nfrom elsewhere import parameterized\n\n\n"
               "class _Base(unittest.TestCase):\n    def test_inherited(self): ...\n\n\n"
               "class ClippingTest(_Base):\n    def test_clip(self): ...\n\n\n"
               "class GeneratedTest(parameterized.TestCase):\n"
               "    @parameterized.parameters(1, 2)\n    def test_many(self, n): ...\n")
CELL = matrix.parse('[[cell]]\njax="0.4.38"\njaxlib="0.4.38"\nflax="0.10.2"\npython="3.11"\n')[0]


def stale_of(tmp_path: Path, *cases: str) -> list[str]:
    folder = tmp_path / "suite"
    folder.mkdir()
    (folder / "clipping_test.py").write_text(CLASS_SUITE)
    entry = '[[breakage]]\ncase = "{}"\nreason = "r"\nlink = "https://example.org"\n\n'
    (folder / known.FILENAME).write_text("".join(entry.format(case) for case in cases))
    return corpus.stale_known_breakages([CELL], [str(folder)])


def test_a_known_breakage_naming_a_class_test_is_not_stale(tmp_path: Path) -> None:
    # Before, the scan saw no unittest class and called these stale.
    assert stale_of(tmp_path, "clipping_test::ClippingTest::test_clip", "clipping_test::ClippingTest::test_inherited",
                    "clipping_test::GeneratedTest::test_many0") == []


def test_a_known_breakage_naming_a_class_test_that_is_gone_is_stale(tmp_path: Path) -> None:
    assert stale_of(tmp_path, "clipping_test::ClippingTest::test_renamed") == [
        f"{known.FILENAME}: clipping_test::ClippingTest::test_renamed: stale, no such case"]


def test_expected_cases_count_class_tests_own_and_inherited(tmp_path: Path) -> None:
    stale_of(tmp_path)
    assert [case for case, _ in corpus.expected_cases([tmp_path / "suite"])] == [
        "clipping_test::_Base::test_inherited", "clipping_test::ClippingTest::test_inherited",
        "clipping_test::ClippingTest::test_clip"]


def project_with_tests(tmp_path: Path, test: str, own_harness: bool) -> Path:
    """A project whose tests folder holds one test module (`test`), with or without its own top-level `harness`."""
    root = tmp_path / "proj"
    (root / "tests").mkdir(parents=True)
    (root / "tests" / "test_own.py").write_text(test, encoding="utf-8")
    if own_harness:
        (root / "src" / "harness").mkdir(parents=True)
        (root / "src" / "harness" / "__init__.py").write_text("", encoding="utf-8")
    return root


def test_the_shipped_corpus_asks_for_the_case_api_and_a_plain_folder_does_not(tmp_path: Path) -> None:
    assert corpus.case_api_wanted(corpus.case_paths(["builtin"]))
    assert not corpus.case_api_wanted([case_folder(tmp_path)])


def test_a_helper_beside_the_cases_or_one_node_id_is_enough_to_ask(tmp_path: Path) -> None:
    folder = case_folder(tmp_path)
    (folder / "_support.py").write_text("from harness import case\n", encoding="utf-8")
    assert corpus.case_api_wanted([folder])
    assert corpus.case_api_wanted([Path(f"{corpus.case_paths(['builtin'])[0]}::test_x")])


def test_a_project_whose_tests_import_harness_asks_only_without_a_harness_of_its_own(tmp_path: Path) -> None:
    uses = "from harness.case import case\n"
    ours = project_with_tests(tmp_path / "a", uses, own_harness=False)
    assert corpus.case_api_wanted([ours / "tests"], ours)
    theirs = project_with_tests(tmp_path / "b", uses, own_harness=True)
    assert corpus.own_harness(theirs) == theirs / "src" / "harness"
    assert not corpus.case_api_wanted([theirs / "tests"], theirs)


def test_a_projects_own_harness_beside_the_shipped_corpus_is_refused_in_one_line(tmp_path: Path) -> None:
    root = project_with_tests(tmp_path, "import harness.loops\n", own_harness=True)
    with pytest.raises(corpus.CorpusError, match=r"^proj has its own top-level package `harness` \(.*src/harness\), "
                       r"and .*cases/\w+\.py imports shardmatrix's case API as `harness.case`: one cell cannot"):
        corpus.case_api_wanted([root / "tests", *corpus.case_paths(["builtin"])], root)
    assert not corpus.case_api_wanted([root / "tests"], root)
    assert corpus.own_harness(tmp_path) is None


def ranged_stale_of(tmp_path: Path, jax_range: str, cells: list[str]) -> list[str]:
    folder = tmp_path / "suite"
    folder.mkdir(parents=True)
    (folder / "test_toy.py").write_text("def test_x():\n    pass\n")
    (folder / known.FILENAME).write_text(
        f'[[breakage]]\ncase = "test_toy::test_x"\njax = "{jax_range}"\nreason = "r"\nlink = "https://example.org"\n')
    chosen = matrix.parse("".join(f'[[cell]]\njax="{v}"\njaxlib="{v}"\nflax="0.10.2"\npython="3.11"\n' for v in cells))
    return corpus.stale_known_breakages(chosen, [str(folder)])


def test_a_known_breakage_in_a_window_the_cells_step_over_is_not_stale(tmp_path: Path) -> None:
    # jax 0.4.34 and 0.4.35 had the bug; the grid samples 0.4.30 and 0.4.38, the range checker probes between them.
    assert ranged_stale_of(tmp_path, ">=0.4.34,<0.4.36", ["0.4.30", "0.4.38"]) == []


def test_a_known_breakage_every_cell_has_moved_past_is_stale(tmp_path: Path) -> None:
    assert ranged_stale_of(tmp_path, ">=0.4.34,<0.4.36", ["0.4.38", "0.5.3"]) == [
        f"{known.FILENAME}: test_toy::test_x: no selected cell is in its version range"]
    assert ranged_stale_of(tmp_path / "open", "<0.4.36", ["0.4.38"]) != []
