"""harness.host.planned: a planned cell whose job left no results is recorded, and --check fails on it."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from matrix_factory import cell_toml, matrix_toml

from harness.celldocuments import write_collection
from harness.cellrecord import CellFiles, make_record
from harness.formats import write_json_atomically
from harness.host import matrix, planned
from reports.data.load import load_results

ROOT = Path(__file__).resolve().parent.parent
RUN = "20260101T000000Z-gh1"
MATRIX = matrix_toml(cell_toml("0.4.38", "0.10.2", "3.11"), cell_toml("0.8.3", "0.12.3", "3.12"))
OLD, NEW = (cell.id for cell in matrix.parse(MATRIX))


@pytest.fixture
def setup(tmp_path: Path) -> dict[str, Path]:
    """A matrix file of two cells, a corpus of two cases, the plan of both cells, and an empty output folder."""
    (tmp_path / "matrix.toml").write_text(MATRIX)
    cases = tmp_path / "cases"
    cases.mkdir()
    (cases / "test_one.py").write_text("def test_a(): ...\ndef test_b(): ...\n")
    (tmp_path / "plan.json").write_text(json.dumps([{"cell": OLD, "session": f"cell({OLD})"},
                                                    {"cell": NEW, "session": f"cell({NEW})"}]))
    return {"matrix": tmp_path / "matrix.toml", "cases": cases, "plan": tmp_path / "plan.json",
            "out": tmp_path / "out"}


def args(paths: dict[str, Path], *extra: str) -> list[str]:
    return ["--plan", str(paths["plan"]), "--out", str(paths["out"]), "--run", RUN, "--matrix", str(paths["matrix"]),
            "--cases", str(paths["cases"]), *extra]


def write_cell(out: Path, cell_id: str, statuses: list[str], *, done: bool = True) -> None:
    """A cell job's uploaded results: one record per status (case ids test_one::test_a, ::test_b, ...)."""
    target = CellFiles(out, RUN, cell_id).results
    target.parent.mkdir(parents=True, exist_ok=True)
    lines = [json.dumps(make_record(run_id=RUN, cell_id=cell_id, case_id=f"test_one::test_{chr(97 + i)}",
                                    family="one", status=status))
             for i, status in enumerate(statuses)]
    target.write_text("".join(line + "\n" for line in lines))
    write_collection(target, cell_id, [f"test_one::test_{chr(97 + i)}" for i in range(len(statuses))])
    if done:
        write_json_atomically(CellFiles(out, RUN, cell_id).done, {"schema_version": 1, "cell_id": cell_id})


def read(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines()]


# --- recording the cells whose job produced no results ------------------------------------------------------------

def test_a_planned_cell_without_results_is_recorded_as_install_error_per_case(setup: dict[str, Path]) -> None:
    write_cell(setup["out"], OLD, ["passed", "passed"])
    assert planned.main(args(setup)) == 0
    records = read(CellFiles(setup["out"], RUN, NEW).results)
    assert [r["case_id"] for r in records] == ["test_one::test_a", "test_one::test_b"]
    assert {(r["status"], r["reason"], r["error_type"]) for r in records} == {
        ("install_error", "its job produced no results", "NoResults")}
    assert records[0]["jax"] == "0.8.3" and records[0]["python"] == "3.12" and records[0]["run_id"] == RUN
    done = CellFiles(setup["out"], RUN, NEW).done
    assert done.exists(), "decided, not interrupted: the report must not offer a resume"


def test_a_cell_that_uploaded_results_is_left_as_it_is(setup: dict[str, Path]) -> None:
    write_cell(setup["out"], OLD, ["passed"], done=False)
    before = CellFiles(setup["out"], RUN, OLD).results.read_text()
    planned.main(args(setup))
    assert CellFiles(setup["out"], RUN, OLD).results.read_text() == before
    assert not CellFiles(setup["out"], RUN, OLD).done.exists()


def test_recording_twice_writes_nothing_more(setup: dict[str, Path]) -> None:
    planned.main(args(setup))
    first = CellFiles(setup["out"], RUN, NEW).results.read_text()
    planned.main(args(setup))
    assert CellFiles(setup["out"], RUN, NEW).results.read_text() == first


def test_the_report_counts_a_cell_whose_job_produced_no_results(setup: dict[str, Path]) -> None:
    write_cell(setup["out"], OLD, ["passed", "failed"])
    planned.main(args(setup))
    frame = load_results(setup["out"] / "results", [RUN])
    statuses = frame.groupby("cell_id")["status"].apply(list).to_dict()
    assert statuses == {OLD: ["passed", "failed"], NEW: ["install_error", "install_error"]}


def test_recording_names_each_missing_cell(setup: dict[str, Path], capsys: pytest.CaptureFixture[str]) -> None:
    write_cell(setup["out"], NEW, ["passed"])
    planned.main(args(setup))
    assert capsys.readouterr().err == f"shardmatrix: {OLD}: recorded as install_error (its job produced no results)\n"


# --- --check: pass and fail side by side --------------------------------------------------------------------------

def test_check_passes_when_every_planned_cell_ran_to_its_end(setup: dict[str, Path]) -> None:
    write_cell(setup["out"], OLD, ["passed", "failed"])
    write_cell(setup["out"], NEW, ["not_applicable", "xfailed"])
    assert planned.main(args(setup, "--check")) == 0


def test_check_fails_naming_a_cell_with_no_results(setup: dict[str, Path], capsys: pytest.CaptureFixture[str]) -> None:
    write_cell(setup["out"], OLD, ["passed"])
    assert planned.main(args(setup, "--check")) == 1
    assert capsys.readouterr().err == (f"shardmatrix: could not fully run {NEW}: missing (its job produced no "
                                       "results)\n")
    assert not CellFiles(setup["out"], RUN, NEW).results.exists(), "--check writes nothing"


def test_check_fails_on_a_cell_recorded_as_missing(setup: dict[str, Path], capsys: pytest.CaptureFixture[str]) -> None:
    write_cell(setup["out"], OLD, ["passed", "passed"])
    planned.main(args(setup))
    capsys.readouterr()
    assert planned.main(args(setup, "--check")) == 1
    assert capsys.readouterr().err == f"shardmatrix: could not fully run {NEW}: 2 install_error\n"


@pytest.mark.parametrize("status", ["install_error", "crashed", "timeout", "a-status-nobody-knows"])
def test_check_fails_on_a_case_that_ended_inconclusive(
    setup: dict[str, Path], capsys: pytest.CaptureFixture[str], status: str
) -> None:
    write_cell(setup["out"], OLD, ["passed", "passed"])
    write_cell(setup["out"], NEW, ["passed", status])
    assert planned.main(args(setup, "--check")) == 1
    assert capsys.readouterr().err == f"shardmatrix: could not fully run {NEW}: 1 {status}\n"


def test_check_fails_on_an_incomplete_cell(setup: dict[str, Path], capsys: pytest.CaptureFixture[str]) -> None:
    write_cell(setup["out"], OLD, ["passed", "passed"])
    write_cell(setup["out"], NEW, ["passed"], done=False)
    assert planned.main(args(setup, "--check")) == 1
    assert capsys.readouterr().err.startswith(f"shardmatrix: could not fully run {NEW}: incomplete (no done marker")


def test_check_counts_a_crash_retried_into_a_pass_as_run(setup: dict[str, Path]) -> None:
    write_cell(setup["out"], OLD, ["passed", "passed"])
    write_cell(setup["out"], NEW, ["passed"])
    target = CellFiles(setup["out"], RUN, NEW).results
    retried = make_record(run_id=RUN, cell_id=NEW, case_id="test_one::test_b", family="one", status="crashed")
    target.write_text(target.read_text() + json.dumps(retried) + "\n" + json.dumps({**retried, "status": "passed",
                                                                                      "attempt": 2}) + "\n")
    assert planned.main(args(setup, "--check")) == 0


# --- bad input: one line naming the culprit, exit 64 ---------------------------------------------------------------

@pytest.mark.parametrize(("plan", "message"), [
    ("{not json", "plan is not valid JSON (Expecting property name enclosed in double quotes, line 1)"),
    ('{"cell": "x"}', "plan is a JSON dict, not a list"),
    ('[{"session": "cell(x)"}]', """plan entry 1 has no 'cell': {"session": "cell(x)"}"""),
    ('[{"cell": "jax9-flax9-py3.99"}]', "names cell 'jax9-flax9-py3.99', which the matrix file does not have"),
])
def test_a_bad_plan_is_refused_in_one_line(
    setup: dict[str, Path], capsys: pytest.CaptureFixture[str], plan: str, message: str
) -> None:
    setup["plan"].write_text(plan)
    assert planned.main(args(setup)) == 64  # 2 is INCONCLUSIVE's code
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and message in err
    assert not (setup["out"] / "results").exists()


def test_the_command_reads_the_plan_from_stdin(setup: dict[str, Path]) -> None:
    """As the workflow runs it: the plan job's output piped in, the matrix file of this checkout by default."""
    plan_text = subprocess.run([sys.executable, "-m", "harness.host.plan", "--smoke"], cwd=ROOT, capture_output=True,
                               text=True, check=True).stdout
    ids = planned.read_plan(plan_text)
    command = [sys.executable, "-m", "harness.host.planned", "--plan", "-", "--out", str(setup["out"]), "--run", RUN,
               "--cases", str(setup["cases"])]
    recorded = subprocess.run(command, cwd=ROOT, input=plan_text, capture_output=True, text=True, check=False)
    assert recorded.returncode == 0, recorded.stderr
    assert sorted(p.stem for p in (setup["out"] / "results" / RUN).glob("*.jsonl")) == sorted(ids)
    checked = subprocess.run([*command, "--check"], cwd=ROOT, input=plan_text, capture_output=True, text=True,
                             check=False)
    assert checked.returncode == 1
    assert [line.split(": ")[1] for line in checked.stderr.splitlines()] == [f"could not fully run {i}" for i in ids]


def test_an_unknown_option_is_refused_in_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    assert planned.main(["--plan", "-", "--out", "o", "--run", "r", "--chek"]) == 64
    assert "unknown option --chek (did you mean --check?)" in capsys.readouterr().err


@pytest.mark.parametrize("culprit", ["plan", "matrix"])
def test_a_plan_or_matrix_file_of_bytes_is_refused_in_one_line(
    setup: dict[str, Path], capsys: pytest.CaptureFixture[str], culprit: str
) -> None:
    setup[culprit].write_bytes(b"\xff\xfe not text")
    assert planned.main(args(setup)) == 64
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f"{setup[culprit]}: " in err and "not UTF-8 text (byte 0)" in err


def test_an_output_folder_that_is_a_file_is_refused_in_one_line(
    setup: dict[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    setup["out"].write_text("a file")  # the missing cells' records cannot be written under it
    assert planned.main(args(setup)) == 64
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Not a directory" in err and "Traceback" not in err


def test_check_fails_on_a_cell_missing_an_expected_case_or_whose_line_is_torn(
    setup: dict[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    write_cell(setup["out"], OLD, ["passed", "passed"])
    write_cell(setup["out"], NEW, ["passed", "passed"])
    assert planned.main(args(setup, "--check")) == 0  # the pair: every expected case has its record
    target = CellFiles(setup["out"], RUN, NEW).results
    target.write_text(target.read_text().splitlines()[0] + "\n" + target.read_text().splitlines()[1][:25])
    assert planned.main(args(setup, "--check")) == 1
    err = capsys.readouterr().err
    assert err.startswith(f"shardmatrix: could not fully run {NEW}: 2 unaccounted (first: {target}:2: skipped line: "
                          "not valid JSON (torn")
    assert err.count("\n") == 1


def test_check_fails_on_a_done_marker_that_does_not_parse(setup: dict[str, Path],
                                                         capsys: pytest.CaptureFixture[str]) -> None:
    write_cell(setup["out"], OLD, ["passed", "passed"])
    write_cell(setup["out"], NEW, ["passed", "passed"])
    CellFiles(setup["out"], RUN, NEW).done.write_text('{"cell_id": ')
    assert planned.main(args(setup, "--check")) == 1
    assert "ignored done marker: not valid JSON" in capsys.readouterr().err
