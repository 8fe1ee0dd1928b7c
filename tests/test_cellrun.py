"""harness.host.cellrun: one cell's run, build -> reuse -> run -> record what pytest could not -> finish, and its
variants (matrix cell, command-line probe, installed mode, cells that left nothing)."""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

import pytest

from harness.celldocuments import write_collection
from harness.cellrecord import CellFiles, make_record
from harness.host import adhoc, cellrun, matrix
from harness.host.options import Options
from harness.host.runner import Job
from tests.collision_project import OWN, add_own_packages

CELL = matrix.parse('[[cell]]\njax="0.4.38"\njaxlib="0.4.38"\nflax="0.10.2"\npython="3.11"\n')[0]


class FakePytest:
    """runner.run_pytest as a real one ends: each case file's outcome is whether its source says `assert True`;
    `returncode` 2 stops part way (interrupted)."""

    def __init__(self, returncode: int = 0) -> None:
        self.returncode, self.runs = returncode, []

    def __call__(self, cell: matrix.Cell, venv: Path, job: Job) -> int:
        self.runs.append(job.files.run_id)
        lines = []
        for path in job.paths:
            file, _, node = str(path).partition("::")
            for case in sorted(Path(file).rglob("test_*.py")) if Path(file).is_dir() else [Path(file)]:
                status = "passed" if "assert True" in case.read_text() else "failed"
                lines.append(json.dumps(make_record(run_id=job.files.run_id, cell_id=job.files.cell_id,
                                                    case_id=f"{case.stem}::{node or 'test_a'}", status=status)) + "\n")
        job.files.results.parent.mkdir(parents=True, exist_ok=True)
        job.files.results.write_text("".join(lines))
        write_collection(job.files.results, job.files.cell_id, [json.loads(line)["case_id"] for line in lines])
        return self.returncode


@pytest.fixture
def cases(tmp_path: Path) -> Path:
    folder = tmp_path / "cases"
    folder.mkdir()
    (folder / "test_a.py").write_text("def test_a():\n    assert True\n")
    return folder


def built_here(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, returncode: int = 0) -> FakePytest:
    """No uv, no venv: the install succeeds, the environment freezes the same each time, pytest is faked."""
    fake = FakePytest(returncode)
    monkeypatch.setattr(adhoc, "ensure_venv", lambda cell: (tmp_path / "venv", None))
    monkeypatch.setattr(cellrun, "install", lambda *a, **k: None)
    monkeypatch.setattr(cellrun, "freeze", lambda venv, dest, cell=None: "jax==0.4.38\n")
    monkeypatch.setattr(cellrun, "interpreter_version", lambda venv: "3.11.7")
    monkeypatch.setattr(cellrun, "run_pytest", fake)
    return fake


def probe(cases: Path, out: Path, run_id: str, **options: object) -> cellrun.CellRun:
    return cellrun.probe(CELL, Options(out=out, run_id=run_id, cases=[str(cases)], **options),  # type: ignore[arg-type]
                         say=lambda line: None)


def test_a_probe_with_unchanged_inputs_is_reused_through_the_cache(
    tmp_path: Path, cases: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fake = built_here(monkeypatch, tmp_path)
    first = probe(cases, tmp_path / "out", "r1")
    again = probe(cases, tmp_path / "out", "r2")
    assert fake.runs == ["r1"] and not first.reused
    assert again.reused_from == "r1" and again.run_id == "r2" and again.complete
    assert again.finals()["test_a::test_a"]["run_id"] == "r2"  # copied into this run, so RUN:CELL names it


def test_a_changed_case_file_reruns_and_its_new_outcome_is_read(
    tmp_path: Path, cases: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Before, probes were reused by cell id and case-id coverage: the edited test's old outcome came back.
    fake = built_here(monkeypatch, tmp_path)
    assert probe(cases, tmp_path / "out", "r1").finals()["test_a::test_a"]["status"] == "passed"
    (cases / "test_a.py").write_text("def test_a():\n    assert False\n")
    again = probe(cases, tmp_path / "out", "r2")
    assert fake.runs == ["r1", "r2"] and not again.reused
    assert again.finals()["test_a::test_a"]["status"] == "failed"


def test_a_probe_of_some_cases_is_not_reused_for_another_selection(
    tmp_path: Path, cases: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fake = built_here(monkeypatch, tmp_path)
    options = Options(out=tmp_path / "out", cases=[str(cases)])
    cellrun.probe(CELL, Options(**{**vars(options), "run_id": "r1"}), [Path(f"{cases}/test_a.py::test_a")],
                  say=lambda line: None)
    cellrun.probe(CELL, Options(**{**vars(options), "run_id": "r2"}), [cases / "test_a.py"], say=lambda line: None)
    assert fake.runs == ["r1", "r2"]


def test_force_reruns_unchanged_inputs(tmp_path: Path, cases: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    fake = built_here(monkeypatch, tmp_path)
    probe(cases, tmp_path / "out", "r1")
    assert not probe(cases, tmp_path / "out", "r2", force=True).reused
    assert fake.runs == ["r1", "r2"]


def test_an_interrupted_probe_reads_as_incomplete_and_is_never_reused(
    tmp_path: Path, cases: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fake = built_here(monkeypatch, tmp_path, returncode=2)
    said: list[str] = []
    ran = cellrun.probe(CELL, Options(out=tmp_path / "out", run_id="r1", cases=[str(cases)]), say=said.append)
    assert ran.interrupted and ran.returncode == 2
    assert said[-1] == f"{CELL.id}: interrupted (exit 2); its results are incomplete and are not reused"
    fake.returncode = 0
    assert not probe(cases, tmp_path / "out", "r2").reused


def test_a_done_marker_left_by_an_earlier_run_does_not_vouch_for_an_interrupted_one(
    tmp_path: Path, cases: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    built_here(monkeypatch, tmp_path)
    probe(cases, tmp_path / "out", "r1")
    built_here(monkeypatch, tmp_path, returncode=2)
    ran = probe(cases, tmp_path / "out", "r1", force=True)
    assert ran.interrupted and not CellFiles(tmp_path / "out", "r1", CELL.id).done.exists()


def test_a_probe_whose_interpreter_is_missing_is_recorded_and_finished(tmp_path: Path, cases: Path,
                                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(adhoc, "ensure_venv", lambda cell: (tmp_path / "venv", "interpreter python3.11: missing"))
    ran = probe(cases, tmp_path / "out", "r1")
    assert ran.complete and ran.finals()["test_a::test_a"]["status"] == "install_error"


def test_a_matrix_cell_reuses_and_says_so(
    tmp_path: Path, cases: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    fake = built_here(monkeypatch, tmp_path)
    for run_id in ("r1", "r2"):
        cellrun.matrix_cell(CELL, tmp_path, Options(out=tmp_path / "out", run_id=run_id, cases=[str(cases)]))
    assert fake.runs == ["r1"]
    said = capsys.readouterr().out.splitlines()
    assert said[-1].startswith(f"{CELL.id}: 1/1 cases, ")
    assert ", reused from run r1 (--force reruns): 1 passed (log: " in said[-1]
    assert "its output is in" in CellFiles(tmp_path / "out", "r2", CELL.id).log.read_text()
    assert json.loads(CellFiles(tmp_path / "out", "r2", CELL.id).done.read_text())["reused_from"] == "r1"


def test_cells_that_left_nothing_are_recorded_and_finished(tmp_path: Path, cases: Path) -> None:
    ghost = matrix.parse('[[cell]]\njax="0.4.38"\njaxlib="0.4.38"\nflax="0.10.2"\npython="3.99"\n')[0]
    ran = CellFiles(tmp_path / "out", "r", CELL.id)
    ran.results.parent.mkdir(parents=True)
    ran.results.write_text("")
    recorded = cellrun.unreported([ghost, CELL], tmp_path / "out", "r", [cases], cellrun.session_never_ran)
    assert recorded == [ghost.id]
    record = json.loads(CellFiles(tmp_path / "out", "r", ghost.id).results.read_text().splitlines()[0])
    assert record["status"] == "install_error" and record["error_type"] == "MissingInterpreter"
    assert record["error_message"].startswith("interpreter python3.99 not found")
    # Finished, so a report reads it as not built rather than interrupted.
    assert CellFiles(tmp_path / "out", "r", ghost.id).done.exists()


def test_a_pytest_that_never_started_records_every_case_as_an_error_saying_why(
        tmp_path: Path, cases: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def no_pytest(cell: matrix.Cell, venv: Path, job: Job) -> int:
        job.files.log.write_text("Traceback (most recent call last):\n"
                                 "ModuleNotFoundError: No module named 'iniconfig'\n")
        return 1  # what python -m pytest exits with when pytest's own import fails

    monkeypatch.setattr(cellrun, "run_pytest", no_pytest)
    files = CellFiles(tmp_path / "out", "20261126T053704Z-h200", CELL.id)
    job = Job(files=files, paths=(cases,), known=(), settings=cellrun.cache.Settings(
        devices=8, backend="cpu", timeout=60.0, reruns=0, hard_grace=10.0, repeats=1))
    cellrun.run(CELL, tmp_path / "venv", job, [cases], build=False, say=lambda line: None)
    (only,) = [json.loads(line) for line in files.results.read_text().splitlines()]
    assert (only["case_id"], only["status"], only["error_type"]) == ("test_a::test_a", "error", "PytestDidNotStart")
    assert "No module named 'iniconfig'" in only["reason"]


def test_a_pytest_that_collected_and_failed_records_nothing_more(tmp_path: Path, cases: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    fake = FakePytest(returncode=1)
    monkeypatch.setattr(cellrun, "run_pytest", fake)
    files = CellFiles(tmp_path / "out", "20261126T053704Z-h200", CELL.id)
    job = Job(files=files, paths=(cases,), known=(), settings=cellrun.cache.Settings(
        devices=8, backend="cpu", timeout=60.0, reruns=0, hard_grace=10.0, repeats=1))
    cellrun.run(CELL, tmp_path / "venv", job, [cases], build=False, say=lambda line: None)
    assert [json.loads(line)["status"] for line in files.results.read_text().splitlines()] == ["passed"]


def _installed_here(tmp_path: Path, cases: Path) -> dict[str, str]:
    """Installed mode on this interpreter (its pytest and plugins; the cases import no jax): each case's status."""
    options = Options(out=tmp_path / "out", run_id="20261126T090000Z-own", cases=[str(cases)])
    assert cellrun.installed(CELL, Path(sys.executable).parent.parent, options, [cases]) == 0
    files = CellFiles(options.out, options.run_id, CELL.id)
    return {json.loads(line)["case_id"]: json.loads(line)["status"] for line in files.results.read_text().splitlines()}


def test_installed_mode_runs_a_projects_own_harness_reports_and_tests(tmp_path: Path) -> None:
    # This interpreter has shardmatrix installed, whose entry point was `harness.cell.plugin`: loaded, it answered the
    # project's `import harness` with ours (AttributeError: ORIGIN) before the plugin came from the staged package.
    project = add_own_packages(tmp_path / "tinytrainer")
    assert _installed_here(tmp_path, project / "tests") == {OWN: "passed"}


def test_installed_mode_imports_nothing_named_harness_for_cases_without_the_case_api(tmp_path: Path) -> None:
    (tmp_path / "cases").mkdir()
    (tmp_path / "cases" / "test_no_harness.py").write_text(
        "import sys\n\n\ndef test_nothing_named_harness_is_imported():\n    assert 'harness' not in sys.modules\n",
        encoding="utf-8")
    assert _installed_here(tmp_path, tmp_path / "cases") == {"test_no_harness::test_nothing_named_harness_is_imported":
                                                             "passed"}


def test_installed_mode_answers_the_case_api_with_the_staged_plugins_own_modules(tmp_path: Path) -> None:
    (tmp_path / "cases").mkdir()
    (tmp_path / "cases" / "test_case_api.py").write_text(
        "import sys\n\nfrom harness.case import case\n\n\n"
        "def test_the_case_api_is_the_plugins():\n    assert case.__module__ == 'shardmatrix_cell.case'\n"
        "    assert not hasattr(sys.modules['harness'], 'cell')\n",
        encoding="utf-8")
    assert _installed_here(tmp_path, tmp_path / "cases") == {"test_case_api::test_the_case_api_is_the_plugins":
                                                             "passed"}


def test_a_cell_whose_selection_left_no_test_names_the_selection(tmp_path: Path) -> None:
    from harness.host.cache import Settings
    from harness.results import read_records

    settings = Settings(devices=8, backend="cpu", timeout=7.0, reruns=0, hard_grace=10.0, repeats=1)
    selected = " that -m 'not tpu' and -k 'shard or mesh' selects"
    for left_out, said in ((("-m", "not tpu", "-k", "shard or mesh"), selected), ((), "")):
        files = CellFiles(tmp_path, f"r{len(said)}", CELL.id)
        job = Job(files, (tmp_path / "tests",), (), settings, left_out=left_out)
        cellrun.record_what_pytest_could_not(CELL, job, 5)  # pytest: no tests collected, or every one deselected
        (made,) = read_records(files.results)
        assert (made["error_type"], made["error_message"]) == (
            "NoCasesCollected", f"pytest collected no case from {tmp_path / 'tests'}{said}")


def test_a_suite_past_its_budget_stops_after_the_test_that_passed_it_and_says_so_in_its_log(tmp_path: Path) -> None:
    """Pair: the same suite without a budget runs every test (test_installed_mode_* above run without one)."""
    (tmp_path / "cases").mkdir()
    (tmp_path / "cases" / "test_slow.py").write_text(
        "import time\n\n\n" + "".join(f"def test_{n}():\n    time.sleep(0.6)\n\n\n" for n in "abc"), encoding="utf-8")
    options = Options(out=tmp_path / "out", run_id="20261126T090000Z-own", cases=[str(tmp_path / "cases")],
                      suite_budget=0.5)
    cellrun.installed(CELL, Path(sys.executable).parent.parent, options, [tmp_path / "cases"])
    files = CellFiles(options.out, options.run_id, CELL.id)
    recorded = [json.loads(line) for line in files.results.read_text().splitlines()]
    assert [(r["case_id"], r["status"]) for r in recorded] == [("test_slow::test_a", "passed")]
    assert "session-timeout: 0.5 sec exceeded" in files.log.read_text()


def test_a_suite_whose_conftest_hangs_is_stopped_at_its_budget_its_cases_timeout_naming_the_hang(
        tmp_path: Path) -> None:
    """pytest-timeout checks the suite's budget after each test, so a conftest that never finishes importing was
    never stopped: the host stops the cell's pytest at the budget (and the hard grace), and each case is timeout,
    naming the hang. The budget test above is its pair: a suite that collected is stopped by pytest-timeout."""
    from harness.host import hang

    (tmp_path / "cases").mkdir()
    (tmp_path / "cases" / "conftest.py").write_text("import time\n\ntime.sleep(120)\n", encoding="utf-8")
    (tmp_path / "cases" / "test_stuck.py").write_text("def test_a():\n    pass\n", encoding="utf-8")
    options = Options(out=tmp_path / "out", run_id="20261126T090000Z-own", cases=[str(tmp_path / "cases")],
                      suite_budget=2.0, hard_grace=1.0)
    started = time.monotonic()
    cellrun.installed(CELL, Path(sys.executable).parent.parent, options, [tmp_path / "cases"])
    assert time.monotonic() - started < 60
    files = CellFiles(options.out, options.run_id, CELL.id)
    (made,) = [json.loads(line) for line in files.results.read_text().splitlines()]
    assert (made["case_id"], made["status"], made["error_type"]) == ("test_stuck::test_a", "timeout",
                                                                     "CollectionTimeout")
    # The budget and the grace a case stuck past its limit gets.
    assert made["reason"] == "hung in collection after 3 s: its pytest was stopped before any test ran"
    assert hang.HUNG_MARK in files.log.read_text() and files.complete
