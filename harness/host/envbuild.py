"""Building a cell's environment with uv: resolve its pins once into a lock, sync it into the venv, freeze it.

Runs on the host. An install failure is returned as uv's one-line reason, which the caller records.
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

from harness.cell.records import first_line
from harness.host.corpus import PROJECT_ROOT
from harness.host.matrix import LIBTPU_RELEASES, Cell


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
    parts = [*cell.requirements(), cell.backend, cell.exclude_newer or "", interpreter_version(venv),
             pyproject.read_text(encoding="utf-8") if pyproject.exists() else ""]
    return hashlib.sha256("\0".join(parts).encode()).hexdigest()


def interpreter_version(venv: Path) -> str:
    """The venv's Python version, as its pyvenv.cfg records it ("" when unknown)."""
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
