"""harness.host.runner: the pytest command and environment of a cell, and what a cell's run shows (through
harness.host.cellrun, which tells the run)."""

from __future__ import annotations

import dataclasses
import json
import re
import sys
import time
from pathlib import Path

import pytest

from harness.cellrecord import CellFiles
from harness.host import cache, cellplugin, cellrun, corpus, durations, matrix, runner
from harness.host.options import BUILTIN, Options
from harness.results import read_records

GPU_CELL = matrix.parse('[[cell]]\njax="0.8.3"\njaxlib="0.8.3"\nflax="0.12.3"\npython="3.11"\nbackend="cuda12"\n')[0]
CELL = matrix.parse('[[cell]]\njax="0.4.38"\njaxlib="0.4.38"\nflax="0.10.2"\npython="3.11"\n')[0]


def test_cell_environment_requests_devices_and_cpu(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XLA_FLAGS", "--xla_force_host_platform_device_count=2")
    monkeypatch.setenv("PYTHONPATH", "/somewhere")
    env = runner.cell_environment(CELL, runner.devices_for(CELL, 4))
    assert env["XLA_FLAGS"] == "--xla_force_host_platform_device_count=4"
    assert env["JAX_PLATFORMS"] == "cpu" and "PYTHONPATH" not in env
    assert "=8" in runner.cell_environment(CELL, runner.devices_for(CELL, None))["XLA_FLAGS"]


def test_cell_environment_with_no_devices_asked_leaves_the_users_xla_flags(monkeypatch: pytest.MonkeyPatch) -> None:
    # XLA's count of 0 starts no CPU backend ("Could not determine process_index"): --devices 0 asks for nothing.
    monkeypatch.setenv("XLA_FLAGS", "--xla_dump_to=/tmp/d")
    assert runner.cell_environment(CELL, runner.devices_for(CELL, 0))["XLA_FLAGS"] == "--xla_dump_to=/tmp/d"
    monkeypatch.delenv("XLA_FLAGS")
    assert "XLA_FLAGS" not in runner.cell_environment(CELL, runner.devices_for(CELL, 0))


def test_the_devices_asked_for_beat_a_jax_num_cpu_devices_in_the_users_shell(monkeypatch: pytest.MonkeyPatch) -> None:
    # jax with JAX_NUM_CPU_DEVICES=2 and XLA_FLAGS asking 8 has 2 devices (tried): the shell's count won every cell.
    monkeypatch.setenv("JAX_NUM_CPU_DEVICES", "2")
    assert "JAX_NUM_CPU_DEVICES" not in runner.cell_environment(CELL, runner.devices_for(CELL, 4))
    # --devices 0 asks for nothing, and leaves the user's environment as it is.
    assert runner.cell_environment(CELL, runner.devices_for(CELL, 0))["JAX_NUM_CPU_DEVICES"] == "2"


def test_pytest_command_records_under_run_and_cell(tmp_path: Path) -> None:
    job = cellrun.job_for(CELL, Options(out=tmp_path / "o", run_id="r", workers=2), [tmp_path])
    command = runner.pytest_command(tmp_path, job)
    assert command[:3] == [str(tmp_path / "bin" / "python"), "-m", "pytest"]
    joined = " ".join(command)
    assert f"--shardmatrix-cell {CELL.id}" in joined and "--shardmatrix-run r" in joined and "-n 2" in joined
    # One module that cannot be imported costs its own cases only, not the cell's every case.
    assert "--continue-on-collection-errors" in command
    # The plugin comes from the staged package, by its module: an entry point of the same name (the staged
    # distribution's, or an older shardmatrix wheel's `harness.cell.plugin`, which imports our `harness`) is blocked.
    assert "-p no:shardmatrix -p shardmatrix_cell.cell.plugin" in joined


def test_our_corpus_runs_without_the_checkouts_addopts_and_a_projects_tests_with_their_own(tmp_path: Path) -> None:
    corpus = runner.pytest_command(tmp_path, cellrun.job_for(CELL, Options(out=tmp_path), [tmp_path / "cases"]))
    assert "addopts=" in corpus and "-c" not in corpus
    root = tmp_path / "project"
    (root / "tests").mkdir(parents=True)
    (root / "pyproject.toml").write_text('[tool.pytest.ini_options]\naddopts = "-Werror"\n')
    cell = dataclasses.replace(CELL, project=str(root))
    own = runner.pytest_command(tmp_path, cellrun.job_for(cell, Options(out=Path("out")), [root / "tests"]))
    assert "addopts=" not in own and own[-4:] == ["--rootdir", str(root), "-c", str(root / "pyproject.toml")]
    # It runs from the project's folder, so what is named from here is absolute.
    assert own[own.index("--shardmatrix-out") + 1] == str(Path("out").resolve())


def test_our_corpus_loads_only_the_plugins_it_runs_with_and_a_projects_tests_every_plugin_installed(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[tuple[list[str], dict[str, str]]] = []
    monkeypatch.setattr(runner.celllog, "run_logged",
                        lambda command, env, log, verbose, cwd=None, watch=None: seen.append((command, env)) or 0)
    runner.run_pytest(CELL, tmp_path, cellrun.job_for(CELL, Options(out=tmp_path / "o"), [tmp_path / "cases"]))
    root = tmp_path / "project"
    (root / "tests").mkdir(parents=True)
    (root / "pyproject.toml").write_text("[tool.pytest.ini_options]\n")
    cell = dataclasses.replace(CELL, project=str(root))
    runner.run_pytest(cell, tmp_path, cellrun.job_for(cell, Options(out=tmp_path / "p"), [root / "tests"]))
    (corpus, corpus_env), (own, own_env) = seen
    assert corpus_env[runner.NO_AUTOLOAD] == "1" and runner.NO_AUTOLOAD not in own_env
    named = " ".join(f"-p {name}" for name in runner.CORPUS_PLUGINS)
    assert named in " ".join(corpus) and named not in " ".join(own)


def test_only_cases_that_import_the_case_api_have_the_plugin_answer_it(tmp_path: Path) -> None:
    shipped = cellrun.job_for(CELL, Options(out=tmp_path), corpus.case_paths([BUILTIN]))
    assert shipped.case_api and "--shardmatrix-case-api" in runner.pytest_command(tmp_path, shipped)
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_own.py").write_text("import harness.loops\n", encoding="utf-8")
    own = cellrun.job_for(CELL, Options(out=tmp_path), [tmp_path / "tests"])
    assert not own.case_api and "--shardmatrix-case-api" not in runner.pytest_command(tmp_path, own)


def test_the_outcome_settings_are_one_list_the_command_and_the_fingerprint_share(tmp_path: Path) -> None:
    job = cellrun.job_for(CELL, Options(out=tmp_path, run_id="r", timeout=7.0, reruns=3, repeats=2, workers=4), [])
    assert job.settings == cache.Settings(devices=8, backend="cpu", timeout=7.0, reruns=3, hard_grace=10.0, repeats=2)
    assert cache.OUTCOME_SETTINGS == ("devices", "backend", "timeout", "reruns", "hard_grace", "repeats",
                                      "suite_budget", "environment")
    # The variables a cell's pytest is given are the ones its fingerprint holds.
    keras = cellrun.job_for(CELL, Options(out=tmp_path, run_id="r", env=(("KERAS_BACKEND", "jax"),)), [])
    assert keras.environment == keras.settings.environment == (("KERAS_BACKEND", "jax"),)


def test_accelerator_cell_uses_real_devices_and_names_its_platform(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("XLA_FLAGS", raising=False)
    env = runner.cell_environment(GPU_CELL, runner.devices_for(GPU_CELL, 4))
    assert "XLA_FLAGS" not in env and env["JAX_PLATFORMS"] == "cuda,cpu"
    assert runner.devices_for(GPU_CELL, 4) == 0  # the plugin leaves XLA_FLAGS alone


@pytest.mark.parametrize("workers", [2, 8])
def test_workers_sharing_an_accelerator_do_not_preallocate_its_memory(monkeypatch: pytest.MonkeyPatch,
                                                                      workers: int) -> None:
    for name in runner.MEMORY_SETTINGS:
        monkeypatch.delenv(name, raising=False)
    env = runner.cell_environment(GPU_CELL, runner.devices_for(GPU_CELL, None), workers)
    assert env["XLA_PYTHON_CLIENT_PREALLOCATE"] == "false"


@pytest.mark.parametrize("workers", [0, 1])
def test_one_process_on_an_accelerator_keeps_jax_preallocating(monkeypatch: pytest.MonkeyPatch, workers: int) -> None:
    monkeypatch.delenv("XLA_PYTHON_CLIENT_PREALLOCATE", raising=False)
    env = runner.cell_environment(GPU_CELL, runner.devices_for(GPU_CELL, None), workers)
    assert "XLA_PYTHON_CLIENT_PREALLOCATE" not in env


@pytest.mark.parametrize(("name", "value"), [("XLA_PYTHON_CLIENT_PREALLOCATE", "true"),
                                             ("XLA_PYTHON_CLIENT_MEM_FRACTION", ".1")])
def test_the_users_own_memory_setting_wins_over_the_workers_default(monkeypatch: pytest.MonkeyPatch, name: str,
                                                                    value: str) -> None:
    for other in runner.MEMORY_SETTINGS:
        monkeypatch.delenv(other, raising=False)
    monkeypatch.setenv(name, value)
    env = runner.cell_environment(GPU_CELL, runner.devices_for(GPU_CELL, None), 8)
    assert env[name] == value and env.get("XLA_PYTHON_CLIENT_PREALLOCATE", value) == value


def test_cpu_cell_workers_leave_memory_settings_alone(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("XLA_PYTHON_CLIENT_PREALLOCATE", raising=False)
    assert "XLA_PYTHON_CLIENT_PREALLOCATE" not in runner.cell_environment(CELL, runner.devices_for(CELL, None), 8)


def test_a_cells_workers_reach_the_environment_pytest_runs_in(monkeypatch: pytest.MonkeyPatch,
                                                               tmp_path: Path) -> None:
    """run_pytest hands the job's worker count to cell_environment (the fake accelerator cell's pytest is stubbed)."""
    monkeypatch.delenv("XLA_PYTHON_CLIENT_PREALLOCATE", raising=False)
    seen: list[dict[str, str]] = []
    monkeypatch.setattr(runner.celllog, "run_logged",
                        lambda command, env, log, verbose, cwd=None, watch=None: seen.append(env) or 0)
    job = cellrun.job_for(GPU_CELL, Options(out=tmp_path, run_id="r", workers=4), [tmp_path])
    runner.run_pytest(GPU_CELL, tmp_path, job)
    assert seen and seen[0]["XLA_PYTHON_CLIENT_PREALLOCATE"] == "false"


def test_cpu_cell_simulates_devices_on_the_cpu_only(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("XLA_FLAGS", raising=False)
    env = runner.cell_environment(CELL, runner.devices_for(CELL, None))
    assert env["JAX_PLATFORMS"] == "cpu" and runner.devices_for(CELL, None) == 8


FAULTS = Path(__file__).parent / "faults"
FAILING = "def test_passes():\n    assert True\n\n\ndef test_fails():\n    assert 1 + 1 == 3, 'arithmetic broke'\n"


def built_here(monkeypatch: pytest.MonkeyPatch) -> None:
    """A built cell's run in this test environment: the install is faked, and what it installs (the staged plugin,
    harness.host.cellplugin) is put on pytest's path instead, as installed mode does."""
    monkeypatch.setattr(cellrun, "install", lambda *a, **k: None)
    monkeypatch.setattr(cellrun, "freeze", lambda venv, dest, cell=None: "")
    environment = runner.cell_environment
    monkeypatch.setattr(runner, "cell_environment", lambda *a, **k: {**environment(*a, **k),
                                                                      "PYTHONPATH": str(cellplugin.staged())})


def run_here(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, **settings: object) -> Options:
    """A matrix cell's run in this test environment (it has the harness and pytest): no install, a folder of two
    cases."""
    built_here(monkeypatch)
    folder = tmp_path / "cases"
    folder.mkdir(exist_ok=True)
    (folder / "test_two.py").write_text(FAILING)
    options = Options(out=tmp_path / "out", run_id="r", cases=[str(folder)], timeout=60.0, reruns=0, **settings)
    assert cellrun.matrix_cell(CELL, Path(sys.prefix), options) == 0
    return options


def test_a_failing_cell_prints_one_line_and_no_traceback(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capfd: pytest.CaptureFixture[str]
) -> None:
    options = run_here(tmp_path, monkeypatch)
    terminal = capfd.readouterr()
    log = CellFiles(options.out, "r", CELL.id).log
    assert re.fullmatch(rf"{re.escape(CELL.id)}: 2/2 cases, \d+ s: 1 passed, 1 failed \(log: {re.escape(str(log))}\)\n",
                        terminal.out), terminal.out
    assert terminal.err == ""
    assert "arithmetic broke" in log.read_text()  # the traceback is in the log


def test_verbose_streams_pytest_output_and_still_logs_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capfd: pytest.CaptureFixture[str]
) -> None:
    options = run_here(tmp_path, monkeypatch, verbose=True)
    terminal = capfd.readouterr().out
    assert "arithmetic broke" in terminal and terminal.rstrip().splitlines()[-1].startswith(f"{CELL.id}: 2/2 cases")
    assert "arithmetic broke" in CellFiles(options.out, "r", CELL.id).log.read_text()


def test_a_restarted_cell_appends_to_its_log_and_counts_each_case_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capfd: pytest.CaptureFixture[str]
) -> None:
    options = Options(out=tmp_path / "out", run_id="r", timeout=60.0, hard_grace=1.0)
    assert cellrun.installed(CELL, Path(sys.prefix), options, [FAULTS / "test_abort.py"]) == 0
    assert CellFiles(options.out, "r", CELL.id).log.read_text().count("=== run") == 2  # the crash, then the rest
    terminal = capfd.readouterr()
    assert re.fullmatch(rf"{re.escape(CELL.id)}: 3/3 cases, \d+ s: 2 passed, 1 crashed \(log: .*\)\n",
                        terminal.out), terminal.out
    assert terminal.err == ""  # the abort's "Fatal Python error" went to the log


def test_failures_not_retried_are_the_ones_outcomes_classifies_as_timeout_import_error_or_unusable_cell() -> None:
    def retried(message: str) -> bool:
        return not any(re.search(pattern, message) for pattern in runner.NOT_RETRIED)

    assert not retried("Failed: Timeout (>5.0s) from pytest-timeout.")
    assert not retried("ModuleNotFoundError: No module named 'flax.nnx'")
    assert not retried("harness.cell.health.CellUnusable: backend failed to start: RuntimeError: no cuda")
    assert retried("AssertionError: arithmetic broke")
    assert retried("TimeoutError: the server did not answer")


def test_too_few_devices_is_not_retried_and_out_of_memory_is() -> None:
    def retried(message: str) -> bool:
        return not any(re.search(pattern, message) for pattern in runner.NOT_RETRIED)

    assert not retried("ValueError: Number of devices 1 must be >= the product of mesh_shape (1, 2)")
    assert not retried("ValueError: compiling computation `step` that requires 8 replicas, but only 1 XLA devices "
                       "are available.")
    # Our own workers can exhaust one accelerator's memory: a retry may find it free.
    assert retried("JaxRuntimeError: RESOURCE_EXHAUSTED: Out of memory while trying to allocate 8589934592 bytes.")
    assert retried("AssertionError: Number of devices 1 must be >= the product of mesh_shape (1, 2)")


SHORT = ("def test_short():\n    raise ValueError('Number of devices 1 must be >= the product of mesh_shape (1, 2)')\n"
         "\n\ndef test_fails():\n    assert 1 + 1 == 3, 'arithmetic broke'\n")


def test_a_case_short_of_devices_runs_once_where_a_failure_is_retried(tmp_path: Path,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    built_here(monkeypatch)
    folder = tmp_path / "cases"
    folder.mkdir()
    (folder / "test_two.py").write_text(SHORT)
    options = Options(out=tmp_path / "out", run_id="r", cases=[str(folder)], timeout=60.0, reruns=1)
    assert cellrun.matrix_cell(CELL, Path(sys.prefix), options) == 0
    attempts: dict[str, int] = {}
    for record in read_records(CellFiles(options.out, "r", CELL.id).results):
        attempts[record["case_id"]] = attempts.get(record["case_id"], 0) + 1
    assert attempts == {"test_two::test_short": 1, "test_two::test_fails": 2}


def test_a_finished_cell_keeps_its_seconds_which_order_the_next_run_but_a_reuse_does_not(tmp_path: Path) -> None:
    files = CellFiles(tmp_path, "20260101T000000Z-aaaa", CELL.id)
    cellrun.finish(CELL, files, 0, started=time.monotonic() - 12.0)
    seconds = json.loads(CellFiles(tmp_path, files.run_id, CELL.id).done.read_text(encoding="utf-8"))["seconds"]
    assert 12.0 <= seconds < 60.0
    assert durations.cell_seconds() == {CELL.id: seconds}
    cellrun.finish(CELL, files.in_run("r2"), 0, started=time.monotonic() - 1.0, reused_from="r1")
    assert durations.cell_seconds() == {CELL.id: seconds}


def test_a_module_that_cannot_be_imported_costs_its_own_cases_only(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capfd: pytest.CaptureFixture[str]
) -> None:
    # Before, one collection error interrupted pytest (exit 2) before any case ran: the cell had no records and no
    # done marker.
    built_here(monkeypatch)
    folder = tmp_path / "cases"
    folder.mkdir()
    (folder / "test_two.py").write_text(FAILING)
    # A class-based module: the source scan the plugin falls back on finds no case in it to report the error on.
    (folder / "test_broken.py").write_text("import unittest\n\nimport no_such_module_anywhere\n\n\n"
                                           "class BrokenTest(unittest.TestCase):\n    def test_never(self):\n"
                                           "        pass\n")
    options = Options(out=tmp_path / "out", run_id="r", cases=[str(folder)], timeout=60.0, reruns=0)
    assert cellrun.matrix_cell(CELL, Path(sys.prefix), options) == 0
    files = CellFiles(options.out, "r", CELL.id)
    assert files.complete
    records = map(json.loads, files.results.read_text().splitlines())
    statuses = {record["case_id"]: record["status"] for record in records}
    assert statuses["test_two::test_passes"] == "passed" and statuses["test_two::test_fails"] == "failed"


def test_a_suite_budget_is_pytest_timeouts_session_timeout_and_none_adds_nothing(tmp_path: Path) -> None:
    with_budget = cellrun.job_for(CELL, Options(out=tmp_path, run_id="r", suite_budget=90.0), [])
    command = runner.pytest_command(tmp_path, with_budget)
    assert command[command.index("--session-timeout") + 1] == "90.0"
    without = cellrun.job_for(CELL, Options(out=tmp_path, run_id="r"), [])
    assert "--session-timeout" not in runner.pytest_command(tmp_path, without)


def test_the_names_of_test_files_that_share_a_stem_reach_the_cells_pytest(tmp_path: Path) -> None:
    """The host names them (harness.host.corpus.qualified_names) and hands each name to the plugin; a corpus whose
    stems are all its own hands none, and its command is as it was."""
    for folder in ("core", "v1"):
        (tmp_path / "tests" / folder).mkdir(parents=True)
        (tmp_path / "tests" / folder / "test_a.py").write_text("def test_x(): ...\n")
    job = cellrun.job_for(CELL, Options(out=tmp_path, run_id="r"), [tmp_path / "tests"])
    command = runner.pytest_command(tmp_path, job)
    assert [command[i + 1] for i, arg in enumerate(command) if arg == "--shardmatrix-module"] == ["core/test_a",
                                                                                                 "v1/test_a"]
    (tmp_path / "tests" / "v1" / "test_a.py").rename(tmp_path / "tests" / "v1" / "test_b.py")
    alone = cellrun.job_for(CELL, Options(out=tmp_path, run_id="r"), [tmp_path / "tests"])
    assert "--shardmatrix-module" not in runner.pytest_command(tmp_path, alone)
