"""A project's own pytest settings in its cells: read as its CI reads them, and where the harness's options meet them.

A project's tests run under its whole configuration (addopts with its -W, -p and --strict-markers, filterwarnings,
markers, pythonpath, testpaths, timeout, xfail_strict, conftest.py), from its own folder: the runner gives pytest
the project's configuration file and adds its own options after the project's (harness.host.runner). Our corpus
keeps the harness's settings instead. What the harness needs and the project takes away (a plugin it disables, a
stop at the first failure, a time limit looser than the cell's) is found here, and said in one line before a run.
"""

from __future__ import annotations

import shlex
from dataclasses import dataclass
from pathlib import Path

from harness.host import project as projects
from harness.host.project import ProjectError

#: The plugins the harness gives options to, by the name `-p no:NAME` disables them: without them, those options
#: would stop pytest ("unrecognized arguments"), so the runner leaves them out.
HARNESS_PLUGINS = ("xdist", "rerunfailures", "timeout")
#: Options that stop a session at its first failures: a cell records every test, so it runs them all.
STOPS_EARLY = ("-x", "--exitfirst", "--maxfail")
#: Options of pytest's cache (its cacheprovider and stepwise plugins). A cell runs without that cache
#: (-p no:cacheprovider: each run starts from nothing, and a run's selection never depends on the last), so they are
#: left out of the project's addopts; with a value where the option takes one.
CACHE_OPTIONS = ("--lf", "--last-failed", "--ff", "--failed-first", "--nf", "--new-first", "--cache-clear",
                 "--cache-show", "--sw", "--stepwise", "--sw-skip", "--stepwise-skip", "--sw-reset", "--stepwise-reset")
CACHE_OPTIONS_WITH_VALUE = ("--lfnf", "--last-failed-no-failures")


@dataclass(frozen=True)
class ProjectSettings:
    """A project's pytest configuration: its folder, the file pytest reads, its addopts and its time limit."""

    root: Path
    file: Path
    addopts: tuple[str, ...] = ()
    #: Its per-test time limit in seconds (ini `timeout` or `--timeout` in addopts), else None.
    timeout: float | None = None

    def arguments(self) -> list[str]:
        """What makes pytest read the project as its CI does: its rootdir and its configuration file."""
        return ["--rootdir", str(self.root), "-c", str(self.file)]

    @property
    def disabled(self) -> frozenset[str]:
        """The plugins its addopts disable (`-p no:xdist`, `-pno:xdist`)."""
        found = set()
        for before, arg in zip(("", *self.addopts), self.addopts, strict=False):
            name = arg if before == "-p" else arg[2:] if arg.startswith("-p") else ""
            if name.startswith("no:"):
                found.add(name[3:])
        return frozenset(found)

    @property
    def cache_options(self) -> tuple[str, ...]:
        """The options of pytest's cache among its addopts (a value given apart included)."""
        return tuple(self.addopts[i] for i in self._cache_positions())

    @property
    def addopts_without_cache(self) -> tuple[str, ...]:
        """Its addopts less the options of pytest's cache."""
        left_out = self._cache_positions()
        return tuple(arg for i, arg in enumerate(self.addopts) if i not in left_out)

    def _cache_positions(self) -> list[int]:
        found: list[int] = []
        for i, arg in enumerate(self.addopts):
            name = arg.partition("=")[0]
            if name in CACHE_OPTIONS or name in CACHE_OPTIONS_WITH_VALUE:
                found.append(i)
                if name in CACHE_OPTIONS_WITH_VALUE and "=" not in arg and i + 1 < len(self.addopts):
                    found.append(i + 1)
        return found

    @property
    def stops_early(self) -> bool:
        """Whether its addopts stop the session at a first failure (-x, --exitfirst, --maxfail)."""
        return any(arg.partition("=")[0] in STOPS_EARLY for arg in self.addopts)


def read(root: Path) -> ProjectSettings:
    """The project's pytest settings; ProjectError (one line) for addopts pytest could not read either. A project
    that disables the `shardmatrix` entry point (`-p no:shardmatrix`, so its own runs in a venv holding shardmatrix
    do not load it) runs as it is: a cell loads the plugin by its module name (harness.host.runner)."""
    config = projects.pytest_config(root)
    addopts = _addopts(config)
    return ProjectSettings(root, config, addopts, _timeout(config, addopts))


def _addopts(config: Path) -> tuple[str, ...]:
    value = projects.ini_option(config, "addopts")
    if value is None or isinstance(value, list):
        return tuple(value or ())
    try:
        return tuple(shlex.split(value))
    except ValueError as exc:
        raise ProjectError(f"{config}: addopts {value!r} cannot be read ({exc})") from None


def _timeout(config: Path, addopts: tuple[str, ...]) -> float | None:
    """The last `--timeout` of addopts (the command line wins over the ini file, as in pytest), else ini `timeout`."""
    given: object = projects.ini_option(config, "timeout")
    for before, arg in zip(("", *addopts), addopts, strict=False):
        if before == "--timeout":
            given = arg
        elif arg.startswith("--timeout="):
            given = arg.partition("=")[2]
    if given is None:
        return None
    try:
        return float(str(given))
    except ValueError:
        raise ProjectError(f"{config}: timeout {given!r} is not a number of seconds") from None


def time_limit(settings: ProjectSettings | None, timeout: float) -> float:
    """A cell's per-test limit: the project's own where it is stricter than the cell's `timeout` (0: none)."""
    own = settings.timeout if settings is not None else None
    if not own or own <= 0:
        return timeout
    return min(own, timeout) if timeout > 0 else own


def conflicts(settings: ProjectSettings | None, workers: int, reruns: int, timeout: float) -> list[str]:
    """What the project's settings take from the harness's options, or the harness from them: one phrase each."""
    if settings is None:
        return []
    found = []
    disabled = settings.disabled
    if "xdist" in disabled and workers:
        found.append(f"its -p no:xdist runs the tests in one process (--workers {workers} is not used)")
    if "rerunfailures" in disabled and reruns:
        found.append(f"its -p no:rerunfailures retries no failure (--reruns {reruns} is not used)")
    if "timeout" in disabled and timeout:
        found.append(f"its -p no:timeout sets no time limit (--timeout {timeout:g} is not used)")
    elif settings.timeout and timeout and settings.timeout > timeout:
        found.append(f"its timeout of {settings.timeout:g} s is cut to the cell's --timeout {timeout:g}")
    if settings.cache_options:
        found.append(f"its {' '.join(settings.cache_options)} (pytest's cache) are left out: a cell runs without that "
                     "cache, every test from the first")
    if settings.stops_early:
        found.append("its -x/--maxfail would stop at the first failures: every test runs (--maxfail 0)")
    return found


def conflict_line(settings: ProjectSettings | None, workers: int, reruns: int, timeout: float) -> str:
    """The one line said before a project's cell runs where its settings and the harness's conflict, else ''."""
    found = conflicts(settings, workers, reruns, timeout)
    if not found or settings is None:
        return ""
    return f"project pytest settings ({settings.file.name}): {'; '.join(found)}"
