"""The docs cannot drift: docs/hooks.py's generated tables say what the code says, every marker a page uses has a
table, the stored runs name where they came from, and the README stays a screen long with commands that work."""

from __future__ import annotations

import importlib.util
import json
import re
import shlex
import sys
from pathlib import Path
from types import ModuleType

import pytest
import yaml

from benchmarks import corpus_growth, time_budget
from harness import cellrecord, outputs, vocabulary
from harness.cell import known
from harness.formats import read_toml
from harness.host import corpus, matrix
from harness.host.options import BUILTIN
from harness.tools import pins, upgrade
from reports.verdicts import compat, documented, documented_table
from reports.views.present import VERDICTS, label
from shardmatrix import frontier_report

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
README = ROOT / "README.md"


def _load_hooks() -> ModuleType:
    """docs/hooks.py, loaded from its path as MkDocs loads it (docs/ is no package)."""
    spec = importlib.util.spec_from_file_location("shardmatrix_docs_hooks", DOCS / "hooks.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


hooks = _load_hooks()


def rows_of(markdown: str) -> list[list[str]]:
    """The body rows of a Markdown table, each cell stripped (escaped pipes kept inside their cell)."""
    lines = [line for line in markdown.splitlines() if line.startswith("|")][2:]
    return [[c.strip() for c in re.split(r"(?<!\\)\|", line)[1:-1]] for line in lines]


# --- tables from the code ---------------------------------------------------------------------------------------


def test_every_status_appears_with_its_class_and_meaning() -> None:
    rows = {row[0]: row for row in rows_of(hooks.statuses())}
    for status, meaning in vocabulary.MEANINGS.items():
        assert rows[f"`{status}`"][1:] == [vocabulary.status_class(status), hooks.cell(meaning)]
    assert rows["anything else"][1] == vocabulary.UNKNOWN
    assert len(rows) == len(vocabulary.MEANINGS) + 1


def test_a_status_missing_from_the_meanings_is_missing_from_the_table(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(vocabulary, "MEANINGS", {vocabulary.PASSED: "it worked"})
    assert [row[0] for row in rows_of(hooks.statuses())] == ["`passed`", "anything else"]


def test_every_verdict_appears_with_its_words_token_and_meaning() -> None:
    rows = rows_of(hooks.verdicts())
    assert [row[1] for row in rows] == [f"`{token}`" for token in VERDICTS]
    for (words, _, meaning), (token, said) in zip(rows, VERDICTS.items(), strict=True):
        assert (words, meaning) == (hooks.cell(label(token)), hooks.cell(said))


def test_every_change_kind_appears_with_its_wording() -> None:
    rows = rows_of(hooks.change_kinds())
    assert rows == [[f"`{kind}`", hooks.cell(words)] for kind, words in vocabulary.CHANGE_KINDS.items()]


def test_the_file_column_lists_are_the_code_s_own() -> None:
    assert hooks.compat_columns() == ", ".join(f"`{name}`" for name in compat.COLUMNS)
    assert "`sources`" in hooks.compat_columns()
    assert hooks.changes_columns() == ", ".join(f"`{name}`" for name in documented_table.COLUMNS)
    assert hooks.frontier_columns() == ", ".join(f"`{name}`" for name in frontier_report.COLUMNS)
    assert hooks.frontier_case_columns() == ", ".join(f"`{name}`" for name in frontier_report.CASE_COLUMNS)
    fields = hooks.record_fields()
    assert all(f"`{name}`" in fields for name in cellrecord.FIELDS)
    assert f"schema version {cellrecord.SCHEMA_VERSION}" in fields


def test_the_changes_table_has_one_row_per_declared_change_with_all_its_cases() -> None:
    declared = upgrade.declare([])
    distinct = {(change.since or change.warned, change.what) for change in declared.values()}
    rows = rows_of(hooks.changes())
    assert len(rows) == len(distinct) > 0
    listed = [case.strip("`") for row in rows for case in row[4].split("<br>")]
    assert sorted(listed) == sorted(declared)
    for case_id, change in declared.items():
        row = next(row for row in rows if f"`{case_id}`" in row[4].split("<br>"))
        package, version = documented.release(change.as_record())
        assert row[:3] == [f"{package} {version}", hooks.cell(change.what), vocabulary.CHANGE_KINDS[change.kind]]
        assert row[5] == hooks.cell(change.fix)


def test_the_changes_table_lists_jax_before_flax_in_release_order() -> None:
    releases = [row[0].split(" ", 1) for row in rows_of(hooks.changes())]
    keys = [(vocabulary.CHANGE_PACKAGES.index(package), documented.version_order(version))
            for package, version in releases]
    assert keys == sorted(keys)


def test_a_cell_keeps_code_spans_and_escapes_the_rest() -> None:
    assert hooks.cell("a `x | y` and *b* | c") == r"a `x \| y` and \*b\* \| c"
    assert hooks.cell("x * y") == r"x \* y"


def test_a_cell_with_an_unpaired_backtick_escapes_everything() -> None:
    assert hooks.cell("it's `odd | so") == r"it's `odd \| so"


def test_the_watch_options_and_fields_are_the_code_s_own() -> None:
    from harness.host import homes
    from shardmatrix import watch

    options = hooks.watch_options()
    assert all(f"`{flag}`" in options for flag in (*watch.OWN, "--project", "--pre", "--index"))
    assert f"`{homes.STATE_FILE}`" not in options and homes.STATE_FILE in options
    fields = hooks.watch_fields()
    assert "`first_bad`" in fields and "`reproducers`" in fields and "state schema version 1" in fields


def test_the_watch_page_says_what_a_remembered_verdict_and_a_coverage_line_promise_from_the_code() -> None:
    from shardmatrix import watch, watch_files

    page = (ROOT / "docs" / "watch.md").read_text(encoding="utf-8")
    assert "<!-- shardmatrix:watch-doubts -->" in page
    said = hooks.watch_doubts()
    assert all(doubt in said for doubt in watch_files.DOUBTS.values())
    sound = watch_files.Judgment("jax", "0.8.4", {}, "SAFE", tests=3, tests_judged=3, report="r.md")
    seven = watch_files.Judgment("jax", "0.8.4", {}, "SAFE", tests=7, tests_judged=7, report="r.md")
    assert f"`{watch_files.coverage_line(seven)}`" in said and "`tests judged not recorded`" in said
    # The example run on the page is what describe() prints for such a release.
    assert watch.describe(sound)[0] in page
    assert "no longer listed on the index" in page and "no longer listed on the index" in Path(
        watch.__file__).read_text(encoding="utf-8")


# --- markers --------------------------------------------------------------------------------------------------------


def test_a_known_marker_is_replaced_by_its_table() -> None:
    rendered = hooks.render("before\n\n<!-- shardmatrix:statuses -->\n\nafter")
    assert "shardmatrix:" not in rendered and "| `passed` | passing |" in rendered


def test_an_unknown_marker_stops_the_build_naming_it() -> None:
    with pytest.raises(hooks.DocsError, match=r"unknown marker.*: statusses"):
        hooks.render("<!-- shardmatrix:statusses -->")


@pytest.mark.parametrize("page", sorted(DOCS.glob("*.md")), ids=lambda p: p.name)
def test_every_page_renders_with_no_marker_left(page: Path) -> None:
    rendered = hooks.render(page.read_text(encoding="utf-8"))
    assert "<!-- shardmatrix:" not in rendered


def test_the_nav_lists_every_page_once() -> None:
    config = yaml.safe_load((ROOT / "mkdocs.yml").read_text(encoding="utf-8"))
    listed = [next(iter(entry.values())) for entry in config["nav"]]
    assert sorted(listed) == sorted(page.name for page in DOCS.glob("*.md"))
    assert config["hooks"] == ["docs/hooks.py"]


# --- stored runs ----------------------------------------------------------------------------------------------------


def test_every_stored_run_names_its_file_date_commit_machine_and_command() -> None:
    runs = hooks.stored_runs()
    assert set(runs) == {"frontier", "bench", "bench-frontier", "bench-devices", "bench-watch", "bench-corpus",
                         "corpus-changes", "ranges", "bench-ranges", "bench-frontier-rerun", "bench-budget",
                         "bench-range-cost", *(name for name in runs if name.startswith("ecosystem-"))}
    assert any(name.startswith("ecosystem-") for name in runs)
    for run in runs.values():
        assert re.fullmatch(r"\d{4}-\d{2}-\d{2}", run["date"])
        assert re.search(r"\b[0-9a-f]{7,40}\b", run["commit"])
        assert (hooks.DATA / run["file"]).is_file()


def test_a_stored_run_without_its_commit_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "bench.txt").write_text("1. figures\n")
    (tmp_path / "runs.toml").write_text('[bench]\nfile = "bench.txt"\ndate = "2026-11-24"\nmachine = "m"\n'
                                        'command = "nox -s bench"\n')
    monkeypatch.setattr(hooks, "DATA", tmp_path)
    monkeypatch.setattr(hooks, "RUNS", tmp_path / "runs.toml")
    with pytest.raises(hooks.DocsError, match=r"\[bench\] lacks commit"):
        hooks.stored_runs()


RANGE_RUN = ('\n[[ranges.runs]]\ndate = "2026-11-28"\ncommit = "abc1234"\ncommand = "nox -s ranges -- --case m::t"\n'
             'probed = "one case"\nnote = "short"\n')


def test_a_stored_file_of_several_runs_lists_each_run_folded_under_how_it_was_measured(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    stored_fixture(tmp_path, monkeypatch, "ranges", "ranges.json", json.dumps(RANGES))
    with (tmp_path / "runs.toml").open("a", encoding="utf-8") as runs:
        runs.write(RANGE_RUN + RANGE_RUN.replace("one case", "two cases"))
    rendered = hooks.render("<!-- shardmatrix:ranges -->")
    folded = rendered[rendered.index("<details"):rendered.index("</details>")]
    assert "\n- 2026-11-28, commit `abc1234`: `nox -s ranges -- --case m::t`; probed one case. short" in folded
    assert "probed two cases" in folded


def test_a_run_of_a_stored_file_that_does_not_say_what_it_probed_is_refused(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    stored_fixture(tmp_path, monkeypatch, "ranges", "ranges.json", json.dumps(RANGES))
    with (tmp_path / "runs.toml").open("a", encoding="utf-8") as runs:
        runs.write(RANGE_RUN.replace('probed = "one case"\n', ""))
    with pytest.raises(hooks.DocsError, match=r"\[\[ranges.runs\]\] number 1 lacks probed"):
        hooks.stored_runs()


def test_the_stored_frontier_table_has_the_shape_the_frontier_writes_today() -> None:
    header = next(line for line in frontier_report.summary([]) if line.startswith("| flax |"))
    table = hooks.frontier_table((hooks.DATA / hooks.stored_runs()["frontier"]["file"]).read_text())
    assert table[0] == header
    width = header.count(" | ") + 1
    assert all(len(row) == width for row in rows_of("\n".join(table)))
    assert len(table) > 2


def test_the_stored_bench_output_holds_the_figures_the_bench_prints() -> None:
    lines = (hooks.DATA / hooks.stored_runs()["bench"]["file"]).read_text().splitlines()
    assert [line.split(".", 1)[0] for line in lines if re.match(r"\d\. ", line)] == [str(n) for n in range(1, 8)]
    figure = (hooks.DATA / hooks.stored_runs()["bench-frontier"]["file"]).read_text()
    assert figure.startswith("6. the frontier in ") and "probes per flax release" in figure.splitlines()[0]
    rerun = (hooks.DATA / hooks.stored_runs()["bench-frontier-rerun"]["file"]).read_text().splitlines()
    assert rerun[0].startswith("6. frontier") and rerun[-1].strip().startswith("-> within budget")


def test_the_stored_budget_is_figure_2_with_the_bound_and_the_gap_named() -> None:
    lines = (hooks.DATA / hooks.stored_runs()["bench-budget"]["file"]).read_text().splitlines()
    assert lines[0].startswith("2. default matrix:") and "case bodies, first attempts" in lines[0]
    titles = dict((time_budget.IMPORT, *time_budget.CELL_PARTS, *time_budget.RUN_PARTS))
    named = [line.strip().rsplit(":", 1)[0] for line in lines[1:] if line.startswith("     ")]
    assert named and set(named) <= set(titles.values())
    assert lines[1].startswith("   the bound,") and any(line.startswith("   the gap,") for line in lines)


def test_the_stored_device_counts_are_figure_9_at_each_count() -> None:
    lines = (hooks.DATA / hooks.stored_runs()["bench-devices"]["file"]).read_text().splitlines()
    assert lines[0].startswith("9. device counts, default matrix")
    assert [line.split()[0] for line in lines[1:]] == ["1", "2", "4", "8"]


def test_the_stored_watch_figure_is_figure_8_with_its_split() -> None:
    (line,) = (hooks.DATA / hooks.stored_runs()["bench-watch"]["file"]).read_text().splitlines()
    assert line.startswith("8. watch, one new release") and all(part in line for part in ("venv builds", "tests",
                                                                                            "bisect"))


def test_the_stored_corpus_growth_is_figure_10_with_its_changed_cells() -> None:
    lines = (hooks.DATA / hooks.stored_runs()["bench-corpus"]["file"]).read_text().splitlines()
    assert lines[0].startswith("10. corpus growth, default matrix")
    assert [line.split()[0] for line in lines[2:5]] == ["cases", "wall", "case"]
    changed = (hooks.DATA / hooks.stored_runs()["corpus-changes"]["file"]).read_text()
    assert hooks.corpus_changes().endswith(changed.rstrip("\n"))


def test_the_stored_range_cost_is_figure_14_with_its_four_sides_and_the_default_judged() -> None:
    lines = (hooks.DATA / hooks.stored_runs()["bench-range-cost"]["file"]).read_text().splitlines()
    assert lines[0].startswith("14. the range checker's inside probes")
    assert lines[1].split() == ["every", "middle", "none", "filed"]
    assert lines[-3].startswith("    -> wall per edge against the filed checker's: every ")
    # Its sides checked 8 edges and the filed checker 6: the figure must say its per-edge ratio spans both.
    assert lines[-2].startswith("    -> edges differ: --inside every checked 8, the filed checker 6 ")
    assert lines[-1].startswith("    -> the default (--inside every): ")


def stored_fixture(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str, file: str, text: str) -> None:
    """docs/data as a test folder holding one stored run `name` (its file `file` holding `text`)."""
    (tmp_path / file).write_text(text, encoding="utf-8")
    (tmp_path / "runs.toml").write_text(f'[{name}]\nfile = "{file}"\ndate = "2026-11-26"\ncommit = "abc1234"\n'
                                        'machine = "a test"\ncommand = "nox -s bench -- --only 10"\n')
    monkeypatch.setattr(hooks, "DATA", tmp_path)
    monkeypatch.setattr(hooks, "RUNS", tmp_path / "runs.toml")


def test_the_corpus_changes_list_is_shown_as_figure_10_wrote_it_after_how_it_was_measured(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    listed = corpus_growth.changes_markdown([corpus_growth.CellChange(
        "jax0.8.1-flax0.12.6-py3.11", "works for current code: 2 changes break older code", "partial: 1 of 90 fail",
        ["new fam::test_a [(not recorded) -> xfailed]"])], "INCONCLUSIVE")
    stored_fixture(tmp_path, monkeypatch, "corpus-changes", "corpus-changes.md", listed)
    rendered = hooks.render("## What changed\n\n<!-- shardmatrix:corpus-changes -->\n")
    said, _, shown = rendered.partition("\n\n")[2].partition("\n\n")
    assert said.startswith("*Generated from `docs/data/corpus-changes.md`: `nox -s bench -- --only 10` on 2026-11-26")
    assert shown.rstrip("\n") == listed.rstrip("\n")


def test_a_stored_corpus_changes_file_that_is_not_figure_10_s_list_is_refused(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    stored_fixture(tmp_path, monkeypatch, "corpus-changes", "corpus-changes.md", "8 cells read partial now\n")
    with pytest.raises(hooks.DocsError, match=r"corpus-changes.md: not figure 10's list .*'8 cells read partial now'"):
        hooks.corpus_changes()


@pytest.mark.parametrize(("name", "marker", "text"), [
    ("bench-corpus", "bench-corpus", "10. corpus growth, default matrix: ...\n    -> wall 1.20x\n"),
])
def test_figures_10_and_11_are_shown_from_their_stored_text(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                            name: str, marker: str, text: str) -> None:
    stored_fixture(tmp_path, monkeypatch, name, f"{name}.txt", text)
    rendered = hooks.render(f"<!-- shardmatrix:{marker} -->")
    assert rendered.endswith("```text\n" + text.rstrip("\n") + "\n```") and f"docs/data/{name}.txt" in rendered


def test_a_figure_whose_stored_run_is_absent_stops_the_build_naming_it(tmp_path: Path,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    stored_fixture(tmp_path, monkeypatch, "bench", "bench.txt", "1. figures\n")
    with pytest.raises(hooks.DocsError, match=r"no \[bench-ranges\]"):
        hooks.render("<!-- shardmatrix:bench-ranges -->")


RANGES = {"schema_version": 1, "probes": 5, "budget": 40, "wrong": 0, "unchecked": 1,
          "edges": [{"case": "m::test_a", "package": "jax", "declared": ">=0.9.0", "source": "changed since jax>=0.9.0",
                     "status": "confirmed", "found": None, "why": ""},
                    {"case": "m::test_b", "package": "flax", "declared": "<0.12.1", "source": "known breakage",
                     "status": "unchecked", "found": None, "why": "flax 0.12.0 with jax 0.8.1 cannot be probed"}],
          "needs_without_change": [{"case": "m::test_c", "held": "jax 0.6.2, flax 0.10.7",
                                    "unmet": "jax 0.7.2, flax 0.12.0", "reason": "x is absent"}]}


def test_the_stored_range_check_is_shown_with_every_edge_it_did_not_confirm(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    stored_fixture(tmp_path, monkeypatch, "ranges", "ranges.json", json.dumps(RANGES))
    rendered = hooks.render("<!-- shardmatrix:ranges -->")
    assert ("2 declared edges: 1 confirmed, 0 wrong, 1 unchecked, 0 bounded by the case's needs; 5 of 40 probes."
            in rendered)
    assert "Inside the declared ranges: not probed (this check ran before" in rendered
    assert "`m::test_b`" in rendered and "`m::test_a`" not in rendered
    assert "| `m::test_c` | jax 0.6.2, flax 0.10.7 | jax 0.7.2, flax 0.12.0 | x is absent |" in rendered


def test_an_edge_bounded_by_its_case_s_needs_is_counted_and_shown_with_that_status(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    bounded = {**RANGES["edges"][1], "status": "bounded by the case's needs", "why": "flax 0.11.2 lacks the flag"}
    document = {**RANGES, "unchecked": 0, "edges": [RANGES["edges"][0], bounded]}
    stored_fixture(tmp_path, monkeypatch, "ranges", "ranges.json", json.dumps(document))
    rendered = hooks.render("<!-- shardmatrix:ranges -->")
    assert "1 confirmed, 0 wrong, 0 unchecked, 1 bounded by the case's needs; 5 of 40 probes." in rendered
    row = next(line for line in rendered.splitlines() if line.startswith("| `m::test_b` |"))
    assert "| known breakage | bounded by the case's needs |" in row and "flax 0.11.2 lacks the flag" in row


FIGURE_11 = ("11. the range checker, the range check in OUT: 2 declared edges: 1 confirmed, 0 wrong, 1 unchecked (0 of "
             "them left by a spent budget)\n    -> 5 of 40 probes (within budget); seconds per probe not recorded; "
             "1 need gone with no change\n")


def _range_check_and_figure(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, document: dict[str, object],
                            figure: str) -> None:
    stored_fixture(tmp_path, monkeypatch, "ranges", "ranges.json", json.dumps(document))
    (tmp_path / "bench-ranges.txt").write_text(figure, encoding="utf-8")
    with (tmp_path / "runs.toml").open("a", encoding="utf-8") as runs:
        runs.write('[bench-ranges]\nfile = "bench-ranges.txt"\ndate = "2026-11-26"\ncommit = "abc1234"\n'
                   'machine = "a test"\ncommand = "nox -s bench -- --only 11"\n')


def test_figure_11_is_shown_when_it_states_what_the_stored_range_check_holds(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _range_check_and_figure(tmp_path, monkeypatch, RANGES, FIGURE_11)
    assert hooks.render("<!-- shardmatrix:bench-ranges -->").endswith("```text\n" + FIGURE_11.rstrip("\n") + "\n```")


def test_figure_11_that_disagrees_with_the_stored_range_check_stops_the_build(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _range_check_and_figure(tmp_path, monkeypatch, RANGES, FIGURE_11.replace("1 confirmed", "2 confirmed"))
    with pytest.raises(hooks.DocsError, match=r"figure 11 disagrees .*: confirmed 2 \(the check holds 1\)"):
        hooks.render("<!-- shardmatrix:bench-ranges -->")


@pytest.mark.parametrize("marker", ["ranges", "census", "bench-ranges"])
def test_a_stored_range_check_with_a_wrong_edge_stops_every_page_drawn_from_it(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, marker: str) -> None:
    edges: list[object] = list(RANGES["edges"])  # type: ignore[call-overload]
    edges.append({"case": "m::test_d", "package": "jax", "declared": "<0.8.2", "source": "known breakage",
                  "status": "wrong", "found": "<0.7.0", "why": "jax 0.7.0 passes"})
    wrong = {**RANGES, "wrong": 1, "edges": edges}
    _range_check_and_figure(tmp_path, monkeypatch, wrong, FIGURE_11)
    with pytest.raises(hooks.DocsError, match=r"edge jax<0.8.2 of m::test_d is wrong \(releases show <0.7.0\)"):
        hooks.render(f"<!-- shardmatrix:{marker} -->")


def test_a_stored_range_check_whose_counts_disagree_with_its_rows_stops_the_build(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    stored_fixture(tmp_path, monkeypatch, "ranges", "ranges.json", json.dumps({**RANGES, "unchecked": 0}))
    with pytest.raises(hooks.DocsError, match="says 0 unchecked but holds 1"):
        hooks.render("<!-- shardmatrix:ranges -->")


def test_the_stored_range_check_covers_every_edge_the_corpus_declares_and_finds_none_wrong() -> None:
    from harness.tools import range_check, ranges

    run = hooks.stored_runs()["ranges"]
    stored = outputs.read_ranges(hooks.DATA / run["file"])
    changes = range_check.declared_changes([BUILTIN])
    breakages = [entry for path in corpus.known_breakage_files([BUILTIN]) for entry in known.load(path)]
    declared = {(edge.case, edge.package, edge.text, edge.source) for edge in ranges.edges(changes, breakages)}
    checked = {(row["case"], row["package"], row["declared"], row["source"]) for row in stored["edges"]}
    # A range declared or changed since the stored check is not vouched for: re-run `nox -s ranges` and store it.
    assert declared == checked
    assert stored["wrong"] == 0 and all(row["status"] != "wrong" for row in stored["edges"])
    assert all(row["why"] for row in stored["edges"] if row["status"] == "unchecked")


def test_a_stored_table_says_where_it_came_from() -> None:
    run = hooks.stored_runs()["frontier"]
    said = hooks.frontier().splitlines()[0]
    assert all(run[key] in said for key in ("date", "commit", "command", "file"))


# --- the README -----------------------------------------------------------------------------------------------------


def test_the_readme_fits_on_a_screen_and_opens_with_the_two_commands() -> None:
    text = README.read_text(encoding="utf-8")
    assert len(text.splitlines()) <= 150
    first_block = text.split("```bash\n", 1)[1].split("```", 1)[0]
    assert first_block.splitlines()[0].startswith("python3 -m pip install nox uv && nox -s matrix ")
    assert first_block.splitlines()[1].startswith("nox -s tests ")


def test_every_link_of_the_readme_names_a_file_of_the_repository() -> None:
    targets = re.findall(r"\]\(([^)#]+)(?:#[^)]*)?\)", README.read_text(encoding="utf-8"))
    assert targets
    assert [target for target in targets if not (ROOT / target).exists()] == []


def first_upgrade_example() -> list[str]:
    """The arguments of the README's first `nox -s upgrade --` line (its comment left out)."""
    line = next(line for line in README.read_text(encoding="utf-8").splitlines()
                if line.startswith("nox -s upgrade -- "))
    return shlex.split(line.removeprefix("nox -s upgrade -- "), comments=True)


def test_the_first_upgrade_example_passes_option_parsing_and_names_a_bundled_project() -> None:
    namespace = upgrade.parser().parse_strictly(first_upgrade_example())
    assert pins.parse_pins(namespace.candidate)
    if namespace.project:
        assert (ROOT / namespace.project / "pyproject.toml").is_file()


@pytest.mark.e2e
def test_the_first_upgrade_example_makes_a_baseline_and_a_different_candidate(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)
    baseline, candidate, _ = upgrade.cells_for(first_upgrade_example(), matrix.load(ROOT / "matrix.toml"))
    assert baseline.id != candidate.id


def test_the_downstream_page_shows_the_caller_workflow_the_tests_drive_verbatim() -> None:
    rendered = hooks.render((DOCS / "downstream.md").read_text())
    assert "```yaml\n" + hooks.CALLER.read_text().rstrip("\n") + "\n```" in rendered
    assert "uses: shardmatrix/shardmatrix/.github/workflows/upgrade-check.yml@" in rendered


def test_the_inputs_table_has_one_row_per_input_of_the_reusable_workflow_and_no_other() -> None:
    declared = yaml.safe_load((ROOT / ".github" / "workflows" / "upgrade-check.yml").read_text())[True][
        "workflow_call"]["inputs"]
    rows = rows_of(hooks.upgrade_check_inputs())
    assert [row[0] for row in rows] == [f"`{name}`" for name in declared]
    assert dict((row[0], row[1]) for row in rows)["`pre`"] == "boolean"


def test_the_gpu_page_shows_every_stored_accelerator_run_with_its_provenance_and_figures() -> None:
    shown = hooks.accelerator_runs()
    for folder in sorted(hooks.ACCELERATOR_RUNS.glob("*/provenance.toml")):
        about = read_toml(folder, hooks.DocsError)
        assert about["title"] in shown and f"commit `{about['commit']}`" in shown and about["date"] in shown
    # The first run before cases scaled, and the second after, as the records say.
    assert "19 of 103 (80 need 8 devices, 4 need an API this cell lacks)" in shown
    assert "87 of 122 (30 need 2 devices, 4 need 4 devices, 1 needs 8 devices)" in shown
    assert "`XLA_PYTHON_CLIENT_PREALLOCATE=false`" in shown
    assert "20261126T060429Z-accel (NVIDIA H200) against 20261126T060429Z-cpu1 (CPU) at 1 device: 122 cases " \
           "compared, none divergent." in shown
    # The trainer's numeric test: failed on the GPU, passed in the re-run and on the CPU.
    assert "20261126T060429Z-project (NVIDIA H200) against 20261126T060429Z-project (CPU) at 1 device: 7 cases " \
           "compared, 1 divergent." in shown
    assert "test_stacked_layers_match_a_float32_numpy_reference[1]`: failed AssertionError" in shown
    assert "**default matmul precision**" in shown


def _promises() -> str:
    """docs/upgrade.md's section 'What each answer promises'."""
    page = (DOCS / "upgrade.md").read_text(encoding="utf-8")
    start = page.index("### What each answer promises")
    return page[start:page.index("\n#", start + 1)]


def test_each_coverage_line_upgrade_md_promises_is_the_first_line_compare_prints() -> None:
    from compare_fakes import cases, compare, frame

    from reports.views.compare_render import render_text

    def short(needed: int, *names: str) -> list[tuple[str, str, dict[str, object]]]:
        return [(name, "not_applicable", {"reason": vocabulary.devices_reason(needed, 1), "devices_needed": needed,
                                          "device_count": 1}) for name in names]

    absent = ("e", "not_applicable", {"reason": "jax.shard_map is absent"})
    situations = [
        (cases("a", "b"), cases("a", "b")),
        (cases("a", "b", "c", "d") + short(2, "e", "f", "g"), cases("a", "b", "c", "d") + short(2, "e", "f", "g")),
        ([*cases("a"), absent], [*cases("a"), ("e", "failed", {})]),
        (cases("a", "b", "e"), cases("a", "b") + short(8, "e")),
    ]
    rows = [line for line in _promises().splitlines() if line.startswith("| ") and "`" in line]
    said = [line.rsplit("| `", 1)[1].removesuffix("` |") for line in rows]
    printed = [render_text(compare(frame(before, after), "r1", "r2")).splitlines()[0] for before, after in situations]
    assert said == printed


def test_the_promises_name_every_cause_a_coverage_line_counts() -> None:
    promises = _promises()
    for words in ("need 2 devices", "could not run in the baseline", "needs an API it lacks",
                  "could not run in the candidate", "`compare.json`", "`coverage`"):
        assert words in promises, words


def test_the_ecosystem_table_lists_every_project_of_the_shipped_list_with_why() -> None:
    from shardmatrix import ecosystem_list

    entries = ecosystem_list.load()
    rows = rows_of(hooks.ecosystem_projects())
    assert [row[0] for row in rows] == [hooks.cell(e.name) for e in entries]
    assert [row[-1] for row in rows] == [hooks.cell(e.why) for e in entries]
    assert hooks.ecosystem_sharding() == f"`{ecosystem_list.SHARDING}`"


def test_the_stored_ecosystem_runs_are_shown_per_release_with_each_projects_verdict_and_provenance() -> None:
    from harness.ecosystem_summary import read_ecosystem

    shown = hooks.ecosystem_replay()
    for name, run in hooks.stored_runs().items():
        if name.startswith("ecosystem-"):
            document = read_ecosystem(hooks.DATA / run["file"])
            assert f"**{' '.join(document['candidate'])}** against {document['baseline']}" in shown
            assert hooks.provenance(run) in shown
            for project in document["projects"]:
                assert f"| {hooks.cell(project['name'])} |" in shown


def test_the_stored_ecosystem_runs_name_their_files_relative_to_their_output_folder() -> None:
    """A stored summary names no machine's scratch folder (they named /tmp/eco_out/report/... before)."""
    stored = sorted((Path(__file__).resolve().parent.parent / "docs" / "data").glob("ecosystem-*.json"))
    assert stored
    for path in stored:
        for project in json.loads(path.read_text(encoding="utf-8"))["projects"]:
            for key in ("report", "changes_from"):
                assert not Path(project.get(key) or "report").is_absolute(), f"{path.name}: {project['name']} {key}"


def test_each_stored_replay_that_names_a_list_ran_only_projects_that_list_holds() -> None:
    """A replay's --list is data beside it (docs/data/ecosystem-replay.toml): it reads, and holds what the run ran."""
    from harness.ecosystem_summary import read_ecosystem
    from shardmatrix import ecosystem_list

    named = {name: run for name, run in hooks.stored_runs().items()
             if name.startswith("ecosystem-") and "--list docs/data/" in run["command"]}
    assert named
    for name, run in named.items():
        listed = run["command"].split("--list ", 1)[1].split()[0]
        projects = {entry.name for entry in ecosystem_list.load(hooks.ROOT / listed)}
        ran = {project["name"] for project in read_ecosystem(hooks.DATA / run["file"])["projects"]}
        assert ran <= projects, f"{name}: {sorted(ran - projects)} not in {listed}"


def test_the_replays_are_shown_beside_each_projects_fix_and_a_row_the_stored_run_contradicts_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    shown = hooks.ecosystem_fixes()
    assert "| jax==0.7.0 | 2025-07-22 | haliax | INCONCLUSIVE | fixed, not flagged |" in shown
    assert "| jax==0.4.36 | 2024-12-05 | haliax | UNSAFE | flagged and fixed | stanford-crfm/haliax 81bbb78" in shown
    # jax 0.9.0's qwix was "flagged and never fixed" until the baseline held a flax that loads on jax 0.9.0 (the
    # flag was the pairing's): it is now "not flagged, nothing to fix".
    assert ("flagged and fixed: 3, flagged and never fixed: 0, fixed, not flagged: 5, not flagged, nothing to fix: 11"
            in shown)
    wrong = tmp_path / "fixes.toml"
    wrong.write_text(hooks.FIXES.read_text(encoding="utf-8").replace(
        'project = "penzai"\nverdict = "SAFE"\nkind = "not flagged, nothing to fix"',
        'project = "penzai"\nverdict = "UNSAFE"\nkind = "flagged and fixed"', 1), encoding="utf-8")
    monkeypatch.setattr(hooks, "FIXES", wrong)
    with pytest.raises(hooks.DocsError, match=r"ecosystem-jax0.5.1 penzai: says UNSAFE, flagged and fixed; the "
                                              r"stored run says SAFE"):
        hooks.ecosystem_fixes()


SHORT_RUN = {"file": "f.json", "date": "2026-11-27", "commit": "abc1234", "machine": "a laptop",
             "command": "nox -s ranges -- --budget 40"}


def test_a_short_provenance_stays_one_italic_line() -> None:
    said = hooks.provenance(SHORT_RUN)
    assert "\n" not in said and "<details" not in said
    assert said.startswith("*Generated from `docs/data/f.json`: `nox -s ranges -- --budget 40` on 2026-11-27")


def test_a_long_provenance_folds_its_command_and_note_so_the_page_opens_with_where_it_came_from() -> None:
    run = {**SHORT_RUN, "note": "why " * hooks.PROVENANCE_INLINE_CHARS}
    first, _, rest = hooks.provenance(run).partition("\n\n")
    assert first == "*Generated from `docs/data/f.json` on 2026-11-27.*"
    assert rest.startswith(f'<details markdown="1">\n<summary>{hooks.PROVENANCE_SUMMARY}</summary>')
    assert "Commit `abc1234`, on a laptop: `nox -s ranges -- --budget 40`" in rest and rest.endswith("</details>")


def test_a_census_that_disagrees_with_the_corpus_stops_the_docs_build(monkeypatch: pytest.MonkeyPatch) -> None:
    from harness.tools import census_table

    lines = ["a/b#1: fixed jax==0.8.15 is not a jax release (of 30 known, 0.4.26 to 0.12.0.1)", "m::t cites a/b#2, ..."]
    monkeypatch.setattr(census_table, "census_problems", lambda edges: lines)
    with pytest.raises(hooks.DocsError, match=r"^cases/census.toml: a/b#1: fixed jax==0.8.15 is not a jax release "
                                              r"\(of 30 known, 0.4.26 to 0.12.0.1\) \(and 1 more"):
        hooks.census()
    monkeypatch.setattr(census_table, "census_problems", lambda edges: [])
    assert "### " in hooks.census()


def test_the_stored_range_check_folds_its_provenance_before_the_census_tables() -> None:
    shown = hooks.census()
    assert shown.index("</details>") < shown.index("### ")
