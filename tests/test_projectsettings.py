"""harness.host.projectsettings: a project's own pytest settings apply in its cells as in its own pytest run.

Each option is tried on a small project run twice in this test environment (it has pytest, the harness and its
plugins; the tests need no jax): once as the project's CI runs it (`python -m pytest` in its folder), once as a cell
(harness.host.cellrun in installed mode). What fails in the first fails in the cell; what passes there passes.
"""

from __future__ import annotations

import dataclasses
import re
import subprocess
import sys
from pathlib import Path

import pytest

from harness import vocabulary
from harness.cell.records import case_id_from_nodeid
from harness.host import celllog, cellrun, matrix, projectsettings, runner
from harness.host.options import Options
from harness.host.project import ProjectError

CELL = matrix.parse('[[cell]]\njax="0.8.1"\njaxlib="0.8.1"\nflax="0.12.0"\npython="3.11"\n')[0]

WARNS = '''import warnings


def test_warns():
    warnings.warn("the default will change", DeprecationWarning)


def test_quiet():
    assert True
'''


def make_project(root: Path, pytest_options: str, files: dict[str, str]) -> Path:
    """A project folder: pyproject.toml with `pytest_options` as its [tool.pytest.ini_options], and `files`."""
    root.mkdir(parents=True, exist_ok=True)
    (root / "pyproject.toml").write_text(f'[project]\nname = "p"\nversion = "1"\n\n[tool.pytest.ini_options]\n'
                                         f'{pytest_options}\n', encoding="utf-8")
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text, encoding="utf-8")
    return root


def own_run(root: Path) -> dict[str, str]:
    """{case id: PASSED, FAILED, ERROR, XFAIL or XPASS} of the project's own `python -m pytest` in its folder; a
    module that did not collect is keyed by its collection case. (--continue-on-collection-errors: its own run stops
    at a module that does not collect, which a cell records and goes past, so both show every other module.)"""
    done = subprocess.run([sys.executable, "-m", "pytest", "-rA", "-p", "no:cacheprovider",
                           "--continue-on-collection-errors", "tests"], cwd=root, capture_output=True, text=True,
                          check=False)
    found = {case_id_from_nodeid(nodeid): outcome for outcome, nodeid in
             re.findall(r"^(PASSED|FAILED|ERROR|XFAIL|XPASS) (\S+)", done.stdout, flags=re.MULTILINE)}
    assert found, done.stdout + done.stderr
    return found


def cell_run(root: Path, tmp_path: Path, **settings: object) -> dict[str, dict[str, object]]:
    """Each case's final record of the project's tests run as a cell of it, in this environment."""
    options = Options(out=tmp_path / "out", run_id="r", cases=[str(root / "tests")], timeout=60.0, reruns=0,
                      devices=0, **settings)  # type: ignore[arg-type]
    cell = dataclasses.replace(CELL, project=str(root))
    assert cellrun.installed(cell, Path(sys.prefix), options, [root / "tests"]) == 0
    return celllog.final_records(cellrun.CellFiles(options.out, "r", cell.id).results)


def assert_alike(own: dict[str, str], cell: dict[str, dict[str, object]]) -> None:
    """Every test that fails (or does not collect) in the project's own run is broken in the cell, every one that
    passes passes there, and there is at least one of each."""
    def module_failed(case: str) -> bool:
        return own.get(f"{case.partition('::')[0]}::{vocabulary.COLLECTION_CASE}") == "ERROR"

    for case, record in cell.items():
        status = str(record["status"])
        if own.get(case) in ("FAILED", "ERROR") or module_failed(case):
            assert vocabulary.status_class(status) == vocabulary.BROKEN, (case, record)
        elif own.get(case) in ("PASSED", "XPASS"):
            assert vocabulary.is_passing(status), (case, record)
        else:
            assert own.get(case) == "XFAIL" and status == vocabulary.XFAILED, (case, record, own)
    classes = {vocabulary.status_class(str(record["status"])) for record in cell.values()}
    assert {vocabulary.PASSING, vocabulary.BROKEN} <= classes, cell


def test_werror_in_addopts_makes_a_warning_a_failure_whose_record_is_the_warning(tmp_path: Path) -> None:
    root = make_project(tmp_path / "p", 'addopts = "-Werror"', {"tests/test_mesh.py": WARNS})
    own = own_run(root)
    assert own == {"test_mesh::test_warns": "FAILED", "test_mesh::test_quiet": "PASSED"}
    cell = cell_run(root, tmp_path)
    assert_alike(own, cell)
    warned = cell["test_mesh::test_warns"]
    assert (warned["status"], warned["error_type"], warned["error_message"]) == (
        vocabulary.FAILED, "DeprecationWarning", "the default will change")


def test_without_werror_the_same_warning_passes_and_is_recorded_as_a_deprecation(tmp_path: Path) -> None:
    root = make_project(tmp_path / "p", 'addopts = "-ra"', {"tests/test_mesh.py": WARNS})
    own = own_run(root)
    assert own == {"test_mesh::test_warns": "PASSED", "test_mesh::test_quiet": "PASSED"}
    cell = cell_run(root, tmp_path)
    warned = cell["test_mesh::test_warns"]
    assert warned["status"] == vocabulary.PASSED
    assert warned["warnings"] == ["DeprecationWarning: the default will change"]


def test_filterwarnings_error_fails_what_warns_and_passes_the_rest(tmp_path: Path) -> None:
    root = make_project(tmp_path / "p", 'filterwarnings = ["error", "ignore:quiet:UserWarning"]',
                        {"tests/test_mesh.py": WARNS + '\n\ndef test_ignored():\n    import warnings\n\n'
                                                         '    warnings.warn("quiet please", UserWarning)\n'})
    own = own_run(root)
    assert own["test_mesh::test_warns"] == "FAILED" and own["test_mesh::test_ignored"] == "PASSED"
    assert_alike(own, cell_run(root, tmp_path))


def test_strict_markers_fail_a_module_with_an_unregistered_marker_and_pass_a_registered_one(tmp_path: Path) -> None:
    root = make_project(tmp_path / "p", 'addopts = "--strict-markers"\nmarkers = ["slow: takes long"]', {
        "tests/test_unregistered.py": "import pytest\n\n\n@pytest.mark.sloww\ndef test_typo():\n    pass\n",
        "tests/test_registered.py": "import pytest\n\n\n@pytest.mark.slow\ndef test_marked():\n    pass\n",
    })
    own = own_run(root)
    assert own == {f"test_unregistered::{vocabulary.COLLECTION_CASE}": "ERROR", "test_registered::test_marked":
                   "PASSED"}
    cell = cell_run(root, tmp_path)
    assert_alike(own, cell)
    failed = cell[f"test_unregistered::{vocabulary.COLLECTION_CASE}"]
    assert "'sloww' not found in `markers` configuration option" in str(failed["error_message"])


def test_a_plugin_named_by_p_in_addopts_is_loaded_from_the_project_folder(tmp_path: Path) -> None:
    root = make_project(tmp_path / "p", 'addopts = "-p localplugin"', {
        "localplugin.py": "import pytest\n\n\n@pytest.fixture\ndef answer():\n    return 42\n",
        "tests/test_answer.py": "def test_right(answer):\n    assert answer == 42\n\n\n"
                                "def test_wrong(answer):\n    assert answer == 41\n",
    })
    own = own_run(root)
    assert own == {"test_answer::test_right": "PASSED", "test_answer::test_wrong": "FAILED"}
    assert_alike(own, cell_run(root, tmp_path))


def test_xfail_strict_fails_a_strict_xfail_that_passes(tmp_path: Path) -> None:
    root = make_project(tmp_path / "p", "xfail_strict = true", {
        "tests/test_known.py": "import pytest\n\n\n@pytest.mark.xfail(reason='not fixed')\ndef test_fixed():\n"
                               "    pass\n\n\n@pytest.mark.xfail(reason='not fixed')\ndef test_still_broken():\n"
                               "    assert False\n\n\ndef test_plain():\n    pass\n",
    })
    own = own_run(root)
    assert own == {"test_known::test_fixed": "FAILED", "test_known::test_still_broken": "XFAIL",
                   "test_known::test_plain": "PASSED"}
    assert_alike(own, cell_run(root, tmp_path))


def test_a_project_that_disables_xdist_runs_with_workers_asked_and_says_so_first(
    tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    root = make_project(tmp_path / "p", 'addopts = ["-p", "no:xdist", "-x"]', {"tests/test_mesh.py": WARNS.replace(
        "def test_warns():\n", "def test_warns():\n    assert False\n")})
    own = own_run(root)
    assert own == {"test_mesh::test_warns": "FAILED"}  # -x: its own run stops there
    cell = cell_run(root, tmp_path, workers=2)
    # Every test is recorded (the cell needs them all), in one process.
    assert {case: record["status"] for case, record in cell.items()} == {
        "test_mesh::test_warns": vocabulary.FAILED, "test_mesh::test_quiet": vocabulary.PASSED}
    said = capfd.readouterr().out.splitlines()
    assert said[0] == (f"{CELL.id}: project pytest settings (pyproject.toml): its -p no:xdist runs the tests in one "
                       "process (--workers 2 is not used); its -x/--maxfail would stop at the first failures: every "
                       "test runs (--maxfail 0)")


def test_options_of_pytests_cache_are_left_out_of_the_addopts_and_the_rest_still_applies(
    tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    # A cell runs without pytest's cache (-p no:cacheprovider): --sw would not even parse there, and would stop the
    # run at its first failure.
    root = make_project(tmp_path / "p", 'addopts = "--sw -Werror --lfnf all"', {"tests/test_mesh.py": WARNS})
    own = projectsettings.read(root)
    assert own.cache_options == ("--sw", "--lfnf", "all") and own.addopts_without_cache == ("-Werror",)
    cell = cell_run(root, tmp_path)
    assert {case: record["status"] for case, record in cell.items()} == {
        "test_mesh::test_warns": vocabulary.FAILED, "test_mesh::test_quiet": vocabulary.PASSED}
    assert capfd.readouterr().out.splitlines()[0] == (
        f"{CELL.id}: project pytest settings (pyproject.toml): its --sw --lfnf all (pytest's cache) are left out: a "
        "cell runs without that cache, every test from the first")


def test_the_projects_settings_are_read_as_pytest_reads_them(tmp_path: Path) -> None:
    root = make_project(tmp_path / "p", 'addopts = "-pno:xdist --timeout=5 -p no:randomly"\ntimeout = 100', {})
    own = projectsettings.read(root)
    assert own.addopts == ("-pno:xdist", "--timeout=5", "-p", "no:randomly")
    assert own.disabled == {"xdist", "randomly"} and own.timeout == 5.0 and not own.stops_early
    assert own.arguments() == ["--rootdir", str(root), "-c", str(root / "pyproject.toml")]
    (root / "pytest.ini").write_text("[pytest]\naddopts = --maxfail=2\ntimeout = 30\n", encoding="utf-8")
    ini = projectsettings.read(root)
    assert (ini.file.name, ini.addopts, ini.timeout, ini.stops_early) == ("pytest.ini", ("--maxfail=2",), 30.0, True)


def test_a_project_that_disables_the_shardmatrix_entry_point_for_its_own_runs_is_read_as_it_is(
        tmp_path: Path) -> None:
    own = projectsettings.read(make_project(tmp_path / "p", 'addopts = "-p no:shardmatrix"', {}))
    assert own.disabled == {"shardmatrix"}


def test_a_plugin_loaded_by_its_module_name_is_not_stopped_by_ini_addopts_blocking_the_entry_point_name(
        pytester: pytest.Pytester) -> None:
    # How a cell loads its plugin (harness.host.runner): `-p no:shardmatrix -p shardmatrix_cell.cell.plugin`.
    pytester.makepyfile(cellplug="def pytest_report_header(config):\n    return 'cell plugin loaded'\n")
    pytester.makeini("[pytest]\naddopts = -p no:shardmatrix\n")
    pytester.makepyfile(test_x="def test_x():\n    pass\n")
    pytester.syspathinsert()
    result = pytester.runpytest_subprocess("-p", "no:shardmatrix", "-p", "cellplug")
    result.stdout.fnmatch_lines(["cell plugin loaded"])
    assert result.ret == 0


@pytest.mark.parametrize(("options", "fault"), [
    ("addopts = \"-k 'unclosed\"", "addopts \"-k 'unclosed\" cannot be read"),
    ('timeout = "soon"', "timeout 'soon' is not a number of seconds"),
])
def test_settings_no_cell_can_run_under_are_refused_in_one_line(tmp_path: Path, options: str, fault: str) -> None:
    root = make_project(tmp_path / "p", options, {})
    with pytest.raises(ProjectError, match=re.escape(fault)):
        projectsettings.read(root)


def test_the_stricter_time_limit_applies_and_a_looser_one_of_the_project_is_said() -> None:
    own = projectsettings.ProjectSettings(Path("/p"), Path("/p/pytest.ini"), timeout=5.0)
    assert projectsettings.time_limit(own, 300.0) == 5.0 and projectsettings.time_limit(None, 300.0) == 300.0
    assert projectsettings.conflicts(own, 0, 1, 5.0) == []
    loose = dataclasses.replace(own, timeout=900.0)
    assert projectsettings.time_limit(loose, 300.0) == 300.0
    assert projectsettings.conflicts(loose, 0, 1, 300.0) == ["its timeout of 900 s is cut to the cell's --timeout 300"]


def test_options_of_a_plugin_the_project_disables_are_left_out_and_said_only_when_asked_for(tmp_path: Path) -> None:
    root = make_project(tmp_path / "p", 'addopts = "-p no:rerunfailures -p no:timeout -p no:xdist"', {})
    cell = dataclasses.replace(CELL, project=str(root))
    job = cellrun.job_for(cell, Options(out=tmp_path, run_id="r", reruns=0, workers=0), [root / "tests"])
    command = runner.pytest_command(tmp_path, job)
    assert not {"--reruns", "--timeout", "-n", "--rerun-except", "-o"} & set(command)
    assert runner.conflict_line(job) == "project pytest settings (pyproject.toml): its -p no:timeout sets no time " \
                                        "limit (--timeout 300 is not used)"
    job = dataclasses.replace(job, settings=dataclasses.replace(job.settings, timeout=0.0))
    assert runner.conflict_line(job) == ""
