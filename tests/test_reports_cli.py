"""Tests for reports/cli.py and `python -m reports`: exit 0 with a summary, exit 64 (usage) with one line."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from record_factory import collected, record

import reports
from harness.cellrecord import SCHEMA_VERSION
from reports.cli import main

RUN = "20261121T084500Z-ab12"
CELL = "jax0.10.2-flax0.12.8-py3.11"




def write_run(out: Path, *lines: str, run_id: str = RUN, done: str | None = '{"returncode": 0}') -> None:
    """Write one cell's results file, and its done marker holding `done` unless that is None."""
    path = out / "results" / run_id / f"{CELL}.jsonl"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    collected(path)
    if done is not None:
        path.with_suffix(".done.json").write_text(done, encoding="utf-8")


def test_good_results_print_summary_and_paths(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write_run(tmp_path, json.dumps(record()), json.dumps(record(case_id="fam::b", status="failed")))
    assert main(["--out", str(tmp_path)]) == 0
    out, err = capsys.readouterr()
    assert CELL in out and "failed" in out
    assert f"wrote {tmp_path / 'report' / 'matrix.html'}" in out
    assert "incomplete" not in out
    assert err == ""


def test_interrupted_cell_is_named_with_how_to_resume(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write_run(tmp_path, json.dumps(record()), done=None)
    assert main(["--out", str(tmp_path)]) == 0
    out, err = capsys.readouterr()
    assert f"incomplete: {CELL} (interrupted; resume with: nox -s matrix -- --resume {RUN})\n" in out
    assert err == ""


def test_corrupt_done_marker_warns_on_stderr_and_counts_as_interrupted(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write_run(tmp_path, json.dumps(record()), done='{"returnco')
    assert main(["--out", str(tmp_path)]) == 0
    out, err = capsys.readouterr()
    assert f"incomplete: {CELL}" in out
    assert err.count("\n") == 1
    assert f"{CELL}.done.json: ignored done marker: not valid JSON" in err


def test_missing_results_exit_64_with_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # Before, bad input exited 2, the code of an INCONCLUSIVE verdict.
    assert main(["--out", str(tmp_path)]) == 64
    out, err = capsys.readouterr()
    assert out == ""
    assert err == f"python -m reports: error: no results folder at {tmp_path / 'results'}\n"


def test_corrupt_line_warns_on_stderr_and_still_builds(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write_run(tmp_path, json.dumps(record()), '{"schema_version": 1, "trunc')
    assert main(["--out", str(tmp_path)]) == 0
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert f"{CELL}.jsonl:2: skipped line: not valid JSON" in err


def test_a_newer_schema_line_makes_its_cell_unaccounted_never_works(tmp_path: Path,
                                                                   capsys: pytest.CaptureFixture[str]) -> None:
    # Before, the whole report was refused; now it is built, and the cell that holds the line reads unaccounted.
    write_run(tmp_path, json.dumps(record()), json.dumps(record(schema_version=SCHEMA_VERSION + 1)))
    assert main(["--out", str(tmp_path)]) == 0
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    said = f"schema_version {SCHEMA_VERSION + 1} is newer than this reader knows ({SCHEMA_VERSION})"
    assert f"{CELL}.jsonl:2: skipped line: {said}" in err
    verdicts = json.loads((tmp_path / "report" / "compat.json").read_text(encoding="utf-8"))
    assert [row["verdict"] for row in verdicts] == ["unaccounted"]


def test_chosen_run_is_reported(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write_run(tmp_path, json.dumps(record(run_id="20261120T000000Z-aaaa")), run_id="20261120T000000Z-aaaa")
    write_run(tmp_path, json.dumps(record()))
    assert main(["--out", str(tmp_path), "--run", "20261120T000000Z-aaaa"]) == 0
    assert "20261120T000000Z-aaaa" in (tmp_path / "report" / "results.csv").read_text(encoding="utf-8")


def test_unknown_run_exits_64(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write_run(tmp_path, json.dumps(record()))
    assert main(["--out", str(tmp_path), "--run", "nope"]) == 64
    assert "no run 'nope'" in capsys.readouterr().err


def test_run_and_all_runs_are_exclusive(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        main(["--out", str(tmp_path), "--run", RUN, "--all-runs"])
    assert exited.value.code == 64  # argparse's own 2 would read as INCONCLUSIVE


def test_python_dash_m_reports_runs_the_cli(tmp_path: Path) -> None:
    write_run(tmp_path, json.dumps(record()))
    done = subprocess.run([sys.executable, "-m", "reports", "--out", str(tmp_path), "--all-runs"],
                          cwd=Path(reports.__file__).parent.parent, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert "wrote" in done.stdout


# --- --compare: SAFE 0, UNSAFE 1, INCONCLUSIVE 2 ------------------------------------------------------------------

BASE = "20261120T000000Z-aaaa"


def compare_runs(out: Path, before: dict[str, str], after: dict[str, str], *, after_done: bool = True,
                 extra: tuple[str, ...] = (), also: tuple[str, ...] = ()) -> int:
    """Write a baseline run and a candidate run of CELL (case -> status) and run --compare on them."""
    write_run(out, *(json.dumps(record(run_id=BASE, case_id=case, status=status)) for case, status in before.items()),
              run_id=BASE)
    write_run(out, *(json.dumps(record(case_id=case, status=status)) for case, status in after.items()), *extra,
              done='{"returncode": 0}' if after_done else None)
    return main(["--out", str(out), "--compare", BASE, RUN, *also])


def test_compare_of_equal_finished_runs_is_safe_and_creates_the_report_folder(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert compare_runs(tmp_path, {"fam::a": "passed"}, {"fam::a": "passed"}) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[0] == "SAFE"
    assert (tmp_path / "report" / "compare.md").read_text(encoding="utf-8").startswith("# Upgrade check: SAFE")


def test_compare_json_keeps_the_verdict_with_its_coverage_when_devices_left_cases_out(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from harness import outputs

    short = record(case_id="fam::mesh", status="not_applicable", reason="needs 2 devices, cell has 1",
                   devices_needed=2, device_count=1)
    write_run(tmp_path, json.dumps(record(run_id=BASE)), json.dumps({**short, "run_id": BASE}), run_id=BASE)
    write_run(tmp_path, json.dumps(record()), json.dumps(short))
    assert main(["--out", str(tmp_path), "--compare", BASE, RUN]) == 0
    assert capsys.readouterr().out.splitlines()[0] == "SAFE: 1 of 2 tests judged (1 needs 2 devices)"
    found = outputs.read_document(tmp_path / "report" / "compare.json", outputs.COMPARE_JSON)
    assert found == {"schema_version": 2, "verdict": "SAFE", "coverage": "1 of 2 tests judged (1 needs 2 devices)",
                     "reasons": [], "regressions": {"documented": 0, "known": 0, "unexplained": 0}}


def test_compare_json_of_a_comparison_every_case_ran_in_has_no_coverage(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from harness import outputs

    assert compare_runs(tmp_path, {"fam::a": "passed"}, {"fam::a": "failed"}) == 1
    found = outputs.read_document(tmp_path / "report" / "compare.json", outputs.COMPARE_JSON)
    assert found["verdict"] == "UNSAFE" and found["coverage"] == "" and found["reasons"] == []
    assert found["regressions"] == {"documented": 0, "known": 0, "unexplained": 1}


def test_compare_against_half_the_records_is_inconclusive_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cases = {f"fam::{name}": "passed" for name in "abcd"}
    assert compare_runs(tmp_path, cases, dict(list(cases.items())[:2])) == 2
    assert capsys.readouterr().out.splitlines()[0] == (
        f"INCONCLUSIVE: 2 case(s) recorded on one side only (first: fam::c only in the baseline {CELL}; also: fam::d)")


def test_compare_limited_to_the_cases_asked_for_ignores_a_reused_baselines_extra_cases(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    before = {"fam::a": "passed", "other::b": "passed"}  # a stored baseline of a larger corpus
    assert compare_runs(tmp_path, before, {"fam::a": "passed"}) == 2
    assert capsys.readouterr().out.startswith("INCONCLUSIVE: 1 case(s) recorded on one side only")
    asked = tmp_path / "asked.txt"
    asked.write_text("fam::a\n", encoding="utf-8")
    assert main(["--out", str(tmp_path), "--compare", BASE, RUN, "--cases-from", str(asked)]) == 0
    assert capsys.readouterr().out.splitlines()[0] == "SAFE"


def test_compare_limited_to_cases_still_sees_an_asked_case_missing(tmp_path: Path) -> None:
    asked = tmp_path / "asked.txt"
    asked.write_text("fam::a\nfam::b\n", encoding="utf-8")
    assert compare_runs(tmp_path, {"fam::a": "passed", "fam::b": "passed"}, {"fam::a": "passed"},
                        also=("--cases-from", str(asked))) == 2


def test_compare_cases_from_a_missing_file_is_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert compare_runs(tmp_path, {"fam::a": "passed"}, {"fam::a": "passed"},
                        also=("--cases-from", str(tmp_path / "nope.txt"))) == 64
    assert "--cases-from" in capsys.readouterr().err


def test_compare_cases_from_an_id_neither_run_recorded_is_one_line_exit_64(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    asked = tmp_path / "asked.txt"
    asked.write_text("fam::a\nfam::tset_b[8]\n", encoding="utf-8")  # misspelt: was SAFE, fam::a alone judged
    assert compare_runs(tmp_path, {"fam::a": "passed", "fam::test_b": "passed"},
                        {"fam::a": "passed", "fam::test_b": "passed"}, also=("--cases-from", str(asked))) == 64
    out, err = capsys.readouterr()
    assert err.splitlines() == [f"python -m reports: error: --cases-from {asked}: 1 case id(s) recorded in neither run "
                                "(misspelt, or never collected): fam::tset_b"]
    assert out == ""


def test_compare_cases_from_a_module_that_did_not_import_keeps_its_collection_record(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    asked = tmp_path / "asked.txt"
    asked.write_text("fam::Suite::test_a\n", encoding="utf-8")
    # The candidate's module no longer imports: its collection record answers for the asked case, a regression.
    assert compare_runs(tmp_path, {"fam::Suite::test_a": "passed"}, {"fam::<collection>": "error"},
                        also=("--cases-from", str(asked))) == 1
    assert capsys.readouterr().out.splitlines()[0] == "UNSAFE"


def test_compare_cases_from_a_file_that_is_not_utf8_is_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    asked = tmp_path / "asked.txt"
    asked.write_bytes(b"fam::a\n\xff\xfe\n")
    assert compare_runs(tmp_path, {"fam::a": "passed"}, {"fam::a": "passed"}, also=("--cases-from", str(asked))) == 64
    (line,) = capsys.readouterr().err.splitlines()
    assert line.startswith(f"python -m reports: error: --cases-from {asked}: not UTF-8 text (byte 7")


def test_compare_of_a_case_that_errors_on_both_sides_exits_2_naming_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Was SAFE (exit 0): fam::b passed on both sides, and fam::a could not run on either.
    assert compare_runs(tmp_path, {"fam::a": "error", "fam::b": "passed"}, {"fam::a": "error", "fam::b": "passed"}) == 2
    assert capsys.readouterr().out.splitlines()[0] == (
        "INCONCLUSIVE: 1 case(s) could not run (error), so they have no answer on that side (first: fam::a is 'error' "
        f"in the baseline {CELL})")


def test_compare_with_a_status_outside_the_vocabulary_is_inconclusive(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert compare_runs(tmp_path, {"fam::a": "passed"}, {"fam::a": "passed_mostly"}) == 2
    assert capsys.readouterr().out.startswith("INCONCLUSIVE: 1 case(s) have a status this reader does not know")


def test_compare_with_an_interrupted_candidate_is_inconclusive(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert compare_runs(tmp_path, {"fam::a": "passed"}, {"fam::a": "passed"}, after_done=False) == 2
    assert capsys.readouterr().out.startswith(f"INCONCLUSIVE: cell {RUN}:{CELL} did not finish")


def test_compare_with_an_unreadable_results_line_is_inconclusive(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert compare_runs(tmp_path, {"fam::a": "passed"}, {"fam::a": "passed"}, extra=('{"status": 7, "sch',)) == 2
    out, err = capsys.readouterr()
    assert out.startswith(f"INCONCLUSIVE: {RUN}:{CELL}: 1 thing(s) the reading could not account for (first: ")
    assert "skipped line: not valid JSON" in err


def test_python_dash_m_reports_compare_exits_1_when_unsafe(tmp_path: Path) -> None:
    write_run(tmp_path, json.dumps(record(run_id=BASE)), run_id=BASE)
    write_run(tmp_path, json.dumps(record(status="failed", error_type="ValueError", error_message="boom")))
    done = subprocess.run([sys.executable, "-m", "reports", "--out", str(tmp_path), "--compare", BASE, RUN],
                          cwd=Path(reports.__file__).parent.parent, capture_output=True, text=True)
    assert done.returncode == 1, done.stderr
    assert done.stdout.splitlines()[0] == "UNSAFE"
    assert "1. [1 case(s)] ValueError: boom" in done.stdout


# --- one line for every bad input (issue 24 item 5) -----------------------------------------------------------------

BYTES = b"\xff\xfe not text"


def one_line(err: str) -> str:
    """The one line a bad input earns on stderr (no traceback), returned for a closer look."""
    assert "Traceback" not in err and err.count("\n") == 1, err
    return err


def test_a_report_folder_that_is_a_file_is_refused_in_one_line_before_any_work(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write_run(tmp_path, json.dumps(record()))
    (tmp_path / "report").write_text("a file, not a folder", encoding="utf-8")
    assert main(["--out", str(tmp_path)]) == 64
    assert "report: is not a folder" in one_line(capsys.readouterr().err)
    assert (tmp_path / "report").read_text(encoding="utf-8") == "a file, not a folder"


def test_a_report_file_that_is_a_folder_is_refused_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write_run(tmp_path, json.dumps(record()))
    (tmp_path / "report" / "matrix.md").mkdir(parents=True)
    assert main(["--out", str(tmp_path)]) == 64
    assert "matrix.md: cannot be replaced" in one_line(capsys.readouterr().err)


def test_a_malformed_frontier_is_left_out_of_the_report_in_one_warning_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write_run(tmp_path, json.dumps(record()))
    (tmp_path / "report").mkdir()
    (tmp_path / "report" / "frontier.json").write_text('{"schema_version": 2, "jax": [], "releases": [{"row": 1}]}')
    assert main(["--out", str(tmp_path)]) == 0
    assert "warning: frontier left out of the report" in one_line(capsys.readouterr().err)
    assert 'id="frontier"' not in (tmp_path / "report" / "matrix.html").read_text(encoding="utf-8")


def test_a_folder_named_like_a_results_file_never_ends_in_a_traceback(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write_run(tmp_path, json.dumps(record()))
    (tmp_path / "results" / RUN / "X.jsonl").mkdir()
    assert main(["--out", str(tmp_path)]) in (0, 64)  # the results reader decides; the entry point never crashes
    err = capsys.readouterr().err
    assert "Traceback" not in err and all(line.startswith(("python -m reports:", "shardmatrix:"))
                                          for line in err.splitlines())


@pytest.mark.parametrize(("option", "said"), [
    ("--cases-from", "--cases-from {path}: not UTF-8 text (byte 0)"),
    ("--changes-from", "{path}: declarations file is not UTF-8 text (byte 0)"),
])
def test_a_file_option_given_bytes_is_refused_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], option: str, said: str
) -> None:
    path = tmp_path / "given.txt"
    path.write_bytes(BYTES)
    assert compare_runs(tmp_path, {"fam::a": "passed"}, {"fam::a": "passed"}, also=(option, str(path))) == 64
    assert said.format(path=path) in one_line(capsys.readouterr().err)


def test_a_file_option_given_text_is_read(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "given.txt"
    path.write_text('{"schema_version": 1, "changes": []}', encoding="utf-8")
    assert compare_runs(tmp_path, {"fam::a": "passed"}, {"fam::a": "passed"}, also=("--changes-from", str(path))) == 0
    assert capsys.readouterr().err == ""


def test_a_compare_into_a_report_folder_that_is_a_file_is_refused_before_any_work(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "report").write_text("a file, not a folder", encoding="utf-8")
    assert compare_runs(tmp_path, {"fam::a": "passed"}, {"fam::a": "passed"}) == 64
    captured = capsys.readouterr()
    assert captured.out == "" and "report: is not a folder" in one_line(captured.err)


# --- what the reading could not account for: never a good verdict (issue 24) ------------------------------------


def verdict_of(out: Path) -> str:
    (row,) = json.loads((out / "report" / "compat.json").read_text(encoding="utf-8"))
    return str(row["verdict"])


def test_a_cell_holding_every_collected_case_works(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write_run(tmp_path, json.dumps(record()))
    assert main(["--out", str(tmp_path)]) == 0
    assert verdict_of(tmp_path) == "works"


def test_a_cell_holding_1_of_its_103_cases_with_a_done_marker_does_not_work(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write_run(tmp_path, json.dumps(record()))
    collected(tmp_path / "results" / RUN / f"{CELL}.jsonl", [f"fam::test_{n}" for n in range(102)])
    assert main(["--out", str(tmp_path)]) == 0
    assert verdict_of(tmp_path) == "unaccounted"
    assert "102 of 103 expected case(s) have no record" in capsys.readouterr().err


def test_a_cell_with_no_collection_recorded_does_not_work(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write_run(tmp_path, json.dumps(record()))
    (tmp_path / "results" / RUN / f"{CELL}.collected.json").unlink()
    assert main(["--out", str(tmp_path)]) == 0
    assert verdict_of(tmp_path) == "unaccounted"


def test_a_retry_without_its_first_attempt_does_not_work(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write_run(tmp_path, json.dumps(record(attempt=2)))
    assert main(["--out", str(tmp_path)]) == 0
    assert verdict_of(tmp_path) == "unaccounted"


def test_a_freeze_naming_another_jax_makes_the_cell_unaccounted(tmp_path: Path,
                                                                capsys: pytest.CaptureFixture[str]) -> None:
    write_run(tmp_path, json.dumps(record()))
    (tmp_path / "results" / RUN / f"{CELL}.freeze.txt").write_text("flax==0.12.8\njax==0.9.2\njaxlib==0.9.2\n")
    assert main(["--out", str(tmp_path)]) == 0
    assert verdict_of(tmp_path) == "unaccounted"
    assert "jax==0.9.2, but the cell id names jax 0.10.2" in capsys.readouterr().err


def test_a_folder_that_is_not_a_run_is_ignored_and_named(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write_run(tmp_path, json.dumps(record()))
    write_run(tmp_path, json.dumps(record(status="failed")), run_id="kept-good-baseline")
    assert main(["--out", str(tmp_path)]) == 0
    assert verdict_of(tmp_path) == "works"  # the newest run by its start, not the last folder by name
    assert "kept-good-baseline: ignored, not a run" in capsys.readouterr().err


def test_compare_of_a_candidate_missing_a_collected_case_is_inconclusive_naming_it(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert compare_runs(tmp_path, {"fam::a": "passed"}, {"fam::a": "passed"}) == 0  # the pair
    collected(tmp_path / "results" / RUN / f"{CELL}.jsonl", ["fam::a", "fam::b"])
    assert main(["--out", str(tmp_path), "--compare", BASE, RUN]) == 2
    out = capsys.readouterr().out
    assert f"{RUN}:{CELL}: 1 thing(s) the reading could not account for" in out
    assert "1 of 2 expected case(s) have no record: fam::b" in out


def test_compare_with_a_mismatched_done_marker_is_inconclusive(tmp_path: Path,
                                                                capsys: pytest.CaptureFixture[str]) -> None:
    write_run(tmp_path, json.dumps(record(run_id=BASE)), run_id=BASE)
    write_run(tmp_path, json.dumps(record()), done=json.dumps({"cell_id": "jax0.9.2-flax0.12.8-py3.11"}))
    assert main(["--out", str(tmp_path), "--compare", BASE, RUN]) == 2
    assert "names cell 'jax0.9.2-flax0.12.8-py3.11'" in capsys.readouterr().out


def test_compare_of_a_run_with_itself_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write_run(tmp_path, json.dumps(record()))
    assert main(["--out", str(tmp_path), "--compare", RUN, RUN]) == 64
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "a run compared with itself proves nothing" in err


def test_a_folder_named_like_a_results_file_is_one_line_not_a_traceback(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write_run(tmp_path, json.dumps(record()))
    (tmp_path / "results" / RUN / "jax0.9.2-flax0.12.8-py3.11.jsonl").mkdir()
    assert main(["--out", str(tmp_path)]) == 0
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "jax0.9.2-flax0.12.8-py3.11.jsonl: a folder, not a results file" in err
    assert "Traceback" not in err


def test_compare_of_named_cells_across_device_counts_keeps_its_coverage_in_compare_json(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from harness import outputs

    one = f"{CELL}-cpu1"
    short = record(case_id="fam::mesh", status="not_applicable", reason="needs 8 devices, cell has 1",
                   devices_needed=8, device_count=1, cell_id=one)
    write_run(tmp_path, json.dumps(record(run_id=BASE)), json.dumps(record(run_id=BASE, case_id="fam::mesh")),
              run_id=BASE)
    path = tmp_path / "results" / RUN / f"{one}.jsonl"
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps(record(cell_id=one, device_count=1)) + "\n" + json.dumps(short) + "\n")
    collected(path)
    path.with_suffix(".done.json").write_text('{"returncode": 0}', encoding="utf-8")
    assert main(["--out", str(tmp_path), "--compare", f"{BASE}:{CELL}", f"{RUN}:{one}"]) == 0
    line = "1 of 2 tests judged (1 could not run in the candidate: needs 8 devices)"
    assert capsys.readouterr().out.splitlines()[0] == f"SAFE: {line}"
    found = outputs.read_document(tmp_path / "report" / "compare.json", outputs.COMPARE_JSON)
    assert found["coverage"] == line
