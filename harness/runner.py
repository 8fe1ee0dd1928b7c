"""Running one cell from the host: install its pins with uv, run pytest in its venv, record what pytest cannot.

This module runs on the interpreter nox runs on (no jax, no pytest there): whatever stops a cell before or
outside pytest (an install failure, a missing interpreter, a dead process) is recorded here, for every case of
the cell, so no cell vanishes from the matrix.
"""

from __future__ import annotations

import hashlib
import json
import os
import platform
import re
import shutil
import signal
import subprocess
import sys
from datetime import datetime, timezone
from pathlib import Path

from harness import cache, known, statuses
from harness.devices import with_device_count
from harness.matrix import LIBTPU_RELEASES, Cell
from harness.options import BUILTIN, Options
from harness.outcomes import crash_verdict
from harness.records import (
    IN_PROCESS,
    JsonlWriter,
    case_id_from_nodeid,
    done_path,
    family_from_nodeid,
    fault_log_path,
    first_line,
    inflight_path,
    make_record,
    recorded_case_ids,
    results_path,
    write_atomically,
)
from harness.source import case_files, static_cases

PROJECT_ROOT = Path(__file__).resolve().parent.parent
#: pytest exit codes after which every case that was collected has been reported.
PYTEST_FINISHED = (0, 1)
PYTEST_INTERRUPTED = 2
PYTEST_NO_TESTS = 5
#: More restarts than any corpus has cases means the cell cannot make progress.
MAX_RESTARTS = 10_000
#: Failures not worth a retry: a time limit already spent, a cell whose packages do not import.
NOT_RETRIED = ("Timeout \\(>", "ImportError", "ModuleNotFoundError")


def case_paths(cases: list[str], project_root: Path = PROJECT_ROOT) -> list[Path]:
    """The files and folders pytest is given: the shipped corpus's modules for 'builtin', else the folder."""
    paths: list[Path] = []
    for entry in cases:
        if entry == BUILTIN:
            paths.extend(case_files(project_root / "cases", builtin=True))
            continue
        folder = Path(entry).expanduser().resolve()
        if not folder.is_dir():
            raise FileNotFoundError(f"--cases {entry}: no such folder")
        paths.append(folder)
    return paths


def known_breakage_files(cases: list[str], project_root: Path = PROJECT_ROOT) -> list[Path]:
    """The known-breakages files beside the case folders that have one."""
    folders = [project_root / "cases" if entry == BUILTIN else Path(entry).expanduser().resolve() for entry in cases]
    return [folder / known.FILENAME for folder in folders if (folder / known.FILENAME).is_file()]


def stale_known_breakages(cells: list[Cell], options: Options) -> list[str]:
    """One line per known-breakage entry that names no existing case, or whose ranges match no selected cell."""
    case_ids = {case_id for case_id, _ in expected_cases(case_paths(options.cases))}
    lines = []
    for path in known_breakage_files(options.cases):
        entries = known.load(path)
        for entry in known.stale(entries, case_ids):
            lines.append(f"{path.name}: {entry.case}: stale, no such case")
        for entry in entries:
            pins = [{"jax": c.jax, "jaxlib": c.jaxlib, "flax": c.flax, "python": c.python} for c in cells]
            if entry.case in case_ids and not any(entry.applies(dict(p)) for p in pins):
                lines.append(f"{path.name}: {entry.case}: no selected cell is in its version range")
    return lines


def expected_cases(paths: list[Path]) -> list[tuple[str, str]]:
    """(case id, family) of every case in the given files and folders, read from source."""
    found: list[tuple[str, str]] = []
    for path in paths:
        files = [path] if path.is_file() else case_files(path, builtin=False)
        for file in files:
            for name, family in static_cases(file):
                found.append((f"{file.stem}::{name}", family or file.stem))
    return found


def uv_command() -> list[str]:
    """How to call uv: the binary on PATH, else the one pip installed beside this interpreter."""
    found = shutil.which("uv")
    return [found] if found else [sys.executable, "-m", "uv"]


def venv_python(venv: Path) -> Path:
    """The interpreter inside a virtual environment."""
    return venv / ("Scripts/python.exe" if os.name == "nt" else "bin/python")


def install(cell: Cell, venv: Path, log: Path, project_root: Path = PROJECT_ROOT) -> str | None:
    """Install the cell's exact pins and the harness into `venv`; None on success, else uv's key message.

    Resolution is the slow part of a build on a warm cache, so it runs once per set of inputs: its result is
    kept as a lock beside the venvs and synced into a new venv in well under a second; a venv already synced
    to the same inputs (its stamp says so) is left alone.
    """
    key = install_key(cell, venv, project_root)
    stamp = venv / ".shardmatrix-installed"
    if stamp.exists() and stamp.read_text(encoding="utf-8") == key:
        log.parent.mkdir(parents=True, exist_ok=True)
        log.write_text(f"unchanged since the last install (key {key[:12]}): nothing to do\n", encoding="utf-8")
        return None
    lock = venv.parent / ".shardmatrix-locks" / f"{key}.txt"
    transcript: list[str] = []
    problem = None
    if not lock.exists():
        problem = _uv(["pip", "compile", "-", "--quiet", "--python", str(venv_python(venv)),
                       "--output-file", str(lock), *_index_options(cell)],
                      transcript, stdin="\n".join([*cell.requirements(), f"-e {project_root}"]) + "\n")
    if problem is None:
        # Editable: the cell imports the checkout's harness, so a changed harness never meets a stale wheel.
        problem = _uv(["pip", "sync", "--python", str(venv_python(venv)), str(lock), *_index_options(cell)],
                      transcript)
    log.parent.mkdir(parents=True, exist_ok=True)
    log.write_text("".join(transcript), encoding="utf-8")
    if problem is None:
        stamp.write_text(key, encoding="utf-8")
    else:
        lock.unlink(missing_ok=True)
    return problem


def install_key(cell: Cell, venv: Path, project_root: Path = PROJECT_ROOT) -> str:
    """What an install depends on: the pins, the resolution cut-off, the interpreter and the harness's deps."""
    pyproject = project_root / "pyproject.toml"
    parts = [*cell.requirements(), cell.backend, cell.exclude_newer or "", _interpreter_version(venv),
             pyproject.read_text(encoding="utf-8") if pyproject.exists() else ""]
    return hashlib.sha256("\0".join(parts).encode()).hexdigest()


def _interpreter_version(venv: Path) -> str:
    config = venv / "pyvenv.cfg"
    if not config.exists():
        return ""
    found = re.search(r"^version(?:_info)?\s*=\s*(\S+)", config.read_text(encoding="utf-8"), re.MULTILINE)
    return found.group(1) if found else ""


def _index_options(cell: Cell) -> list[str]:
    options = ["--exclude-newer", cell.exclude_newer] if cell.exclude_newer else []
    if cell.backend == "tpu":
        options += ["--find-links", LIBTPU_RELEASES]
    return options


def _uv(arguments: list[str], transcript: list[str], stdin: str | None = None) -> str | None:
    """Run one uv command, append it and its output to the transcript; None on success, else why it failed."""
    command = [*uv_command(), *arguments]
    done = subprocess.run(command, input=stdin, capture_output=True, text=True, check=False)
    transcript.append(f"$ {' '.join(command)}\n{stdin or ''}{done.stdout}{done.stderr}\n")
    return None if done.returncode == 0 else installer_message(done.stderr or done.stdout)


def installer_message(output: str) -> str:
    """The sentence of an installer's output that says why, e.g. uv's 'Because jax==9.9 was not found ...'."""
    # uv draws its error tree with box characters; strip them to reach the sentence.
    lines = [re.sub(r"^[\s×╰─▶│]+", "", line).strip() for line in output.splitlines()]  # noqa: RUF001
    lines = [line for line in lines if line]
    for index, line in enumerate(lines):
        if "Because" in line:
            sentence = [line[line.index("Because"):]]
            for more in lines[index + 1:]:
                if re.match(r"^(cause|hint|help|error|warning):", more) or "Because" in more:
                    break
                sentence.append(more)
            return first_line(" ".join(sentence))
    for line in lines:
        if line.startswith("error:"):
            return first_line(line)
    return first_line(lines[-1] if lines else "installer failed without output")


def freeze(venv: Path, destination: Path) -> str:
    """Save the cell's fully resolved environment beside its results, and return it."""
    done = subprocess.run([*uv_command(), "pip", "freeze", "--python", str(venv_python(venv))],
                          capture_output=True, text=True, check=False)
    destination.write_text(done.stdout, encoding="utf-8")
    return done.stdout


def pytest_command(cell: Cell, venv: Path, options: Options, paths: list[Path]) -> list[str]:
    """The pytest invocation that runs the cases of one cell and records them."""
    return [
        str(venv_python(venv)), "-m", "pytest", *map(str, paths),
        "--shardmatrix-out", str(options.out),
        "--shardmatrix-run", options.run_id,
        "--shardmatrix-cell", cell.id,
        "--shardmatrix-devices", str(devices_for(cell, options)),
        "--timeout", str(options.timeout),
        "--shardmatrix-hard-grace", str(options.hard_grace),
        "--shardmatrix-repeats", str(options.repeats),
        "-n", str(options.workers),
        # Every crash costs a worker; never stop replacing them while cases remain.
        "--max-worker-restart", "100000",
        "--reruns", str(options.reruns),
        *(arg for pattern in NOT_RETRIED for arg in ("--rerun-except", pattern)),
        *(["--shardmatrix-skip-recorded"] if options.resume else []),
        *(arg for path in known_breakage_files(options.cases) for arg in ("--shardmatrix-known", str(path))),
        "-p", "no:cacheprovider",
        "-o", "addopts=",
        "-q", "-rfE",
    ]


#: JAX_PLATFORMS per backend. Naming the accelerator makes jax fail loudly where it cannot start it, instead of
#: quietly falling back to the CPU and recording CPU results under an accelerator's cell.
PLATFORMS = {"cpu": "cpu", "cuda12": "cuda,cpu", "cuda13": "cuda,cpu", "tpu": "tpu,cpu"}


def devices_for(cell: Cell, options: Options) -> int:
    """Simulated devices for a cell (the command line wins over the matrix file); 0 on real accelerators."""
    if cell.accelerated:
        return 0
    return options.devices if options.devices is not None else cell.devices


def cell_environment(cell: Cell, options: Options) -> dict[str, str]:
    """The cell process's environment: on the CPU, devices requested before its interpreter starts."""
    env = dict(os.environ)
    if not cell.accelerated:
        env["XLA_FLAGS"] = with_device_count(env.get("XLA_FLAGS", ""), devices_for(cell, options))
    env["JAX_PLATFORMS"] = PLATFORMS[cell.backend]
    env.pop("PYTHONPATH", None)  # the venv's own harness, not a checkout's, must answer
    return env


def is_complete(cell: Cell, options: Options) -> bool:
    """Whether the cell already finished in this run (its done marker exists)."""
    return done_path(options.out, options.run_id, cell.id).exists()


def run(cell: Cell, venv: Path, options: Options) -> int:
    """Install and run one cell, recording whatever stops it; returns pytest's exit code, 0 when recorded."""
    paths = case_paths(options.cases)
    target = results_path(options.out, options.run_id, cell.id)
    problem = install(cell, venv, target.with_suffix(".install.log"))
    if problem is not None:
        if options.resume:  # an earlier attempt may have recorded the same install error
            target.unlink(missing_ok=True)
        record_unrun(cell, options, paths, statuses.INSTALL_ERROR, "InstallError", problem)
        finish(cell, options, 0)
        return 0
    frozen = freeze(venv, target.with_suffix(".freeze.txt"))
    key = cache.fingerprint(frozen, interpreter_of(venv), case_roots(options.cases), settings_of(cell, options))
    hit = None if options.force or options.resume else cache.find(options.out, cell.id, key, options.run_id)
    if hit is not None:
        copied = cache.reuse(hit, target, options.run_id)
        print(f"shardmatrix: {cell.id}: inputs unchanged since run {hit.run_id}; reused its {copied} records "
              "(--force reruns)")
        finish(cell, options, 0, fingerprint=key, reused_from=hit.run_id)
        return 0
    return run_installed(cell, venv, options, paths, fingerprint=key)


def case_roots(cases: list[str], project_root: Path = PROJECT_ROOT) -> list[Path]:
    """The folders whose sources decide the cases' outcomes."""
    return [project_root / "cases" if entry == BUILTIN else Path(entry).expanduser().resolve() for entry in cases]


def interpreter_of(venv: Path) -> str:
    """The venv's interpreter version, as its pyvenv.cfg records it."""
    config = venv / "pyvenv.cfg"
    return config.read_text(encoding="utf-8") if config.exists() else ""


def settings_of(cell: Cell, options: Options) -> dict[str, object]:
    """The settings of this cell run that can change an outcome."""
    return {"devices": devices_for(cell, options), "backend": cell.backend, "timeout": options.timeout,
            "reruns": options.reruns, "hard_grace": options.hard_grace, "repeats": options.repeats}


def run_installed(cell: Cell, venv: Path, options: Options, paths: list[Path], fingerprint: str | None = None) -> int:
    """Run the cases in an environment that already has the cell's packages and the harness.

    Without xdist workers the cases run in the cell's own pytest process: when it dies (a segfault in XLA, an
    abort, the hard-timeout watchdog), the case it was running is recorded as crashed or timeout and a fresh
    process runs the cases not yet recorded, so one bad case costs one restart, and none costs nothing.
    """
    command = pytest_command(cell, venv, options, paths)
    environment = cell_environment(cell, options)
    inflight = inflight_path(options.out, options.run_id, cell.id)
    fault_log = fault_log_path(options.out, options.run_id, cell.id, IN_PROCESS)
    for _restart in range(MAX_RESTARTS):
        fault_log.unlink(missing_ok=True)
        done = subprocess.run(command, env=environment, check=False)
        if options.workers or not inflight.exists():
            break
        if not record_death(cell, options, inflight, fault_log, paths):
            break  # the death was not during a case: nothing to pin it on, so no restart would get further
        if "--shardmatrix-skip-recorded" not in command:
            command = [*command, "--shardmatrix-skip-recorded"]
    if done.returncode == PYTEST_INTERRUPTED:
        # Keep what was recorded and leave no done marker: --resume runs the rest.
        return done.returncode
    if done.returncode == PYTEST_NO_TESTS and not options.resume:
        record_unrun(cell, options, [], statuses.ERROR, "NoCasesCollected",
                     f"pytest collected no case from {', '.join(map(str, paths))}", placeholder="<no cases>")
    elif done.returncode not in (*PYTEST_FINISHED, PYTEST_NO_TESTS):
        record_unrun(cell, options, paths, statuses.CRASHED, "CellProcessDied", exit_description(done.returncode),
                     only_missing=True)
    finish(cell, options, done.returncode, fingerprint=fingerprint)
    return 0


def record_death(cell: Cell, options: Options, inflight: Path, fault_log: Path, paths: list[Path]) -> bool:
    """Record the case a dead cell process was running, named by faulthandler's log; False if there is none."""
    nodeid = inflight.read_text(encoding="utf-8").strip()
    inflight.unlink(missing_ok=True)
    target = results_path(options.out, options.run_id, cell.id)
    case_id = case_id_from_nodeid(nodeid)
    if not nodeid or case_id in recorded_case_ids(target):
        return False
    verdict = crash_verdict(fault_log.read_text(encoding="utf-8", errors="replace") if fault_log.exists() else "")
    families = dict(expected_cases(paths))
    writer = JsonlWriter(target)
    try:
        writer.write(make_record(
            run_id=options.run_id, cell_id=cell.id, case_id=case_id,
            family=families.get(case_id.split("[")[0], family_from_nodeid(nodeid)), status=verdict.status,
            reason=verdict.reason, error_type="ProcessTimeout" if verdict.status == statuses.TIMEOUT else "ProcessDied",
            error_message=verdict.reason, jax=cell.jax, jaxlib=cell.jaxlib, flax=cell.flax, python=cell.python,
            backend=cell.backend, platform=f"{platform.system()}-{platform.machine()}",
        ))
    finally:
        writer.close()
    return True


def finish(
    cell: Cell, options: Options, returncode: int, *, fingerprint: str | None = None, reused_from: str | None = None
) -> None:
    """Mark the cell complete, atomically: a results file without this marker was interrupted."""
    write_atomically(done_path(options.out, options.run_id, cell.id), {
        "schema_version": 1,
        "cell_id": cell.id,
        "finished": datetime.now(timezone.utc).isoformat(),
        "returncode": returncode,
        "fingerprint": fingerprint,
        "reused_from": reused_from,
    })


def exit_description(returncode: int) -> str:
    """'killed by SIGSEGV' or 'pytest exited with code 3'."""
    if returncode < 0:
        try:
            return f"cell process killed by {signal.Signals(-returncode).name}"
        except ValueError:
            return f"cell process killed by signal {-returncode}"
    return f"pytest exited with code {returncode}"


def record_unrun(
    cell: Cell,
    options: Options,
    paths: list[Path],
    status: str,
    error_type: str,
    message: str,
    *,
    only_missing: bool = False,
    placeholder: str = "<cell>",
) -> None:
    """Write `status` for every case of the cell that has no record yet (or one placeholder when none is known)."""
    target = results_path(options.out, options.run_id, cell.id)
    done = {case_id.split("[")[0] for case_id in recorded_case_ids(target)} if only_missing else set()
    cases = [(cid, fam) for cid, fam in expected_cases(paths) if cid.split("[")[0] not in done]
    if not cases and not done:
        cases = [(f"{cell.id}::{placeholder}", "cell")]
    writer = JsonlWriter(target)
    try:
        for case_id, family in cases:
            writer.write(make_record(
                run_id=options.run_id, cell_id=cell.id, case_id=case_id, family=family, status=status,
                reason=message, error_type=error_type, error_message=message,
                jax=cell.jax, jaxlib=cell.jaxlib, flax=cell.flax, python=cell.python,
                backend=cell.backend, platform=f"{platform.system()}-{platform.machine()}",
            ))
    finally:
        writer.close()


def record_missing_cells(cells: list[Cell], options: Options) -> list[str]:
    """After the cells ran: a selected cell with no results file never started (its interpreter is missing)."""
    missing = []
    for cell in cells:
        if results_path(options.out, options.run_id, cell.id).exists():
            continue
        if shutil.which(f"python{cell.python}") is None:
            message = f"interpreter python{cell.python} not found (install it, or list it in PYENV_VERSION)"
        else:
            message = f"the cell's session did not run although python{cell.python} exists (see the nox log)"
        record_unrun(cell, options, case_paths(options.cases), statuses.INSTALL_ERROR, "MissingInterpreter", message)
        missing.append(cell.id)
    return missing


def infrastructure_problems(cells: list[Cell], options: Options) -> list[str]:
    """One line per cell that has cases the harness could not answer for (install_error, crashed, timeout)."""
    problems = []
    for cell in cells:
        path = results_path(options.out, options.run_id, cell.id)
        counts: dict[str, int] = {}
        if path.exists():
            for line in path.read_text(encoding="utf-8").splitlines():
                try:
                    status = json.loads(line)["status"]
                except (ValueError, KeyError, TypeError):
                    continue
                if status in statuses.INFRASTRUCTURE:
                    counts[status] = counts.get(status, 0) + 1
        if counts:
            problems.append(f"{cell.id}: " + ", ".join(f"{n} {s}" for s, n in sorted(counts.items())))
    return problems
