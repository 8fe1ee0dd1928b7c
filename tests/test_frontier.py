"""`nox -s frontier` itself: its options, the plan of a CI run, the Python fallback of a probe, flax releases
measured at once longest-first, and what a whole (faked) run writes."""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from packaging.version import Version
from record_factory import collected, record

from harness import outputs, vocabulary
from harness.cellrecord import CellFiles
from harness.host import durations
from shardmatrix import frontier, frontier_report, frontier_search


def document(versions: dict[str, str], package: str, requires_python: str = ">=3.10") -> dict[str, Any]:
    """A project JSON document: one pure wheel per release (jaxlib: one per CPython on linux x86_64/aarch64)."""
    def names(version: str) -> list[str]:
        if package != "jaxlib":
            return [f"{package}-{version}-py3-none-any.whl"]
        return [f"jaxlib-{version}-cp3{minor}-cp3{minor}-manylinux2014_{machine}.whl"
                for minor in (10, 11, 12, 13) for machine in ("x86_64", "aarch64")]
    return {"releases": {v: [{"filename": name, "url": name, "yanked": False, "requires_python": requires_python,
                              "upload_time_iso_8601": f"{day}T00:00:00Z"} for name in names(v)]
                         for v, day in versions.items()}}


JAX = {"0.7.0": "2025-07-01", "0.7.1": "2025-08-01", "0.7.2": "2025-09-01", "0.8.0": "2025-10-01",
       "0.8.1": "2025-11-01", "0.8.2": "2025-12-01", "0.9.0": "2026-01-01"}
FLAX = {"0.10.2": "2025-08-15", "0.11.0": "2025-11-15"}
DOCUMENTS = {"flax": document(FLAX, "flax"), "jax": document(JAX, "jax"), "jaxlib": document(JAX, "jaxlib")}


def fetch(url: str, accept: str) -> Any:
    parts = url.split("/")
    if len(parts) == 7:  # https://pypi.org/pypi/<name>/<version>/json
        return {"info": {"requires_dist": ["jax>=0.7.0", "numpy"]}}
    return DOCUMENTS[parts[-2]]


class FakeCells:
    """cellrun.probe over a rule (jax, flax, python) -> status of the smoke case (every other case passes, or fails
    where `other` says so); writes each cell's results file and records which cells ran and with what."""

    def __init__(self, rule: Any, other: Any = None) -> None:
        self.rule, self.other, self.ran, self.lock = rule, other, [], threading.Lock()
        self.running, self.most_at_once, self.corpus = 0, 0, []

    def probe(self, cell: Any, options: Any, paths: Any, **kwargs: Any) -> Any:
        with self.lock:
            self.ran.append(cell.id)
            self.corpus.append(paths is None)
            self.running += 1
            self.most_at_once = max(self.most_at_once, self.running)
        time.sleep(0.01)
        with self.lock:
            self.running -= 1
        files = CellFiles(options.out, options.run_id, cell.id)
        files.results.parent.mkdir(parents=True, exist_ok=True)
        records = self.records_of(cell.id, every_case=paths is None)
        files.results.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
        collected(files.results)
        return SimpleNamespace(interrupted=False, complete=True, returncode=0, reused=False, files=files)

    def records_of(self, cell_id: str, every_case: bool) -> list[dict[str, object]]:
        jax, flax, python = (part[3:] if part.startswith("jax") else part.split("x", 1)[-1] if part.startswith(
            "flax") else part[2:] for part in cell_id.split("-"))
        status, message = self.rule(Version(jax), Version(flax), python)
        found = [(SMOKE[0], status, message)]
        if every_case and status != vocabulary.INSTALL_ERROR:
            other = self.other(Version(jax), Version(flax)) if self.other else (vocabulary.PASSED, "")
            found.append((OTHER, *other))
        return [record(jax, flax, python, case_id=case, status=status, cell_id=cell_id,
                       error_type="E" if message else None, error_message=message or None)
                for case, status, message in found]


SMOKE = ["partitioned_metadata::test_smoke"]
OTHER = "partitioned_metadata::test_other"


@pytest.fixture
def cases(tmp_path: Path) -> Path:
    folder = tmp_path / "cases"
    folder.mkdir()
    (folder / "partitioned_metadata.py").write_text(
        "from harness.case import case\n\n@case(family='partitioned_metadata', smoke=True)\ndef test_smoke():\n"
        "    pass\n")
    return folder


def run(tmp_path: Path, cases: Path, cells: FakeCells, monkeypatch: pytest.MonkeyPatch, *extra: str,
        pythons: tuple[str, ...] = ("3.11", "3.12")) -> tuple[list[frontier.Frontier], list[str]]:
    monkeypatch.setattr(frontier.cellrun, "probe", cells.probe)
    said: list[str] = []
    flax = [] if "--flax" in extra else ["--flax", ">=0.10"]  # one value each: a second is refused
    found = frontier.run(["--cases", str(cases), "--out", str(tmp_path / "out"), *flax, *extra],
                         fetch=fetch, say=said.append, pythons=list(pythons))
    return found, said


def test_a_whole_run_measures_each_flax_release_and_writes_the_report(tmp_path: Path, cases: Path,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    def rule(jax: Version, flax: Version, python: str) -> tuple[str, str]:
        works = Version("0.7.1") <= jax <= Version("0.8.1") if flax == Version("0.10.2") else jax >= Version("0.8.0")
        return (vocabulary.PASSED, "") if works else (vocabulary.FAILED, f"broken with jax {jax}")

    cells = FakeCells(rule)
    found, said = run(tmp_path, cases, cells, monkeypatch, "--jobs", "2")
    ranges = {str(f.flax): (str(f.works_from), str(f.works_to)) for f in found}
    assert ranges == {"0.10.2": ("0.7.1", "0.8.1"), "0.11.0": ("0.8.0", "0.9.0")}
    assert cells.most_at_once == 2  # the two flax releases were measured at once
    assert all(cell.endswith("-py3.11") for cell in cells.ran)  # the pair's own Python installed first time
    rows = (tmp_path / "out" / "report" / "frontier.csv").read_text(encoding="utf-8").splitlines()
    assert rows[0] == ",".join(("schema_version", *frontier_report.COLUMNS))
    assert rows[1].startswith("3,0.11.0,>=0.7.0,0.8.0,0.9.0")
    assert any(line.startswith("flax 0.10.2: jax>=0.7.1,<=0.8.1") for line in said)


def test_an_install_error_moves_the_probe_to_the_next_python(tmp_path: Path, cases: Path,
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    def rule(jax: Version, flax: Version, python: str) -> tuple[str, str]:
        if python == "3.11":
            return vocabulary.INSTALL_ERROR, "no wheel of tensorstore for cp311"
        return vocabulary.PASSED, ""

    cells = FakeCells(rule)
    found, _ = run(tmp_path, cases, cells, monkeypatch, "--flax", "==0.10.2")
    assert found[0].works_from == Version("0.7.0") and found[0].works_to == Version("0.9.0")
    assert {p.cell_id.rsplit("-", 1)[1] for p in found[0].probes} == {"py3.12"}
    assert any(c.endswith("py3.11") for c in cells.ran)  # tried first, as the pair's own choice


def test_a_pair_no_python_installs_is_said_so_naming_every_python_tried(tmp_path: Path, cases: Path,
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    cells = FakeCells(lambda jax, flax, python: (vocabulary.INSTALL_ERROR, f"no wheel for Python {python}"))
    found, _ = run(tmp_path, cases, cells, monkeypatch, "--flax", "==0.10.2")
    assert found[0].works_from is None
    assert found[0].nowhere.startswith("cannot be installed on Python 3.11, 3.12: ")
    assert len(found[0].probes) == frontier_search.SEEDS  # no point in looking further


def test_a_conflict_of_the_pins_themselves_is_not_retried_on_other_pythons(tmp_path: Path, cases: Path,
                                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    conflict = "Because flax==0.10.2 depends on orbax>=9 and you require jax==X, your requirements are unsatisfiable"
    cells = FakeCells(lambda jax, flax, python: (vocabulary.INSTALL_ERROR, conflict))
    found, _ = run(tmp_path, cases, cells, monkeypatch, "--flax", "==0.10.2")
    assert all(cell.endswith("-py3.11") for cell in cells.ran)  # one Python each: the pins conflict everywhere
    assert found[0].nowhere == f"cannot be installed: {conflict}"


def test_a_pair_with_no_python_of_this_machine_builds_nothing(tmp_path: Path, cases: Path,
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    cells = FakeCells(lambda jax, flax, python: (vocabulary.PASSED, ""))
    found, _ = run(tmp_path, cases, cells, monkeypatch, "--flax", "==0.10.2", pythons=("3.9",))
    assert cells.ran == [] and found[0].nowhere.startswith("cannot be installed: no Python of this machine (3.9)")


def test_flax_releases_start_longest_first_by_the_durations_of_their_last_probes(
        tmp_path: Path, cases: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    cells = FakeCells(lambda jax, flax, python: (vocabulary.PASSED, ""))
    run(tmp_path, cases, cells, monkeypatch)  # stores a result per release, naming the cells it probed
    out = tmp_path / "out"
    stored = {flax: [p["cell"] for p in frontier_report.stored(out, flax)["probes"]] for flax in FLAX}
    for flax, seconds in (("0.10.2", 5.0), ("0.11.0", 50.0)):
        for cell in stored[flax]:
            durations.record(cell, seconds)
    cells.ran.clear()
    run(tmp_path, cases, cells, monkeypatch, "--jobs", "1")
    assert cells.ran[0].split("-")[1] == "flax0.11.0"  # the longer release first, though it sorts last


def test_jobs_below_one_and_an_unknown_option_are_refused_before_anything_is_read(tmp_path: Path) -> None:
    def unreachable(url: str, accept: str) -> Any:
        raise AssertionError("nothing may be read")

    with pytest.raises(frontier.FrontierError, match="--jobs 0: must be at least 1"):
        frontier.run(["--jobs", "0"], fetch=unreachable)
    with pytest.raises(frontier.options.OptionsError, match="unknown option --flaxx"):
        frontier.run(["--flaxx", "==0.10.2"], fetch=unreachable)


def test_a_bad_specifier_is_refused_naming_its_flag() -> None:
    with pytest.raises(frontier.FrontierError, match="--jax 'latest' is not a version specifier"):
        frontier.parse_spec("latest", "--jax")


def test_plan_lists_the_selected_flax_releases_as_matrix_entries() -> None:
    assert frontier.plan(">=0.10", fetch) == [{"flax": "0.10.2"}, {"flax": "0.11.0"}]
    with pytest.raises(frontier.FrontierError, match="--flax >=1 selects no flax release"):
        frontier.plan(">=1", fetch)


def test_merge_exits_1_on_an_incomplete_frontier(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    plan = tmp_path / "plan.json"
    plan.write_text(json.dumps([{"flax": "0.11.0"}]), encoding="utf-8")
    assert frontier.main(["merge", "--plan", str(plan), "--out", str(tmp_path)]) == 1
    assert "incomplete frontier" in capsys.readouterr().err


def test_a_flax_source_is_measured_as_one_release_named_by_its_build(tmp_path: Path, cases: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    tree = tmp_path / "flax"
    (tree / "src" / "flax").mkdir(parents=True)
    (tree / "src" / "flax" / "__init__.py").write_text("")
    (tree / "pyproject.toml").write_text(
        '[build-system]\nrequires = ["uv_build>=0.8,<0.14"]\nbuild-backend = "uv_build"\n'
        '[project]\nname = "flax"\nversion = "0.11.0"\ndependencies = ["jax>=0.8.0", "numpy"]\n')
    monkeypatch.setattr(frontier.unreleased, "BUILT", tmp_path / "built")

    def rule(jax: Version, flax: Version, python: str) -> tuple[str, str]:
        assert flax.local  # every probe ran the source, never the released 0.11.0
        return (vocabulary.PASSED, "") if jax <= Version("0.8.2") else (vocabulary.FAILED, "broken")

    cells = FakeCells(rule)
    monkeypatch.setattr(frontier.cellrun, "probe", cells.probe)
    found = frontier.run(["--cases", str(cases), "--out", str(tmp_path / "out"), "--flax", f"flax @ {tree.as_uri()}"],
                         fetch=fetch, say=lambda line: None, pythons=["3.11"])
    assert len(found) == 1 and str(found[0].flax).startswith("0.11.0+tree.")
    assert (str(found[0].works_from), str(found[0].works_to)) == ("0.8.0", "0.8.2")  # its own jax>=0.8.0 declared
    assert all("-flax0.11.0+tree." in cell for cell in cells.ran)


def test_a_project_works_when_every_test_of_it_passes() -> None:
    tests = Path(__file__).resolve().parent / "downstream" / "tests"
    nodes = frontier.every_node([str(tests)])
    assert nodes["test_embed::TestEmbedding::test_lookup_gives_the_rows"] == Path(
        f"{tests / 'test_embed.py'}::TestEmbedding::test_lookup_gives_the_rows")
    assert sorted(nodes) == ["test_embed::TestEmbedding::test_lookup_gives_the_rows",
                             "test_embed::TestEmbedding::test_table_is_split_by_vocab",
                             "test_model::TestHead::test_the_head_is_affine",
                             "test_train::TestTrain::test_a_step_lowers_the_loss"]


def test_a_case_failing_inside_the_core_range_narrows_the_whole_corpus_range_and_gets_its_row(
        tmp_path: Path, cases: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def rule(jax: Version, flax: Version, python: str) -> tuple[str, str]:
        return (vocabulary.PASSED, "") if jax <= Version("0.8.2") else (vocabulary.FAILED, f"broken with jax {jax}")

    def other(jax: Version, flax: Version) -> tuple[str, str]:
        return (vocabulary.FAILED, "AttributeError: jax.api_util has no attribute debug_info") if jax < Version(
            "0.7.2") else (vocabulary.PASSED, "")

    cells = FakeCells(rule, other)
    found, said = run(tmp_path, cases, cells, monkeypatch, "--flax", "==0.10.2")
    assert (str(found[0].core_from), str(found[0].core_to)) == ("0.7.0", "0.8.2")
    assert (str(found[0].works_from), str(found[0].works_to)) == ("0.7.2", "0.8.2")
    report = tmp_path / "out" / "report"
    rows = outputs.read_csv(report / "frontier_cases.csv", outputs.FRONTIER_CASES_CSV)
    assert rows == [{"schema_version": 2, "flax": "0.10.2", "case": OTHER, "works_from": "0.7.2", "works_to": "0.8.2",
                     "first_broken_below": "0.7.1", "first_broken_above": "0.9.0",
                     "cause_below": "failed: E: AttributeError: jax.api_util has no attribute debug_info",
                     "cause_above": f"{SMOKE[0]}: failed: E: broken with jax 0.9.0"}]
    markdown = (report / "frontier.md").read_text(encoding="utf-8")
    assert "| 0.10.2 | jax>=0.7.0 | 0.7.0 to 0.8.2 | 0.7.2 to 0.8.2 | 0.7.1: " in markdown
    assert any(line.startswith(f"flax 0.10.2: jax>=0.7.2,<=0.8.2  # narrower than the core's jax>=0.7.0,<=0.8.2: "
                               f"{OTHER} (0.7.2 to 0.8.2)") for line in said)
    # Whole-corpus probes are ordinary cells of the run; core probes keep theirs apart.
    assert (tmp_path / "out" / "results").is_dir() and (tmp_path / "out" / "frontier-core" / "results").is_dir()
    assert any(cells.corpus) and not all(cells.corpus)


def test_a_projects_whole_corpus_probe_is_its_core_probe_run_once(tmp_path: Path, cases: Path) -> None:
    """With --project every test is core: the whole-corpus probe of a pair reuses its core probe, no second cell."""
    cells = FakeCells(lambda jax, flax, python: (vocabulary.PASSED, ""))
    found = frontier.releases.releases(frontier.SpecifierSet("==0.10.2"), frontier.SpecifierSet(">=0.7.0"), fetch)
    opts = frontier.options.from_namespace(frontier.parser().parse_strictly(["--out", str(tmp_path / "out")]))
    additions = frontier.cellenv.Additions(project=SimpleNamespace(root=tmp_path))  # type: ignore[arg-type]
    prober = frontier.Prober(opts, {SMOKE[0]: cases / "partitioned_metadata.py"}, found, ["3.11"], lambda line: None,
                             additions)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(frontier.cellrun, "probe", cells.probe)
        core = prober.probe(Version("0.7.0"), Version("0.10.2"))
        whole = prober.probe(Version("0.7.0"), Version("0.10.2"), corpus=True)
    assert len(cells.ran) == 1 and core.works and whole.works and whole.corpus and not core.corpus
