"""pytest in a cell's environment: its command line, its process environment, and the restarts after a death.

A helper of harness.host.cellrun (which tells the cell's whole run): it runs pytest until every case is recorded
or pytest stops for good, and calls back into nothing. This module runs on the interpreter nox runs on (no jax, no
pytest there); what pytest prints goes to the cell's log file.
"""

from __future__ import annotations

import os
import re
import shlex
from dataclasses import dataclass
from pathlib import Path

from harness import vocabulary
from harness.cell import shortage
from harness.cell.devices import with_device_count
from harness.cell.outcomes import CELL_UNUSABLE_MARK, IMPORT_ERRORS, TIMEOUT_MARK
from harness.cell.records import IN_PROCESS
from harness.cellrecord import CellFiles
from harness.host import bytecode, celllog, cellplugin, hang, projectsettings
from harness.host.cache import Settings
from harness.host.envbuild import venv_python
from harness.host.matrix import Cell
from harness.host.projectsettings import ProjectSettings
from harness.host.unreported import record_death, record_unrun
from harness.results import write_mark

#: pytest exit codes after which every case that was collected has been reported.
PYTEST_FINISHED = (0, 1)
PYTEST_INTERRUPTED = 2
PYTEST_NO_TESTS = 5
#: The marks of a cell's timeline around each pytest process (harness.results.write_mark).
PYTEST_LAUNCH, PYTEST_EXIT = "pytest_launch", "pytest_exit"
#: More restarts than any corpus has cases means the cell cannot make progress.
MAX_RESTARTS = 10_000
#: Failures not worth a retry (pytest-rerunfailures patterns), from the marks harness.cell.outcomes classifies by:
#: a time limit already spent, a cell whose packages do not import or whose backend does not start, and jax's
#: too-few-devices errors (a retry runs on the same devices; out of memory is retried, our own workers can cause it).
NOT_RETRIED = (re.escape(TIMEOUT_MARK), CELL_UNUSABLE_MARK, *sorted(IMPORT_ERRORS),
               *(pattern.as_raised() for pattern in shortage.patterns()))
#: JAX_PLATFORMS per backend. Naming the accelerator makes jax fail loudly where it cannot start it, instead of
#: quietly falling back to the CPU and recording CPU results under an accelerator's cell.
PLATFORMS = {"cpu": "cpu", "cuda12": "cuda,cpu", "cuda13": "cuda,cpu", "tpu": "tpu,cpu"}
#: The variables by which a user chooses how jax takes an accelerator's memory; any one set is left as it is.
#: jax's CPU device count as an environment variable (its `jax_num_cpu_devices`).
OWN_COUNT = "JAX_NUM_CPU_DEVICES"
MEMORY_SETTINGS = ("XLA_PYTHON_CLIENT_PREALLOCATE", "XLA_PYTHON_CLIENT_MEM_FRACTION", "XLA_PYTHON_CLIENT_ALLOCATOR")
#: pytest's variable that keeps it from loading every plugin installed (their `pytest11` entry points).
NO_AUTOLOAD = "PYTEST_DISABLE_PLUGIN_AUTOLOAD"
#: The entry points of the plugins a corpus runs with (harness.host.cellplugin.RUNS_WITH), the only ones its cells
#: load: a cell's packages install others that no case uses (jaxtyping's, through orbax-export, imports jaxtyping at
#: every start: 0.2 s of an idle cell).
CORPUS_PLUGINS = ("xdist", "timeout", "rerunfailures")


@dataclass(frozen=True)
class Job:
    """One cell run as asked: where it records, what pytest is given, and how it runs."""

    files: CellFiles
    #: The files, folders or node ids pytest is given.
    paths: tuple[Path, ...]
    #: The known-breakage files of the corpus.
    known: tuple[Path, ...]
    settings: Settings
    workers: int = 0
    resume: bool = False
    verbose: bool = False
    #: The project's own pytest settings when the cases are its tests (harness.host.cellenv), else None.
    project: ProjectSettings | None = None
    #: The arguments that leave tests out on purpose (harness.host.options.LeftOut.pytest_args).
    left_out: tuple[str, ...] = ()
    #: Variables set for pytest over the cell's environment (the precision re-run's matmul precision, installed
    #: mode's path to the staged plugin).
    environment: tuple[tuple[str, str], ...] = ()
    #: Whether the cases import shardmatrix's case API as `harness.case` (harness.host.corpus.case_api_wanted).
    case_api: bool = False
    #: The case ids' module names of test files whose stem another shares (harness.host.corpus.qualified_names).
    modules: tuple[str, ...] = ()


def devices_for(cell: Cell, requested: int | None) -> int:
    """Simulated devices for a cell (the command line's `requested` wins over the matrix file); 0 on real
    accelerators."""
    if cell.accelerated:
        return 0
    return requested if requested is not None else cell.devices


def pytest_command(venv: Path, job: Job) -> list[str]:
    """The pytest invocation that runs the cases of one cell and records them.

    Our corpus runs under the harness's settings alone (`-o addopts=` empties those of the checkout it sits in). A
    project's tests run under the project's whole configuration: the harness's options come after its addopts,
    less those of a plugin the project disables, and with every test run though its addopts stop early; only the
    options of pytest's cache, which a cell runs without, are taken out of its addopts."""
    settings, own = job.settings, job.project
    disabled = own.disabled if own is not None else frozenset()
    needs = {
        # pytest-timeout's session timeout: the run stops after the test that passes the suite's budget.
        "timeout": ["--timeout", str(settings.timeout),
                    *(["--session-timeout", str(settings.suite_budget)] if settings.suite_budget else [])],
        # Every crash costs a worker; never stop replacing them while cases remain.
        "xdist": ["-n", str(job.workers), "--max-worker-restart", "100000"],
        "rerunfailures": ["--reruns", str(settings.reruns),
                          *(arg for pattern in NOT_RETRIED for arg in ("--rerun-except", pattern))],
    }
    # A project's tests run from its folder: what is named from here is named absolutely.
    where = str if own is None else _absolute
    return [
        str(venv_python(venv)), "-m", "pytest", *map(where, job.paths),
        # The plugin by its module, under the name no project uses, whether the cell installs it (a built cell) or
        # has it on its path (installed mode, where the shardmatrix wheel's own entry point, `harness.cell.plugin`,
        # would import our `harness` before the project's tests: its name is blocked).
        "-p", f"no:{cellplugin.PLUGIN_NAME}", "-p", cellplugin.ENTRY_POINT,
        # Our corpus loads only the plugins it runs with (corpus_environment turns the others off); a project's tests
        # keep every plugin its environment installs, as in its CI.
        *(arg for name in CORPUS_PLUGINS for arg in ("-p", name) if own is None),
        "--shardmatrix-out", where(job.files.out),
        "--shardmatrix-run", job.files.run_id,
        "--shardmatrix-cell", job.files.cell_id,
        "--shardmatrix-devices", str(settings.devices),
        "--shardmatrix-hard-grace", str(settings.hard_grace),
        "--shardmatrix-repeats", str(settings.repeats),
        *(arg for plugin, args in needs.items() if plugin not in disabled for arg in args),
        *(["--shardmatrix-skip-recorded"] if job.resume else []),
        # Only then is `harness` ours in the cell: a project's own `harness` answers its tests otherwise.
        *(["--shardmatrix-case-api"] if job.case_api else []),
        # Test files that share a stem: named by the end of their path, as the host names them (harness.cell.records).
        *(arg for name in job.modules for arg in ("--shardmatrix-module", name)),
        # Python's teardown after the last record (jax's atexit handlers, freeing what it compiled) is 2 to 5 s a cell.
        "--shardmatrix-quick-exit",
        *(arg for path in job.known for arg in ("--shardmatrix-known", where(path))),
        # A module that cannot be imported costs its own cases only (the plugin records its collection error);
        # without this, pytest stops before running any case of the cell.
        "--continue-on-collection-errors",
        "-p", "no:cacheprovider",
        *(["-o", "addopts="] if own is None else ["--maxfail", "0"] if own.stops_early else []),
        *(["-o", f"addopts={shlex.join(own.addopts_without_cache)}"] if own is not None and own.cache_options
          else []),
        "-q", "-rfE",
        # Python's own tracebacks in the cell's log: pytest's long form costs about 0.1 s per failure to render
        # (measured: 2.5 s of a 31 s cell with 32 failing attempts), and the record takes its error from the
        # exception itself, not from this text.
        "--tb=native",
        *job.left_out,
        *(own.arguments() if own is not None else []),
    ]


def _absolute(path: Path) -> str:
    """A file, folder or node id (`file::test`) named from anywhere."""
    file, separator, rest = str(path).partition("::")
    return str(Path(file).resolve()) + separator + rest


def conflict_line(job: Job) -> str:
    """The one line said before a project's cell runs where its pytest settings and the harness's conflict."""
    return projectsettings.conflict_line(job.project, job.workers, job.settings.reruns, job.settings.timeout)


def cell_environment(cell: Cell, devices: int, workers: int = 0) -> dict[str, str]:
    """The cell process's environment: on the CPU, `devices` requested before its interpreter starts (0 leaves
    XLA_FLAGS as the user has it: XLA's count of 0 starts no backend); on an accelerator shared by several xdist
    `workers`, no preallocation unless the user chose how memory is taken."""
    env = dict(os.environ)
    if not cell.accelerated and devices > 0:
        env["XLA_FLAGS"] = with_device_count(env.get("XLA_FLAGS", ""), devices)
        # jax reads jax_num_cpu_devices from the shell too, and it beats XLA_FLAGS: a user's JAX_NUM_CPU_DEVICES=2 gave
        # every cell 2 devices, which the records then put down to the project (harness.cell.devices).
        env.pop(OWN_COUNT, None)
    elif workers > 1 and not any(name in env for name in MEMORY_SETTINGS):
        # Each worker would preallocate jax's default share (75 %) of the one device, and the later ones die of
        # RESOURCE_EXHAUSTED (measured on an H200: 10 of 19 cases with 8 workers, none with preallocation off).
        env["XLA_PYTHON_CLIENT_PREALLOCATE"] = "false"
    env["JAX_PLATFORMS"] = PLATFORMS[cell.backend]
    bytecode.keep(env)  # compiled once, not by every cell process of every run
    env.pop("PYTHONPATH", None)  # the venv's own harness, not a checkout's, must answer
    return env


def corpus_environment(job: Job) -> dict[str, str]:
    """What pytest's environment adds for our corpus: no plugin loaded but those pytest_command names (a project's
    tests get nothing: their plugins are theirs)."""
    return {NO_AUTOLOAD: "1"} if job.project is None else {}


def pytest_environment(cell: Cell, job: Job) -> dict[str, str]:
    """The environment a cell's pytest runs in: the cell's, the corpus's, then what the command line adds."""
    return {**cell_environment(cell, job.settings.devices, job.workers), **corpus_environment(job),
            **dict(job.environment)}


def run_pytest(cell: Cell, venv: Path, job: Job) -> int:
    """Run pytest until every case is recorded or it stops for good; its output goes to the cell's log.

    Without xdist workers the cases run in the cell's own pytest process: when it dies (a segfault in XLA, an
    abort, the hard-timeout watchdog), the case it was running is recorded as crashed or timeout (as its next attempt
    when it died on a retry) and a fresh process runs the cases not yet recorded, so one bad case costs one restart,
    and none costs nothing.
    """
    command = pytest_command(venv, job)
    environment = pytest_environment(cell, job)
    fault_log = job.files.fault_log(IN_PROCESS)
    for _restart in range(MAX_RESTARTS):
        fault_log.unlink(missing_ok=True)
        write_mark(job.files.results, PYTEST_LAUNCH)
        # The suite's budget bounds its collection too, which pytest-timeout never sees (harness.host.hang), with the
        # grace a case stuck past its own limit gets before it is stopped.
        watch = (hang.CollectionWatch(job.settings.suite_budget + job.settings.hard_grace, job.files.collection)
                 if job.settings.suite_budget and not job.files.collection.exists() else None)
        # A project's tests run from its folder, as its CI runs them (relative paths, `-p` of a module there).
        returncode = celllog.run_logged(command, environment, job.files.log, verbose=job.verbose,
                                       cwd=job.project.root if job.project is not None else None,
                                       watch=watch.watch if watch is not None else None)
        write_mark(job.files.results, PYTEST_EXIT)
        if watch is not None and watch.fired.is_set():
            return record_hang(cell, job, watch)
        if job.workers or not job.files.inflight.exists():
            break
        if not record_death(cell, job.files, fault_log, list(job.paths), job.settings.reruns):
            break  # the death was not during a case: nothing to pin it on, so no restart would get further
        if "--shardmatrix-skip-recorded" not in command:
            command = [*command, "--shardmatrix-skip-recorded"]
    return returncode


def record_hang(cell: Cell, job: Job, watch: hang.CollectionWatch) -> int:
    """A pytest stopped in collection: every case of the cell's selection with no record is `timeout`, naming the
    hang, and the log says so (hang.HUNG_MARK); pytest's "tests failed" code, as every case now has its record."""
    celllog.append_to_log(job.files.log, "settings", f"{hang.HUNG_MARK}: {watch.reason}\n")
    record_unrun(cell, job.files, list(job.paths), vocabulary.TIMEOUT, "CollectionTimeout", watch.reason,
                 only_missing=True, left_out=job.left_out)
    return PYTEST_FINISHED[1]
