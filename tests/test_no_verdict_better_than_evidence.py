"""No verdict is better than its evidence (issues 24 and 37), stated once and searched by Hypothesis over every file
the tool reads.

Results trees: Hypothesis writes them from the record schema: two runs of one cell, random statuses and attempts,
and the defects real trees have (a missing record, a retry without its first attempt, conflicting records, a torn or
non-UTF-8 line, a newer schema, a record without a case id, no or a broken done marker, a freeze or record naming
another jax, no collection, a folder that is not a run, runs in the wrong order). Every consumer then answers, and:

- none answers good (a works tier, SAFE, "No regressions", a cell fully run) unless every expected case has a usable,
  consistent final record on every side that answer depends on;
- none raises: bad input is an exit code with one line, never a traceback.

The files beside a cell (machine, precision re-run, collection) and the two sides of a compare across device counts
and runs come from tests/hostile_files.py; the watcher's state, the command line's pins and the stored range check
from tests/hostile_states.py; the parts an ecosystem fan-in merges from tests/hostile_ecosystem.py, each with its
defects. The same two rules hold over them (each test says what it
promises).

The examples' database stays out of git (.gitignore: .hypothesis/); SHARDMATRIX_HYPOTHESIS_EXAMPLES sets the budget
(100 by default, so the module stays within two minutes in .ci/run; a longer search: set it higher).
"""

from __future__ import annotations

import contextlib
import importlib.util
import io
import json
import os
import sys
import warnings
from dataclasses import dataclass
from pathlib import Path
from tempfile import TemporaryDirectory
from types import ModuleType
from typing import Any
from unittest import mock

import hostile_ecosystem
import hostile_states
from hostile_files import (
    Hostile,
    Sides,
    collection_files,
    machine_files,
    one_sided_sides,
    precision_files,
    strict_xpass_sides,
)
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from record_factory import cell_id, record

from harness import celldocuments, cellrecord, formats, vocabulary
from harness.host import completeness, matrix
from harness.tools import index, pins, range_take, upgrade
from reports import regressions
from reports.cli import compare_main
from reports.data.load import ResultsError, load
from reports.data.tables import build_matrix
from reports.verdicts import compat
from shardmatrix import watch, watch_files

CASES = ("fam::test_a", "fam::test_b", "fam::test_c")
CELL = cell_id("0.10.2", "0.12.8", "3.11")
OTHER_CELL = cell_id("0.9.2", "0.12.8", "3.11")
FREEZE = "flax==0.12.8\njax==0.10.2\njaxlib==0.10.2\n"
#: Statuses a record may carry: every one the vocabulary knows, and one it does not.
STATUSES = (*vocabulary.ALL, "mystery")
#: Final statuses that are an answer about the code (reports.verdicts.compare's rule).
ANSWERS = frozenset({vocabulary.PASSED, vocabulary.XPASSED, vocabulary.FAILED, vocabulary.XFAILED,
                     vocabulary.NOT_APPLICABLE})
#: What can be wrong with a cell's files; each makes its evidence unusable.
DEFECTS = ("missing_record", "retry_gap", "conflict", "torn_line", "bad_bytes", "newer_schema", "no_case_id",
           "no_done", "bad_done", "done_names_other", "freeze_other_jax", "record_other_jax", "no_collection")
GOOD_TIERS = frozenset({compat.WORKS, compat.WARNED, compat.CURRENT})
EXAMPLES = int(os.environ.get("SHARDMATRIX_HYPOTHESIS_EXAMPLES", "100"))


@dataclass(frozen=True)
class Cell:
    """One cell's results as generated: each case's attempts' statuses, and the defects its files get."""

    attempts: dict[str, tuple[str, ...]]
    defects: frozenset[str]
    #: The files beside the results (tests/hostile_files.py: machine, precision re-run, collection), each as drawn;
    #: none drawn leaves what the harness writes (no machine or precision file, a whole collection).
    beside: tuple[Hostile, ...] = ()

    @property
    def sound(self) -> bool:
        """Whether the files hold every expected case's usable, consistent record (no defect), and the files beside
        them are sound."""
        return not self.defects and all(hostile.sound for hostile in self.beside)

    def finals(self) -> dict[str, str]:
        """Each case's final status as written."""
        return {case: statuses[-1] for case, statuses in self.attempts.items()}

    @property
    def answered(self) -> bool:
        """Whether every case ends in an answer (an answer about the code, whatever its attempts were)."""
        return all(statuses[-1] in ANSWERS for statuses in self.attempts.values())

    @property
    def works(self) -> bool:
        """Whether every case's final status is passing or absent, and no case needed a retry to get there."""
        return all(vocabulary.status_class(statuses[-1]) in (vocabulary.PASSING, vocabulary.ABSENT)
                   and len(set(statuses)) == 1 for statuses in self.attempts.values())


def maybe(strategy: st.SearchStrategy[Hostile]) -> st.SearchStrategy[tuple[Hostile, ...]]:
    """A file beside the results as drawn, or (as often) none: what the harness itself leaves."""
    return st.one_of(st.just(()), st.just(()), strategy.map(lambda hostile: (hostile,)))


beside = st.tuples(maybe(machine_files(CELL, "0.10.2", "0.10.2")), maybe(precision_files(CELL, CASES)),
                   maybe(collection_files(CELL, CASES))).map(lambda drawn: tuple(h for files in drawn for h in files))
cells = st.builds(
    Cell,
    attempts=st.fixed_dictionaries({case: st.lists(st.sampled_from(STATUSES), min_size=1, max_size=2).map(tuple)
                                    for case in CASES}),
    defects=st.frozensets(st.sampled_from(DEFECTS), max_size=3),
    beside=beside,
)


def write_cell(out: Path, run: str, cell: Cell) -> None:
    """Write `cell` as run `run` of CELL under `out`, through the harness's own writers, then break it as asked."""
    files = cellrecord.CellFiles(out, run, CELL)
    lines: list[dict[str, object]] = []
    for case, statuses in cell.attempts.items():
        for number, status in enumerate(statuses, start=1):
            failing = status not in (vocabulary.PASSED, vocabulary.XPASSED, vocabulary.NOT_APPLICABLE)
            # A cell's records always say the backend and device kind they ran on (the plugin writes both), which a
            # machine file is checked against.
            lines.append(record("0.10.2", "0.12.8", "3.11", run_id=run, case_id=case, status=status, attempt=number,
                                error_type="AssertionError" if failing else None, backend="cpu", device_kind="cpu"))
    first = CASES[0]
    if "missing_record" in cell.defects:
        lines = [line for line in lines if line["case_id"] != first]
    if "retry_gap" in cell.defects:
        kept = [line for line in lines if line["case_id"] == first][-1:]
        lines = [line for line in lines if line["case_id"] != first] + [{**line, "attempt": 2} for line in kept]
    if "conflict" in cell.defects and lines:
        last = lines[-1]
        other = vocabulary.FAILED if last["status"] != vocabulary.FAILED else vocabulary.PASSED
        lines.append({**last, "status": other})
    if "record_other_jax" in cell.defects and lines:
        lines[0] = {**lines[0], "jax": "0.9.2", "jaxlib": "0.9.2"}
    text = "".join(formats.dump_jsonl_line(line) for line in lines).encode("utf-8")
    if "newer_schema" in cell.defects:
        text += formats.dump_jsonl_line(record(run_id=run, case_id=CASES[1],
                                               schema_version=cellrecord.SCHEMA_VERSION + 1)).encode("utf-8")
    if "no_case_id" in cell.defects:
        text += formats.dump_jsonl_line({**record(run_id=run), "case_id": None}).encode("utf-8")
    if "bad_bytes" in cell.defects:
        text += b'{"case_id": "fam::test_b", "status": "passed\xff\xfe"}\n'
    if "torn_line" in cell.defects:
        text += formats.dump_jsonl_line(record(run_id=run, case_id=CASES[2])).encode("utf-8")[:30]
    files.results.parent.mkdir(parents=True, exist_ok=True)
    files.results.write_bytes(text)
    if "no_collection" not in cell.defects:
        celldocuments.write_collection(files.results, CELL, CASES)
    files.freeze.write_text(FREEZE.replace("0.10.2", "0.9.2") if "freeze_other_jax" in cell.defects else FREEZE,
                            encoding="utf-8")
    if "bad_done" in cell.defects:
        files.done.write_text('{"cell_id": ', encoding="utf-8")
    elif "no_done" not in cell.defects:
        cellrecord.write_done(files.done, cell_id=OTHER_CELL if "done_names_other" in cell.defects else CELL,
                           finished="2026-11-26T00:00:00+00:00", returncode=0, fingerprint=None, reused_from=None,
                           seconds=1.0)
    for hostile in cell.beside:
        hostile.write(files.results)


def safe_evidence(before: Cell, after: Cell) -> bool:
    """What SAFE needs: both cells sound, every case answered on both sides, and no case that passes on the
    baseline passing on the candidate only after a failing attempt (a regression some of the time)."""
    steady = all(len(set(after.attempts[case])) == 1 or not vocabulary.is_passing(before.finals()[case])
                 for case in CASES)
    return before.sound and after.sound and before.answered and after.answered and steady


def quietly(work: object) -> tuple[object, str]:
    """Call `work()` with warnings off and stdout/stderr caught: (its result, what it printed)."""
    printed = io.StringIO()
    with warnings.catch_warnings(), contextlib.redirect_stdout(printed), contextlib.redirect_stderr(printed):
        warnings.simplefilter("ignore")
        return work(), printed.getvalue()  # type: ignore[operator]


def compat_verdict(out: Path, run: str) -> str | None:
    """The compatibility verdict of CELL in `run`; None when the report refuses the tree (one line, not a verdict)."""
    try:
        loaded = load(out / "results", [run])
    except ResultsError:
        return None
    table = compat.verdicts(build_matrix(loaded.records, loaded.cells))
    return str(table["verdict"].iloc[0])


@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(before=cells, after=cells, runs_swapped=st.booleans(), decoy=st.booleans())
def test_no_verdict_is_better_than_its_evidence(before: Cell, after: Cell, runs_swapped: bool, decoy: bool) -> None:
    earlier, later = "20261101T000000Z-aaaa", "20261102T000000Z-bbbb"
    previous_run, current_run = (later, earlier) if runs_swapped else (earlier, later)
    with TemporaryDirectory() as folder:
        root = Path(folder)
        both, previous_out, current_out = root / "both", root / "previous", root / "current"
        for out, run, cell in ((both, previous_run, before), (both, current_run, after),
                               (previous_out, previous_run, before), (current_out, current_run, after)):
            write_cell(out, run, cell)
        if decoy:
            # A folder that is not a run, holding a clean pass: it must never stand in for a run.
            write_cell(current_out, "kept-good-baseline", Cell({case: ("passed",) for case in CASES}, frozenset()))

        verdict, _ = quietly(lambda: compat_verdict(current_out, current_run))
        if verdict in GOOD_TIERS:
            assert after.sound and after.works, (verdict, after)

        fully_run = completeness.problems([cellrecord.CellFiles(current_out, current_run, CELL)]) == []
        if fully_run:
            assert after.sound and not any(vocabulary.is_inconclusive(status) for status in after.finals().values())

        code, said = quietly(lambda: compare_main(both, previous_run, current_run))
        assert code in (formats.SAFE_EXIT, formats.UNSAFE_EXIT, formats.INCONCLUSIVE_EXIT, formats.USAGE_EXIT), said
        assert "Traceback" not in said
        if code == formats.SAFE_EXIT:
            assert safe_evidence(before, after), said

        code, said = quietly(lambda: regressions.main(["--previous", str(previous_out), "--current",
                                                       str(current_out)]))
        assert code in (formats.SAFE_EXIT, formats.UNSAFE_EXIT, formats.INCONCLUSIVE_EXIT, formats.USAGE_EXIT), said
        assert "Traceback" not in said
        if code == formats.SAFE_EXIT:
            assert not runs_swapped, said
            assert safe_evidence(before, after), said


def test_a_sound_tree_of_passes_is_good_everywhere(tmp_path: Path) -> None:
    """The pair of the property: evidence that holds earns the good answers, so the property is not met by never
    answering good."""
    clean = Cell({case: ("passed",) for case in CASES}, frozenset())
    earlier, later = "20261101T000000Z-aaaa", "20261102T000000Z-bbbb"
    for out, run in ((tmp_path / "both", earlier), (tmp_path / "both", later), (tmp_path / "previous", earlier),
                     (tmp_path / "current", later)):
        write_cell(out, run, clean)
    assert quietly(lambda: compat_verdict(tmp_path / "current", later))[0] == compat.WORKS
    assert completeness.problems([cellrecord.CellFiles(tmp_path / "current", later, CELL)]) == []
    assert quietly(lambda: compare_main(tmp_path / "both", earlier, later))[0] == formats.SAFE_EXIT
    assert quietly(lambda: regressions.main(["--previous", str(tmp_path / "previous"), "--current",
                                             str(tmp_path / "current")]))[0] == formats.SAFE_EXIT
    # And one defect is enough to lose every good answer.
    json_line = (tmp_path / "current" / "results" / later / f"{CELL}.jsonl")
    json_line.write_text(json.dumps(record(run_id=later, case_id=CASES[0], attempt=2)) + "\n", encoding="utf-8")
    assert quietly(lambda: compat_verdict(tmp_path / "current", later))[0] not in GOOD_TIERS



# --- the two sides of a compare, across device counts and runs -------------------------------------------------------

def write_side(out: Path, run: str, fields: dict[str, Any], devices: int, steady: tuple[str, ...]) -> None:
    """One night of CELL: the steady cases passing and case fam::x as `fields` say, on `devices` devices."""
    files = cellrecord.CellFiles(out, run, CELL)
    lines = [record(run_id=run, case_id=case, device_count=devices) for case in steady]
    lines.append(record(run_id=run, case_id="fam::x", **{"device_count": devices, **fields}))
    files.results.parent.mkdir(parents=True, exist_ok=True)
    files.results.write_text("".join(formats.dump_jsonl_line(line) for line in lines), encoding="utf-8")
    celldocuments.write_collection(files.results, CELL, [*steady, "fam::x"])
    files.freeze.write_text(FREEZE, encoding="utf-8")
    cellrecord.write_done(files.done, cell_id=CELL, finished="2026-11-26T00:00:00+00:00", returncode=0,
                       fingerprint=None, reused_from=None, seconds=1.0)


@settings(max_examples=max(1, EXAMPLES // 10), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(sides=st.one_of(one_sided_sides(), strict_xpass_sides()))
def test_no_compare_across_devices_or_runs_is_better_than_the_cases_it_judged(sides: Sides) -> None:
    """A case judged by neither side (short of devices or of an API on one, failing on the other) never makes a
    plain SAFE, is named by the compare, and never lets the nightly say every case was judged; a strict xfail that
    passes on the candidate is a regression in the compare and the nightly."""
    earlier, later = "20261101T000000Z-aaaa", "20261102T000000Z-bbbb"
    with TemporaryDirectory() as folder:
        root = Path(folder)
        for out, run, fields, devices in ((root / "both", earlier, sides.before, sides.devices[0]),
                                          (root / "both", later, sides.after, sides.devices[1]),
                                          (root / "previous", earlier, sides.before, sides.devices[0]),
                                          (root / "current", later, sides.after, sides.devices[1])):
            write_side(out, run, fields, devices, sides.steady)
        code, said = quietly(lambda: compare_main(root / "both", earlier, later))
        nightly, body = quietly(lambda: regressions.main(["--previous", str(root / "previous"), "--current",
                                                          str(root / "current")]))
        for answer, text in ((code, said), (nightly, body)):
            assert answer in (formats.SAFE_EXIT, formats.UNSAFE_EXIT, formats.INCONCLUSIVE_EXIT), text
            assert "Traceback" not in str(text)
            if sides.regression:
                assert answer == formats.UNSAFE_EXIT, text
        if sides.left_out:  # the compare names it; the nightly counts it out of what it judged
            assert "fam::x" in str(said), said
            assert code != formats.SAFE_EXIT or "tests judged" in str(said).splitlines()[0], said
            assert "every case was judged" not in str(body), body
            assert nightly != formats.SAFE_EXIT or "tests judged" in str(body), body

# --- the watcher's state ---------------------------------------------------------------------------------------------

def fake_index(*listed: str) -> index.Fetch:
    """PyPI's JSON API listing the lock's releases and `listed` for jax, jaxlib and flax."""
    def fetch(url: str, accept: str = "application/json") -> object:
        return {"releases": {v: [{"yanked": False, "filename": f"x-{v}.tar.gz"}]
                             for v in ("0.8.3", "0.12.6", *listed)}}
    return fetch


def snapshot(folder: Path) -> dict[str, bytes]:
    """Every file under `folder` and its bytes."""
    return {str(path.relative_to(folder)): path.read_bytes() for path in sorted(folder.rglob("*")) if path.is_file()}


def watch_answer(state: Path, summary: Path, listed: tuple[str, ...]) -> tuple[int, str]:
    """`shardmatrix watch` over `state`, from hostile_states.LOCK, with `listed` on the index: (exit code, what it
    said). Nothing is built: an upgrade a release needs is refused (an INCONCLUSIVE judgment, as for a release that
    cannot be installed), so only what the state remembers can make an answer good."""
    lock = hostile_states.LOCK
    base = pins.make_cell(lock["jax"], lock["flax"], "3.11")
    said: list[str] = []

    def refused(*_: object, **__: object) -> object:
        raise pins.PinError("not built in the property test")

    with mock.patch.object(watch, "baseline_of", lambda *_: ("/project", {**lock}, base)), \
            mock.patch.object(upgrade, "prepare", refused):
        try:
            code = watch.run(["--state", str(state), "--json", str(summary)], [], judge=refused,
                             fetch=fake_index(*listed), say=said.append)
        except formats.ShardmatrixError as error:
            said.append(str(error))
            code = formats.USAGE_EXIT
    return code, "\n".join(said)


@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(state=hostile_states.states, listed=st.sets(st.sampled_from(hostile_states.RELEASES)).map(sorted),
       summary_is_a_folder=st.sampled_from((False, False, False, True)))
def test_no_watch_answer_is_better_than_the_state_it_remembers(state: hostile_states.State, listed: list[str],
                                                               summary_is_a_folder: bool) -> None:
    """A state that is not one, or a --json that names a folder: exit 64 in one line, the state as it was. Else a
    release remembered UNSAFE from this lock keeps the answer UNSAFE (listed or not), SAFE stands only on SAFE
    judgments whose fields carry their evidence, nothing judged is lost, and every verdict has its coverage."""
    with TemporaryDirectory() as folder:
        root = Path(folder)
        path = root / "blocker" / "state.json"
        hostile_states.write_state(path, state)
        summary = root / "summary.json"
        if summary_is_a_folder:
            summary.mkdir()
        before = snapshot(root)
        code, said = watch_answer(path, summary, tuple(listed))
        assert code in (formats.SAFE_EXIT, formats.UNSAFE_EXIT, formats.INCONCLUSIVE_EXIT, formats.USAGE_EXIT), said
        if not state.readable or summary_is_a_folder:
            assert code == formats.USAGE_EXIT and "\n" not in said.strip().splitlines()[-1], said
            assert snapshot(root) == before, "a refused run changed what was kept"
            return
        assert code != formats.USAGE_EXIT, said
        standing = [entry for entry in state.remembered if entry.this_lock]
        if any(entry.verdict == watch_files.UNSAFE for entry in standing):
            assert code == formats.UNSAFE_EXIT, said
        if code == formats.SAFE_EXIT:
            assert all(entry.verdict == watch_files.SAFE and entry.sound for entry in standing), said
        kept = {judged.key for judged in watch_files.read_state(path)}
        assert {entry.judgment().key for entry in state.remembered} <= kept, "a judgment was lost"
        data = watch_files.read_summary(summary)
        for judged in (*data["judged"], *data["remembered"]):
            line = f"{judged['package']} {judged['version']}: {judged['verdict']}: {judged['coverage']}"
            assert judged["coverage"] and line in said, (line, said)


# --- the command line's pins -----------------------------------------------------------------------------------------

CELLS = matrix.load(Path(__file__).resolve().parent.parent / "matrix.toml")


@settings(max_examples=EXAMPLES, deadline=None)
@given(baseline=hostile_states.pin_lists, candidate=hostile_states.pin_lists)
def test_no_cell_is_made_from_pins_another_pin_contradicts(baseline: list[str], candidate: list[str]) -> None:
    """Pins on either side that name a package twice, or a jaxlib apart from its jax, make no cell (one line); the
    cells made are what each side named."""
    argv = [*candidate, *(arg for spec in baseline for arg in ("--baseline", spec))]
    try:
        made = upgrade.cells_for(argv, CELLS)
    except formats.ShardmatrixError as error:
        assert "\n" not in str(error)
        return
    for side, specs in zip(made[:2], (baseline, candidate), strict=True):
        names = hostile_states.named(specs)
        assert len(names) == len(set(names)), (specs, side.id)
        for spec in (part for text in specs for part in text.split(",")):
            package, _, version = spec.partition("==")
            assert getattr(side, package.lower()) == version, (spec, side)
        assert side.jaxlib == side.jax


# --- the stored range check ------------------------------------------------------------------------------------------

def docs_hooks() -> ModuleType:
    """docs/hooks.py, the module mkdocs runs (loaded once, as tests/test_docs.py loads it)."""
    name = "shardmatrix_docs_hooks"
    if name not in sys.modules:
        path = Path(__file__).resolve().parent.parent / "docs" / "hooks.py"
        spec = importlib.util.spec_from_file_location(name, path)
        assert spec and spec.loader
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
    return sys.modules[name]


@settings(max_examples=max(1, EXAMPLES // 15), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(check=hostile_states.range_checks)
def test_no_page_states_a_range_check_better_than_its_rows(check: hostile_states.RangeCheck) -> None:
    """The docs drawn from a stored range check (its table and the census) are built only from a whole check whose
    counts agree with its rows and which holds no wrong edge; anything else stops the build in one line."""
    hooks = docs_hooks()
    with TemporaryDirectory() as folder:
        root = Path(folder)
        (root / "runs.toml").write_text('[ranges]\nfile = "ranges.json"\ndate = "2026-11-27"\ncommit = "abc1234"\n'
                                        'machine = "a test"\ncommand = "nox -s ranges"\n', encoding="utf-8")
        hostile_states.write_range_check(root / "ranges.json", check)
        with mock.patch.object(hooks, "DATA", root), mock.patch.object(hooks, "RUNS", root / "runs.toml"):
            for page in (hooks.ranges, hooks.census):
                try:
                    text = page()
                except (hooks.DocsError, formats.ShardmatrixError) as refused:
                    assert "\n" not in str(refused)
                    continue
                assert check.sound and hostile_states.WRONG not in check.statuses, (check, text)
                if page is hooks.ranges:
                    counted = ", ".join(f"{check.statuses.count(status)} {status}"
                                        for status in hostile_states.STATUSES)
                    assert f"{len(check.statuses)} declared edges: {counted}" in text, text


#: A case of the stored range check hostile_states writes, each with its one declaration and the digest it is stamped
#: with there, as the corpus would declare and digest it now.
HOSTILE_CASES = [f"sharded_gathers::test_{number}" for number in range(10)]


@settings(max_examples=max(1, EXAMPLES // 15), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(check=hostile_states.range_checks)
def test_no_take_adopts_a_case_its_check_did_not_settle(check: hostile_states.RangeCheck) -> None:
    """`ranges --take`: a check folder that is not a whole check of schema 2 is refused in one line; from a whole one,
    exactly the cases whose every declared edge it confirmed or found bounded are taken, and the stored counts are
    those of the rows the document then holds."""
    with TemporaryDirectory() as folder:
        root = Path(folder)
        hostile_states.write_range_check(root / "check" / "report" / "ranges.json", check)
        run = root / "check" / "results" / "20261128T124000Z-ab12"
        run.mkdir(parents=True)
        (run / "jax0.9.0-flax0.12.0-py3.11.jsonl").write_text("", encoding="utf-8")
        rows = [hostile_states.edge(number, "unchecked") for number in range(len(HOSTILE_CASES))]
        stored = {"probes": 0, "budget": 0, "wrong": 0, "unchecked": len(rows), "edges": rows,
                  "needs_without_change": [], "options": {}, "commit": None, "cases": {}}
        declared = {(case, "jax", ">=0.9.0", "changed since jax>=0.9.0") for case in HOSTILE_CASES}
        try:
            adopted = range_take.adopt(stored, range_take.read_check(root / "check"), declared,
                                       {case: "ab12" for case in HOSTILE_CASES})
        except formats.ShardmatrixError as refused:
            assert "\n" not in str(refused)
            return
        # Counts that disagree with the rows are no harm here: a take recounts them.
        assert check.defect in (None, "counts_disagree"), check
        assert set(adopted.taken) == {HOSTILE_CASES[number] for number, status in enumerate(check.statuses)
                                      if status in range_take.SETTLED}
        held = adopted.document["edges"]
        assert all(row["status"] in range_take.SETTLED for row in held if row["case"] in adopted.taken)
        for status in ("wrong", "unchecked"):
            assert adopted.document[status] == sum(row["status"] == status for row in held)


# --- the ecosystem fan-in's parts ------------------------------------------------------------------------------------

@settings(max_examples=max(1, EXAMPLES // 2), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(given_parts=st.lists(hostile_ecosystem.parts, min_size=1, max_size=3))
def test_no_ecosystem_merge_is_better_than_its_parts(given_parts: list[hostile_ecosystem.Part]) -> None:
    """`ecosystem --merge`: a part that is not one (cut, another file's, another run's, a project the list does not
    hold, or one twice) is exit 64 in one line, as are parts none of which holds a summary (a part without one is left
    out, its projects unjudged); a listed project no part judged keeps the answer from SAFE;
    an UNSAFE project makes it UNSAFE; a verdict no reader knows is never SAFE."""
    from reports.ecosystem_report import write
    from shardmatrix import ecosystem

    safe, unsafe, refused = hostile_ecosystem.merged_evidence(given_parts)
    with TemporaryDirectory() as folder:
        root = Path(folder)
        listed = root / "ecosystem.toml"
        listed.write_text(hostile_ecosystem.LIST)
        folders = [root / f"part{number}" for number in range(len(given_parts))]
        for part_folder, part in zip(folders, given_parts, strict=True):
            hostile_ecosystem.write_part(part_folder, part)
        said: list[str] = []
        argv = ["--merge", *map(str, folders), "--list", str(listed), "--out", str(root / "all")]
        try:
            code = ecosystem.run(argv, [], judge=None, draw=write, say=said.append)
        except formats.ShardmatrixError as error:
            code, said = formats.USAGE_EXIT, [str(error)]
    if refused:
        assert code == formats.USAGE_EXIT and len(said) == 1 and "\n" not in said[0], said
        return
    assert code != formats.USAGE_EXIT, said
    if unsafe:
        assert code == formats.UNSAFE_EXIT, said
    if code == formats.SAFE_EXIT:
        assert safe, said
