"""shardmatrix.ecosystem: every listed project's own tests through `upgrade`, judged and grouped by cause.

The cells are faked at pytest (as tests/test_upgrade.py fakes them): each project's fake pytest records what its
tests would; the rest (fetching the sdists from a local index, the upgrade's arguments, the results, the report's
comparison, the grouping and the report files) is the real code.
"""

from __future__ import annotations

import io
import json
import os
import tarfile
from datetime import date
from pathlib import Path
from typing import Any

import pytest
from record_factory import collected, record
from test_ecosystem_baseline import jax_index
from test_ecosystem_sources import PYPROJECT, index, sdist
from test_ecosystem_summary import HEAD

from harness import formats
from harness.cell.records import case_id_from_nodeid
from harness.ecosystem_summary import (
    ECOSYSTEM_COMMENT_MD,
    ECOSYSTEM_JSON,
    ECOSYSTEM_MD,
    read_ecosystem,
    write_ecosystem,
)
from harness.host import adhoc, cellrun, envbuild, hang, matrix, options, project
from harness.host.matrix import Cell
from harness.host.runner import Job
from harness.tools import pins
from shardmatrix import ecosystem, ecosystem_list, ecosystem_merge, ecosystem_sources

CELLS = matrix.load(Path(__file__).resolve().parent.parent / "matrix.toml")
BASELINE = "jax==0.8.3,flax==0.12.3"
ERROR = ("ShardingTypeError", "Use `.at[...].get(out_sharding=)` to provide output PartitionSpec for the gather")

LIST = """schema_version = 1
{projects}
[[project]]
name = "remote"
why = "its tests live on a git host out of reach"
source = "git"
repository = "https://git.invalid/remote"
tests = ["tests"]
"""
PROJECT = """
[[project]]
name = "{name}"
why = "shards"
source = "sdist"
tests = ["tests"]
budget = 30
suite_budget = 30
"""
#: What each project's tests do on the candidate (jax 0.9.0); every one passes on the baseline.
ON_CANDIDATE = {"alpha": ("failed", *ERROR), "beta": ("failed", *ERROR), "gamma": ("passed", None, None),
                "stalled": ("passed", None, None), "stalledfail": ("passed", None, None),
                "slow": ("timeout", "Timeout", "Timeout (>30.0s) from pytest-timeout."),
                "delta": ("passed", None, None), "hung": ("passed", None, None), "unmatched": ("passed", None, None)}


NA = "not_applicable"
#: Projects whose tests each record (baseline statuses, candidate statuses), shaped like the att39 attack's
#: fixtures: few ran (a trivial pass, the rest skipped for 16 devices), a red baseline, a removal at the candidate.
SCENARIOS: dict[str, tuple[list[str], list[str]]] = {
    "fewran": (["passed"] + [NA] * 9, ["passed"] + [NA] * 9),
    "redbase": (["passed"] + ["failed"] * 9, ["passed"] + ["failed"] * 9),
    "gone": (["passed"] * 3, [NA] * 3),
    "gonetoo": (["passed"], [NA]),
    "xfailnow": (["passed"] * 2, ["passed", "xfailed"]),  # a bare non-strict xfail, no reason given
}
#: What a test skipped in SCENARIOS says (pytest.skip's reason), on the candidate.
GONE = "jax.sharding.OldThing is gone"


def run_scenario(cell: Cell, job: Job, statuses: list[str]) -> int:
    """A SCENARIOS project's cell: one record per status, a failure with its error, a skip with its reason."""
    ids = [f"test_mesh::test_{n}" for n in range(len(statuses))]
    job.files.results.parent.mkdir(parents=True, exist_ok=True)
    job.files.results.write_text("".join(json.dumps(record(
        cell.jax, cell.flax, cell.python, run_id=job.files.run_id, cell_id=cell.id, jaxlib=cell.jaxlib,
        case_id=case, family="test_mesh", status=status, error_type="E" if status == "failed" else None,
        error_message="boom" if status == "failed" else None,
        reason=GONE if status == NA else None)) + "\n" for case, status in zip(ids, statuses, strict=True)))
    collected(job.files.results, ids)
    return 0


#: twins' test folders, each with a test_a.py (as penzai's tests/core and tests/deprecated/v1 each hold a
#: misc_util_test.py); v1's breaks at the candidate.
TWINS = ("core", "deprecated/v1")


def twins_sdist(folder: Path) -> Path:
    """twins-1.0.tar.gz: alpha's sdist with a tests/<folder>/test_a.py of one test in each of TWINS."""
    path = folder / "twins-1.0.tar.gz"
    with tarfile.open(path, "w:gz") as archive:
        for name, text in (("twins-1.0/pyproject.toml", PYPROJECT.format(version="1.0")),
                           *((f"twins-1.0/tests/{twin}/test_a.py", "def test_x():\n    pass\n") for twin in TWINS)):
            info = tarfile.TarInfo(name)
            info.size = len(text.encode())
            archive.addfile(info, io.BytesIO(text.encode()))
    return path


def fake_index(tmp_path: Path) -> Any:
    """An index of one sdist per project, release 1.0 uploaded 2026-01-10 (remote's tells its git tag)."""
    served: dict[str, Any] = {}
    for name in [*ON_CANDIDATE, *SCENARIOS, "remote", "twins"]:
        folder = tmp_path / "index" / name
        folder.mkdir(parents=True, exist_ok=True)
        made = twins_sdist(folder) if name == "twins" else sdist(folder, "1.0")
        renamed = made.with_name(f"{name}-1.0.tar.gz")
        made.rename(renamed)
        served[name] = index({"1.0": ("2026-01-10", renamed)})

    def fetch(url: str, accept: str) -> Any:
        name = url.rstrip("/").split("/")[-2]
        if name in ("jax", "jaxlib", "flax"):  # the sides' upload days (DAYS)
            return jax_index()(url, accept)
        return served[name](url.replace(f"/{name}/", "/alpha/"), accept)
    return fetch


@pytest.fixture
def cells(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Cells faked at pytest: each writes what its project's tests do (ON_CANDIDATE); delta's candidate cannot be
    installed. Returns the pytest commands' projects, in order."""
    ran: list[str] = []

    def run(cell: Cell, venv: Path, job: Job) -> int:
        name = Path(cell.project).parts[-3]  # FETCHED/<name>/sdist-1.0/<the sdist's top folder>
        ran.append(f"{name}:{cell.jax}")
        ran.extend(f"{name}:{variable}={value}" for variable, value in job.environment)
        if name in ("stalled", "stalledfail"):
            return run_stalled(cell, job, failing=name == "stalledfail")
        if name == "twins":
            return run_twins(cell, job)
        if name in SCENARIOS:
            return run_scenario(cell, job, SCENARIOS[name][cell.jax != "0.8.3"])
        if name == "hung" and cell.jax != "0.8.3":
            return run_hung(cell, job)
        if name == "unmatched":  # its -k selects none of its tests: pytest collects nothing, on both sides
            return 5
        status, error_type, message = ("passed", None, None) if cell.jax == "0.8.3" else ON_CANDIDATE[name]
        made = record(cell.jax, cell.flax, cell.python, run_id=job.files.run_id, cell_id=cell.id,
                      jaxlib=cell.jaxlib, case_id="test_mesh::test_sharded_sum", family="test_mesh",
                      status=status, error_type=error_type, error_message=message)
        job.files.results.parent.mkdir(parents=True, exist_ok=True)
        job.files.results.write_text(json.dumps(made) + "\n")
        collected(job.files.results)
        return 0

    def resolves(cell: Cell) -> str | None:
        if "delta" in cell.project and cell.jax == "0.9.0":
            return "Because you require numpy<2 and jax==0.9.0 depends on numpy>=2, your requirements are unsatisfiable"
        return None

    def freeze(venv: Path, dest: Path, cell: Cell | None = None) -> str:
        # As the real freeze, its first line names the project by folder and content (harness.host.project).
        text = (f"{project.provenance(cell.project)}\njax=={cell.jax}\njaxlib=={cell.jaxlib}\nflax=={cell.flax}\n"
                if cell else "")
        dest.parent.mkdir(parents=True, exist_ok=True)
        dest.write_text(text)
        return text

    monkeypatch.setattr(adhoc, "ensure_venv", lambda cell: (tmp_path / "venv", None))
    monkeypatch.setattr(cellrun, "install", lambda *a, **k: None)
    monkeypatch.setattr(cellrun, "freeze", freeze)
    monkeypatch.setattr(cellrun, "interpreter_version", lambda venv: "3.11")
    monkeypatch.setattr(cellrun, "run_pytest", run)
    monkeypatch.setattr(envbuild, "resolves", resolves)
    monkeypatch.setattr(ecosystem_sources, "FETCHED", tmp_path / "fetched")
    return ran


def run_stalled(cell: Cell, job: Job, failing: bool) -> int:
    """A project of two tests whose pytest, at the candidate, stopped at the suite's budget after the first (failing
    there when `failing`). As pytest-timeout's session timeout really ends a session (it sets `shouldfail`), pytest
    exits 1 and the cell finishes, its done marker written (att39's real cells, F18): not an interrupted cell."""
    stopped = cell.jax != "0.8.3"
    broken = stopped and failing
    job.files.results.parent.mkdir(parents=True, exist_ok=True)
    job.files.results.write_text("".join(json.dumps(record(
        cell.jax, cell.flax, cell.python, run_id=job.files.run_id, cell_id=cell.id, jaxlib=cell.jaxlib,
        case_id=f"test_mesh::test_{n}", family="test_mesh", status="failed" if broken else "passed",
        error_type="AssertionError" if broken else None,
        error_message="sharding broke in the candidate" if broken else None)) + "\n"
        for n in ("a", "b")[:1 if stopped else 2]))
    collected(job.files.results, ["test_mesh::test_a", "test_mesh::test_b"])
    job.files.log.write_text("!!! session-timeout: 30.0 sec exceeded !!!\n" if stopped else "2 passed\n")
    return 1 if broken or stopped else 0


def run_hung(cell: Cell, job: Job) -> int:
    """hung's pytest at the candidate: its conftest hangs, and the runner leaves what harness.host.hang makes of it."""
    job.files.log.write_text(f"{hang.HUNG_MARK}: hung in collection after 40 s: its pytest was stopped before any "
                             "test ran\n")
    job.files.results.parent.mkdir(parents=True, exist_ok=True)
    job.files.results.write_text(json.dumps(record(
        cell.jax, cell.flax, cell.python, run_id=job.files.run_id, cell_id=cell.id, jaxlib=cell.jaxlib,
        case_id="test_mesh::test_sharded_sum", family="test_mesh", status="timeout",
        error_type="CollectionTimeout", error_message="hung in collection after 40 s")) + "\n")
    collected(job.files.results)
    return 1


def run_twins(cell: Cell, job: Job) -> int:
    """twins' pytest: each test file of the folders it is given recorded under the id the cell's plugin gives its
    node id with the names the host passed (job.modules); v1's test fails at the candidate."""
    root = Path(cell.project)
    lines, ids = [], []
    for file in sorted(file for folder in job.paths for file in Path(folder).rglob("test_*.py")):
        case_id = case_id_from_nodeid(f"{file.relative_to(root).as_posix()}::test_x", job.modules)
        broken = cell.jax != "0.8.3" and "v1" in file.parts
        lines.append(json.dumps(record(
            cell.jax, cell.flax, cell.python, run_id=job.files.run_id, cell_id=cell.id, jaxlib=cell.jaxlib,
            case_id=case_id, family="test_a", status="failed" if broken else "passed",
            error_type=ERROR[0] if broken else None, error_message=ERROR[1] if broken else None)) + "\n")
        ids.append(case_id)
    job.files.results.parent.mkdir(parents=True, exist_ok=True)
    job.files.results.write_text("".join(lines))
    collected(job.files.results, ids)
    return 0


def run_list(tmp_path: Path, names: list[str], *extra: str) -> tuple[int, list[str]]:
    from reports.cli import judge
    from reports.ecosystem_report import write

    listed = tmp_path / "ecosystem.toml"
    tmp_path.mkdir(parents=True, exist_ok=True)
    listed.write_text(LIST.format(projects="".join(PROJECT.format(name=name) for name in names)))
    said: list[str] = []
    code = ecosystem.run(["jax==0.9.0", "--baseline", BASELINE, "--as-of", "2026-03-01", "--list", str(listed),
                          "--out", str(tmp_path / "out"), *extra], CELLS, judge, write,
                         fetch=fake_index(tmp_path), say=said.append)
    return code, said


def test_one_cause_in_two_projects_is_one_group_and_the_worst_project_decides(
    tmp_path: Path, cells: list[str]
) -> None:
    code, said = run_list(tmp_path, ["alpha", "beta", "gamma", "delta", "slow"])
    assert code == formats.UNSAFE_EXIT  # slow and delta are INCONCLUSIVE: they never hide alpha's and beta's UNSAFE
    summary = read_ecosystem(tmp_path / "out" / "report" / ECOSYSTEM_JSON.name)
    verdicts = {p["name"]: p["verdict"] for p in summary["projects"]}
    assert verdicts == {"alpha": "UNSAFE", "beta": "UNSAFE", "gamma": "SAFE", "delta": "INCONCLUSIVE",
                        "slow": "INCONCLUSIVE", "remote": "SKIPPED"}
    assert {p["name"]: p.get("tests") for p in summary["projects"]}["gamma"] == 1
    (cause,) = summary["causes"]
    assert cause["projects"] == ["alpha", "beta"] and cause["cases"] == 2
    assert cause["example"].startswith("ShardingTypeError: Use `.at[...].get(out_sharding=)`")
    reproducer = cause["reproducers"][0]
    assert (reproducer["project"], reproducer["revision"], reproducer["case_id"]) == (
        "alpha", "1.0 (sdist alpha-1.0.tar.gz)", "test_mesh::test_sharded_sum")
    assert reproducer["pins"] == {"jax": "0.9.0", "jaxlib": "0.9.0", "flax": "0.12.3"}
    page = (tmp_path / "out" / "report" / ECOSYSTEM_MD).read_text()
    assert "in 2 project(s): alpha, beta (2 test(s))" in page
    assert "- remote: https:\u200d//git.invalid/remote cannot be reached from here" in page  # linked by nobody
    comment = (tmp_path / "out" / "report" / ECOSYSTEM_COMMENT_MD).read_text()
    assert comment.startswith("### Ecosystem: jax==0.9.0 against jax==0.8.3,flax==0.12.3, as of 2026-03-01")
    assert len(comment) <= 4000
    assert "**UNSAFE**: 2 of 5 project(s) judged break, 2 inconclusive (1 cause(s)); 1 skipped" in comment
    assert "remote: skipped: https://git.invalid/remote cannot be reached" in "\n".join(said)


def project_of(tmp_path: Path, name: str) -> dict[str, Any]:
    summary = read_ecosystem(tmp_path / "out" / "report" / ECOSYSTEM_JSON.name)
    return next(p for p in summary["projects"] if p["name"] == name)


def test_a_safe_project_whose_tests_mostly_skip_on_both_sides_says_how_few_could_regress(
    tmp_path: Path, cells: list[str]
) -> None:
    assert run_list(tmp_path, ["fewran"], "--only", "fewran")[0] == formats.SAFE_EXIT
    found = project_of(tmp_path, "fewran")
    assert (found["verdict"], found["coverage"]) == (
        "SAFE", "1 of 10 tests could show a regression (9 skipped on both sides)")
    assert "1 of 10 tests could show a regression" in (tmp_path / "out/report/ecosystem.md").read_text()


def test_a_safe_project_whose_baseline_is_mostly_red_says_how_few_could_regress(
    tmp_path: Path, cells: list[str]
) -> None:
    assert run_list(tmp_path, ["redbase"], "--only", "redbase")[0] == formats.SAFE_EXIT
    assert project_of(tmp_path, "redbase")["coverage"] == (
        "1 of 10 tests could show a regression (9 failing on both sides)")


def test_a_passing_test_skipped_at_the_candidate_is_a_cause_named_by_its_reason_across_projects(
    tmp_path: Path, cells: list[str]
) -> None:
    code, _ = run_list(tmp_path, ["gone", "gonetoo"], "--only", "gone", "--only", "gonetoo")
    assert code == formats.UNSAFE_EXIT
    summary = read_ecosystem(tmp_path / "out" / "report" / ECOSYSTEM_JSON.name)
    (cause,) = summary["causes"]
    assert (cause["signature"], cause["projects"], cause["cases"]) == (
        f"skipped: {GONE}", ["gone", "gonetoo"], 4)
    assert [r["case_id"] for r in cause["reproducers"]] == ["test_mesh::test_0", "test_mesh::test_0"]
    assert GONE in (tmp_path / "out/report/ecosystem-comment.md").read_text()


def test_a_project_whose_test_folders_repeat_a_module_name_is_judged_naming_the_file_that_broke(
    tmp_path: Path, cells: list[str]
) -> None:
    """twins holds a test_a.py in each of tests/core and tests/deprecated/v1, listed as `tests` whole: each is named
    by the end of its path, on the host and in the cell alike, and v1's break is UNSAFE naming v1's file, not
    core's."""
    code, said = run_list(tmp_path, ["twins"], "--only", "twins")
    (twins,) = read_ecosystem(tmp_path / "out" / "report" / ECOSYSTEM_JSON.name)["projects"]
    assert (code, twins["verdict"]) == (formats.UNSAFE_EXIT, "UNSAFE"), said
    assert twins["tests"] == 2 and [cause["cases"] for cause in twins["causes"]] == [["v1/test_a::test_x"]]


def test_a_project_that_cannot_be_installed_at_the_candidate_is_inconclusive_naming_the_conflict(
    tmp_path: Path, cells: list[str]
) -> None:
    code, _ = run_list(tmp_path, ["delta"])
    assert code == formats.INCONCLUSIVE_EXIT
    summary = read_ecosystem(tmp_path / "out" / "report" / ECOSYSTEM_JSON.name)
    delta = summary["projects"][0]
    assert delta["reason"].startswith("jax0.9.0-flax0.12.3-py3.11 cannot be installed: Because you require numpy<2")
    assert not any(ran.startswith("delta") for ran in cells)  # refused before anything was built


def test_a_hanging_suite_is_stopped_at_its_budget_and_is_inconclusive(tmp_path: Path, cells: list[str]) -> None:
    code, said = run_list(tmp_path, ["slow"])
    assert code == formats.INCONCLUSIVE_EXIT
    assert "slow: INCONCLUSIVE: " in "\n".join(said) and "timeout" in "\n".join(said)


def test_a_suite_past_its_whole_suite_budget_is_inconclusive_naming_the_budget(tmp_path: Path,
                                                                                cells: list[str]) -> None:
    code, said = run_list(tmp_path, ["stalled"], "--only", "stalled")
    summary = read_ecosystem(tmp_path / "out" / "report" / ECOSYSTEM_JSON.name)
    (stalled,) = summary["projects"]
    assert code == formats.INCONCLUSIVE_EXIT and stalled["verdict"] == "INCONCLUSIVE"
    assert stalled["reason"].startswith("its suite ran past its budget of 30 s in a cell and was stopped: ")
    assert "stalled: INCONCLUSIVE: its suite ran past its budget of 30 s" in "\n".join(said)


def test_a_regression_recorded_before_the_suite_ran_past_its_budget_is_unsafe_with_its_cause(
    tmp_path: Path, cells: list[str]
) -> None:
    code, _ = run_list(tmp_path, ["stalledfail"], "--only", "stalledfail")
    summary = read_ecosystem(tmp_path / "out" / "report" / ECOSYSTEM_JSON.name)
    (stalled,) = summary["projects"]
    assert code == formats.UNSAFE_EXIT and stalled["verdict"] == "UNSAFE"
    assert [c["signature"] for c in stalled["causes"]] == ["AssertionError: sharding broke in the candidate"]


def test_a_suite_that_hangs_in_collection_is_inconclusive_naming_the_hang_and_the_cell(tmp_path: Path,
                                                                                       cells: list[str]) -> None:
    """The runner stops a pytest stuck before its first test (harness.host.hang) and says so in the cell's log; the
    project's reason names it, and the cell, instead of a bare "could not be judged"."""
    code, _ = run_list(tmp_path, ["hung"], "--only", "hung")
    (hung,) = read_ecosystem(tmp_path / "out" / "report" / ECOSYSTEM_JSON.name)["projects"]
    assert (code, hung["verdict"]) == (formats.INCONCLUSIVE_EXIT, "INCONCLUSIVE")
    assert hung["reason"] == ("its suite hung in collection after 40 s: its pytest was stopped before any test ran "
                              "(in jax0.9.0-flax0.12.3-py3.11)")


def test_a_selection_that_selects_nothing_on_either_side_is_inconclusive_naming_it(tmp_path: Path,
                                                                                    cells: list[str]) -> None:
    code, said = run_list(tmp_path, ["unmatched"], "--only", "unmatched")
    (unmatched,) = read_ecosystem(tmp_path / "out" / "report" / ECOSYSTEM_JSON.name)["projects"]
    assert (code, unmatched["verdict"]) == (formats.INCONCLUSIVE_EXIT, "INCONCLUSIVE"), said
    assert unmatched["reason"].startswith(f"its selection (-k '{ecosystem_list.SHARDING}') selects no test in "
                                          "either cell"), unmatched["reason"]


def test_a_selection_pytest_cannot_parse_is_refused_in_one_line_naming_the_project(
        tmp_path: Path, cells: list[str], monkeypatch: pytest.MonkeyPatch) -> None:
    """Pair: the list refuses its own bad expressions (tests/test_ecosystem_list.py); upgrade's `-k` and `-m`, which
    the ecosystem hands on, are checked with pytest's own grammar too, before a cell is built."""
    said: list[str] = []
    from harness.tools import upgrade

    def parsed(*argv: str) -> options.LeftOut:
        return options.left_out(upgrade.parser().parse_strictly(["jax==0.9.0", *argv]))

    with pytest.raises(options.OptionsError, match=r"-k 'shard and \(': not a pytest -k expression \("):
        parsed("-k", "shard and (")
    with pytest.raises(options.OptionsError, match=r"-m 'not': not a pytest -m expression"):
        parsed("-m", "not")
    assert parsed("-k", "shard or mesh", "-m", "not tpu").keywords == "shard or mesh"
    listed = tmp_path / "ecosystem.toml"  # handed on by the ecosystem: the project is INCONCLUSIVE, named
    listed.write_text(LIST.format(projects=PROJECT.format(name="gamma")))
    monkeypatch.setattr(ecosystem_list, "_unparsed", lambda expression: "")  # as a list read by another pytest
    monkeypatch.setattr(ecosystem_list.Entry, "keyword_expression", lambda self, whole=False: "shard and (")
    ecosystem.run(["jax==0.9.0", "--baseline", BASELINE, "--as-of", "2026-03-01", "--list", str(listed), "--only",
                   "gamma", "--out", str(tmp_path / "out")], CELLS, cli_judge(), draw(),
                  fetch=fake_index(tmp_path), say=said.append)
    assert any(line.startswith("gamma: -k 'shard and (': not a pytest -k expression") for line in said)
    assert cells == [], "refused before any cell was built"


def test_a_suite_within_its_budget_names_no_budget(tmp_path: Path, cells: list[str]) -> None:
    code, _ = run_list(tmp_path, ["gamma"], "--only", "gamma")
    summary = read_ecosystem(tmp_path / "out" / "report" / ECOSYSTEM_JSON.name)
    assert code == formats.SAFE_EXIT and "budget" not in summary["projects"][0]["reason"]


def test_the_summary_names_its_files_relative_to_the_output_folder(tmp_path: Path, cells: list[str]) -> None:
    run_list(tmp_path, ["gamma"], "--only", "gamma")
    (gamma,) = read_ecosystem(tmp_path / "out" / "report" / ECOSYSTEM_JSON.name)["projects"]
    assert gamma["report"] == "report/ecosystem/gamma.md" and (tmp_path / "out" / gamma["report"]).is_file()
    assert gamma["changes_from"].startswith("report/") and (tmp_path / "out" / gamma["changes_from"]).is_file()
    # Pair: a file outside the output folder keeps its full name.
    assert ecosystem.within(tmp_path / "elsewhere.json", tmp_path / "out") == str(tmp_path / "elsewhere.json")


def run_with_env(tmp_path: Path, env: str) -> None:
    """gamma with `env` as its list's variables, then alpha with none."""
    listed = tmp_path / "ecosystem.toml"
    listed.write_text(LIST.format(projects=PROJECT.format(name="gamma") + env + PROJECT.format(name="alpha")))
    ecosystem.run(["jax==0.9.0", "--baseline", BASELINE, "--as-of", "2026-03-01", "--list", str(listed), "--only",
                   "gamma", "--only", "alpha", "--out", str(tmp_path / "out")], CELLS, cli_judge(), draw(),
                  fetch=fake_index(tmp_path), say=lambda line: None)


def test_a_projects_variables_reach_its_cells_and_no_other_projects(tmp_path: Path, cells: list[str],
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("KERAS_BACKEND", raising=False)
    run_with_env(tmp_path, 'env = { KERAS_BACKEND = "jax" }\n')
    assert cells == ["gamma:0.8.3", "gamma:KERAS_BACKEND=jax", "gamma:0.9.0", "gamma:KERAS_BACKEND=jax",
                     "alpha:0.8.3", "alpha:0.9.0"], "alpha's cells run without gamma's variable"
    assert "KERAS_BACKEND" not in os.environ  # given to the cells, never set in the command's own process


def test_a_projects_changed_variables_run_its_cells_again_and_the_same_reuse_them(tmp_path: Path,
                                                                                  cells: list[str]) -> None:
    run_with_env(tmp_path, 'env = { KERAS_BACKEND = "jax" }\n')
    cells.clear()
    run_with_env(tmp_path, 'env = { KERAS_BACKEND = "jax" }\n')
    assert cells == [], "unchanged inputs: every cell reused from the results cache"
    run_with_env(tmp_path, 'env = { KERAS_BACKEND = "torch" }\n')
    assert cells == ["gamma:0.8.3", "gamma:KERAS_BACKEND=torch", "gamma:0.9.0", "gamma:KERAS_BACKEND=torch"]


def cli_judge() -> Any:
    from reports.cli import judge

    return judge


def draw() -> Any:
    from reports.ecosystem_report import write

    return write


def test_every_project_safe_is_safe_and_nothing_judged_is_inconclusive(tmp_path: Path, cells: list[str]) -> None:
    assert run_list(tmp_path, ["gamma"], "--only", "gamma")[0] == formats.SAFE_EXIT
    summary = read_ecosystem(tmp_path / "out" / "report" / ECOSYSTEM_JSON.name)
    assert (summary["verdict"], summary["causes"]) == ("SAFE", [])
    # remote, skipped (its git host out of reach): a listed project never run leaves the run no SAFE to give.
    assert run_list(tmp_path / "with-remote", ["gamma"])[0] == formats.INCONCLUSIVE_EXIT
    code, _ = run_list(tmp_path, [], "--only", "remote")
    assert code == formats.INCONCLUSIVE_EXIT  # skipped is no answer: nothing judged is never SAFE


def test_each_project_runs_with_its_tests_selection_devices_and_budget(tmp_path: Path) -> None:
    from shardmatrix.ecosystem_list import Entry

    entry = Entry(name="alpha", why="x", source="sdist", tests=("tests", "more"), package="alpha", markers="not tpu",
                  requires=("optax",), devices=4, budget=60, suite_budget=600)
    argv = ecosystem.project_argv(entry, tmp_path, whole_suite=False)
    assert argv[:8] == ["--project", str(tmp_path), "--devices", "4", "--timeout", "60", "--suite-budget", "600"]
    assert argv[argv.index("-k") + 1] == entry.keywords and argv[argv.index("-m") + 1] == "not tpu"
    assert [argv[i + 1] for i, arg in enumerate(argv) if arg == "--cases"] == [str(tmp_path / "tests"),
                                                                             str(tmp_path / "more")]
    assert argv[argv.index("--with") + 1] == "optax"
    assert "-k" not in ecosystem.project_argv(entry, tmp_path, whole_suite=True)


def test_what_a_project_leaves_out_reaches_its_cells_pytest(tmp_path: Path) -> None:
    """A path through pytest's --ignore (PYTEST_ADDOPTS, which the list refuses in env), a test through upgrade's
    --deselect; an entry that leaves out nothing sets no PYTEST_ADDOPTS."""
    from shardmatrix.ecosystem_list import Entry, Exclusion

    root = tmp_path / "a folder"
    entry = Entry(name="qwix", why="x", source="git", tests=("tests",), package="qwix",
                  env=(("KERAS_BACKEND", "jax"),),
                  exclude=(Exclusion("path", "tests/contrib/kernels", "imports google3"),
                           Exclusion("test", "core/misc_util_test::test_x", "reads the network")))
    argv = ecosystem.project_argv(entry, root, whole_suite=False)
    assert argv[argv.index("--deselect") + 1] == "core/misc_util_test::test_x"
    assert [argv[i + 1] for i, arg in enumerate(argv) if arg == "--env"] == [
        "KERAS_BACKEND=jax", f"PYTEST_ADDOPTS='--ignore={root}/tests/contrib/kernels'"]
    plain = ecosystem.project_argv(Entry(name="a", why="x", source="git", tests=("tests",), package="a"), root, False)
    assert "--env" not in plain and "--deselect" not in plain


def test_as_of_defaults_to_the_candidates_upload_day() -> None:
    assert ecosystem.as_of("", {"jax": "0.9.0"}, jax_index("2026-01-21")) == date(2026, 1, 21)
    assert ecosystem.as_of("2026-02-01", {"jax": "0.9.0"}, jax_index()) == date(2026, 2, 1)
    # Both named: the first day both existed (flax 0.12.3 came a week after jax 0.9.0), not jax's day.
    assert ecosystem.as_of("", {"jax": "0.9.0", "flax": "0.12.3"}, jax_index()) == date(2026, 1, 27)
    assert ecosystem.shared_argv(ecosystem.parser().parse_strictly(["jax==0.9.0"]), date(2026, 1, 20))[:2] == [
        "--exclude-newer", "2026-01-21"]  # the whole of the day: uv excludes from the start of the day given


def never(*args: Any, **kwargs: Any) -> Any:
    pytest.fail("nothing may be judged or drawn after bad input")


def test_no_candidate_is_refused_in_one_line(tmp_path: Path) -> None:
    with pytest.raises(ecosystem.EcosystemError, match=r"name the candidate"):
        ecosystem.run(["--baseline", BASELINE], CELLS, never, never, fetch=jax_index())
    with pytest.raises(pins.PinError, match=r"only jax, jaxlib, flax can be pinned"):
        ecosystem.run(["optax==0.2.5"], CELLS, never, never, fetch=jax_index())


def bisect_finding(monkeypatch: pytest.MonkeyPatch, status: str, message: str, absent_is_bad: bool = False
                   ) -> list[list[str]]:
    """bisect.run faked to find jax 0.9.0 the first bad release (its probe `status` with `message`) between 0.8.3 and
    0.9.0; the argv of every search asked, in order."""
    from packaging.version import Version

    from harness.tools import bisect

    asked: list[list[str]] = []

    def search(argv: list[str], cells: list[Cell], **kwargs: Any) -> bisect.Outcome:
        asked.append(argv)
        return bisect.Outcome([Version("0.8.3"), Version("0.9.0")], first_bad=bisect.Probe(
            Version("0.9.0"), status, message, "jax0.9.0-flax0.12.3-py3.11", absent_is_bad=absent_is_bad))

    monkeypatch.setattr(bisect, "run", search)
    return asked


def test_bisect_searches_each_cause_once_from_the_baseline_release_and_the_report_names_the_first_bad(
    tmp_path: Path, cells: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    asked = bisect_finding(monkeypatch, "failed", ERROR[1])
    code, _ = run_list(tmp_path, ["alpha", "beta"], "--bisect")
    assert code == formats.UNSAFE_EXIT
    (argv,) = asked  # one cause in two projects: one search, from its first project
    assert argv[argv.index("--case") + 1] == "test_mesh::test_sharded_sum"
    assert [argv[argv.index(flag) + 1] for flag in ("--good", "--bad", "--flax")] == [
        "jax==0.8.3", "jax==0.9.0", "==0.12.3"]
    assert "alpha" in argv[argv.index("--project") + 1] and "-k" not in argv and "--run-id" not in argv
    # The verdict's world: the day's index (2026-03-01's run resolves before 03-02), no removal's --stops-passing.
    assert argv[argv.index("--exclude-newer") + 1] == "2026-03-02" and "--stops-passing" not in argv
    summary = read_ecosystem(tmp_path / "out" / "report" / ECOSYSTEM_JSON.name)
    assert summary["causes"][0]["first_bad"] == "jax==0.9.0"
    assert "bisect_argv" not in summary["projects"][0]
    assert "   - first bad release: jax==0.9.0" in (tmp_path / "out" / "report" / ECOSYSTEM_MD).read_text()


def test_bisect_names_a_first_bad_release_on_every_row_of_the_causes(monkeypatch: pytest.MonkeyPatch) -> None:
    """A test's own failed check stays its project's row (reports.verdicts.ecosystem_judge.shared): one search per
    such row, each project's own test; a shared error is one row and one search, written into every project's cause;
    a cause without a test says why it was not searched."""
    from packaging.version import Version

    from harness.tools import bisect
    from reports.verdicts.ecosystem_judge import group

    asked: list[str] = []

    def search(argv: list[str], cells: list[Cell], **kwargs: Any) -> bisect.Outcome:
        case = argv[argv.index("--case") + 1]
        asked.append(case)
        bad = Version("0.9.0" if case.startswith("alpha") else "0.8.3")
        return bisect.Outcome([Version("0.8.3"), Version("0.9.0")], first_bad=bisect.Probe(bad, "failed", "x", "c"))

    monkeypatch.setattr(bisect, "run", search)
    own, common = "AssertionError: 1 != 2", "ShardingTypeError: gather needs out_sharding"
    outcomes = [{"name": name, "verdict": "UNSAFE", "bisect_argv": [],
                 "causes": [{"signature": own, "cases": [f"{name}_test::test_own"]},
                            {"signature": common, "cases": [f"{name}_test::test_gather"]}]}
                for name in ("alpha", "beta")]
    outcomes[1]["causes"].append({"signature": "ValueError: no test", "cases": []})
    ecosystem.bisect_causes(outcomes, {"jax": "0.9.0"}, {"jax": "0.8.2", "flax": "0.12.3"}, CELLS, jax_index(),
                            lambda line: None, "p", [])
    assert asked == ["alpha_test::test_own", "alpha_test::test_gather", "beta_test::test_own"]
    rows = {(tuple(g.projects), g.signature): (g.first_bad, g.bisect) for g in group(outcomes)}
    assert rows == {(("alpha",), own): ("jax==0.9.0", ""), (("beta",), own): ("jax==0.8.3", ""),
                    (("alpha", "beta"), common): ("jax==0.9.0", ""),
                    (("beta",), "ValueError: no test"): ("", "no test of this cause to bisect")}


def test_bisect_of_a_source_candidate_is_refused_in_one_line_and_the_verdict_stands(
    tmp_path: Path, cells: list[str]
) -> None:
    said: list[str] = []
    outcomes = [{"name": "alpha", "causes": [{"signature": "E", "cases": ["t::a"]}], "bisect_argv": []}]
    ecosystem.bisect_causes(outcomes, {"jax": "0.9.0", "flax": "0.12.6"}, {"jax": "0.8.3", "flax": "0.12.3"},
                            CELLS, jax_index(), said.append, "p", [])
    assert said == ["--bisect: only a bump of jax or of flax by release, against a baseline naming both, can be "
                    "bisected"]
    assert "first_bad" not in outcomes[0]["causes"][0]
    assert outcomes[0]["causes"][0]["bisect"] == ("only a bump of jax or of flax by release, against a baseline "
                                                  "naming both, can be bisected")  # the row says why


def test_a_run_stopped_part_way_keeps_the_report_of_what_it_judged(tmp_path: Path, cells: list[str],
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    real = ecosystem.project_outcome

    def stop_at_beta(entry: Any, *args: Any, **kwargs: Any) -> dict[str, Any]:
        if entry.name == "beta":
            raise KeyboardInterrupt
        return real(entry, *args, **kwargs)

    monkeypatch.setattr(ecosystem, "project_outcome", stop_at_beta)
    with pytest.raises(KeyboardInterrupt):
        run_list(tmp_path, ["gamma", "beta"])
    summary = read_ecosystem(tmp_path / "out" / "report" / ECOSYSTEM_JSON.name)
    assert [p["name"] for p in summary["projects"]] == ["gamma"] and summary["pending"] == ["beta", "remote"]
    assert summary["verdict"] == "INCONCLUSIVE"  # gamma is SAFE, but the rest never ran
    assert "not run yet (stopped, or still running): beta, remote" in (
        tmp_path / "out" / "report" / ECOSYSTEM_MD).read_text()


def test_a_bad_baseline_is_refused_before_any_project_is_fetched(tmp_path: Path) -> None:
    with pytest.raises(pins.PinError, match=r"'jax=0.8.3' is not a pin like jax==0.11.2"):
        ecosystem.run(["jax==0.9.0", "--baseline", "jax=0.8.3", "--as-of", "2026-01-20"], CELLS, never, never,
                      fetch=jax_index())


def test_a_comparison_that_cannot_be_read_leaves_that_project_inconclusive_and_the_run_going(
    tmp_path: Path, cells: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from reports import cli

    real, calls = cli.judge, []

    def judge(out: Path, before: str, after: str, **kwargs: Any) -> Any:
        calls.append(before)
        if len(calls) == 1:  # the first project's (gamma's) comparison
            raise formats.ShardmatrixError(f"--compare {before} {after}: results unreadable")
        return real(out, before, after, **kwargs)

    monkeypatch.setattr(cli, "judge", judge)
    code, _ = run_list(tmp_path, ["gamma", "alpha"])
    summary = read_ecosystem(tmp_path / "out" / "report" / ECOSYSTEM_JSON.name)
    verdicts = {p["name"]: (p["verdict"], p["reason"]) for p in summary["projects"]}
    assert verdicts["gamma"][0] == "INCONCLUSIVE" and "results unreadable" in verdicts["gamma"][1]
    assert verdicts["alpha"][0] == "UNSAFE" and code == formats.UNSAFE_EXIT


def test_plan_prints_the_projects_as_a_matrix_include_list_and_runs_nothing(tmp_path: Path) -> None:
    listed = tmp_path / "ecosystem.toml"
    listed.write_text(LIST.format(projects=PROJECT.format(name="alpha")))
    said: list[str] = []
    assert ecosystem.run(["--plan", "--list", str(listed)], CELLS, never, never, say=said.append) == 0
    assert json.loads(said[-1]) == [{"project": "alpha"}, {"project": "remote"}]
    said.clear()
    assert ecosystem.run(["--plan", "--list", str(listed), "--only", "remote"], CELLS, never, never,
                         say=said.append) == 0
    assert json.loads(said[-1]) == [{"project": "remote"}]


@pytest.mark.parametrize(("given", "flag"), [(["--bisect"], "--bisect"), (["--force"], "--force"),
                                             (["--whole-suite"], "--whole-suite"), (["--out", "/tmp/zz"], "--out")])
def test_plan_refuses_what_only_a_run_can_use_never_ignores_it(tmp_path: Path, given: list[str], flag: str) -> None:
    """Attack 39's F15 leftover: `--plan --bisect --force --whole-suite --out DIR` ran nothing and said nothing."""
    listed = tmp_path / "ecosystem.toml"
    listed.write_text(LIST.format(projects=PROJECT.format(name="alpha")))
    with pytest.raises(ecosystem.EcosystemError, match=rf"^{flag} means nothing for --plan, which runs and writes "
                                                       r"nothing"):
        ecosystem.run(["--plan", "--list", str(listed), *given], CELLS, never, never, say=lambda line: None)


def test_merge_fans_in_one_report_from_one_job_per_project(tmp_path: Path, cells: list[str]) -> None:
    from reports.ecosystem_report import write

    for name in ("alpha", "gamma"):
        run_list(tmp_path / name, [name], "--only", name)
    listed = tmp_path / "ecosystem.toml"
    listed.write_text(LIST.format(projects=PROJECT.format(name="alpha") + PROJECT.format(name="gamma")))
    said: list[str] = []
    code = ecosystem.run(["--merge", str(tmp_path / "alpha" / "out"), str(tmp_path / "gamma" / "out"), "--list",
                          str(listed), "--only", "alpha", "--only", "gamma", "--out", str(tmp_path / "all")],
                         CELLS, never, write, say=said.append)
    assert code == formats.UNSAFE_EXIT and said[-1] == "UNSAFE"
    summary = read_ecosystem(tmp_path / "all" / "report" / ECOSYSTEM_JSON.name)
    assert [p["name"] for p in summary["projects"]] == ["alpha", "gamma"]
    for one in summary["projects"]:  # named from the merged report's folder, not the job's
        assert all(not Path(one[key]).is_absolute() and (tmp_path / "all" / one[key]).is_file()
                   for key in ecosystem_merge.PATHS), one
    assert summary["causes"][0]["projects"] == ["alpha"]
    with pytest.raises(ecosystem_merge.MergeError, match=r"project alpha is in an earlier folder too, or twice in"):
        ecosystem_merge.merged([tmp_path / "alpha" / "out", tmp_path / "alpha" / "out"])
    with pytest.raises(ecosystem_merge.MergeError, match=r"none of the 1 folder\(s\) holds a report/ecosystem.json"):
        ecosystem_merge.merged([tmp_path / "nowhere"])


def test_merge_names_a_planned_project_whose_job_left_no_report_inconclusive(tmp_path: Path,
                                                                              cells: list[str]) -> None:
    from reports.ecosystem_report import write

    run_list(tmp_path / "gamma", ["gamma"], "--only", "gamma")
    listed = tmp_path / "ecosystem.toml"
    listed.write_text(LIST.format(projects=PROJECT.format(name="gamma") + PROJECT.format(name="slow")))
    said: list[str] = []
    stopped = tmp_path / "slow" / "out"  # a job that timed out: its results uploaded, no report
    (stopped / "results").mkdir(parents=True)
    code = ecosystem.run(["--merge", str(tmp_path / "gamma" / "out"), str(stopped), "--list", str(listed),
                          "--only", "gamma", "--only", "slow", "--out", str(tmp_path / "all")], CELLS, never, write,
                         say=said.append)
    assert code == formats.INCONCLUSIVE_EXIT and said[-1] == "INCONCLUSIVE"
    assert f"--merge {stopped}: no ecosystem.json under its report/: left out" in said
    summary = read_ecosystem(tmp_path / "all" / "report" / ECOSYSTEM_JSON.name)
    verdicts = {p["name"]: (p["verdict"], p["reason"]) for p in summary["projects"]}
    assert verdicts == {"gamma": ("SAFE", verdicts["gamma"][1]), "slow": ("INCONCLUSIVE", ecosystem_merge.NO_REPORT)}
    assert "remote" not in verdicts, "only the selection the plan fanned out is expected"


def test_merge_refuses_runs_of_another_candidate(tmp_path: Path, cells: list[str]) -> None:
    run_list(tmp_path / "a", ["gamma"], "--only", "gamma")
    other = tmp_path / "b" / "out" / "report"
    other.mkdir(parents=True)
    document = read_ecosystem(tmp_path / "a" / "out" / "report" / ECOSYSTEM_JSON.name)
    # A run that judged no project says INCONCLUSIVE (reports.verdicts.ecosystem_judge.worst), never SAFE.
    write_ecosystem(other, {**document, "candidate": ["jax==0.9.1"], "verdict": "INCONCLUSIVE", "projects": []})
    with pytest.raises(ecosystem_merge.MergeError, match=r"--merge .*/b/out: another run"):
        ecosystem_merge.merged([tmp_path / "a" / "out", tmp_path / "b" / "out"])


def merge(tmp_path: Path, parts: list[Path], *extra: str) -> tuple[int, list[str]]:
    """`--merge` of `parts` under the list of alpha, gamma and remote."""
    from reports.ecosystem_report import write

    listed = tmp_path / "merged.toml"
    listed.write_text(LIST.format(projects=PROJECT.format(name="alpha") + PROJECT.format(name="gamma")))
    said: list[str] = []
    code = ecosystem.run(["--merge", *map(str, parts), "--out", str(tmp_path / "all"), "--list", str(listed),
                          *extra], CELLS, never, write, say=said.append)
    return code, said


def test_merge_counts_a_listed_project_no_job_reported_inconclusive_never_safe(tmp_path: Path, cells: list[str]
                                                                                   ) -> None:
    run_list(tmp_path / "gamma", ["gamma"], "--only", "gamma")
    # alpha's job died before writing its summary (and remote's was never run): the SAFE gamma cannot speak for them.
    code, said = merge(tmp_path, [tmp_path / "gamma" / "out"])
    assert (code, said[-1]) == (formats.INCONCLUSIVE_EXIT, "INCONCLUSIVE")
    summary = read_ecosystem(tmp_path / "all" / "report" / ECOSYSTEM_JSON.name)
    assert [(p["name"], p["verdict"], p["reason"]) for p in summary["projects"]] == [
        ("gamma", "SAFE", ""), ("alpha", "INCONCLUSIVE", ecosystem_merge.NO_REPORT),
        ("remote", "INCONCLUSIVE", ecosystem_merge.NO_REPORT)]
    assert merge(tmp_path, [tmp_path / "gamma" / "out"], "--only", "gamma")[0] == formats.SAFE_EXIT


def test_merge_refuses_a_project_the_list_does_not_hold(tmp_path: Path, cells: list[str]) -> None:
    run_list(tmp_path / "beta", ["beta"], "--only", "beta")  # run under another list
    with pytest.raises(ecosystem_merge.MergeError, match=r"--merge .*/beta/out: project beta is not in the list's "
                                                        r"selection \(alpha, gamma, remote\)"):
        merge(tmp_path, [tmp_path / "beta" / "out"])


#: A SAFE project as a run writes it (att39's hand-written parts carry none of it).
EVIDENCE = '"revision": "1.0", "baseline": "b", "candidate": "c", "tests": 3'


def test_merge_refuses_a_summary_it_cannot_read_in_one_line(tmp_path: Path) -> None:
    part = tmp_path / "part" / "report"
    part.mkdir(parents=True)
    (part / ECOSYSTEM_JSON.name).write_text(f'{{{HEAD}, "projects": [{{"name": "alpha"}}]}}')
    with pytest.raises(formats.ShardmatrixError, match=r"project alpha: does not name its project and its verdict"):
        merge(tmp_path, [tmp_path / "part"])


def test_merge_reads_a_safe_part_without_the_evidence_a_run_writes_as_inconclusive(tmp_path: Path) -> None:
    for name, evidence in (("bare", ""), ("earned", f", {EVIDENCE}")):
        part = tmp_path / name / "report"
        part.mkdir(parents=True)
        (part / ECOSYSTEM_JSON.name).write_text(
            f'{{{HEAD}, "verdict": "SAFE", '
            f'"projects": [{{"name": "{name}", "verdict": "SAFE", "causes": []{evidence}}}]}}')
    found = ecosystem_merge.merged([tmp_path / "bare", tmp_path / "earned"], say=lambda line: None)
    assert [(p["name"], p["verdict"], p.get("reason", "")) for p in found["projects"]] == [
        ("bare", "INCONCLUSIVE", ecosystem_merge.NO_EVIDENCE), ("earned", "SAFE", "")]


def test_merge_reads_a_safe_part_of_summary_schema_1_as_judged_by_older_rules_and_keeps_its_unsafe(
        tmp_path: Path) -> None:
    """Attack 39b's B1: a SAFE written before a SAFE had to count the tests skipped or failing on both sides (schema
    1) merged as a plain SAFE, though it carried every evidence a run writes."""
    older = HEAD.replace('"schema_version": 2', '"schema_version": 1')
    part = tmp_path / "old" / "report"
    part.mkdir(parents=True)
    (part / ECOSYSTEM_JSON.name).write_text(
        f'{{{older}, "verdict": "UNSAFE", '
        f'"projects": [{{"name": "fewskip", "verdict": "SAFE", "causes": [], {EVIDENCE}}}, '
        f'{{"name": "gone", "verdict": "UNSAFE", "causes": [], {EVIDENCE}}}]}}')
    found = ecosystem_merge.merged([tmp_path / "old"], say=lambda line: None)
    assert [(p["name"], p["verdict"], p.get("reason", "")) for p in found["projects"]] == [
        ("fewskip", "INCONCLUSIVE", ecosystem_merge.OLDER_RULES), ("gone", "UNSAFE", "")]
    assert found["projects"][0]["reason"].startswith("judged by an older shardmatrix (summary schema 1)")


def test_a_baseline_not_older_than_the_candidate_is_refused_before_any_project_is_fetched() -> None:
    for baseline in ("jax==0.9.0,flax==0.12.3", "jax==0.9.2,flax==0.12.3"):
        with pytest.raises(ecosystem.EcosystemError, match=rf"--baseline jax=={baseline[5:10]} is not older than "
                                                           r"the candidate jax==0.9.0"):
            ecosystem.run(["jax==0.9.0", "--baseline", baseline, "--as-of", "2026-02-01"], CELLS, never, never,
                          fetch=jax_index())
    with pytest.raises(ecosystem.EcosystemError, match=r"--baseline flax==0.12.3 is not older than the candidate "
                                                       r"flax==0.12.0"):  # jax moves, flax moves backwards
        ecosystem.run(["jax==0.9.0", "flax==0.12.0", "--baseline", "jax==0.8.2,flax==0.12.3", "--as-of", "2026-02-01"],
                      CELLS, never, never, fetch=jax_index())


def test_a_package_named_alike_on_both_sides_is_held_while_the_other_moves() -> None:
    # jax moves and flax 0.12.3 is held: checked, not refused as "not older".
    ecosystem.check_sides({"jax": "0.9.0", "flax": "0.12.3"}, {"jax": "0.8.2", "flax": "0.12.3"}, date(2026, 2, 1),
                          jax_index())


def test_an_as_of_day_before_a_side_reached_the_index_is_refused_naming_it() -> None:
    # jax 0.9.0 reached the index on 2026-01-20: every project's cells, resolved as of the 10th, would fail to build.
    with pytest.raises(ecosystem.EcosystemError, match=r"the candidate jax==0.9.0 reached the index on 2026-01-20, "
                                                       r"after --as-of 2026-01-10"):
        ecosystem.run(["jax==0.9.0", "--baseline", "jax==0.8.2,flax==0.12.0", "--as-of", "2026-01-10"], CELLS,
                      never, never, fetch=jax_index())
    with pytest.raises(ecosystem.EcosystemError, match=r"the baseline flax==0.12.3 reached the index on 2026-01-27"):
        ecosystem.run(["jax==0.9.0", "--baseline", BASELINE, "--as-of", "2026-01-20"], CELLS, never, never,
                      fetch=jax_index())
    ecosystem.check_sides({"jax": "0.9.0"}, {"jax": "0.8.3", "flax": "0.12.3"}, date(2026, 1, 29), jax_index())


def test_an_as_of_day_after_today_is_refused() -> None:
    with pytest.raises(ecosystem.EcosystemError, match=r"--as-of 2026-12-01 is after today \(2026-11-27\)"):
        ecosystem.as_of("2026-12-01", {"jax": "0.9.0"}, jax_index(), today=date(2026, 11, 27))
    assert ecosystem.as_of("2026-11-27", {"jax": "0.9.0"}, jax_index(), today=date(2026, 11, 27)) == date(2026, 11, 27)


def test_a_removal_is_bisected_to_where_its_test_stops_passing_in_the_verdicts_world(
    tmp_path: Path, cells: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    asked = bisect_finding(monkeypatch, NA, GONE, absent_is_bad=True)
    code, _ = run_list(tmp_path, ["gone"], "--only", "gone", "--bisect", "--pre", "--index", "https://nightly.example")
    assert code == formats.UNSAFE_EXIT
    (argv,) = asked
    assert "--stops-passing" in argv and argv[argv.index("--index") + 1] == "https://nightly.example"
    assert "--pre" in argv and argv[argv.index("--exclude-newer") + 1] == "2026-03-02"
    summary = read_ecosystem(tmp_path / "out" / "report" / ECOSYSTEM_JSON.name)
    assert [(c["signature"], c["first_bad"]) for c in summary["causes"]] == [(f"skipped: {GONE}", "jax==0.9.0")]


def test_merge_refuses_an_option_that_means_nothing_to_it_in_one_line(tmp_path: Path, cells: list[str]) -> None:
    run_list(tmp_path / "gamma", ["gamma"], "--only", "gamma")
    for flag in ("--bisect", "--force"):
        with pytest.raises(ecosystem.EcosystemError, match=rf"^{flag} means nothing for --merge, which runs nothing"):
            merge(tmp_path, [tmp_path / "gamma" / "out"], "--only", "gamma", flag)


def test_merge_takes_the_run_the_command_line_names_and_refuses_a_part_of_another(
    tmp_path: Path, cells: list[str]
) -> None:
    run_list(tmp_path / "gamma", ["gamma"], "--only", "gamma")
    part = tmp_path / "gamma" / "out"
    same = ["jax==0.9.0", "--baseline", "flax==0.12.3,jax==0.8.3", "--as-of", "2026-03-01", "--only", "gamma"]
    assert merge(tmp_path, [part], *same)[0] == formats.SAFE_EXIT  # spelt another way, the same run
    for asked, said in ((["jax==0.9.1"], "its candidate jax==0.9.0, not the jax==0.9.1 asked"),
                        (["--as-of", "2026-03-02"], "its as_of 2026-03-01, not the 2026-03-02 asked"),
                        (["--baseline", "jax==0.8.2,flax==0.12.3"],
                         f"its baseline {BASELINE}, not the jax==0.8.2,flax==0.12.3 asked"),
                        (["jax==0.9.0", "--whole-suite"], "its whole_suite False, not the True asked")):
        with pytest.raises(ecosystem_merge.MergeError) as refused:
            merge(tmp_path, [part], "--only", "gamma", *asked)
        assert str(refused.value) == f"--merge {part}: a part of another run: {said}"
    with pytest.raises(ecosystem_sources.SourceError, match=r"2026-13-01"):
        merge(tmp_path, [part], "--only", "gamma", "--as-of", "2026-13-01")


def test_plan_checks_the_candidate_baseline_and_day_once_before_any_job(tmp_path: Path) -> None:
    listed = tmp_path / "ecosystem.toml"
    listed.write_text(LIST.format(projects=PROJECT.format(name="alpha")))
    said: list[str] = []
    planned = ["--plan", "--list", str(listed), "--baseline", BASELINE, "--as-of", "2026-03-01"]
    assert ecosystem.run([*planned, "jax==0.9.0"], CELLS, never, never, fetch=jax_index(), say=said.append) == 0
    assert json.loads(said[-1]) == [{"project": "alpha"}, {"project": "remote"}]
    with pytest.raises(pins.PinError):
        ecosystem.run([*planned, "jax==banana"], CELLS, never, never, fetch=jax_index())
    with pytest.raises(ecosystem.EcosystemError, match=r"--baseline jax==0.9.0 is not older than the candidate"):
        ecosystem.run(["--plan", "--list", str(listed), "jax==0.9.0", "--baseline", "jax==0.9.0,flax==0.12.3"],
                      CELLS, never, never, fetch=jax_index())
    with pytest.raises(ecosystem.EcosystemError, match=r"^--plan: --baseline and --as-of are checked against a "):
        ecosystem.run(planned, CELLS, never, never, fetch=jax_index())


def test_a_test_now_marked_xfail_with_no_reason_is_unsafe_with_words_not_a_bare_status(
    tmp_path: Path, cells: list[str]
) -> None:
    code, _ = run_list(tmp_path, ["xfailnow"], "--only", "xfailnow")
    summary = read_ecosystem(tmp_path / "out" / "report" / ECOSYSTEM_JSON.name)
    assert code == formats.UNSAFE_EXIT
    assert [(c["signature"], c["example"], c["cases"]) for c in summary["projects"][0]["causes"]] == [
        ("now marked xfail (no reason given)", "now marked xfail (no reason given)", ["test_mesh::test_1"])]
