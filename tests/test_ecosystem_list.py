"""shardmatrix.ecosystem_list: the list of projects, read strictly (each rule with a passing and a failing input)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from shardmatrix import ecosystem_list
from shardmatrix.ecosystem_list import EcosystemListError

GOOD = """schema_version = 1

[[project]]
name = "alpha"
why = "shards its parameters"
source = "git"
repository = "https://example.org/alpha"
tests = ["tests"]
"""


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "ecosystem.toml"
    path.write_text(text)
    return path


def test_the_shipped_list_holds_at_least_ten_projects_each_saying_why() -> None:
    entries = ecosystem_list.load()
    assert len(entries) >= 10
    assert all(e.why and e.tests for e in entries)
    assert {e.source for e in entries} <= set(ecosystem_list.SOURCES)
    assert {"haliax", "penzai"} <= {e.name for e in entries if e.source == "sdist"}  # their sdists carry tests


def test_an_entry_takes_the_defaults_it_leaves_out(tmp_path: Path) -> None:
    (alpha,) = ecosystem_list.load(write(tmp_path, GOOD))
    assert (alpha.package, alpha.tag, alpha.at, alpha.devices) == ("alpha", "v{version}", "tag", 8)
    assert alpha.keyword_expression() == ecosystem_list.SHARDING  # the sharding-related tests by default
    assert alpha.keyword_expression(whole_suite=True) == ""


def test_env_and_a_suite_budget_are_taken_as_given(tmp_path: Path) -> None:
    """Pair of the refusals below: a table of text by variable name, seconds above 0."""
    (alpha,) = ecosystem_list.load(write(tmp_path, GOOD + 'env = { KERAS_BACKEND = "jax", TF_CPP_MIN_LOG_LEVEL = "3" }'
                                         "\nbudget = 90\nsuite_budget = 90\n"))
    assert alpha.env == (("KERAS_BACKEND", "jax"), ("TF_CPP_MIN_LOG_LEVEL", "3")) and alpha.suite_budget == 90.0
    (default,) = ecosystem_list.load(write(tmp_path, GOOD))
    assert default.env == () and default.suite_budget == ecosystem_list.DEFAULT_SUITE_BUDGET_S


def test_whole_true_runs_every_test(tmp_path: Path) -> None:
    (alpha,) = ecosystem_list.load(write(tmp_path, GOOD + "whole = true\n"))
    assert alpha.keyword_expression() == ""


def test_an_unknown_key_is_refused_in_one_line_naming_the_entry(tmp_path: Path) -> None:
    with pytest.raises(EcosystemListError, match=r"project 1 \(alpha\): unknown key 'test' \(keys: name,"):
        ecosystem_list.load(write(tmp_path, GOOD + 'test = ["x"]\n'))


def test_an_unknown_top_level_key_is_refused(tmp_path: Path) -> None:
    with pytest.raises(EcosystemListError, match=r"unknown key 'projects'"):
        ecosystem_list.load(write(tmp_path, GOOD.replace("[[project]]", "[[projects]]")))


def test_a_newer_schema_is_refused(tmp_path: Path) -> None:
    with pytest.raises(EcosystemListError, match=r"schema_version 2 is not 1"):
        ecosystem_list.load(write(tmp_path, GOOD.replace("schema_version = 1", "schema_version = 2")))


def test_a_missing_required_key_is_named(tmp_path: Path) -> None:
    with pytest.raises(EcosystemListError, match=r"'why' is required"):
        ecosystem_list.load(write(tmp_path, GOOD.replace('why = "shards its parameters"\n', "")))


@pytest.mark.parametrize(("line", "message"), [
    ('source = "svn"', r"source 'svn' is not one of git, sdist, wheel"),
    ('at = "yesterday"', r"at 'yesterday' is not one of tag, date"),
    ('tag = "release"', r"tag 'release' does not say where the version goes"),
    ("devices = 0", r"devices must be a whole number from 1 to 64 \(the simulated CPU devices of a cell\), got 0"),
    ("devices = 800", r"project 1 \(alpha\): devices must be a whole number from 1 to 64 .*got 800"),
    ("budget = -1", r"budget must be seconds above 0"),
    ('requires = ["not a requirement!"]', r"requires 'not a requirement!' is not a requirement"),
    ('keywords = " "', r"keywords is empty"),
    ("suite_budget = 0", r"suite_budget must be seconds above 0 and at most 86400, got 0"),
    ('env = ["KERAS_BACKEND=jax"]', r"env must be a table of NAME = \"value\""),
    ('env = { "1BAD" = "x" }', r"env '1BAD' is not a variable name"),
    ('env = { JAX_PLATFORMS = "cpu" }', r"env JAX_PLATFORMS is shardmatrix's or steers pytest itself"),
    # A test left out through pytest's own variable would be left out unreported (exclude is listed in the report).
    ('env = { PYTEST_ADDOPTS = "--deselect tests/test_a.py::test_b" }', r"env PYTEST_ADDOPTS is shardmatrix's or "
     r"steers pytest itself \(tests are left out with exclude"),
    ('env = { LD_PRELOAD = "/tmp/x.so" }', r"env LD_PRELOAD is shardmatrix's or steers pytest itself"),
    ("env = { KERAS_BACKEND = 1 }", r"env KERAS_BACKEND must be text, got 1"),
    # Attack 39b's B8: each passed, and JAX_DISABLE_JIT made a SAFE of tests that never reached jit's sharding.
    ('env = { JAX_DISABLE_JIT = "1" }', r"env JAX_DISABLE_JIT is a jax setting: it changes what the candidate is "
     r"judged on"),
    ('env = { JAX_ENABLE_CHECKS = "1" }', r"env JAX_ENABLE_CHECKS is a jax setting"),
    ('env = { PYTEST_DEBUG = "1" }', r"env PYTEST_DEBUG is shardmatrix's or steers pytest itself"),
    ('env = { PYTHONWARNINGS = "ignore" }', r"env PYTHONWARNINGS is shardmatrix's or steers pytest itself"),
])
def test_a_bad_value_is_refused_naming_the_key(tmp_path: Path, line: str, message: str) -> None:
    text = GOOD.replace('source = "git"', line) if line.startswith("source") else GOOD + line + "\n"
    with pytest.raises(EcosystemListError, match=message):
        ecosystem_list.load(write(tmp_path, text))


def test_tests_outside_the_project_are_refused(tmp_path: Path) -> None:
    with pytest.raises(EcosystemListError, match=r"tests must be folders inside the project"):
        ecosystem_list.load(write(tmp_path, GOOD.replace('tests = ["tests"]', 'tests = ["../elsewhere"]')))


def test_a_git_source_needs_its_repository_and_an_sdist_does_not(tmp_path: Path) -> None:
    without = GOOD.replace('repository = "https://example.org/alpha"\n', "")
    with pytest.raises(EcosystemListError, match=r"a git source needs 'repository'"):
        ecosystem_list.load(write(tmp_path, without))
    (alpha,) = ecosystem_list.load(write(tmp_path, without.replace('source = "git"', 'source = "sdist"')))
    assert alpha.source == "sdist"


def test_a_project_listed_twice_is_refused(tmp_path: Path) -> None:
    with pytest.raises(EcosystemListError, match=r"project 'alpha' is listed twice"):
        ecosystem_list.load(write(tmp_path, GOOD + GOOD.split("\n", 1)[1]))


def test_only_selects_listed_projects_and_refuses_an_unknown_one(tmp_path: Path) -> None:
    entries = ecosystem_list.load(write(tmp_path, GOOD))
    assert ecosystem_list.select(entries, ["alpha"]) == entries
    with pytest.raises(EcosystemListError, match=r"--only alhpa: no such project in the list \(alpha\)"):
        ecosystem_list.select(entries, ["alhpa"])


def test_malformed_toml_is_one_line(tmp_path: Path) -> None:
    with pytest.raises(EcosystemListError, match=r"malformed TOML"):
        ecosystem_list.load(write(tmp_path, "schema_version = \n"))


@pytest.mark.parametrize(("replace", "message"), [
    # The name names the project's fetched folder and its report file: it cannot step out of them.
    (('name = "alpha"', 'name = "../../elsewhere"'), r"name '\.\./\.\./elsewhere' must be letters, digits"),
    (('name = "alpha"', 'name = "a/b"'), r"name 'a/b' must be letters, digits"),
    # nan passed `budget <= 0`; inf would let a hanging suite hold its job forever.
    (("", "budget = nan"), r"budget must be seconds above 0 and at most 86400, got nan"),
    (("", "budget = inf"), r"budget must be seconds above 0 and at most 86400, got inf"),
    (("", "budget = 1e300"), r"budget must be seconds above 0 and at most 86400"),
    # str.format raised a KeyError or IndexError at fetch time, a traceback in the middle of a run.
    (("", 'tag = "v{version}-{build}"'), r"tag 'v\{version\}-\{build\}' does not say where the version goes"),
    (("", 'tag = "v{version}{0}"'), r"does not say where the version goes"),
    # The cell's jax and flax are the candidate's and the baseline's: a list that pins them contradicts both.
    (("", 'requires = ["jax==0.4.30"]'), r"requires 'jax==0\.4\.30': the candidate and the baseline decide"),
    (("", 'requires = ["Flax<0.10"]'), r"requires 'Flax<0\.10': the candidate and the baseline decide"),
    (("", 'package = "not a name!"'), r"package 'not a name!' is not a distribution name"),
    (("", 'whole = true\nkeywords = "mesh"'), r"whole = true runs every test, so its keywords would be ignored"),
    (('source = "git"', 'source = "sdist"\nat = "date"'), r"at applies to a git source only \(source is 'sdist'\)"),
    (('tests = ["tests"]', 'tests = ["tests", "./tests"]'), r"tests names './tests' twice"),
    (('tests = ["tests"]', 'tests = ["tests/test_sharding.py"]'),
     r"tests names a file, 'tests/test_sharding.py': name its folder, and pick its tests with keywords"),
    # att39's minor notes: each ran, or ran twice, or named nothing, only after both cells were built.
    (('tests = ["tests"]', 'tests = ["tests/test_sharding.PY"]'), r"tests names a file, 'tests/test_sharding.PY'"),
    (('tests = ["tests"]', 'tests = ["tests/*"]'), r"tests names a pattern, 'tests/\*': name each folder \(no glob\)"),
    (('tests = ["tests"]', 'tests = ["tests", "TESTS"]'), r"tests names 'TESTS' twice \(as 'tests'\)"),
    (('tests = ["tests"]', 'tests = ["tests", "tests/sub"]'),
     r"tests names 'tests/sub' inside 'tests': its tests would run twice; name the outer folder only"),
    (('tests = ["tests"]', 'tests = ["tests/sub", "."]'), r"tests names 'tests/sub' inside '\.'"),
    (("", "budget = 600\nsuite_budget = 1"),
     r"suite_budget 1 s is below budget 600 s \(one test's\): the whole suite's budget must hold at least one"),
    # Every cell's pytest exited 4 on it: the project read as crashed on both sides, its cause in the cell logs only.
    (("", 'keywords = "shard and ("'), r"keywords 'shard and \(' is no pytest -k expression \(expected"),
    (("", 'markers = "not slow tpu"'), r"markers 'not slow tpu' is no pytest -m expression"),
])
def test_a_contradictory_or_unusable_entry_is_refused_in_one_line(tmp_path: Path, replace: tuple[str, str],
                                                                   message: str) -> None:
    old, new = replace
    text = GOOD.replace(old, new) if old else GOOD + new + "\n"
    with pytest.raises(EcosystemListError, match=message):
        ecosystem_list.load(write(tmp_path, text))


def test_the_passing_side_of_the_new_rules(tmp_path: Path) -> None:
    text = GOOD.replace('name = "alpha"', 'name = "alpha.jax_2-x"') + 'tag = "release-{version}"\nbudget = 86400\n'
    text += 'requires = ["optax>=0.2", "jax-dataclasses"]\nwhole = true\n'
    text += 'markers = "cpu_only or not (tpu_only or gpu)"\n'
    (alpha,) = ecosystem_list.load(write(tmp_path, text))
    assert (alpha.name, alpha.tag, alpha.budget, alpha.requires) == (
        "alpha.jax_2-x", "release-{version}", 86400.0, ("optax>=0.2", "jax-dataclasses"))
    sdist = GOOD.replace('source = "git"', 'source = "sdist"')  # its repository says where the project lives
    assert ecosystem_list.load(write(tmp_path, sdist))[0].repository == "https://example.org/alpha"


def test_names_one_disk_folds_together_are_one_project(tmp_path: Path) -> None:
    other = GOOD.split("\n", 1)[1].replace('name = "alpha"', 'name = "Alpha"')
    with pytest.raises(EcosystemListError, match=r"project 'Alpha' is listed twice \(names are told apart without"):
        ecosystem_list.load(write(tmp_path, GOOD + other))


@pytest.mark.parametrize("projects", ["project = [1, 2]", 'project = ["alpha"]'])
def test_a_project_that_is_not_a_table_is_refused_in_one_line(tmp_path: Path, projects: str) -> None:
    with pytest.raises(EcosystemListError, match=r"project 1 is .*, not a \[\[project\]\] table"):
        ecosystem_list.load(write(tmp_path, f"schema_version = 1\n{projects}\n"))


def test_a_schema_version_of_true_is_not_version_1(tmp_path: Path) -> None:
    with pytest.raises(EcosystemListError, match=r"schema_version True is not 1"):
        ecosystem_list.load(write(tmp_path, GOOD.replace("schema_version = 1", "schema_version = true")))


EXCLUDE = """
[[project.exclude]]
path = "tests/contrib/kernels"
reason = "imports google3, Google's own tree"

[[project.exclude]]
test = "core/misc_util_test::test_x"
reason = "reads the network"
"""


def test_what_an_entry_leaves_out_is_taken_with_its_reasons(tmp_path: Path) -> None:
    (alpha,) = ecosystem_list.load(write(tmp_path, GOOD + EXCLUDE))
    assert [(e.describe(), e.reason) for e in alpha.exclude] == [
        ("--ignore tests/contrib/kernels", "imports google3, Google's own tree"),
        ("--deselect core/misc_util_test::test_x", "reads the network")]
    (plain,) = ecosystem_list.load(write(tmp_path, GOOD))
    assert plain.exclude == ()


@pytest.mark.parametrize(("excluded", "message"), [
    ('path = "tests/contrib"', r"exclude 1: reason must be text, got None"),
    ('path = "tests/x"\nreason = ""', r"exclude 1: reason must be text, got ''"),
    ('reason = "x"', r"exclude 1: give one of path or test, and reason \(got reason\)"),
    ('path = "tests/x"\ntest = "a::b"\nreason = "x"', r"exclude 1: give one of path or test, and reason"),
    ('paths = "tests/x"\nreason = "x"', r"exclude 1: give one of path or test, and reason \(got paths, reason\)"),
    ('path = "docs"\nreason = "x"', r"exclude 1: path 'docs' is not inside its tests \(tests\)"),
    ('path = "tests/../src"\nreason = "x"', r"exclude 1: path 'tests/../src' is not inside its tests"),
    ('path = "tests"\nreason = "x"', r"exclude 1: path 'tests' is not inside its tests"),  # all of it
    ('test = "tests/test_a.py::test_x"\nreason = "x"', r"exclude 1: test 'tests/test_a.py::test_x' is not a case"),
])
def test_a_bad_exclusion_is_refused_in_one_line_naming_the_entry(tmp_path: Path, excluded: str, message: str) -> None:
    with pytest.raises(EcosystemListError, match=r"^.*project 1 \(alpha\): " + message) as refused:
        ecosystem_list.load(write(tmp_path, GOOD + f"\n[[project.exclude]]\n{excluded}\n"))
    assert "\n" not in str(refused.value)


def test_a_path_left_out_twice_or_an_exclude_that_is_no_table_is_refused(tmp_path: Path) -> None:
    twice = '\n[[project.exclude]]\npath = "tests/a"\nreason = "x"\n'
    with pytest.raises(EcosystemListError, match=r"exclude 2: path 'tests/a' is left out twice"):
        ecosystem_list.load(write(tmp_path, GOOD + twice + twice))
    with pytest.raises(EcosystemListError, match=r"exclude must be a list of tables"):
        ecosystem_list.load(write(tmp_path, GOOD + 'exclude = ["tests/a"]\n'))


@pytest.mark.parametrize("repository", ["--upload-pack=touch /tmp/pwned", "-c", "github.com/google/qwix",
                                        "https://example.org/a b"])
def test_a_repository_that_is_no_address_is_refused_before_git_sees_it(tmp_path: Path, repository: str) -> None:
    # git would read a value starting with '-' as its own option: --upload-pack=CMD runs CMD.
    with pytest.raises(EcosystemListError, match=r"project 1 \(alpha\): repository .* is not an https, ssh, git or "
                       r"file address, or an absolute path"):
        ecosystem_list.load(write(tmp_path, GOOD.replace("https://example.org/alpha", repository)))


@pytest.mark.parametrize("repository", ["https://github.com/google/qwix", "ssh://git@example.org/a.git",
                                        "file:///srv/mirrors/a", "/srv/mirrors/a"])
def test_an_address_or_an_absolute_path_is_a_repository(tmp_path: Path, repository: str) -> None:
    (alpha,) = ecosystem_list.load(write(tmp_path, GOOD.replace("https://example.org/alpha", repository)))
    assert alpha.repository == repository


def test_an_entrys_selection_changes_with_what_runs_and_not_with_why(tmp_path: Path) -> None:
    (entry,) = ecosystem_list.load(write(tmp_path, GOOD))
    assert replace(entry, why="another sentence").selection() == entry.selection()
    for changed in (replace(entry, keywords="trivial"), replace(entry, devices=4), replace(entry, env=(("A", "1"),)),
                    replace(entry, repository="https://example.org/other")):
        assert changed.selection() != entry.selection()
