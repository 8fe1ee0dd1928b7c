"""`nox -s upgrade` arguments: baseline and candidate cells, and the shared options passed through."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from record_factory import record

from harness import formats
from harness.host import adhoc, cellrun, corpus, matrix, options
from harness.host.matrix import Cell
from harness.host.runner import Job
from harness.tools import pins, upgrade
from shardmatrix import command as shardmatrix_command

CELLS = matrix.load(Path(__file__).resolve().parent.parent / "matrix.toml")


def test_candidate_changes_only_what_is_given_and_options_pass_through(tmp_path: Path) -> None:
    baseline, candidate, opts = upgrade.cells_for(
        ["flax==0.12.8", "--out", str(tmp_path), "--cases", "builtin", "--cases", str(tmp_path), "--force"], CELLS
    )
    assert baseline.id == "jax0.12.0.1-flax0.12.12-py3.12"  # the matrix's newest cell
    assert (candidate.jax, candidate.flax, candidate.python) == ("0.12.0.1", "0.12.8", "3.12")
    assert opts.out == tmp_path and opts.cases == ["builtin", str(tmp_path)] and opts.force


def test_explicit_baseline_and_a_jax_bump_that_needs_a_newer_python() -> None:
    baseline, candidate, _ = upgrade.cells_for(["jax==0.12.0.1", "--baseline", "jax==0.10.2,flax==0.12.8"], CELLS)
    assert (baseline.jax, baseline.flax, baseline.python) == ("0.10.2", "0.12.8", "3.11")
    assert (candidate.jax, candidate.jaxlib, candidate.python) == ("0.12.0.1", "0.12.0.1", "3.12")


def test_a_candidate_equal_to_its_baseline_is_refused() -> None:
    with pytest.raises(pins.PinError, match="the candidate is the baseline"):
        upgrade.cells_for(["jax==0.12.0.1"], CELLS)


@pytest.mark.parametrize("argv", [["jax==0.9.2,jax==0.9.1"], ["jax==0.9.2", "jax==0.9.1"],
                                  ["jax==0.9.2", "--baseline", "jax==0.8.3", "--baseline", "jax==0.8.2"],
                                  ["jax==0.9.2", "--baseline", "jax==0.8.3,flax==0.12.6,jax==0.8.2"]])
def test_contradictory_pins_are_refused_in_one_line_before_anything_is_built(
        argv: list[str], monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr(upgrade.cellrun, "probe", lambda *a, **k: pytest.fail("a cell was built"))
    monkeypatch.setattr(upgrade.unreleased, "resolve", lambda *a, **k: pytest.fail("a source was built"))
    assert shardmatrix_command.main(["upgrade", *argv]) == formats.USAGE_EXIT
    said = capsys.readouterr().err
    assert said.startswith("shardmatrix: jax is pinned twice (") and said.count("\n") == 1


def test_a_file_in_the_way_of_out_is_refused_before_anything_is_built(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr(upgrade.cellrun, "probe", lambda *a, **k: pytest.fail("a cell was built"))
    (tmp_path / "afile").write_text("x")
    argv = ["upgrade", "jax==0.9.2", "--out", str(tmp_path / "afile" / "out")]
    assert shardmatrix_command.main(argv) == formats.USAGE_EXIT
    said = capsys.readouterr().err
    assert said.startswith(f"shardmatrix: --out {tmp_path / 'afile' / 'out'}: cannot be made: ")
    assert said.count("\n") == 1


def test_an_out_folder_that_can_be_made_is_made_before_the_cells_run(tmp_path: Path,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    made: list[bool] = []

    def probe(*args: object, **kwargs: object) -> None:
        made.append((tmp_path / "new" / "out").is_dir())
        raise SystemExit(0)  # the cells themselves are not this test's business

    monkeypatch.setattr(upgrade.cellrun, "probe", probe)
    with pytest.raises(SystemExit):
        upgrade.prepare(["jax==0.9.2", "--out", str(tmp_path / "new" / "out")], CELLS, say=lambda line: None)
    assert made == [True]


def test_an_unknown_option_is_refused_not_dropped() -> None:
    # Before, unknown arguments that were not pins went to options.parse, which passed them on to the report.
    with pytest.raises(options.OptionsError, match=r"^nox -s upgrade: unknown option --timout \(did you mean "
                                                   r"--timeout\?\)$"):
        upgrade.cells_for(["flax==0.12.8", "--timout", "5"], CELLS)
    with pytest.raises(options.OptionsError, match=r"unknown option --base \(did you mean --baseline\?\)"):
        upgrade.cells_for(["flax==0.12.8", "--base", "jax==0.10.2"], CELLS)


def test_options_and_pins_may_come_in_any_order() -> None:
    _, candidate, opts = upgrade.cells_for(["--timeout", "7", "flax==0.12.8", "-v"], CELLS)
    assert candidate.flax == "0.12.8" and opts.timeout == 7 and opts.verbose


def test_a_stray_word_is_refused_as_a_pin() -> None:
    with pytest.raises(pins.PinError, match=r"'flax0\.12\.8': only jax, jaxlib, flax can be pinned"):
        upgrade.cells_for(["flax0.12.8"], CELLS)


def test_two_case_files_of_one_name_are_named_by_their_folders_and_their_stem_names_neither(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two test_same.py are a/test_same and b/test_same in case ids: a --deselect of the stem's id would leave out
    nothing, so it is refused before any cell is built, and the folder's id is taken."""
    for folder in ("a", "b"):
        (tmp_path / folder).mkdir()
        (tmp_path / folder / "test_same.py").write_text("def test_x(): ...\n")
    monkeypatch.setattr(cellrun, "probe", lambda *args, **kwargs: pytest.fail("a cell was run"))
    cases = ["--cases", str(tmp_path / "a"), "--cases", str(tmp_path / "b")]
    with pytest.raises(options.OptionsError, match=r"--deselect test_same::test_x: no such case in the corpus"):
        upgrade.prepare(["flax==0.12.8", *cases, "--deselect", "test_same::test_x"], CELLS, say=lambda line: None)
    upgrade.refuse_unknown_deselected(["b/test_same::test_x"], corpus.case_paths(cases[1::2]))


def test_an_interrupted_candidate_makes_the_upgrade_inconclusive(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # The candidate's cell stops part way: what it recorded passed, but it has no done marker, so the comparison
    # must not answer SAFE (before, adhoc dropped the return code and nothing marked the cell unfinished).
    from reports.cli import verdict
    from reports.verdicts.documented_upgrade import read_declarations

    def run(cell: Cell, venv: Path, job: Job) -> int:
        made = record(cell.jax, cell.flax, cell.python, run_id=job.files.run_id, cell_id=cell.id, jaxlib=cell.jaxlib)
        job.files.results.parent.mkdir(parents=True, exist_ok=True)
        job.files.results.write_text(json.dumps(made) + "\n")
        return 2 if cell.flax == "0.12.8" else 0

    monkeypatch.setattr(adhoc, "ensure_venv", lambda cell: (tmp_path / "venv", None))
    monkeypatch.setattr(cellrun, "install", lambda *a, **k: None)
    monkeypatch.setattr(cellrun, "freeze", lambda venv, dest, cell=None: "")
    monkeypatch.setattr(cellrun, "interpreter_version", lambda venv: "3.12")
    monkeypatch.setattr(cellrun, "run_pytest", run)
    argv = ["flax==0.12.8", "--out", str(tmp_path), "--run-id", "20261121T084500Z-up00"]
    before, after, opts, changes = upgrade.prepare(argv, CELLS, say=lambda line: None)
    assert before.complete and after.interrupted
    # The shipped corpus's documented changes are handed over, whichever cases ran, and written for later processes.
    assert "sharded_gathers_user::test_embedding_lookup_under_jit_on_make_mesh" in dict(changes.rows)
    assert read_declarations(changes.file) == list(changes.rows)
    assert verdict(opts.out, before.ref, after.ref, declared=changes.rows) == formats.INCONCLUSIVE_EXIT
    printed = capsys.readouterr().out
    assert printed.startswith("INCONCLUSIVE: ")
    # flax 0.12.12 -> 0.12.8 starts no declared change; the list follows the verdict all the same.
    assert ("Documented changes between baseline jax0.12.0.1-flax0.12.12-py3.12 and candidate "
            "jax0.12.0.1-flax0.12.8-py3.12: none declared.") in printed


def test_declare_reads_the_shipped_corpus_and_the_cases_asked_for_from_source(tmp_path: Path) -> None:
    (tmp_path / "test_mine.py").write_text(
        "from harness.case import Change, case\n\n@case('mine', changed=Change('jax>=0.9.0', 'x', raises='E', "
        "fix='f', kind='default'))\ndef test_x():\n    pass\n")
    found = upgrade.declare(["builtin", str(tmp_path)])
    assert found["test_mine::test_x"].since == "jax>=0.9.0"
    assert found["sharded_gathers_user::test_embedding_lookup_under_jit_on_make_mesh"].kind == "default"
    # Without builtin asked for, the shipped corpus's changes are still listed: the user's code may hit them.
    assert upgrade.declare([str(tmp_path)]).keys() == found.keys()


FIXTURE = Path(__file__).resolve().parent / "downstream"


def test_with_a_project_the_baseline_is_its_lock_and_its_tests_are_the_cases() -> None:
    baseline, candidate, opts = upgrade.cells_for(["jax==0.9.2", "--project", str(FIXTURE)], CELLS)
    assert (baseline.id, candidate.id) == ("jax0.8.3-flax0.12.6-py3.11", "jax0.9.2-flax0.12.6-py3.11")
    assert baseline.project == candidate.project == str(FIXTURE)
    assert opts.cases == [str(FIXTURE / "tests")]
    given, _, _ = upgrade.cells_for(["jax==0.9.2", "--project", str(FIXTURE), "--baseline", "jax==0.8.1"], CELLS)
    assert (given.jax, given.flax) == ("0.8.1", "0.12.6")  # --baseline wins; the project's flax fills the rest


def test_a_requirement_conflicting_with_the_project_is_refused_before_anything_is_built() -> None:
    with pytest.raises(pins.PinError, match=r"^jax0.8.3-flax0.12.6-py3.11 cannot be installed: Because you require "
                                            r"optax==0.2.3 and optax>=0.2.4.*\(tinytrainer requires optax>=0.2.4\)$"):
        upgrade.cells_for(["jax==0.9.2", "--project", str(FIXTURE), "--with", "optax==0.2.3"], CELLS)


# --- leaving out tests that can never run in a cell: -m, -k, --deselect -------------------------------------------

def test_marks_keywords_and_case_ids_left_out_reach_every_cells_pytest_and_its_fingerprint(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from harness.host.runner import pytest_command

    seen: list[list[str]] = []
    keys: list[list[str]] = []

    def run(cell: Cell, venv: Path, job: Job) -> int:
        seen.append(pytest_command(venv, job))
        made = record(cell.jax, cell.flax, cell.python, run_id=job.files.run_id, cell_id=cell.id, jaxlib=cell.jaxlib)
        job.files.results.parent.mkdir(parents=True, exist_ok=True)
        job.files.results.write_text(json.dumps(made) + "\n")
        return 0

    monkeypatch.setattr(adhoc, "ensure_venv", lambda cell: (tmp_path / "venv", None))
    monkeypatch.setattr(cellrun, "install", lambda *a, **k: None)
    monkeypatch.setattr(cellrun, "freeze", lambda venv, dest, cell=None: "")
    monkeypatch.setattr(cellrun, "interpreter_version", lambda venv: "3.12")
    monkeypatch.setattr(cellrun, "run_pytest", run)
    fingerprint = cellrun.cache.fingerprint
    monkeypatch.setattr(cellrun.cache, "fingerprint",
                        lambda *args: keys.append(list(args[4])) or fingerprint(*args))  # type: ignore[func-returns-value]
    said: list[str] = []
    case_id = "sharded_gathers_user::test_embedding_lookup_under_jit_on_make_mesh"
    upgrade.prepare(["flax==0.12.8", "--out", str(tmp_path), "--run-id", "20261126T000000Z-r", "-m", "not gpu",
                     "-k", "not download", "--deselect", case_id], CELLS, say=said.append)
    assert len(seen) == 2
    for command in seen:
        tail = command[command.index("--tb=native") + 1:]
        assert tail[:6] == ["-m", "not gpu", "-k", "not download", "--shardmatrix-deselect", case_id]
    assert all(any(entry.startswith("left out: ") for entry in key) for key in keys)
    assert (f"left out on purpose in both cells (never collected, never judged): -m 'not gpu', -k 'not download', "
            f"--deselect {case_id}") in said
    # The progress line counts what was recorded, not the cases read from source (-m and -k cannot be read there).
    assert any(line.startswith("jax0.12.0.1-flax0.12.8-py3.12: 1 cases, ") for line in said), said


def test_nothing_left_out_adds_no_argument_and_keeps_the_fingerprint_it_had() -> None:
    assert options.LeftOut().pytest_args() == [] and options.LeftOut().describe() == ""
    from harness.host import cache

    assert cache.left_out([]) == []
    assert cache.left_out(["-m", "not gpu"]) == ['left out: ["-m", "not gpu"]']


def test_a_deselected_id_no_case_file_holds_is_refused_before_any_cell_is_built(
    monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(cellrun, "probe", lambda *args, **kwargs: pytest.fail("a cell was run"))
    with pytest.raises(options.OptionsError, match=r"^--deselect sharded_gathers_user::test_embeding_lookup: no such "
                                                   r"case in the corpus"):
        upgrade.prepare(["flax==0.12.8", "--deselect", "sharded_gathers_user::test_embeding_lookup"], CELLS,
                        say=lambda line: None)


@pytest.mark.parametrize(("argv", "fault"), [
    (["-m", " "], "-m needs an expression"),
    (["-k", ""], "-k needs an expression"),
    (["--deselect", "cases/sharded_gathers.py"], "--deselect 'cases/sharded_gathers.py': expected a case id"),
])
def test_an_empty_expression_or_a_path_for_a_case_id_is_one_line(argv: list[str], fault: str) -> None:
    with pytest.raises(options.OptionsError, match=re.escape(fault)):
        upgrade.cells_for(["flax==0.12.8", *argv], CELLS)


def ranged_project(folder: Path, flax: str = "flax>=0.12.4") -> Path:
    """A project that declares only ranges, and no lock."""
    (folder / "tests").mkdir(parents=True)
    (folder / "tests" / "test_it.py").write_text("def test_it() -> None:\n    pass\n")
    (folder / "pyproject.toml").write_text(f'[project]\nname = "ranged"\nversion = "0"\n'
                                           f'dependencies = ["jax>=0.8", "{flax}"]\n')
    return folder


def test_a_project_of_ranges_runs_on_the_baseline_named(tmp_path: Path) -> None:
    project = ranged_project(tmp_path / "ranged")
    baseline, candidate, _ = upgrade.cells_for(
        ["jax==0.9.2", "--project", str(project), "--baseline", "jax==0.8.3,flax==0.12.6"], CELLS)
    assert (baseline.jax, baseline.flax, candidate.jax, candidate.flax) == ("0.8.3", "0.12.6", "0.9.2", "0.12.6")


def test_a_cell_below_a_projects_floor_is_refused_naming_both(tmp_path: Path) -> None:
    project = ranged_project(tmp_path / "ranged")
    with pytest.raises(pins.PinError, match=r"^jax0.8.3-flax0.12.3-py3.11 cannot be installed: .*flax==0.12.3.*"
                                            r"\(ranged requires flax>=0.12.4\)$"):
        upgrade.cells_for(["jax==0.9.2", "--project", str(project), "--baseline", "jax==0.8.3,flax==0.12.3"], CELLS)


def test_a_project_of_ranges_without_a_baseline_is_refused_in_one_line(tmp_path: Path) -> None:
    project = ranged_project(tmp_path / "ranged")
    with pytest.raises(pins.PinError, match=r"'jax>=0.8' is a range; name the baseline"):
        upgrade.cells_for(["jax==0.9.2", "--project", str(project)], CELLS)


def test_exclude_newer_resolves_both_cells_as_the_index_stood_that_day() -> None:
    baseline, candidate, _ = upgrade.cells_for(["jax==0.12.0.1", "--baseline", "jax==0.11.2,flax==0.12.12",
                                                "--exclude-newer", "2026-11-01"], CELLS)
    assert baseline.exclude_newer == candidate.exclude_newer == "2026-11-01"
    plain, _, _ = upgrade.cells_for(["jax==0.12.0.1", "--baseline", "jax==0.11.2,flax==0.12.12"], CELLS)
    assert plain.exclude_newer is None


def test_exclude_newer_that_is_not_a_day_is_refused_in_one_line() -> None:
    with pytest.raises(options.OptionsError, match=r"argument --exclude-newer: '2026-11' is not a YYYY-MM-DD day"):
        upgrade.cells_for(["jax==0.12.0.1", "--exclude-newer", "2026-11"], CELLS)
