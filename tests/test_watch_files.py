"""The watch's files: the state (read, written, versioned, migrated), the summary, the verdict order."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from shardmatrix import watch_files
from shardmatrix.watch_files import Judgment

BASE = {"jax": "0.8.3", "jaxlib": "0.8.3", "flax": "0.12.6"}


def judged(version: str = "0.9.0", verdict: str = "UNSAFE", **fields: Any) -> Judgment:
    return Judgment("jax", version, dict(BASE), verdict, **fields)


def test_a_state_written_is_read_back_whole(tmp_path: Path) -> None:
    kept = [judged(first_bad="jax==0.9.0", changes=[{"label": "x", "kind": "default", "fix": "y",
                                                        "explains": ["m::t"]}]), judged("0.8.4", "SAFE")]
    path = watch_files.write_state(tmp_path / "deep" / "state.json", kept)
    assert watch_files.read_state(path) == kept
    assert json.loads(path.read_text())["schema_version"] == watch_files.STATE_VERSION
    assert not list(path.parent.glob(".*partial"))


def test_a_judgment_keeps_its_coverage_in_the_state(tmp_path: Path) -> None:
    kept = [judged(verdict="SAFE", coverage="4 of 7 tests judged (3 need 2 devices)")]
    path = watch_files.write_state(tmp_path / "state.json", kept)
    assert watch_files.read_state(path)[0].coverage == "4 of 7 tests judged (3 need 2 devices)"


def test_a_judgment_kept_before_coverage_existed_reads_with_none(tmp_path: Path) -> None:
    entry = {k: v for k, v in judged(verdict="SAFE").to_json().items() if k != "coverage"}
    path = tmp_path / "state.json"
    path.write_text(json.dumps({"schema_version": watch_files.STATE_VERSION, "judged": [entry]}))
    assert watch_files.read_state(path)[0].coverage == ""


def test_no_state_yet_is_the_first_run(tmp_path: Path) -> None:
    assert watch_files.read_state(tmp_path / "none.json") == []
    assert watch_files.FileStore(tmp_path / "none.json").load() == []


@pytest.mark.parametrize(("text", "fault"), [
    ("{", "watch state unreadable"),
    ('{"judged": []}', "not a watch state file (no schema_version)"),
    ('{"schema_version": 99, "judged": []}', "watch state of schema 99, newer than this shardmatrix reads (1)"),
    ('{"schema_version": 1, "judged": {}}', "`judged` is not a list of judgments"),
    ('{"schema_version": 1, "judged": [{"package": "jax"}]}', "entry 1: not a judgment"),
    ('{"schema_version": 1, "judged": [{"package": "jax", "version": "1", "baseline": {}, "verdict": "OK"}]}',
     "entry 1: not a judgment (verdict 'OK')"),
])
def test_a_file_that_is_not_a_state_is_refused_in_one_line_naming_it(tmp_path: Path, text: str, fault: str) -> None:
    path = tmp_path / "state.json"
    path.write_text(text)
    with pytest.raises(watch_files.WatchFileError, match="^" + str(path).replace(".", r"\.")) as caught:
        watch_files.read_state(path)
    assert fault in str(caught.value) and "\n" not in str(caught.value)


def test_an_older_state_is_migrated_through_its_update(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(watch_files, "UPDATES", {0: lambda data: {"schema_version": 1, "judged": data["seen"]}})
    path = tmp_path / "state.json"
    path.write_text(json.dumps({"schema_version": 0, "seen": [judged().to_json()]}))
    assert watch_files.read_state(path) == [judged()]


def test_a_release_is_one_judgment_per_baseline() -> None:
    assert judged().key == watch_files.key_of("jax", "0.9.0", dict(reversed(BASE.items())))
    moved = Judgment("jax", "0.9.0", {**BASE, "jax": "0.8.4", "jaxlib": "0.8.4"}, "UNSAFE")
    assert moved.key != judged().key  # the lock moved: the release is a new question


def test_the_worst_verdict_wins_and_none_is_safe() -> None:
    assert watch_files.worst(["SAFE", "INCONCLUSIVE"]) == "INCONCLUSIVE"
    assert watch_files.worst(["INCONCLUSIVE", "UNSAFE", "SAFE"]) == "UNSAFE"
    assert watch_files.worst([]) == "SAFE"


def test_the_tokens_and_exit_codes_are_the_comparisons() -> None:
    from reports.verdicts import compare

    assert watch_files.EXIT_CODES == compare.EXIT_CODES


def test_the_summary_judges_by_new_and_remembered_releases(tmp_path: Path) -> None:
    data = watch_files.summary("/p", BASE, [judged("0.9.1", "SAFE")], [judged()])
    assert data["verdict"] == "UNSAFE" and data["schema_version"] == watch_files.SUMMARY_VERSION
    assert [j["version"] for j in data["judged"]] == ["0.9.1"] and data["remembered"][0]["first_bad"] == ""
    written = watch_files.write_summary(tmp_path / "s.json", data)
    assert json.loads(written.read_text()) == data


def test_each_release_keeps_its_own_report() -> None:
    assert watch_files.report_path(Path("out"), "jax", "0.9.0") == Path("out/report/watch/jax-0.9.0.md")


def sound(verdict: str = "SAFE", **fields: Any) -> Judgment:
    """A judgment as a run makes it: counted, with its report."""
    return judged(verdict=verdict, **{"tests": 3, "tests_judged": 3, "report": "r.md", **fields})


def test_a_safe_on_its_evidence_is_trusted() -> None:
    assert watch_files.distrust(sound()) == "" and watch_files.checked(sound()) == sound()


@pytest.mark.parametrize(("fields", "doubt"), [
    ({"regressed": ["m::t"]}, "with regressions"), ({"first_bad": "jax==0.9.0"}, "with regressions"),
    ({"tests": None}, "without the judgment it came from"), ({"report": ""}, "without the judgment it came from"),
    ({"tests_judged": 0}, "with no test judged"), ({"tests_judged": 4}, "judging more tests than it compared"),
])
def test_a_safe_its_own_fields_doubt_is_inconclusive(fields: dict[str, Any], doubt: str) -> None:
    made = watch_files.checked(sound(**fields))
    assert made.verdict == "INCONCLUSIVE" and doubt in made.reason


def test_a_worse_verdict_is_never_doubted() -> None:
    assert watch_files.checked(judged(verdict="UNSAFE")) == judged(verdict="UNSAFE")
    assert watch_files.distrust(judged(verdict="INCONCLUSIVE")) == ""


def test_a_judgment_stands_while_its_lock_does() -> None:
    other_lock = Judgment("jax", "0.9.0", {**BASE, "jax": "0.8.2", "jaxlib": "0.8.2"}, "UNSAFE")
    flax = Judgment("flax", "0.12.7", dict(BASE), "UNSAFE")
    assert watch_files.standing([judged(), other_lock, flax], BASE, ["jax"]) == [judged()]


def test_the_coverage_line_says_what_a_verdict_was_judged_on() -> None:
    assert watch_files.coverage_line(sound()) == "3 of 3 tests judged"
    assert watch_files.coverage_line(sound(coverage="2 of 3 tests judged (1 needs 2 devices)")) == \
        "2 of 3 tests judged (1 needs 2 devices)"
    assert watch_files.coverage_line(sound(tests=0, tests_judged=0)) == "no test run"
    assert watch_files.coverage_line(judged()) == "tests judged not recorded"


def test_the_summary_gives_every_entry_its_coverage_and_checks_the_remembered() -> None:
    data = watch_files.summary("/p", BASE, [sound("UNSAFE", version="0.9.1")], [sound(regressed=["m::t"])])
    assert data["judged"][0]["coverage"] == "3 of 3 tests judged"
    assert data["remembered"][0]["verdict"] == "INCONCLUSIVE" and data["remembered"][0]["coverage"]


@pytest.mark.parametrize(("field", "value"), [("regressed", "m::t"), ("changes", [1]), ("changes", [{"label": "x"}]),
                                              ("held", [{"package": "optax"}]), ("tests", "3"), ("tests", -1),
                                              ("tests_judged", True), ("baseline", {"jax": 1}), ("version", 9)])
def test_a_judgment_with_a_field_of_the_wrong_kind_is_refused_naming_it(tmp_path: Path, field: str,
                                                                         value: Any) -> None:
    path = tmp_path / "state.json"
    path.write_text(json.dumps({"schema_version": 1, "judged": [{**sound().to_json(), field: value}]}))
    with pytest.raises(watch_files.WatchFileError, match=f"entry 1: not a judgment \\({field} is "):
        watch_files.read_state(path)


@pytest.mark.parametrize("schema", [0, True])
def test_a_state_older_than_any_update_is_refused_in_one_line(tmp_path: Path, schema: object) -> None:
    path = tmp_path / "state.json"
    path.write_text(json.dumps({"schema_version": schema, "judged": []}))
    with pytest.raises(watch_files.WatchFileError, match="^" + str(path).replace(".", r"\.")):
        watch_files.read_state(path)


def test_a_file_path_that_can_be_written_passes_the_check(tmp_path: Path) -> None:
    watch_files.check_writable(tmp_path / "new" / "deeper" / "state.json", "--state")
    (tmp_path / "file").write_text("x")
    for path, fault in ((tmp_path, "a folder"), (tmp_path / "file" / "s.json", "is a file, not a folder")):
        with pytest.raises(watch_files.WatchFileError, match=fault):
            watch_files.check_writable(path, "--json")
