"""shardmatrix.command: the `shardmatrix` command, its subcommands the nox sessions' own."""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest
from record_factory import collected
from test_reports_cli import CELL, RUN, record, write_run

from harness.cellrecord import CellFiles, write_done
from harness.formats import USAGE_EXIT
from harness.host import homes, matrix, options
from shardmatrix import command

SESSIONS = ("matrix", "upgrade", "bisect", "frontier", "ranges", "installed", "report", "watch", "ecosystem")


def test_the_subcommands_mirror_the_sessions() -> None:
    assert tuple(command.SUBCOMMANDS) == SESSIONS
    assert all(sub.title for sub in command.SUBCOMMANDS.values())


def test_an_unknown_subcommand_is_one_line_naming_the_ones_there_are(capsys: pytest.CaptureFixture[str]) -> None:
    assert command.main(["wacth"]) == USAGE_EXIT
    assert capsys.readouterr().err == ("shardmatrix: unknown command 'wacth' (commands: matrix, upgrade, bisect, "
                                       "frontier, ranges, installed, report, watch, ecosystem)\n")


def test_help_lists_every_subcommand(capsys: pytest.CaptureFixture[str]) -> None:
    assert command.main(["--help"]) == 0
    out = capsys.readouterr().out
    assert all(f"  {name}" in out for name in SESSIONS)


def test_a_bad_option_is_refused_before_anything_runs(capsys: pytest.CaptureFixture[str]) -> None:
    assert command.main(["upgrade", "jax==0.9.0", "--basline", "jax==0.8.0"]) == USAGE_EXIT
    assert capsys.readouterr().err == ("shardmatrix: shardmatrix upgrade: unknown option --basline (did you mean "
                                       "--baseline?)\n")


def test_the_prog_names_the_nox_session_that_runs_the_subcommand(monkeypatch: pytest.MonkeyPatch,
                                                                 capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv(command.PROG_ENV, "nox -s report --")
    assert command.main(["report", "--cells", "x"]) == USAGE_EXIT
    assert "nox -s report: unknown option --cells" in capsys.readouterr().err


def test_report_builds_the_report_of_a_stored_run(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write_run(tmp_path, json.dumps(record()), json.dumps(record(case_id="fam::b", status="failed")))
    assert command.main(["report", "--out", str(tmp_path), "--run", RUN]) == 0
    assert CELL in capsys.readouterr().out and (tmp_path / "report" / "matrix.html").exists()


def test_report_on_no_results_is_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert command.main(["report", "--out", str(tmp_path)]) == USAGE_EXIT
    assert capsys.readouterr().err.count("\n") == 1


def test_a_new_subcommand_is_one_function(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(command, "SUBCOMMANDS", dict(command.SUBCOMMANDS))

    @command.subcommand("greet", lambda prog: command.options.Parser(prog=prog))
    def greet(argv: list[str], prog: str) -> int:
        """Judge each new release once."""
        return 7

    assert command.main(["greet"]) == 7 and command.SUBCOMMANDS["greet"].title == "Judge each new release once."


def write_project(folder: Path, name: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "pyproject.toml").write_text(f'[project]\nname = "{name}"\nversion = "0"\ndependencies = ["jax>=0.8"]\n')
    return folder


def test_inside_a_project_it_is_the_project(tmp_path: Path) -> None:
    here = write_project(tmp_path / "trainer", "trainer")
    assert command.project_here(["jax==0.9.0"], here) == ["--project", str(here), "jax==0.9.0"]


@pytest.mark.parametrize("argv", [["--project", "elsewhere"], ["--project=elsewhere"], ["--cases", "builtin"],
                                  ["--help"]])
def test_a_project_or_cases_given_is_kept(tmp_path: Path, argv: list[str]) -> None:
    assert command.project_here(argv, write_project(tmp_path / "trainer", "trainer")) == argv


def test_cases_of_the_projects_own_folders_still_ask_about_the_project(tmp_path: Path) -> None:
    # Shaped like optax: no tests/ and no testpaths, its tests beside its code; from inside it, `--cases optax/_src`
    # ran without the project (its test extra not installed: alias_test could not import sklearn) and wrote out/
    # into its tree.
    here = write_project(tmp_path / "optimizers", "optimizers")
    argv = ["jax==0.10.0", "--cases", "optimizers/_src", "-k", "sharding_test"]
    assert command.project_here(argv, here) == ["--project", str(here), *argv]
    assert command.project_here(["--cases=optimizers"], here) == ["--project", str(here), "--cases=optimizers"]
    outside = ["--cases", "optimizers", "--cases", str(tmp_path / "elsewhere")]
    assert command.project_here(outside, here) == outside


def test_shardmatrix_itself_and_a_folder_without_a_project_are_no_project(tmp_path: Path) -> None:
    assert command.project_here(["jax==0.9.0"], write_project(tmp_path / "sm", "shardmatrix")) == ["jax==0.9.0"]
    assert command.project_here(["jax==0.9.0"], tmp_path) == ["jax==0.9.0"]


def test_matrix_refuses_a_cell_pattern_that_matches_nothing_before_any_build(
        capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    assert command.main(["matrix", "--cells", "jax9*", "--out", str(tmp_path)]) == USAGE_EXIT
    err = capsys.readouterr().err
    assert err.startswith("shardmatrix: ") and "jax9*" in err and err.count("\n") == 1
    assert not (tmp_path / "results").exists()


TWO = matrix.parse('[[cell]]\njax="0.8.3"\njaxlib="0.8.3"\nflax="0.12.6"\npython="3.11"\n'
                   '[[cell]]\njax="0.9.2"\njaxlib="0.9.2"\nflax="0.12.6"\npython="3.11"\n')


def fake_probe(statuses: dict[str, str], ran: list[str]) -> Callable[..., None]:
    """A cell's run that records `statuses[cell id]` for one case and finishes (no build, no pytest)."""

    def probe(cell: matrix.Cell, opts: options.Options) -> None:
        ran.append(cell.id)
        files = CellFiles(opts.out, opts.run_id, cell.id)
        files.results.parent.mkdir(parents=True, exist_ok=True)
        files.results.write_text(json.dumps(record(run_id=opts.run_id, cell_id=cell.id, jax=cell.jax, jaxlib=cell.jax,
                                                   flax=cell.flax, status=statuses[cell.id])) + "\n")
        collected(files.results)
        write_done(files.done, cell_id=cell.id, finished="now", returncode=0, fingerprint=None, reused_from=None,
                   seconds=1.0)

    return probe


def test_matrix_runs_each_selected_cell_then_reports_the_run(monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    ran: list[str] = []
    monkeypatch.setattr(command.invocation, "cells", lambda: TWO)
    monkeypatch.setattr(command.cellrun, "probe", fake_probe({c.id: "passed" for c in TWO}, ran))
    argv = ["--out", str(tmp_path), "--run-id", RUN, "--cases", str(tmp_path)]
    assert command.main(["matrix", *argv]) == 0
    assert ran == [c.id for c in TWO] and (tmp_path / "report" / "matrix.html").exists()
    said = capsys.readouterr().out
    assert all(c.id in said for c in TWO)
    ran.clear()
    assert command.main(["matrix", *argv, "--resume", RUN]) == 0 and ran == []  # complete cells are not run again


def test_matrix_refuses_a_file_in_the_way_of_out_before_the_first_cell(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    ran: list[str] = []
    monkeypatch.setattr(command.invocation, "cells", lambda: TWO)
    monkeypatch.setattr(command.cellrun, "probe", fake_probe({c.id: "passed" for c in TWO}, ran))
    (tmp_path / "afile").write_text("")
    argv = ["matrix", "--out", str(tmp_path / "afile" / "out"), "--run-id", RUN, "--cases", str(tmp_path)]
    assert command.main(argv) == USAGE_EXIT and ran == []
    err = capsys.readouterr().err
    assert err == f"shardmatrix: --out {tmp_path}/afile/out: cannot be made: {tmp_path}/afile is a file, not a folder\n"


def test_an_upgrade_parses_its_arguments_once_and_hands_its_changes_to_the_verdict_as_values(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    from types import SimpleNamespace

    from harness.change import Declarations
    from harness.tools import upgrade
    from reports import cli

    parsed: list[list[str]] = []
    strictly = options.Parser.parse_strictly

    def counted(parser: options.Parser, argv: list[str]) -> object:
        parsed.append(list(argv))
        return strictly(parser, argv)

    rows = (("mod::test_a", {"since": "jax>=0.9.0"}),)
    unread = tmp_path / "nobody-reads-this.json"  # written for later processes; this one is handed the rows

    def prepare(argv: list[str], cells: object, prog: str) -> tuple[object, object, object, Declarations]:
        opts = options.from_namespace(upgrade.parser(prog).parse_strictly(argv))
        return SimpleNamespace(ref="r1:a"), SimpleNamespace(ref="r2:b"), opts, Declarations(rows, unread)

    judged: list[tuple[object, ...]] = []
    monkeypatch.setattr(options.Parser, "parse_strictly", counted)
    monkeypatch.setattr(upgrade, "prepare", prepare)
    monkeypatch.setattr(cli, "verdict", lambda out, before, after, declared: judged.append((before, after, declared))
                        or 1)
    assert command.main(["upgrade", "jax==0.9.2", "--out", str(tmp_path)]) == 1
    assert judged == [("r1:a", "r2:b", rows)]
    assert parsed == [["jax==0.9.2", "--out", str(tmp_path)]]  # prepare's own parse alone


def test_matrix_names_a_cell_the_harness_could_not_fully_run(monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr(command.invocation, "cells", lambda: TWO)
    monkeypatch.setattr(command.cellrun, "probe", fake_probe({TWO[0].id: "passed", TWO[1].id: "crashed"}, []))
    assert command.main(["matrix", "--out", str(tmp_path), "--run-id", RUN, "--cases", str(tmp_path)]) == USAGE_EXIT
    assert f"could not fully run: {TWO[1].id}: 1 crashed" in capsys.readouterr().err


def test_inside_a_project_whose_lock_uv_calls_stale_the_lock_is_named_not_a_missing_project(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    here = tmp_path / "p"
    shutil.copytree(Path(__file__).resolve().parent / "locks" / "exclude_newer", here)
    pyproject = here / "pyproject.toml"
    pyproject.write_text(pyproject.read_text().replace('["six"]', '["six", "iniconfig"]'))
    monkeypatch.chdir(here)
    assert command.main(["watch"]) == USAGE_EXIT
    err = capsys.readouterr().err
    assert "uv.lock does not match pyproject.toml" in err and "watch needs a project" not in err


def test_inside_a_project_with_a_lock_made_with_exclude_newer_it_is_the_project() -> None:
    here = Path(__file__).resolve().parent / "locks" / "exclude_newer"
    assert command.project_here(["--state", "s.json"], here) == ["--project", str(here), "--state", "s.json"]


def test_report_inside_a_project_reads_the_projects_own_folder(tmp_path: Path) -> None:
    here = write_project(tmp_path / "trainer", "trainer")
    assert command.out_here(["--run", "R"], here) == ["--out", str(homes.out_of(here)), "--run", "R"]
    assert command.out_here(["--out", "o"], here) == ["--out", "o"]
    assert command.out_here([], write_project(tmp_path / "sm", "shardmatrix")) == []


# --- --help and bad input answer without pandas or jax --------------------------------------------------------------

#: Runs every subcommand with `argument` in one interpreter, then prints what of the heavy packages it imported.
HELP_PROBE = """
import contextlib, io, sys
from shardmatrix import command
for name in command.SUBCOMMANDS:
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        try:
            code = command.main([name, {argument!r}])
        except SystemExit as exited:
            code = exited.code
    print(name, code, sorted(m for m in ("pandas", "jax", "jinja2") if m in sys.modules))
"""


@pytest.mark.parametrize(("argument", "code"), [("--help", 0), ("--no-such-option", USAGE_EXIT)])
def test_help_and_a_bad_option_answer_without_importing_pandas_or_jax(tmp_path: Path, argument: str,
                                                                      code: int) -> None:
    import subprocess
    import sys

    done = subprocess.run([sys.executable, "-c", HELP_PROBE.format(argument=argument)], cwd=tmp_path,
                          capture_output=True, text=True, check=True)
    assert done.stdout.splitlines() == [f"{name} {code} []" for name in SESSIONS]


def test_a_missing_pandas_is_refused_before_a_subcommand_parses_or_builds(monkeypatch: pytest.MonkeyPatch,
                                                                          capsys: pytest.CaptureFixture[str]) -> None:
    real = command.importlib.util.find_spec
    monkeypatch.setattr(command.importlib.util, "find_spec", lambda name: None if name == "pandas" else real(name))
    assert command.main(["upgrade", "jax==0.9.2", "--no-such-option"]) == USAGE_EXIT
    assert capsys.readouterr().err.startswith("shardmatrix: reports need pandas, a dependency of shardmatrix")
