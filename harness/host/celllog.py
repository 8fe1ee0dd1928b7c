"""What a cell's run shows: everything its pytest and installer say goes to the cell's log file, and the terminal
gets one progress line per cell (unless --verbose, which streams pytest's output as well).

A matrix of dozens of cells is read on the terminal at a glance; a failing case's traceback is read in its log.
"""

from __future__ import annotations

import shlex
import subprocess
import sys
import threading
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any, TextIO

from harness import cellrecord, vocabulary
from harness.host import hang
from harness.host.corpus import answered
from harness.host.unreported import never_started
from harness.results import read_records


def final_records(results: Path) -> dict[str, dict[str, Any]]:
    """Each case's final record (harness.cellrecord.final_records: its last attempt; conflicting records of one
    attempt make it unknown): a retried case counts once, as it ended."""
    return cellrecord.final_records(read_records(results))


def status_counts(records: dict[str, dict[str, Any]]) -> dict[str, int]:
    """How many cases ended in each status, in the vocabulary's order (statuses it does not know last)."""
    counts = Counter(str(record.get("status")) for record in records.values())
    return {status: counts[status] for status in [*vocabulary.ALL, *sorted(set(counts) - set(vocabulary.ALL))]
            if counts[status]}


def progress_line(
    cell_id: str, results: Path, log: Path, *, expected: list[str] | None, seconds: float | None, note: str = ""
) -> str:
    """'<cell>: 75/75 cases, 41 s: 60 passed, 3 failed, 12 not_applicable (log: <path>)'.

    Cases done are the cases with a record, of the expected ones and the recorded ones together (the expected are
    read from source, which does not see every test pytest collects: names generated at import; a module that did
    not import is done by its collection record, harness.host.corpus.answered); without
    `expected` (a caller that does not know the corpus) only the recorded cases are counted, and without `seconds`
    the time is left out.
    """
    finals = final_records(results)
    # A case the host recorded because it never started (a cell not built, a pytest that stopped first) is not done:
    # the line counts what ran, and says why the rest did not.
    unstarted = [record for record in finals.values() if never_started(record)]
    ran = len(finals) - len(unstarted)
    if expected is None:
        done = f"{ran} cases" if not unstarted else f"{ran}/{len(finals)} cases ran"
    else:
        # Counted as pytest counts tests: each parametrization is one (the source scan sees only the function, so an
        # expected test with no record at all counts once).
        recorded = {case_id.split("[")[0] for case_id in finals}
        waiting = {case_id.split("[")[0] for case_id in expected if not answered(case_id, recorded)}
        done = f"{ran}/{len(finals) + len(waiting)} cases" + (" ran" if unstarted else "")
    head = ", ".join(part for part in (done, f"{seconds:.0f} s" if seconds is not None else "", note) if part)
    counts = ", ".join(f"{n} {status}" for status, n in status_counts(finals).items()) or "no records"
    why = next((str(record.get("error_message") or "") for record in unstarted if record.get("error_message")), "")
    if unstarted:
        counts += f"; {len(unstarted)} never started" + (f": {why}" if why else "")
    return f"{cell_id}: {head}: {counts}" + (f" (log: {log})" if log.exists() else "")


def start_log(log: Path, *, keep: bool) -> None:
    """Begin the cell's log: emptied for a new run, kept (and appended to) when a run is resumed."""
    log.parent.mkdir(parents=True, exist_ok=True)
    if not keep:
        log.write_text("", encoding="utf-8")


def append_to_log(log: Path, title: str, text: str) -> None:
    """Add a titled section to the cell's log."""
    log.parent.mkdir(parents=True, exist_ok=True)
    with log.open("a", encoding="utf-8") as sink:
        sink.write(f"=== {title}\n{text}" + ("" if text.endswith("\n") or not text else "\n"))


def copy_into_log(log: Path, source: Path) -> None:
    """Add another file (the installer's transcript) to the cell's log, so one file holds all it said."""
    if source.exists():
        append_to_log(log, source.name, source.read_text(encoding="utf-8", errors="replace"))


#: What watches a command's process from a thread until it ends (the Event): harness.host.hang.CollectionWatch.watch.
Watch = Callable[[subprocess.Popen[str], threading.Event], None]


def run_logged(command: list[str], environment: dict[str, str], log: Path, *, verbose: bool,
               cwd: Path | None = None, watch: Watch | None = None) -> int:
    """Run a command (in `cwd`, else here) with its output appended to the log (and streamed to the terminal too
    when `verbose`). With `watch` (harness.host.hang), the command runs in a process group of its own, watched from
    a thread until it ends (run_watched)."""
    append_to_log(log, "run", f"$ {shlex.join(command)}\n")
    with log.open("a", encoding="utf-8") as sink:
        if watch is not None:
            return run_watched(command, environment, sink, verbose, cwd, watch)
        if not verbose:
            return subprocess.run(command, env=environment, stdout=sink, stderr=subprocess.STDOUT,
                                   stdin=subprocess.DEVNULL, cwd=cwd, check=False).returncode
        with subprocess.Popen(command, env=environment, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                              stdin=subprocess.DEVNULL, cwd=cwd, text=True, errors="replace") as process:
            _stream(process, sink)
        return process.returncode


def run_watched(command: list[str], environment: dict[str, str], sink: TextIO, verbose: bool, cwd: Path | None,
                watch: Watch) -> int:
    """The command in a session of its own, `watch` running beside it until it ends; its group is stopped if the
    host is interrupted meanwhile (a group of its own gets no Ctrl-C from the terminal)."""
    ended = threading.Event()
    with subprocess.Popen(command, env=environment, stdout=subprocess.PIPE if verbose else sink,
                          stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, cwd=cwd, text=True, errors="replace",
                          start_new_session=True) as process:
        threading.Thread(target=watch, args=(process, ended), daemon=True).start()
        try:
            _stream(process, sink)
            process.wait()
        except BaseException:
            hang.stop_group(process)
            raise
        finally:
            ended.set()
    return process.returncode


def _stream(process: subprocess.Popen[str], sink: TextIO) -> None:
    for line in process.stdout or ():
        sys.stdout.write(line)
        sys.stdout.flush()
        sink.write(line)
        sink.flush()
