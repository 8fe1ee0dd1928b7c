"""Tests for reports/regressions.py: the nightly issue body (reports/views/issue.py) and its exit code, 0 clean only
when every cell of both runs finished and every case was judged."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from record_factory import collected, record

from reports import regressions
from reports.data.load import ResultsError
from reports.views import issue

CELL = "jax0.4.38-flax0.10.2-py3.11"
PREVIOUS, CURRENT = "20260101T000000Z-aaaa", "20260102T000000Z-bbbb"


def write_run(out: Path, run_id: str, statuses: dict[str, str], cell: str = CELL, done: bool = True,
              error: str = "AssertionError: boom") -> Path:
    """One cell's results (case -> status) under OUT/results/<run_id>/, with its done marker unless `done` is off."""
    target = out / "results" / run_id / f"{cell}.jsonl"
    target.parent.mkdir(parents=True, exist_ok=True)
    lines = [json.dumps(record("0.4.38", "0.10.2", run_id=run_id, cell_id=cell, case_id=case,
                                family=case.split("::")[0], status=status,
                                error_message=error if status == "failed" else None))
             for case, status in statuses.items()]
    target.write_text("\n".join(lines) + "\n")
    collected(target)
    if done:
        target.with_suffix(".done.json").write_text('{"returncode": 0}')
    return out


def run(tmp_path: Path, capsys: pytest.CaptureFixture[str], *extra: str) -> tuple[int, str]:
    code = regressions.main(["--previous", str(tmp_path / "a"), "--current", str(tmp_path / "b"), *extra])
    return code, capsys.readouterr().out


def test_a_case_that_passed_and_now_fails_is_a_regression(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write_run(tmp_path / "a", PREVIOUS, {"f::test_x": "passed", "f::test_y": "failed"})
    write_run(tmp_path / "b", CURRENT, {"f::test_x": "failed", "f::test_y": "failed"})
    code, body = run(tmp_path, capsys, "--run-url", "https://x/runs/1")
    assert code == 1
    assert body.startswith("**Regressed:** 1 case(s) passed in the previous scheduled run and no longer pass in "
                           "[this run](https://x/runs/1)")
    assert "| 1 | AssertionError: boom | 1 | jax 0.4.38 \N{MULTIPLICATION SIGN} flax 0.10.2 | " \
           f'`nox -s "cell({CELL})" -- --out out` |' in body
    assert "- cause 1: `f::test_x`" in body and "test_y" not in body
    assert "Also inconclusive" not in body


def test_regressions_of_one_cause_are_one_row_not_one_per_case(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cases = [f"f::test_{n}" for n in range(6)]
    write_run(tmp_path / "a", PREVIOUS, dict.fromkeys(cases, "passed"))
    write_run(tmp_path / "b", CURRENT, dict.fromkeys(cases, "failed"), error="AttributeError: no jax.core.x")
    code, body = run(tmp_path, capsys)
    assert code == 1
    assert body.count("AttributeError") == 1 and "| 1 | AttributeError: no jax.core.x | 6 |" in body


def test_a_case_still_passing_or_newly_fixed_is_clean(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write_run(tmp_path / "a", PREVIOUS, {"f::test_x": "passed", "f::test_y": "failed"})
    write_run(tmp_path / "b", CURRENT, {"f::test_x": "passed", "f::test_y": "passed"})
    assert run(tmp_path, capsys) == (0, "No regressions against the previous scheduled run: every cell of both runs "
                                        "finished and every case was judged.\n")


def test_a_cell_whose_job_died_is_inconclusive_never_clean(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write_run(tmp_path / "a", PREVIOUS, {"f::test_x": "passed"})
    write_run(tmp_path / "a", PREVIOUS, {"f::test_x": "passed"}, cell="jax0.5.0-flax0.10.2-py3.11")
    write_run(tmp_path / "b", CURRENT, {"f::test_x": "passed"})
    code, body = run(tmp_path, capsys)
    assert code == 2
    assert body.startswith("**Inconclusive:** no regression is proven, but this night is not clean")
    assert f"- cell jax0.5.0-flax0.10.2-py3.11 of run {PREVIOUS} has no counterpart in run {CURRENT}" in body


def test_an_unfinished_cell_is_inconclusive(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write_run(tmp_path / "a", PREVIOUS, {"f::test_x": "passed"})
    write_run(tmp_path / "b", CURRENT, {"f::test_x": "passed"}, done=False)
    code, body = run(tmp_path, capsys)
    assert code == 2 and f"- cell {CURRENT}:{CELL} did not finish" in body


@pytest.mark.parametrize("status", ["crashed", "timeout", "install_error", "quarantined"])
def test_an_infrastructure_or_unknown_status_is_inconclusive(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], status: str
) -> None:
    write_run(tmp_path / "a", PREVIOUS, {"f::test_x": "passed"})
    write_run(tmp_path / "b", CURRENT, {"f::test_x": status})
    code, body = run(tmp_path, capsys)
    assert code == 2
    assert f"| `{CELL}` | `f::test_x` | passed | {status} |" in body


def test_a_case_that_errors_in_both_runs_is_inconclusive_and_listed_never_clean(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Was clean (exit 0): f::test_y passed in both runs, and one judged case was enough.
    write_run(tmp_path / "a", PREVIOUS, {"f::test_x": "error", "f::test_y": "passed"})
    write_run(tmp_path / "b", CURRENT, {"f::test_x": "error", "f::test_y": "passed"})
    code, body = run(tmp_path, capsys)
    assert code == 2
    assert "- 1 case(s) could not run (error), so they have no answer on that side (first: f::test_x" in body
    assert f"| `{CELL}` | `f::test_x` | error | error |" in body


def test_a_case_missing_from_one_run_is_inconclusive(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write_run(tmp_path / "a", PREVIOUS, {"f::test_x": "passed", "f::test_y": "passed"})
    write_run(tmp_path / "b", CURRENT, {"f::test_x": "passed"})
    code, body = run(tmp_path, capsys)
    assert code == 2 and "- 1 case(s) recorded on one side only (first: f::test_y only in the baseline" in body


def test_a_regression_with_a_dead_cell_beside_it_is_regressed_and_says_both(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write_run(tmp_path / "a", PREVIOUS, {"f::test_x": "passed"})
    write_run(tmp_path / "a", PREVIOUS, {"f::test_x": "passed"}, cell="jax0.5.0-flax0.10.2-py3.11")
    write_run(tmp_path / "b", CURRENT, {"f::test_x": "failed"})
    code, body = run(tmp_path, capsys)
    assert code == 1 and "Also inconclusive:" in body and "has no counterpart" in body


def test_unreadable_results_exit_2_saying_why(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write_run(tmp_path / "b", CURRENT, {"f::test_x": "passed"})
    code = regressions.main(["--previous", str(tmp_path / "missing"), "--current", str(tmp_path / "b")])
    out, err = capsys.readouterr()
    assert code == 2
    assert err == f"python -m reports.regressions: error: no results folder at {tmp_path / 'missing' / 'results'}\n"
    assert out.startswith("**Inconclusive:** the comparison with the previous scheduled run could not be made")


def add_attempt(out: Path, run_id: str, case: str, status: str, attempt: int) -> None:
    """Append one more attempt of `case` to the cell's results (a retried case)."""
    target = out / "results" / run_id / f"{CELL}.jsonl"
    with target.open("a") as stream:
        stream.write(json.dumps(record("0.4.38", "0.10.2", run_id=run_id, cell_id=CELL, case_id=case, family="f",
                                       status=status, attempt=attempt)) + "\n")
    collected(target)


def test_a_case_flaky_last_night_is_listed_in_a_clean_body(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write_run(tmp_path / "a", PREVIOUS, {"f::test_x": "failed", "f::test_y": "passed"})
    add_attempt(tmp_path / "a", PREVIOUS, "f::test_x", "passed", 2)
    write_run(tmp_path / "b", CURRENT, {"f::test_x": "passed", "f::test_y": "passed"})
    code, body = run(tmp_path, capsys)
    assert code == 0 and body.startswith("No regressions against the previous scheduled run")
    assert "### Flaky: attempts disagreed (each side's attempts in order) (1)" in body
    assert f"| `{CELL}` | `f::test_x` | [failed → passed] | [passed] | flaky in the baseline |" in body


def test_a_case_passing_tonight_only_on_retry_is_inconclusive_naming_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write_run(tmp_path / "a", PREVIOUS, {"f::test_x": "passed"})
    write_run(tmp_path / "b", CURRENT, {"f::test_x": "failed"})
    add_attempt(tmp_path / "b", CURRENT, "f::test_x", "passed", 2)
    code, body = run(tmp_path, capsys)
    assert code == 2
    assert "- 1 case(s) passed on the candidate only after a failing attempt (flaky: f::test_x)" in body
    assert "| [passed] | [failed → passed] | flaky in the candidate |" in body


def test_a_usage_error_exits_64_not_the_inconclusive_2(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        regressions.main(["--previous", "a"])
    assert exited.value.code == 64
    assert capsys.readouterr().err.endswith("error: the following arguments are required: --current\n")


def test_a_crash_exits_3_with_nothing_on_stdout_never_1_which_is_regressed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    write_run(tmp_path / "a", PREVIOUS, {"f::test_x": "passed"})
    write_run(tmp_path / "b", CURRENT, {"f::test_x": "failed"})

    def broken(*args: object, **kwargs: object) -> None:
        raise RuntimeError("a bug")

    monkeypatch.setattr(regressions, "compare", broken)
    code, body = run(tmp_path, capsys)
    assert (code, body) == (3, "")


def test_the_crash_says_so_in_one_line_after_its_traceback(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(regressions, "regressions", lambda *args: 1 / 0)
    assert regressions.main(["--previous", str(tmp_path), "--current", str(tmp_path)]) == 3
    err = capsys.readouterr().err
    assert err.startswith("Traceback") and err.endswith(
        "shardmatrix: internal error (ZeroDivisionError): please report it\n")


def test_the_full_body_is_written_whole_while_stdout_is_cut(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    write_run(tmp_path / "a", PREVIOUS, {"f::test_x": "passed"})
    write_run(tmp_path / "b", CURRENT, {"f::test_x": "failed"})
    monkeypatch.setattr(issue.cut, "__defaults__", (300, ""))
    code, body = run(tmp_path, capsys, "--full", str(tmp_path / "full.md"))
    whole = (tmp_path / "full.md").read_text()
    assert code == 1 and len(body) <= 300 < len(whole) and whole.startswith("**Regressed:**")


def test_a_results_tree_the_file_system_refuses_is_inconclusive_with_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    def refused(*args: object) -> object:
        raise IsADirectoryError(21, "Is a directory", str(tmp_path / "results" / "r" / "X.jsonl"))

    monkeypatch.setattr(regressions, "regressions", refused)
    assert regressions.main(["--previous", str(tmp_path), "--current", str(tmp_path)]) == 2
    out, err = capsys.readouterr()
    assert out.startswith("**Inconclusive:**") and "X.jsonl" in out and err.count("\n") == 1


def test_a_full_body_file_that_cannot_be_written_is_one_line_and_no_verdict(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "full.md").mkdir()
    def refused(*args: object) -> object:
        raise ResultsError("no run under the previous folder")

    monkeypatch.setattr(regressions, "regressions", refused)
    assert regressions.main(["--previous", str(tmp_path), "--current", str(tmp_path), "--full",
                             str(tmp_path / "full.md")]) == 64
    out, err = capsys.readouterr()
    assert out == "" and "full.md: cannot be replaced" in err and "Traceback" not in err


def test_a_current_run_older_than_the_previous_one_is_refused(tmp_path: Path,
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    write_run(tmp_path / "a", CURRENT, {"f::test_x": "passed"})
    write_run(tmp_path / "b", PREVIOUS, {"f::test_x": "passed"})
    code = regressions.main(["--previous", str(tmp_path / "a"), "--current", str(tmp_path / "b")])
    out, err = capsys.readouterr()
    assert (code, out) == (64, "")
    assert err.count("\n") == 1 and f"the current run {PREVIOUS} started before the previous run {CURRENT}" in err


def test_the_same_run_on_both_sides_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write_run(tmp_path / "a", CURRENT, {"f::test_x": "passed"})
    write_run(tmp_path / "b", CURRENT, {"f::test_x": "passed"})
    code, out = run(tmp_path, capsys)
    assert (code, out) == (64, "")


def test_a_current_run_with_no_results_is_refused_not_last_week_s_compared(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write_run(tmp_path / "a", "20251225T000000Z-aaaa", {"f::test_x": "passed"})
    write_run(tmp_path / "b", PREVIOUS, {"f::test_x": "passed"})  # last week's, kept in tonight's folder
    (tmp_path / "b" / "results" / CURRENT).mkdir()  # tonight's run recorded nothing
    code = regressions.main(["--previous", str(tmp_path / "a"), "--current", str(tmp_path / "b")])
    out, err = capsys.readouterr()
    assert (code, out) == (64, "")
    assert f"its newest run {CURRENT} holds no results" in err


def test_a_cell_missing_an_expected_case_is_never_no_regressions(tmp_path: Path,
                                                                 capsys: pytest.CaptureFixture[str]) -> None:
    write_run(tmp_path / "a", PREVIOUS, {"f::test_x": "passed"})
    collected(write_run(tmp_path / "b", CURRENT, {"f::test_x": "passed"}) / "results" / CURRENT / f"{CELL}.jsonl",
              ["f::test_x", "f::test_y"])
    code, body = run(tmp_path, capsys)
    assert code == 2 and not body.startswith("No regressions")
    assert "1 of 2 expected case(s) have no record: f::test_y" in body


def test_a_retry_without_its_first_attempt_is_never_no_regressions(tmp_path: Path,
                                                                   capsys: pytest.CaptureFixture[str]) -> None:
    write_run(tmp_path / "a", PREVIOUS, {"f::test_x": "passed"})
    write_run(tmp_path / "b", CURRENT, {})
    add_attempt(tmp_path / "b", CURRENT, "f::test_x", "passed", 2)
    code, body = run(tmp_path, capsys)
    assert code == 2 and "has attempt 2 without attempt 1" in body


def write_short_run(out: Path, run_id: str, cell: str, have: int) -> Path:
    """A cell of `have` devices: f::test_x passes, f::test_mesh needs 8 devices (not applicable below 8)."""
    target = out / "results" / run_id / f"{cell}.jsonl"
    target.parent.mkdir(parents=True, exist_ok=True)
    short = {"status": "not_applicable", "reason": f"needs 8 devices, cell has {have}", "devices_needed": 8} \
        if have < 8 else {}
    lines = [record("0.4.38", "0.10.2", run_id=run_id, cell_id=cell, case_id="f::test_x", family="f",
                    device_count=have),
             record("0.4.38", "0.10.2", run_id=run_id, cell_id=cell, case_id="f::test_mesh", family="f",
                    device_count=have, **short)]
    target.write_text("".join(json.dumps(line) + "\n" for line in lines))
    collected(target)
    target.with_suffix(".done.json").write_text('{"returncode": 0}')
    return out


def test_a_clean_night_states_the_coverage_of_each_cell_that_left_cases_out(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    gpu = "jax0.4.38-flax0.10.2-py3.11-cuda13"
    for out, run_id in ((tmp_path / "a", PREVIOUS), (tmp_path / "b", CURRENT)):
        write_short_run(out, run_id, CELL, have=8)
        write_short_run(out, run_id, gpu, have=1)
    code, body = run(tmp_path, capsys)
    assert code == 0 and body.startswith("No regressions against the previous scheduled run")
    assert f"- `{gpu}`: 1 of 2 (1 needs 8 devices)" in body and "cases were left out in 1 cell(s)" in body
    assert f"`{CELL}`" not in body, "the 8-device cell ran everything: not listed"


def test_a_night_whose_cells_ran_every_case_reads_as_it_always_did(tmp_path: Path,
                                                                    capsys: pytest.CaptureFixture[str]) -> None:
    for out, run_id in ((tmp_path / "a", PREVIOUS), (tmp_path / "b", CURRENT)):
        write_short_run(out, run_id, CELL, have=8)
    assert run(tmp_path, capsys) == (0, "No regressions against the previous scheduled run: every cell of both runs "
                                        "finished and every case was judged.\n")


def test_a_regressed_night_states_the_coverage_too(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    gpu = "jax0.4.38-flax0.10.2-py3.11-cuda13"
    write_short_run(tmp_path / "a", PREVIOUS, gpu, have=1)
    write_short_run(tmp_path / "b", CURRENT, gpu, have=1)
    lines = (tmp_path / "b" / "results" / CURRENT / f"{gpu}.jsonl").read_text().splitlines()
    failed = {**json.loads(lines[0]), "status": "failed", "error_message": "AssertionError: boom"}
    (tmp_path / "b" / "results" / CURRENT / f"{gpu}.jsonl").write_text(json.dumps(failed) + "\n" + lines[1] + "\n")
    code, body = run(tmp_path, capsys)
    assert code == 1 and body.startswith("**Regressed:** 1 case(s)")
    assert f"- `{gpu}`: 1 of 2 (1 needs 8 devices)" in body


def test_a_strict_xfail_passing_tonight_is_a_regression_never_no_regressions(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write_run(tmp_path / "a", PREVIOUS, {"f::test_x": "xfailed", "f::test_y": "passed"})
    write_run(tmp_path / "b", CURRENT, {"f::test_x": "failed", "f::test_y": "passed"},
              error="[XPASS(strict)] waits for an upstream fix")
    code, body = run(tmp_path, capsys)
    assert code == 1 and body.startswith("**Regressed:** 1 case(s)") and "`f::test_x`" in body


def test_a_case_not_applicable_last_night_and_failing_tonight_is_never_every_case_judged(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write_run(tmp_path / "a", PREVIOUS, {"f::test_x": "not_applicable", "f::test_y": "passed"})
    write_run(tmp_path / "b", CURRENT, {"f::test_x": "failed", "f::test_y": "passed"})
    code, body = run(tmp_path, capsys)
    assert code == 0 and "every case was judged" not in body
    assert body.startswith("No regressions against the previous scheduled run on the cases judged: every cell of "
                           "both runs finished, 1 of 2 tests judged (1 could not run in the baseline: needs an API "
                           "it lacks).")
    assert "| `f::test_x` | not_applicable | failed |" in body


def test_a_cell_that_lacks_an_api_some_cases_need_is_listed_with_its_coverage(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    for out, run_id in ((tmp_path / "a", PREVIOUS), (tmp_path / "b", CURRENT)):
        write_run(out, run_id, {"f::test_x": "passed", "f::test_y": "not_applicable"})
    code, body = run(tmp_path, capsys)
    assert code == 0 and f"- `{CELL}`: 1 of 2 (1 needs an API this cell lacks)" in body
