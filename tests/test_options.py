from __future__ import annotations

from pathlib import Path

import pytest

from harness.host import homes, options


def test_defaults(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(options.RUN_ID_ENV, raising=False)
    opts = options.parse([])
    assert opts.cells == [] and opts.out == Path("out") and opts.cases == [options.BUILTIN]
    assert opts.run_id and opts.workers == 0 and opts.reruns == 1 and not opts.resume


def test_everything_given(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(options.RUN_ID_ENV, "20261121T080000Z-env0")
    opts = options.parse(["--cells", "jax0.12*", "--cells", "*py3.11", "--out", "/tmp/o", "--cases", "builtin",
                          "--cases", "mine", "--workers", "2", "--timeout", "9", "--devices", "4", "-v"])
    assert opts.cells == ["jax0.12*", "*py3.11"] and opts.out == Path("/tmp/o")
    assert opts.cases == ["builtin", "mine"] and opts.workers == 2 and opts.timeout == 9 and opts.devices == 4
    assert opts.run_id == "20261121T080000Z-env0" and opts.verbose


def test_resume_names_the_run(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(options.RUN_ID_ENV, "20261121T080000Z-env0")
    opts = options.parse(["--resume", "20261121T090000Z-1a2b"])
    assert opts.resume and opts.run_id == "20261121T090000Z-1a2b"


def test_run_id_flag_beats_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(options.RUN_ID_ENV, "20261121T080000Z-env0")
    assert options.parse(["--run-id", "20261121T090000Z-mine"]).run_id == "20261121T090000Z-mine"
    with pytest.raises(options.OptionsError, match="run id 'mine' is not YYYYmmddTHHMMSSZ-<tag>"):
        options.parse(["--run-id", "mine"])


@pytest.mark.parametrize(("argv", "message"), [
    (["--timout", "5"], "nox -s matrix: unknown option --timout (did you mean --timeout?)"),
    (["--timout=5"], "nox -s matrix: unknown option --timout (did you mean --timeout?)"),
    (["--colour", "red"], "nox -s matrix: unknown option --colour"),
    (["--compare", "a", "b"], "nox -s matrix: unknown option --compare (an option of nox -s report)"),
    (["stray"], "nox -s matrix: unexpected argument 'stray'"),
    (["--timeout", "soon"], "nox -s matrix: argument --timeout: invalid float value: 'soon'"),
])
def test_unknown_or_bad_arguments_are_refused_in_one_line(argv: list[str], message: str) -> None:
    # Before, unknown arguments were passed on (to the report builder) and the run went ahead with defaults.
    with pytest.raises(options.OptionsError) as refused:
        options.parse(argv)
    assert str(refused.value) == message


@pytest.mark.parametrize("argv", [["--timeout", "5", "--timeout", "7"], ["--timeout=5", "--timeout", "7"],
                                  ["--out", "a", "--out=b"]])
def test_an_option_of_one_value_given_two_is_refused_in_one_line(argv: list[str]) -> None:
    with pytest.raises(options.OptionsError, match=r"given twice \('.+' and '.+'\): give it once$"):
        options.parse(argv)


def test_an_option_repeated_with_its_own_value_or_a_repeatable_one_is_taken() -> None:
    assert options.parse(["--timeout", "5", "--timeout=5"]).timeout == 5
    assert options.parse(["--with", "optax==0.2.4", "--with", "chex"]).extras == ["optax==0.2.4", "chex"]


def test_an_abbreviation_is_refused_not_guessed() -> None:
    with pytest.raises(options.OptionsError, match="unknown option --time "):
        options.parse(["--time", "3"])
    assert options.parse(["--timeout", "3"]).timeout == 3


def test_the_refusal_names_the_session_it_came_from() -> None:
    with pytest.raises(options.OptionsError, match=r"^nox -s cell\(x\): unknown option --nope$"):
        options.parse(["--nope"], prog="nox -s cell(x) --")


def test_a_suggestion_is_only_made_for_a_near_name() -> None:
    with pytest.raises(options.OptionsError) as refused:
        options.report_parser().parse_strictly(["--cells", "x"])
    assert str(refused.value) == "nox -s report: unknown option --cells"


@pytest.mark.parametrize(("argv", "chosen"), [
    ([], ([], False, None)),
    (["--run", "a", "b"], (["a", "b"], False, None)),
    (["--all-runs"], ([], True, None)),
    (["--compare", "a", "b:cell"], ([], False, ["a", "b:cell"])),
])
def test_report_takes_only_its_declared_choice_of_runs(argv: list[str], chosen: tuple[object, ...]) -> None:
    namespace = options.report_parser().parse_strictly(["--out", "/tmp/o", *argv])
    assert namespace.out == Path("/tmp/o") and (namespace.runs, namespace.all_runs, namespace.compare) == chosen


@pytest.mark.parametrize("argv", [["--run", "a", "--all-runs"], ["--compare", "a"], ["--timeout", "3"]])
def test_report_refuses_what_reports_would_not_take(argv: list[str]) -> None:
    with pytest.raises(options.OptionsError, match=r"^nox -s report: "):
        options.report_parser().parse_strictly(argv)


def test_a_tool_built_on_the_shared_parser_is_as_strict() -> None:
    tool = options.Parser(prog="tool", parents=[options.parser(add_help=False)])
    tool.add_argument("--case")
    namespace = tool.parse_strictly(["--case", "c", "--timeout", "4"])
    assert namespace.case == "c" and options.from_namespace(namespace).timeout == 4
    with pytest.raises(options.OptionsError, match=r"^tool: unknown option --cas \(did you mean --case\?\)$"):
        tool.parse_strictly(["--cas", "c"])


def test_no_parser_in_the_harness_passes_unknown_arguments_on() -> None:
    # parse_known_args hands back what it did not know, and a caller that drops or forwards it guesses.
    root = Path(options.__file__).resolve().parents[2]
    lenient = [str(path.relative_to(root)) for package in ("harness", "shardmatrix")
               for path in sorted((root / package).rglob("*.py"))
               if "parse_known_args(" in path.read_text(encoding="utf-8")]
    assert lenient == []



def test_the_cell_additions_are_parsed_and_a_project_leaves_the_cases_to_it() -> None:
    opts = options.parse(["--project", "p", "--with", "optax==0.2.5", "--with", "chex", "--override",
                          "flax @ file:///src/flax", "--pre", "--index", "https://x/simple"])
    assert (opts.project, opts.extras, opts.overrides) == (Path("p"), ["optax==0.2.5", "chex"],
                                                           ["flax @ file:///src/flax"])
    assert opts.pre and opts.indexes == ["https://x/simple"] and opts.cases == []


def test_a_run_of_cells_leaves_nothing_out_and_upgrades_left_out_becomes_pytest_arguments() -> None:
    assert options.parse([]).left_out == options.LeftOut()
    p = options.parser(add_help=False)
    options.add_left_out(p)
    found = options.from_namespace(p.parse_strictly(["-m", "not gpu", "--deselect", "net::test_get",
                                                     "--deselect", "net::test_get"])).left_out
    assert found == options.LeftOut("not gpu", None, ("net::test_get",))
    assert found.pytest_args() == ["-m", "not gpu", "--shardmatrix-deselect", "net::test_get"]


def test_with_a_project_the_default_out_is_its_home_outside_its_tree(tmp_path: Path) -> None:
    opts = options.parse(["--project", str(tmp_path)])
    assert opts.out == homes.out_of(tmp_path) and not opts.out.is_relative_to(tmp_path)
    assert options.parse(["--project", str(tmp_path), "--out", "o"]).out == Path("o")  # as asked, when asked


def test_a_suite_budget_is_seconds_and_a_negative_one_is_refused() -> None:
    assert options.parse(["--suite-budget", "90"]).suite_budget == 90.0
    assert options.parse([]).suite_budget == 0.0
    with pytest.raises(options.OptionsError, match=r"--suite-budget -1: seconds of at least 0"):
        options.parse(["--suite-budget", "-1"])


def test_env_gives_every_cell_its_variables_and_a_malformed_or_reserved_one_is_refused() -> None:
    assert options.parse(["--env", "KERAS_BACKEND=jax", "--env", "A=x=y"]).env == (("KERAS_BACKEND", "jax"),
                                                                                 ("A", "x=y"))
    assert options.parse([]).env == ()
    with pytest.raises(options.OptionsError, match=r"--env 'KERAS_BACKEND': expected NAME=VALUE"):
        options.parse(["--env", "KERAS_BACKEND"])
    with pytest.raises(options.OptionsError, match=r"--env XLA_FLAGS: set by shardmatrix for every cell"):
        options.parse(["--env", "XLA_FLAGS=--xla_cpu_enable_fast_math=true"])


def test_unparsed_says_why_pytest_cannot_read_an_expression_and_nothing_of_one_it_can() -> None:
    assert options.unparsed("shard or (mesh and not tpu)") == "" and options.unparsed("") == ""
    assert options.unparsed("shard and (")
