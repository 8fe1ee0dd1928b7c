"""shardmatrix.ecosystem_list: the list of projects, read strictly (each rule with a passing and a failing input)."""

from __future__ import annotations

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
    ("devices = 0", r"devices must be a whole number of at least 1"),
    ("budget = -1", r"budget must be seconds above 0"),
    ('requires = ["not a requirement!"]', r"requires 'not a requirement!' is not a requirement"),
    ('keywords = " "', r"keywords is empty"),
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
