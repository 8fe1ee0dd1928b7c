"""The plugin driven through real pytest sessions (pytester), one behaviour per test, in pass/fail pairs."""

from __future__ import annotations

import importlib.metadata
import json
import platform
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from harness.celldocuments import read_machine
from harness.cellrecord import SCHEMA_VERSION

CASES = '''
import warnings
import pytest

from harness.cellrecord import SCHEMA_VERSION
from harness.case import case, api, accepts

FAMILY = "toy_family"

@case(FAMILY)
def test_holds():
    """passes"""
    assert 1 + 1 == 2

@case(FAMILY)
def test_breaks():
    """fails"""
    raise TypeError("unexpected keyword argument 'check_rep' <script>")

@case(FAMILY, needs=[api("json.not_there")])
def test_absent_api():
    """needs an API that does not exist"""
    raise AssertionError("must not run")

@case(FAMILY, needs=[accepts("textwrap.dedent", "graph")])
def test_absent_parameter():
    """needs a parameter that does not exist"""
    raise AssertionError("must not run")

@case(FAMILY, devices=4096)
def test_too_many_devices():
    """needs more devices than any cell has"""

@case(FAMILY)
def test_deprecated():
    """passes with a deprecation"""
    warnings.warn("x.value is deprecated, use x[...]", DeprecationWarning)
    warnings.warn("shard_map moved", FutureWarning)
    warnings.warn("not an API warning", UserWarning)

@pytest.mark.xfail(strict=True, reason="known upstream bug")
def test_known_breakage():
    raise ValueError("still broken")

@pytest.mark.xfail(strict=True, reason="was broken")
def test_known_breakage_fixed():
    pass

@case(FAMILY)
def test_name_missing_from_the_standard_library():
    """a name this cell's json lacks"""
    from json import name_that_json_does_not_have_xyz

@case(FAMILY)
def test_name_missing_from_an_installed_package():
    """a name this cell's pytest lacks"""
    from pytest import name_that_pytest_does_not_have_xyz

@case(FAMILY)
def test_module_not_installed_at_all():
    """a module that no package provides"""
    import a_module_that_is_not_installed_xyz

@case(FAMILY, timeout=0.5)
def test_hangs():
    import time
    time.sleep(5)
'''


def run_cases(pytester: pytest.Pytester, source: str, *args: str) -> dict[str, dict]:
    pytester.makepyfile(toy_cases=source)
    out = pytester.path / "out"
    pytester.runpytest("toy_cases.py", "--shardmatrix-out", str(out), "--shardmatrix-run", "r1",
                       "--shardmatrix-cell", "c1", "--shardmatrix-devices", "0", "-p", "no:cacheprovider", *args)
    lines = (out / "results" / "r1" / "c1.jsonl").read_text().splitlines()
    return {json.loads(line)["case_id"]: json.loads(line) for line in lines}


@pytest.fixture(scope="module")
def recorded(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict]:
    # One real pytest process shared by the tests below: each asserts one behaviour of the same run.
    folder = tmp_path_factory.mktemp("toy")
    (folder / "toy_cases.py").write_text(CASES)
    out = folder / "out"
    subprocess.run(
        # The plugin by its module name, as a cell loads it (shardmatrix has no pytest11 entry point).
        [sys.executable, "-m", "pytest", "-p", "harness.cell.plugin", "toy_cases.py", "--shardmatrix-out", str(out),
         "--shardmatrix-run", "r1",
         "--shardmatrix-cell", "c1", "--shardmatrix-devices", "0", "-p", "no:cacheprovider", "-q"],
        cwd=folder, check=False, capture_output=True,
    )
    lines = (out / "results" / "r1" / "c1.jsonl").read_text().splitlines()
    return {json.loads(line)["case_id"]: json.loads(line) for line in lines}


def test_one_record_per_case_with_schema_and_cell(recorded: dict[str, dict]) -> None:
    assert len(recorded) == 12
    for record in recorded.values():
        assert record["schema_version"] == SCHEMA_VERSION
        assert record["run_id"] == "r1" and record["cell_id"] == "c1"
        assert record["python"] and record["platform"] and record["timestamp"]


def test_passed_and_failed_pair(recorded: dict[str, dict]) -> None:
    assert recorded["toy_cases::test_holds"]["status"] == "passed"
    assert recorded["toy_cases::test_holds"]["error_type"] is None
    broken = recorded["toy_cases::test_breaks"]
    assert broken["status"] == "failed"
    assert broken["error_type"] == "TypeError"
    assert broken["error_message"] == "unexpected keyword argument 'check_rep' <script>"


def test_a_name_missing_from_an_importable_package_is_failed_naming_it_and_the_version(
    recorded: dict[str, dict],
) -> None:
    stdlib = recorded["toy_cases::test_name_missing_from_the_standard_library"]
    assert (stdlib["status"], stdlib["error_type"]) == ("failed", "ImportError")
    python = platform.python_version()
    assert stdlib["error_message"] == f"json has no name_that_json_does_not_have_xyz (python {python})"
    installed = recorded["toy_cases::test_name_missing_from_an_installed_package"]
    assert installed["status"] == "failed"
    assert installed["error_message"] == (
        f"pytest has no name_that_pytest_does_not_have_xyz (pytest {importlib.metadata.version('pytest')})")


def test_a_module_that_is_not_installed_is_error_not_a_missing_name(recorded: dict[str, dict]) -> None:
    record = recorded["toy_cases::test_module_not_installed_at_all"]
    assert (record["status"], record["error_type"]) == ("error", "ModuleNotFoundError")
    assert record["reason"] == ("No module named 'a_module_that_is_not_installed_xyz': the cell lacks it; add it with "
                                "--with <its distribution>")
    assert "a_module_that_is_not_installed_xyz" in record["error_message"]


def test_family_declared_or_taken_from_module(recorded: dict[str, dict]) -> None:
    assert recorded["toy_cases::test_holds"]["family"] == "toy_family"
    assert recorded["toy_cases::test_known_breakage"]["family"] == "toy_cases"


def test_unmet_needs_are_not_applicable_with_the_api_named(recorded: dict[str, dict]) -> None:
    assert recorded["toy_cases::test_absent_api"]["status"] == "not_applicable"
    assert recorded["toy_cases::test_absent_api"]["reason"] == "json.not_there is absent"
    assert recorded["toy_cases::test_absent_parameter"]["reason"] == "textwrap.dedent does not accept 'graph'"
    assert recorded["toy_cases::test_absent_api"]["error_type"] is None


def test_too_few_devices_is_not_applicable(recorded: dict[str, dict]) -> None:
    record = recorded["toy_cases::test_too_many_devices"]
    assert record["status"] == "not_applicable"
    assert record["reason"].startswith("needs 4096 devices, cell has ")
    assert record["devices_needed"] == 4096


def test_a_case_absent_for_an_api_needed_no_devices(recorded: dict[str, dict]) -> None:
    assert recorded["toy_cases::test_absent_api"]["devices_needed"] is None


def test_the_cell_records_its_stack_once_in_its_machine_file(pytester: pytest.Pytester,
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("JAX_DEFAULT_MATMUL_PRECISION", "highest")
    run_cases(pytester, "def test_a():\n    pass\n")
    machine = read_machine(pytester.path / "out" / "results" / "r1" / "c1.jsonl")
    assert machine is not None and machine["cell_id"] == "c1"
    assert machine["settings"]["JAX_DEFAULT_MATMUL_PRECISION"] == "highest"


def test_without_out_no_machine_file_is_written(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(toy_cases="def test_a():\n    pass\n")
    pytester.runpytest("toy_cases.py", "-p", "no:cacheprovider")
    assert not list(pytester.path.rglob("*.machine.json"))


def test_deprecation_and_future_warnings_recorded_but_not_others(recorded: dict[str, dict]) -> None:
    record = recorded["toy_cases::test_deprecated"]
    assert record["status"] == "passed"
    assert record["warnings"] == [
        "DeprecationWarning: x.value is deprecated, use x[...]",
        "FutureWarning: shard_map moved",
    ]
    assert recorded["toy_cases::test_holds"]["warnings"] == []


def test_xfail_pair(recorded: dict[str, dict]) -> None:
    assert recorded["toy_cases::test_known_breakage"]["status"] == "xfailed"
    assert recorded["toy_cases::test_known_breakage"]["reason"] == "known upstream bug"
    # A test's own xfail mark is no declared known breakage: its record says so, so no report counts it as a known
    # upstream bug (tests/test_known.py has a declared one, which says True).
    assert recorded["toy_cases::test_known_breakage"]["known_breakage"] is False
    # A strict xfail mark of the test's own that passes fails, as pytest says (a project's xfail_strict); only a
    # known breakage of ours that passes is xpassed, stale (tests/test_known.py).
    assert recorded["toy_cases::test_known_breakage_fixed"]["status"] == "failed"


def test_hang_is_timeout(recorded: dict[str, dict]) -> None:
    record = recorded["toy_cases::test_hangs"]
    assert record["status"] == "timeout"
    assert 0.4 < record["duration_s"] < 4


def test_durations_recorded(recorded: dict[str, dict]) -> None:
    assert recorded["toy_cases::test_holds"]["duration_s"] >= 0


INERT = '''
import os
from harness.case import case, api

@case("toy_family", devices=4096, needs=[api("json.not_there")])
def test_runs_as_plain_pytest(request):
    assert os.environ["XLA_FLAGS"] == "--xla_dump_to=/nowhere"
    assert type(request.node.parent).__name__ == "Module"
'''


def test_without_out_the_plugin_is_inert(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    # No devices requested, no module replaced, needs and devices not checked, nothing recorded.
    monkeypatch.setenv("XLA_FLAGS", "--xla_dump_to=/nowhere")
    monkeypatch.delenv("SHARDMATRIX_DEVICES", raising=False)
    pytester.makepyfile(test_plain=INERT)
    pytester.runpytest("-p", "no:cacheprovider").assert_outcomes(passed=1)
    assert not list(pytester.path.rglob("*.jsonl"))


def test_with_out_the_same_case_is_not_applicable(pytester: pytest.Pytester) -> None:
    recorded = run_cases(pytester, INERT)
    assert recorded["toy_cases::test_runs_as_plain_pytest"]["status"] == "not_applicable"


def test_a_shardmatrix_option_without_out_is_refused(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_plain="def test_ok():\n    pass\n")
    result = pytester.runpytest("--shardmatrix-known", "known.toml", "-p", "no:cacheprovider")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*--shardmatrix-known does nothing without --shardmatrix-out DIR*"])


def test_unimportable_module_records_every_case_as_error(pytester: pytest.Pytester) -> None:
    source = (
        "import a_module_that_is_not_installed_xyz\n"
        "from harness.case import case\n"
        "FAMILY = 'broken_family'\n"
        "@case(FAMILY)\ndef test_one():\n    pass\n"
        "def test_two():\n    pass\n"
    )
    recorded = run_cases(pytester, source)
    assert set(recorded) == {"toy_cases::test_one", "toy_cases::test_two"}
    for record in recorded.values():
        assert record["status"] == "error"
        assert record["error_type"] == "ModuleNotFoundError"
        assert "a_module_that_is_not_installed_xyz" in record["error_message"]
    assert recorded["toy_cases::test_one"]["family"] == "broken_family"


def test_importable_module_collects_normally(pytester: pytest.Pytester) -> None:
    recorded = run_cases(pytester, "import json\ndef test_one():\n    assert json.dumps(1) == '1'\n")
    assert recorded["toy_cases::test_one"]["status"] == "passed"


def test_module_without_cases_that_fails_to_import_records_a_collection_error(pytester: pytest.Pytester) -> None:
    recorded = run_cases(pytester, "import a_module_that_is_not_installed_xyz\n")
    assert list(recorded) == ["toy_cases::<collection>"]
    assert recorded["toy_cases::<collection>"]["status"] == "error"


def test_records_are_flushed_line_by_line(pytester: pytest.Pytester) -> None:
    out = pytester.path / "out"
    source = (
        "import json, pathlib\n"
        "def test_first():\n    pass\n"
        f"def test_second():\n"
        f"    lines = pathlib.Path({str(out / 'results' / 'r1' / 'c1.jsonl')!r}).read_text().splitlines()\n"
        "    assert json.loads(lines[0])['case_id'] == 'toy_cases::test_first'\n"
    )
    recorded = run_cases(pytester, source)
    assert recorded["toy_cases::test_second"]["status"] == "passed"


def test_parametrized_cases_get_one_record_each(pytester: pytest.Pytester) -> None:
    source = "import pytest\n@pytest.mark.parametrize('n', [1, 2])\ndef test_p(n):\n    assert n == 1\n"
    recorded = run_cases(pytester, source)
    assert recorded["toy_cases::test_p[1]"]["status"] == "passed"
    assert recorded["toy_cases::test_p[2]"]["status"] == "failed"


def test_a_case_deselected_by_id_is_never_collected_nor_recorded_the_others_are(pytester: pytest.Pytester) -> None:
    source = ("import pytest\n@pytest.mark.parametrize('n', [1, 2])\ndef test_gpu(n):\n    pass\n"
              "def test_net():\n    pass\ndef test_cpu():\n    pass\n")
    recorded = run_cases(pytester, source, "--shardmatrix-deselect", "toy_cases::test_gpu",
                         "--shardmatrix-deselect", "toy_cases::test_net")
    assert sorted(recorded) == ["toy_cases::test_cpu"]
    # With its parameters, one parametrization alone.
    recorded = run_cases(pytester, source, "--shardmatrix-deselect", "toy_cases::test_gpu[2]")
    assert sorted(recorded) == ["toy_cases::test_cpu", "toy_cases::test_gpu[1]", "toy_cases::test_net"]


def test_only_the_cases_asked_for_run_when_some_are_named(pytester: pytest.Pytester) -> None:
    source = ("import pytest\n@pytest.mark.parametrize('n', [1, 2])\ndef test_gpu(n):\n    pass\n"
              "def test_net():\n    pass\n")
    recorded = run_cases(pytester, source, "--shardmatrix-only", "toy_cases::test_gpu[2]",
                         "--shardmatrix-only", "toy_cases::test_net")
    assert sorted(recorded) == ["toy_cases::test_gpu[2]", "toy_cases::test_net"]
    # Without its parameters, every parametrization.
    shutil.rmtree(pytester.path / "out")
    assert sorted(run_cases(pytester, source, "--shardmatrix-only", "toy_cases::test_gpu")) == [
        "toy_cases::test_gpu[1]", "toy_cases::test_gpu[2]"]


def test_xdist_workers_record_through_the_controller(pytester: pytest.Pytester) -> None:
    recorded = run_cases(pytester, "def test_a():\n    pass\ndef test_b():\n    assert False\n", "-n", "2")
    statuses = {k: v["status"] for k, v in recorded.items()}
    assert statuses == {"toy_cases::test_a": "passed", "toy_cases::test_b": "failed"}


@pytest.mark.parametrize("workers", [[], ["-n", "2"]], ids=["in-process", "xdist"])
def test_the_cell_records_what_it_collected_after_deselection(pytester: pytest.Pytester, workers: list[str]) -> None:
    from harness.results import read_cell

    source = "def test_a():\n    pass\ndef test_b():\n    pass\ndef test_left_out():\n    pass\n"
    run_cases(pytester, source, "-k", "not left_out", *workers)
    reading = read_cell(pytester.path / "out" / "results" / "r1" / "c1.jsonl")
    assert sorted(reading.expected or ()) == ["toy_cases::test_a", "toy_cases::test_b"]
    assert reading.accounted, reading.unaccounted


def test_a_cell_that_lost_a_collected_case_is_not_accounted_for(pytester: pytest.Pytester) -> None:
    from harness.results import read_cell

    run_cases(pytester, "def test_a():\n    pass\ndef test_b():\n    pass\n")
    path = pytester.path / "out" / "results" / "r1" / "c1.jsonl"
    path.write_text(path.read_text().splitlines()[0] + "\n")
    assert read_cell(path).unaccounted == (f"{path}: 1 of 2 expected case(s) have no record: toy_cases::test_b",)


def test_results_path_layout(tmp_path: Path) -> None:
    from harness.cellrecord import CellFiles

    assert CellFiles(tmp_path, "run", "cell").results == tmp_path / "results" / "run" / "cell.jsonl"


def test_repeats_time_the_median_run(pytester: pytest.Pytester) -> None:
    source = (
        "import time\n"
        "CALLS = []\n"
        "def test_slow_first():\n"
        "    CALLS.append(1)\n"
        "    time.sleep(0.5 if len(CALLS) == 1 else 0.01)\n"
    )
    recorded = run_cases(pytester, source, "--shardmatrix-repeats", "3")
    assert recorded["toy_cases::test_slow_first"]["duration_s"] < 0.3


def test_repeats_record_the_median_body_run_not_the_whole_call_phase(pytester: pytest.Pytester) -> None:
    # Runs of 0.1, 0.3 and 0.2 s: the median is 0.2 s. The call phase holds all three (0.6 s), and a first run timed
    # by it made the median 0.3 s.
    source = (
        "import time\n"
        "SLEEPS = [0.1, 0.3, 0.2]\n"
        "def test_three_runs():\n"
        "    time.sleep(SLEEPS.pop(0))\n"
        "def test_ran_three_times():\n"
        "    assert SLEEPS == []\n"
    )
    recorded = run_cases(pytester, source, "--shardmatrix-repeats", "3")
    assert recorded["toy_cases::test_ran_three_times"]["status"] == "passed"
    assert 0.2 <= recorded["toy_cases::test_three_runs"]["duration_s"] < 0.28


def test_without_repeats_the_single_run_is_the_timing(pytester: pytest.Pytester) -> None:
    source = "import time\ndef test_slow():\n    time.sleep(0.3)\n"
    assert run_cases(pytester, source)["toy_cases::test_slow"]["duration_s"] >= 0.3


def fake_package(pytester: pytest.Pytester, name: str, source: str) -> None:
    """A stand-in for jax or flax on the path of the pytest run (the test environment has neither)."""
    (pytester.path / name).mkdir()
    (pytester.path / name / "__init__.py").write_text(source)
    pytester.syspathinsert()


TWO_CASES = (
    "from harness.case import case\n"
    "@case('toy_family', devices=8)\ndef test_needs_eight():\n    pass\n"
    "@case('toy_family')\ndef test_needs_one():\n    pass\n"
)


def test_a_backend_that_cannot_start_makes_every_case_error_with_its_message(pytester: pytest.Pytester) -> None:
    fake_package(pytester, "jax",
                 "def devices():\n    raise RuntimeError(\"Unable to initialize backend 'cuda': no GPU\")\n")
    recorded = run_cases(pytester, TWO_CASES)
    assert set(recorded) == {"toy_cases::test_needs_eight", "toy_cases::test_needs_one"}
    for record in recorded.values():
        assert record["status"] == "error"
        assert record["reason"] == "backend failed to start: RuntimeError: Unable to initialize backend 'cuda': no GPU"
        assert (record["error_type"], record["error_message"]) == ("RuntimeError",
                                                                   "Unable to initialize backend 'cuda': no GPU")


def test_a_backend_that_starts_leaves_cases_to_run_and_counts_its_devices(pytester: pytest.Pytester) -> None:
    fake_package(pytester, "jax", "class D:\n    device_kind = 'cpu'\n"
                                  "def devices():\n    return [D()]\ndef default_backend():\n    return 'cpu'\n")
    recorded = run_cases(pytester, TWO_CASES)
    assert recorded["toy_cases::test_needs_one"]["status"] == "passed"
    assert recorded["toy_cases::test_needs_eight"]["reason"] == "needs 8 devices, cell has 1"


def test_packages_that_fail_to_import_make_every_case_error_once_per_cell(pytester: pytest.Pytester) -> None:
    fake_package(pytester, "flax", "raise ImportError(\"cannot import name 'x' from 'jax'\")\n")
    pytester.makepyfile(uses_flax="import flax\nfrom harness.case import case\n"
                                  "@case('toy_family')\ndef test_uses_flax():\n    pass\n")
    recorded = run_cases(pytester, TWO_CASES, "uses_flax.py")
    assert len(recorded) == 3
    for record in recorded.values():
        assert record["status"] == "error"
        assert record["reason"] == "the cell's packages failed to import: flax: ImportError: cannot import name 'x' " \
                                   "from 'jax'"
        assert record["error_type"] == "ImportError"


WARNS_EARLY = '''
import warnings
import pytest
from harness.case import case

warnings.warn("jax.experimental.shard_map is deprecated;\\nuse jax.shard_map", DeprecationWarning)

@pytest.fixture
def old_fixture():
    warnings.warn("fixture API is going away", PendingDeprecationWarning)

@case("toy_family")
def test_first():
    pass

@case("toy_family")
def test_second(old_fixture):
    warnings.warn("in the body", FutureWarning)
'''


def test_warnings_at_import_and_in_fixtures_count_for_the_module_s_cases(pytester: pytest.Pytester) -> None:
    recorded = run_cases(pytester, WARNS_EARLY)
    imported = "DeprecationWarning: jax.experimental.shard_map is deprecated;\nuse jax.shard_map"
    assert recorded["toy_cases::test_first"]["warnings"] == [imported]
    assert recorded["toy_cases::test_second"]["warnings"] == [
        imported, "PendingDeprecationWarning: fixture API is going away", "FutureWarning: in the body"]


def test_warnings_from_a_cases_folder_module_count_too(pytester: pytest.Pytester) -> None:
    folder = pytester.mkdir("mycases")
    (folder / "test_mine.py").write_text(WARNS_EARLY)
    out = pytester.path / "out"
    pytester.runpytest(str(folder), "--shardmatrix-out", str(out), "--shardmatrix-run", "r1",
                       "--shardmatrix-cell", "c1", "--shardmatrix-devices", "0", "-p", "no:cacheprovider")
    records = [json.loads(line) for line in (out / "results" / "r1" / "c1.jsonl").read_text().splitlines()]
    assert {r["case_id"]: r["warnings"][0].split(";")[0] for r in records} == {
        "test_mine::test_first": "DeprecationWarning: jax.experimental.shard_map is deprecated",
        "test_mine::test_second": "DeprecationWarning: jax.experimental.shard_map is deprecated",
    }


def run_attempts(pytester: pytest.Pytester, source: str, *args: str) -> list[dict]:
    """Every record of a run, in file order (a retried case has one per attempt)."""
    pytester.makepyfile(toy_cases=source)
    out = pytester.path / "out"
    pytester.runpytest("toy_cases.py", "--shardmatrix-out", str(out), "--shardmatrix-run", "r1",
                       "--shardmatrix-cell", "c1", "--shardmatrix-devices", "0", "-p", "no:cacheprovider", *args)
    return [json.loads(line) for line in (out / "results" / "r1" / "c1.jsonl").read_text().splitlines()]


RETRIED = '''
import pytest

ATTEMPTS = []

def test_fails_once():
    ATTEMPTS.append(1)
    assert len(ATTEMPTS) > 1, "first attempt differs"

def test_fails_each_time():
    raise ValueError("broken every time")

@pytest.fixture
def flaky_resource():
    ATTEMPTS.append(2)
    if ATTEMPTS.count(2) == 1:
        raise OSError("resource busy")

def test_setup_fails_once(flaky_resource):
    pass
'''


@pytest.mark.parametrize("workers", [[], ["-n", "1"]], ids=["in-process", "xdist"])
def test_every_attempt_of_a_retried_case_keeps_its_exception(pytester: pytest.Pytester, workers: list[str]) -> None:
    records = run_attempts(pytester, RETRIED, "--reruns", "1", *workers)
    seen = [(r["case_id"].split("::")[1], r["attempt"], r["status"], r["error_type"], r["error_message"])
            for r in records]
    assert seen == [
        ("test_fails_once", 1, "failed", "AssertionError", "first attempt differs"),
        ("test_fails_once", 2, "passed", None, None),
        ("test_fails_each_time", 1, "failed", "ValueError", "broken every time"),
        ("test_fails_each_time", 2, "failed", "ValueError", "broken every time"),
        ("test_setup_fails_once", 1, "error", "OSError", "resource busy"),
        ("test_setup_fails_once", 2, "passed", None, None),
    ]


CLASS_SUITE = '''
import unittest
import {missing}

class ClippingTest(unittest.TestCase):
    def test_clip(self):
        pass
'''


def run_modules(pytester: pytest.Pytester, modules: dict[str, str], *args: str) -> dict[str, dict]:
    """Records of a run over several test modules, as the runner runs them (a broken module stops no other)."""
    if modules:
        pytester.makepyfile(**modules)
    out = pytester.path.parent / f"{pytester.path.name}-out"
    pytester.runpytest("--shardmatrix-out", str(out), "--shardmatrix-run", "r1", "--shardmatrix-cell", "c1",
                       "--shardmatrix-devices", "0", "-p", "no:cacheprovider", "--continue-on-collection-errors",
                       *args)
    lines = (out / "results" / "r1" / "c1.jsonl").read_text().splitlines()
    return {json.loads(line)["case_id"]: json.loads(line) for line in lines}


def test_a_module_that_cannot_be_imported_costs_only_its_own_tests(pytester: pytest.Pytester) -> None:
    recorded = run_modules(pytester, {
        "test_optional_dep": CLASS_SUITE.format(missing="sklearn.metrics"),
        "test_syntax": "def test_a(:\n    pass\n",
        "test_fine": "def test_a():\n    pass\n",
    })
    assert {case: r["status"] for case, r in recorded.items()} == {
        "test_optional_dep::<collection>": "error", "test_syntax::<collection>": "error", "test_fine::test_a": "passed"}
    optional = recorded["test_optional_dep::<collection>"]
    assert (optional["error_type"], optional["error_message"]) == ("ModuleNotFoundError", "No module named 'sklearn'")
    assert optional["reason"] == "No module named 'sklearn': the cell lacks it; add it with --with scikit-learn"
    assert optional["family"] == "test_optional_dep"
    syntax = recorded["test_syntax::<collection>"]
    assert (syntax["error_type"], syntax["reason"]) == ("SyntaxError", "collection failed")
    assert syntax["error_message"].startswith("invalid syntax") or "was never closed" in syntax["error_message"]


def test_a_module_of_unknown_distribution_is_named_without_a_guess(pytester: pytest.Pytester) -> None:
    recorded = run_modules(pytester, {"test_dep": CLASS_SUITE.format(missing="some_dependency_xyz")})
    assert recorded["test_dep::<collection>"]["reason"] == (
        "No module named 'some_dependency_xyz': the cell lacks it; add it with --with <its distribution>")


def own_project(pytester: pytest.Pytester) -> None:
    """A project whose package (under src/) the cell lacks: its tests are not installed with it."""
    (pytester.path / "pyproject.toml").write_text("[project]\nname = 'mytrainer'\n")
    (pytester.path / "src" / "mytrainer").mkdir(parents=True)
    (pytester.path / "src" / "mytrainer" / "__init__.py").write_text("")
    (pytester.path / "tests" / "unit").mkdir(parents=True)
    (pytester.path / "tests" / "test_top.py").write_text("def test_top():\n    pass\n")
    (pytester.path / "tests" / "unit" / "test_step.py").write_text("def test_step():\n    pass\n")


OWN_PROJECT_HINT = ("No module named 'mytrainer': it belongs to the cases' own project, which this cell does not "
                    "have; install the project with --project DIR")


def test_the_cases_own_project_missing_asks_for_it(pytester: pytest.Pytester) -> None:
    own_project(pytester)
    (pytester.path / "tests" / "test_train.py").write_text(CLASS_SUITE.format(missing="mytrainer.steps"))
    (pytester.path / "tests" / "test_own_case.py").write_text("def test_step():\n    import mytrainer\n")
    recorded = run_modules(pytester, {}, "tests")
    assert recorded["test_train::<collection>"]["reason"] == OWN_PROJECT_HINT
    assert (recorded["test_own_case::test_step"]["status"], recorded["test_own_case::test_step"]["reason"]) == (
        "error", OWN_PROJECT_HINT)
    assert recorded["test_top::test_top"]["status"] == "passed"


def test_a_module_lacking_a_name_of_an_installed_package_is_failed_like_a_case(pytester: pytest.Pytester) -> None:
    recorded = run_modules(pytester, {"test_api": CLASS_SUITE.format(missing="json.name_json_lacks_xyz")})
    record = recorded["test_api::<collection>"]
    assert (record["status"], record["reason"]) == ("failed", "collection failed")
    assert record["error_message"].startswith("json has no name_json_lacks_xyz")


def test_collection_errors_reach_the_controller_from_xdist_workers(pytester: pytest.Pytester) -> None:
    recorded = run_modules(pytester, {"test_optional_dep": CLASS_SUITE.format(missing="sklearn"),
                                      "test_fine": "def test_a():\n    pass\n"}, "-n", "1")
    assert recorded["test_fine::test_a"]["status"] == "passed"
    assert recorded["test_optional_dep::<collection>"]["reason"] == (
        "No module named 'sklearn': the cell lacks it; add it with --with scikit-learn")


def test_a_folder_whose_conftest_cannot_be_imported_costs_only_that_folder(pytester: pytest.Pytester) -> None:
    own_project(pytester)
    (pytester.path / "tests" / "unit" / "conftest.py").write_text("import mytrainer\n")
    recorded = run_modules(pytester, {}, "tests")
    assert recorded["test_top::test_top"]["status"] == "passed"
    folder = recorded["unit::<collection>"]
    assert (folder["status"], folder["error_type"], folder["reason"]) == ("error", "ModuleNotFoundError",
                                                                          OWN_PROJECT_HINT)


def test_a_conftest_that_stops_pytest_before_any_case_leaves_its_record(pytester: pytest.Pytester) -> None:
    own_project(pytester)
    (pytester.path / "tests" / "conftest.py").write_text("import mytrainer\n")
    recorded = run_modules(pytester, {}, "tests")
    assert list(recorded) == ["conftest::<collection>"]
    record = recorded["conftest::<collection>"]
    assert (record["status"], record["error_type"], record["error_message"], record["reason"]) == (
        "error", "ModuleNotFoundError", "No module named 'mytrainer'", OWN_PROJECT_HINT)
    assert record["run_id"] == "r1" and record["cell_id"] == "c1" and record["python"]


def test_without_out_a_failing_conftest_is_pytest_s_own_error(pytester: pytest.Pytester) -> None:
    own_project(pytester)
    (pytester.path / "tests" / "conftest.py").write_text("import mytrainer\n")
    result = pytester.runpytest("tests", "-p", "no:cacheprovider")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert not list(pytester.path.rglob("*.jsonl"))


REMOVED = '''
import json
from harness.case import Change, api, case

@case("toy_family", needs=[api("json.not_there")],
      changed=Change("flax>=0.12.0", "json.not_there is removed", raises="AttributeError", kind="api",
                     fix="call json.dumps"))
def test_uses_a_removed_api():
    """uses an API that flax 0.12.0 removed"""
    json.not_there()
'''


def fake_flax(pytester: pytest.Pytester, version: str) -> None:
    """An importable `flax` distribution at `version` (nothing of it but its name and metadata)."""
    pytester.syspathinsert()
    (pytester.path / "flax").mkdir()
    (pytester.path / "flax" / "__init__.py").write_text("")
    (pytester.path / f"flax-{version}.dist-info").mkdir()
    (pytester.path / f"flax-{version}.dist-info" / "METADATA").write_text(f"Name: flax\nVersion: {version}\n")


def test_inside_its_change_s_since_a_case_s_needs_are_not_checked_and_it_fails_with_the_removal(
        pytester: pytest.Pytester) -> None:
    fake_flax(pytester, "0.12.0")
    record = run_cases(pytester, REMOVED)["toy_cases::test_uses_a_removed_api"]
    assert (record["status"], record["error_type"]) == ("failed", "AttributeError")
    assert record["change"]["since"] == "flax>=0.12.0"


def test_before_its_change_s_since_an_unmet_need_is_still_not_applicable(pytester: pytest.Pytester) -> None:
    fake_flax(pytester, "0.11.2")
    record = run_cases(pytester, REMOVED)["toy_cases::test_uses_a_removed_api"]
    assert (record["status"], record["reason"]) == ("not_applicable", "json.not_there is absent")


def attempts(pytester: pytest.Pytester, source: str) -> list[tuple[int, str, str]]:
    """(attempt, status, error type) of every record of a run with one retry, as the cell runs (--reruns 1)."""
    run_cases(pytester, source, "--reruns", "1")
    lines = (pytester.path / "out" / "results" / "r1" / "c1.jsonl").read_text().splitlines()
    return [(r["attempt"], r["status"], r["error_type"]) for r in map(json.loads, lines)]


def test_inside_its_change_s_since_the_declared_failure_is_not_retried(pytester: pytest.Pytester) -> None:
    fake_flax(pytester, "0.12.0")
    assert attempts(pytester, REMOVED) == [(1, "failed", "AttributeError")]


def test_inside_its_change_s_since_another_failure_is_retried(pytester: pytest.Pytester) -> None:
    fake_flax(pytester, "0.12.0")
    other = REMOVED.replace("json.not_there()", "raise ValueError('not the removal')")
    assert attempts(pytester, other) == [(1, "failed", "ValueError"), (2, "failed", "ValueError")]


def test_before_its_change_s_since_the_same_failure_is_retried(pytester: pytest.Pytester) -> None:
    fake_flax(pytester, "0.11.2")
    found = REMOVED.replace('needs=[api("json.not_there")],', "")
    assert attempts(pytester, found) == [(1, "failed", "AttributeError"), (2, "failed", "AttributeError")]


# A project shaped like a real JAX library's (its conftest imports jax at module level and sets its own CPU device
# count; -Werror, filterwarnings = error and a plugin option in its addopts), run on a stand-in `jax` package of its
# folder: the dev venv has no jax, and what is tested is the plugin, which must set and warn nothing.
FAKE_JAX = '''
import types

class _Config:
    jax_num_cpu_devices = -1

    def update(self, name, value):
        setattr(self, name, value)

config = _Config()
_started = []

def devices():
    _started.append(True)
    count = config.jax_num_cpu_devices if config.jax_num_cpu_devices >= 0 else 8
    return [types.SimpleNamespace(device_kind="cpu")] * count

def device_count():
    return len(devices())

def default_backend():
    return "cpu"
'''
OWN_COUNT_CONFTEST = 'import jax\n\njax.config.update("jax_num_cpu_devices", {count})\n'
OWN_COUNT_TESTS = '''
import jax

def test_has_the_projects_count():
    assert jax.device_count() == 2

def test_a_mesh_of_sixteen():
    raise ValueError(f"Number of devices {jax.device_count()} must be >= the product of mesh_shape (4, 4)")
'''


def _own_count_project(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, count: int) -> Path:
    monkeypatch.setenv("XLA_FLAGS", "--xla_force_host_platform_device_count=8")  # as harness.host.runner gives it
    pytester.mkpydir("jax").joinpath("__init__.py").write_text(FAKE_JAX)
    pytester.makeconftest(OWN_COUNT_CONFTEST.format(count=count))
    pytester.makeini("[pytest]\naddopts = -Werror -p no:cacheprovider\nfilterwarnings =\n    error\n")
    pytester.makepyfile(test_lib=OWN_COUNT_TESTS)
    return pytester.path / "out"


def _records(out: Path) -> dict[str, dict]:
    lines = (out / "results" / "r1" / "c1.jsonl").read_text().splitlines()
    return {json.loads(line)["case_id"]: json.loads(line) for line in lines}


def test_a_project_that_imports_jax_first_under_werror_runs_and_keeps_its_own_count(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    out = _own_count_project(pytester, monkeypatch, 2)
    result = pytester.runpytest_subprocess("test_lib.py", "--shardmatrix-out", str(out), "--shardmatrix-run", "r1",
                                           "--shardmatrix-cell", "c1", "--shardmatrix-devices", "8")
    text = result.stdout.str() + result.stderr.str()
    assert result.ret == pytest.ExitCode.TESTS_FAILED, text  # one test fails as in the project's CI, none crash
    assert "INTERNALERROR" not in text and "Warning" not in text, text
    records = _records(out)
    assert records["test_lib::test_has_the_projects_count"]["status"] == "passed"
    assert records["test_lib::test_has_the_projects_count"]["device_count"] == 2
    # Short of devices against the count the project chose, not a broken cell held to the harness's 8.
    short = records["test_lib::test_a_mesh_of_sixteen"]
    assert (short["status"], short["reason"]) == ("not_applicable", "needs 16 devices, cell has 2")
    assert "shardmatrix: the tests ran on 2 CPU devices, the count the project chose (the harness asked for 8)" in text


def test_a_cell_with_fewer_devices_than_asked_that_the_project_did_not_choose_is_an_error(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The stand-in jax reports 8 devices unless told: asking the process for 16 leaves it short of what was asked.
    out = _own_count_project(pytester, monkeypatch, -1)
    monkeypatch.setenv("XLA_FLAGS", "--xla_force_host_platform_device_count=16")
    result = pytester.runpytest_subprocess("test_lib.py", "--shardmatrix-out", str(out), "--shardmatrix-run", "r1",
                                           "--shardmatrix-cell", "c1", "--shardmatrix-devices", "16")
    text = result.stdout.str() + result.stderr.str()
    assert "INTERNALERROR" not in text and "the count the project chose" not in text, text
    short = _records(out)["test_lib::test_a_mesh_of_sixteen"]
    assert short["status"] == "error" and short["reason"] == "jax has 8 CPU devices, the harness asked for 16"


def test_test_files_of_one_name_are_recorded_under_the_ids_the_host_names_them_by(tmp_path: Path) -> None:
    """Two test_a.py (and two test_b.py, one of which does not import) in two folders of one project, imported as its
    settings import them (importlib: no module of one name shadows the other): the cell names
    each by the end of its path the host gives it (--shardmatrix-module), in its records and its collection, and the
    host's source scan names the same ids, so its records for a cell that never ran stand for the same cases."""
    from harness.celldocuments import read_collection
    from harness.host import corpus

    tests = tmp_path / "tests"
    for folder, body in (("core", "def test_x():\n    pass\n"), ("deprecated/v1", "def test_x():\n    assert 0\n")):
        (tests / folder).mkdir(parents=True)
        (tests / folder / "test_a.py").write_text(body)
    (tests / "core" / "test_b.py").write_text("def test_y():\n    pass\n")
    (tests / "deprecated" / "v1" / "test_b.py").write_text("import not_installed_anywhere_xyz\n")
    names = sorted(set(corpus.qualified_names([tests]).values()))
    assert names == ["core/test_a", "core/test_b", "v1/test_a", "v1/test_b"]
    out = tmp_path / "out"
    subprocess.run([sys.executable, "-m", "pytest", "-p", "harness.cell.plugin", "tests", "--shardmatrix-out", str(out),
                    "--shardmatrix-run", "r1", "--shardmatrix-cell", "c1", "--shardmatrix-devices", "0",
                    "--continue-on-collection-errors", "-p", "no:cacheprovider", "-q", "--import-mode=importlib",
                    *(arg for name in names for arg in ("--shardmatrix-module", name))],
                   cwd=tmp_path, check=False, capture_output=True)
    results = out / "results" / "r1" / "c1.jsonl"
    found = {json.loads(line)["case_id"]: json.loads(line)["status"] for line in results.read_text().splitlines()}
    assert found == {"core/test_a::test_x": "passed", "v1/test_a::test_x": "failed",
                     "core/test_b::test_y": "passed", "v1/test_b::<collection>": "error"}
    expected = {case for case, _ in corpus.expected_cases([tests])}
    assert expected == {"core/test_a::test_x", "v1/test_a::test_x", "core/test_b::test_y"}
    assert set(read_collection(results) or []) == expected
    from harness.cellrecord import CellFiles  # the reproducers' copy of each, by the module its ids name

    assert (CellFiles(out, "r1", "c1").sources / "v1" / "test_a.py").read_text().endswith("assert 0\n")
