"""`shardmatrix watch` on tests/downstream against a fake index: each release judged once, the first bad one named,
the documented change and its fix linked to the regression, the reproducer pointed to. No jax is built: the cells
are faked below pytest (as tests/test_upgrade.py fakes them) and the index is a dict (as tests/test_index.py)."""

from __future__ import annotations

import json
import re
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from packaging.version import Version
from record_factory import collected, record

from harness.formats import INCONCLUSIVE_EXIT, UNSAFE_EXIT, USAGE_EXIT, ShardmatrixError
from harness.host import adhoc, cellrun, envbuild, homes, project
from harness.host.matrix import Cell
from harness.host.runner import Job
from harness.tools import index, upgrade
from shardmatrix import command, watch, watch_files

DOWNSTREAM = Path(__file__).resolve().parent / "downstream"
GATHER = "test_embed::TestEmbedding::test_lookup_gives_the_rows"
STEADY = ("test_embed::TestEmbedding::test_table_is_split_by_vocab", "test_model::TestHead::test_the_head_is_affine")
#: The fake jax release that breaks the gather case (and every later one keeps it broken).
BREAKS = Version("0.9.0")
NEWER = ("0.8.4", "0.9.0", "0.9.1")


def project_json(*versions: str) -> dict[str, Any]:
    """A PyPI JSON API document listing these releases, each with one file."""
    return {"releases": {v: [{"yanked": False, "filename": f"x-{v}.tar.gz"}] for v in versions}}


class FakeIndex:
    """PyPI's JSON API for jax, jaxlib and flax; jax and jaxlib have the lock's release and `newer`."""

    def __init__(self, *newer: str) -> None:
        self.documents = {name: project_json("0.8.3", *newer) for name in ("jax", "jaxlib")}
        self.documents["flax"] = project_json("0.12.5", "0.12.6")

    def __call__(self, url: str, accept: str = "application/json") -> Any:
        for name, document in self.documents.items():
            if url == index.JSON_API.format(name=name):
                return document
        raise OSError(f"not on the fake index: {url}")


#: The gather's error from jax 0.9.0 on, as jax words it (the documented change declares its first words).
GATHER_ERROR = "Use `.at[...].get(out_sharding=)` to provide output PartitionSpec for the gather indexing"


def documented_break(cell: Cell) -> tuple[str, str] | None:
    """The gather case's error in a cell: the documented exception from jax 0.9.0 on."""
    if Version(cell.jax) >= BREAKS:
        return "ShardingTypeError", GATHER_ERROR
    return None


def optax(cell: Cell) -> str:
    """The optax a cell resolves: the lock's 0.2.4 until jax 0.9.0, then 0.2.5 unless held (`--with`)."""
    return "0.2.4" if Version(cell.jax) < BREAKS or "optax==0.2.4" in cell.extras else "0.2.5"


def fake_cells(monkeypatch: pytest.MonkeyPatch, ran: list[str],
               breaks: Callable[[Cell], tuple[str, str] | None] = documented_break) -> None:
    """Cells that build nothing: each records the downstream cases it was asked for, the gather case failing where
    `breaks` says, freezes an optax that moves with jax 0.9.0, and keeps the case modules as a real cell does (for
    reproducers)."""

    def run(cell: Cell, venv: Path, job: Job) -> int:
        ran.append(cell.id)
        asked = {path.stem for path in job.paths if path.is_file()} or {"test_embed", "test_model"}
        error = breaks(cell)
        made = []
        for case in (GATHER, *STEADY):
            module = case.partition("::")[0]
            if module not in asked:
                continue
            failing = case == GATHER and error is not None
            made.append(record(cell.jax, cell.flax, cell.python, run_id=job.files.run_id, cell_id=cell.id,
                               jaxlib=cell.jaxlib, case_id=case, family=module,
                               status="failed" if failing else "passed",
                               error_type=error[0] if failing and error else None,
                               error_message=error[1] if failing and error else None))
            job.files.sources.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(DOWNSTREAM / "tests" / f"{module}.py", job.files.sources / f"{module}.py")
        job.files.results.parent.mkdir(parents=True, exist_ok=True)
        job.files.results.write_text("".join(json.dumps(r) + "\n" for r in made))
        collected(job.files.results)
        return 0

    monkeypatch.setattr(adhoc, "ensure_venv", lambda cell: (Path("venv"), None))
    monkeypatch.setattr(cellrun, "install", lambda *a, **k: None)
    def freeze(venv: Path, dest: Path, cell: Cell) -> str:
        text = f"numpy==2.4.6\noptax=={optax(cell)}\n"
        dest.parent.mkdir(parents=True, exist_ok=True)
        dest.write_text(text)
        return text

    monkeypatch.setattr(cellrun, "freeze", freeze)
    monkeypatch.setattr(cellrun, "interpreter_version", lambda venv: "3.11")
    monkeypatch.setattr(cellrun, "run_pytest", run)
    monkeypatch.setattr(envbuild, "resolves", lambda cell: None)  # uv's resolution of real releases: not faked here


@pytest.fixture
def watching(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> tuple[list[str], list[str]]:
    """Fake cells, and the candidates each upgrade was asked for (a release judged is one upgrade)."""
    ran: list[str] = []
    fake_cells(monkeypatch, ran)
    asked: list[str] = []
    prepare = upgrade.prepare

    def counted(argv: list[str], *args: Any, **kwargs: Any) -> Any:
        asked.append(argv[-1])
        return prepare(argv, *args, **kwargs)

    monkeypatch.setattr(upgrade, "prepare", counted)
    monkeypatch.chdir(tmp_path)
    return ran, asked


def watch_once(tmp_path: Path, fetch: FakeIndex, *extra: str) -> int:
    from reports.cli import judge

    argv = ["--project", str(DOWNSTREAM), "--out", str(tmp_path / "out"), "--state", str(tmp_path / "state.json"),
            "--json", str(tmp_path / "summary.json"), *extra]
    return watch.run(argv, command.invocation.cells(), judge, fetch=fetch, say=print, prog="shardmatrix watch")


def test_each_new_release_is_judged_once_and_the_first_bad_one_named_with_its_change_and_fix(
        watching: tuple[list[str], list[str]], tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _, asked = watching
    fetch = FakeIndex(*NEWER)
    assert watch_once(tmp_path, fetch) == UNSAFE_EXIT
    assert asked == [f"jax=={v}" for v in NEWER]  # flax has nothing newer than the lock's 0.12.6
    out = capsys.readouterr().out
    assert "watching jax==0.8.3, flax==0.12.6 of " in out and "3 newer release(s), 3 not judged yet" in out
    assert "jax 0.8.4: SAFE: 3 of 3 tests judged" in out
    assert f"jax 0.9.0: UNSAFE: 3 of 3 tests judged (1 regressed: {GATHER})" in out
    assert f"first bad release: jax==0.9.0 ({GATHER}: ShardingTypeError: {GATHER_ERROR}" in out
    # The documented change, its fix, and the regression it explains, read from the corpus's declarations.
    change = next(line for line in out.splitlines() if line.startswith("  documented change:") and GATHER in line)
    assert "Fix: " in change and "Explicit" in change
    summary = json.loads((tmp_path / "summary.json").read_text())
    assert summary["schema_version"] == watch_files.SUMMARY_VERSION and summary["verdict"] == "UNSAFE"
    assert summary["baseline"] == {"jax": "0.8.3", "jaxlib": "0.8.3", "flax": "0.12.6"}
    verdicts = {j["version"]: (j["verdict"], j["first_bad"]) for j in summary["judged"]}
    assert verdicts == {"0.8.4": ("SAFE", ""), "0.9.0": ("UNSAFE", "jax==0.9.0"), "0.9.1": ("UNSAFE", "jax==0.9.0")}
    bad = summary["judged"][2]
    assert bad["regressed"] == [GATHER] and bad["case"] == GATHER
    explained = [entry for entry in bad["changes"] if GATHER in entry["explains"]]
    assert explained and all(entry["fix"] for entry in explained)
    assert bad["reproducers"] and all(Path(p).is_file() and "/report/repro/" in p for p in bad["reproducers"])
    assert GATHER.partition("::")[2].split("::")[-1] in Path(bad["reproducers"][0]).read_text()
    assert Path(bad["report"]).is_file() and Path(bad["report"]).name == "jax-0.9.1.md"
    assert len(watch_files.read_state(tmp_path / "state.json")) == 3
    # optax moved with jax 0.9.0, but the documented change explains the regression: nothing is held back.
    assert bad["moved"] == ["optax 0.2.4 -> 0.2.5"] and bad["held"] == [] and bad["cause"] == ""


def test_a_regression_that_goes_away_with_the_co_moving_dependency_held_names_it_and_is_not_bisected(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    ran: list[str] = []
    fake_cells(monkeypatch, ran, breaks=lambda cell: ("TypeError", "optax.adam got an unexpected keyword")
               if optax(cell) == "0.2.5" else None)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(watch.bisect, "run", lambda *a, **k: pytest.fail("the release was bisected"))
    assert watch_once(tmp_path, FakeIndex("0.9.0")) == UNSAFE_EXIT
    judged = json.loads((tmp_path / "summary.json").read_text())["judged"][0]
    assert judged["cause"] == "optax" and judged["first_bad"] == ""
    assert judged["held"] == [{"package": "optax", "version": "0.2.4", "verdict": "SAFE", "still_regressed": [],
                               "reason": ""}]
    out = capsys.readouterr().out
    assert "  also moved: optax 0.2.4 -> 0.2.5" in out and "  with optax held at 0.2.4: SAFE" in out
    assert "  cause: optax moved with it; held at its locked version, the regression goes away" in out


def test_a_regression_that_stays_with_the_co_moving_dependency_held_is_the_releases_and_is_bisected(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    ran: list[str] = []
    fake_cells(monkeypatch, ran, breaks=lambda cell: ("TypeError", "take() got an unexpected keyword")
               if Version(cell.jax) >= BREAKS else None)
    monkeypatch.chdir(tmp_path)
    assert watch_once(tmp_path, FakeIndex("0.8.4", "0.9.0")) == UNSAFE_EXIT
    judged = json.loads((tmp_path / "summary.json").read_text())["judged"][1]
    assert judged["cause"] == "jax" and judged["first_bad"] == "jax==0.9.0"
    assert [(h["package"], h["verdict"], h["still_regressed"]) for h in judged["held"]] == [
        ("optax", "UNSAFE", [GATHER])]
    assert "  cause: jax itself (holding what moved with it changes nothing)" in capsys.readouterr().out


def test_a_second_run_judges_nothing_new_and_keeps_the_verdict(
        watching: tuple[list[str], list[str]], tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    ran, asked = watching
    fetch = FakeIndex(*NEWER)
    watch_once(tmp_path, fetch)
    ran.clear()
    asked.clear()
    capsys.readouterr()
    assert watch_once(tmp_path, fetch) == UNSAFE_EXIT  # the rolling answer stays UNSAFE while the lock is unchanged
    assert asked == [] and ran == []
    out = capsys.readouterr().out
    assert "3 newer release(s), 0 not judged yet" in out
    assert "jax 0.9.0: UNSAFE: 3 of 3 tests judged (judged before: first bad jax==0.9.0)" in out
    summary = json.loads((tmp_path / "summary.json").read_text())
    assert summary["judged"] == [] and [j["version"] for j in summary["remembered"]] == list(NEWER)
    # A release that lands later is the only one judged next time.
    assert watch_once(tmp_path, FakeIndex(*NEWER, "0.9.2")) == UNSAFE_EXIT
    assert asked == ["jax==0.9.2"]


LOCK = {"jax": "0.8.3", "jaxlib": "0.8.3", "flax": "0.12.6"}


def remembered(version: str, verdict: str, **fields: Any) -> watch_files.Judgment:
    """A judgment of a jax release from the downstream project's lock, as an earlier run would have kept it."""
    sound: dict[str, Any] = {"tests": 3, "tests_judged": 3, "report": "out/report/watch/x.md"}
    return watch_files.Judgment("jax", version, dict(LOCK), verdict, **{**sound, **fields})


def test_a_release_remembered_unsafe_stays_unsafe_when_the_index_stops_listing_it(
        watching: tuple[list[str], list[str]], tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _, asked = watching
    watch_files.write_state(tmp_path / "state.json", [remembered("0.9.0", "UNSAFE", regressed=[GATHER])])
    assert watch_once(tmp_path, FakeIndex()) == UNSAFE_EXIT and asked == []  # 0.9.0 was yanked: still the answer
    assert "jax 0.9.0: UNSAFE: 3 of 3 tests judged (judged before; no longer listed on the index)" in \
        capsys.readouterr().out
    assert json.loads((tmp_path / "summary.json").read_text())["verdict"] == "UNSAFE"


def test_a_release_remembered_safe_on_its_evidence_stands_and_is_not_judged_again(
        watching: tuple[list[str], list[str]], tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _, asked = watching
    watch_files.write_state(tmp_path / "state.json", [remembered("0.8.4", "SAFE")])
    assert watch_once(tmp_path, FakeIndex("0.8.4")) == 0 and asked == []
    assert "jax 0.8.4: SAFE: 3 of 3 tests judged (judged before)" in capsys.readouterr().out


@pytest.mark.parametrize("doubted", [{"regressed": [GATHER]}, {"tests_judged": 0}, {"tests": None},
                                     {"report": ""}, {"tests_judged": 9}])
def test_a_remembered_safe_its_own_fields_doubt_is_not_safe(
        watching: tuple[list[str], list[str]], tmp_path: Path, capsys: pytest.CaptureFixture[str],
        doubted: dict[str, Any]) -> None:
    _, asked = watching
    watch_files.write_state(tmp_path / "state.json", [remembered("0.9.0", "SAFE", **doubted)])
    assert watch_once(tmp_path, FakeIndex()) == INCONCLUSIVE_EXIT and asked == []  # unlisted: it cannot be re-judged
    assert "jax 0.9.0: INCONCLUSIVE: " in capsys.readouterr().out
    # Listed again, it is judged again, and its new judgment takes the doubted one's place in the state.
    assert watch_once(tmp_path, FakeIndex("0.9.0")) == UNSAFE_EXIT and asked == ["jax==0.9.0"]
    [kept] = watch_files.read_state(tmp_path / "state.json")
    assert kept.verdict == "UNSAFE" and kept.tests == 3


@pytest.mark.parametrize(("extra", "fault"), [
    (["--json", "{tmp}"], "--json {tmp}: a folder; name a file"),
    (["--state", "{tmp}/file/state.json"], "--state {tmp}/file/state.json: {tmp}/file is a file, not a folder"),
])
def test_a_summary_or_state_that_cannot_be_written_is_refused_before_anything_is_judged(
        watching: tuple[list[str], list[str]], tmp_path: Path, capsys: pytest.CaptureFixture[str],
        extra: list[str], fault: str) -> None:
    _, asked = watching
    (tmp_path / "file").write_text("a file")
    watch_files.write_state(tmp_path / "state.json", [remembered("0.8.4", "SAFE")])
    kept = (tmp_path / "state.json").read_text()
    state = [] if "--state" in extra else ["--state", str(tmp_path / "state.json")]  # an option is given once
    argv = ["--project", str(DOWNSTREAM), "--out", str(tmp_path / "out"), *state,
            *[arg.format(tmp=tmp_path) for arg in extra]]
    assert command.main(["watch", *argv]) == USAGE_EXIT and asked == []
    assert capsys.readouterr().err == f"shardmatrix: {fault.format(tmp=tmp_path)}\n"
    assert (tmp_path / "state.json").read_text() == kept


@pytest.mark.parametrize("schema", [0, -1, True, 99])
def test_a_state_of_an_unknown_schema_is_refused_before_anything_is_judged_and_kept(
        watching: tuple[list[str], list[str]], tmp_path: Path, capsys: pytest.CaptureFixture[str],
        schema: object) -> None:
    _, asked = watching
    state = tmp_path / "state.json"
    state.write_text(json.dumps({"schema_version": schema, "judged": [remembered("0.9.0", "UNSAFE").to_json()]}))
    kept = state.read_text()
    argv = ["--project", str(DOWNSTREAM), "--out", str(tmp_path / "out"), "--state", str(state)]
    assert command.main(["watch", *argv]) == USAGE_EXIT and asked == []
    said = capsys.readouterr().err
    assert said.startswith(f"shardmatrix: {state}: ") and said.count("\n") == 1
    assert state.read_text() == kept


def test_a_release_judged_from_another_lock_is_judged_again(
        watching: tuple[list[str], list[str]], tmp_path: Path) -> None:
    _, asked = watching
    older = watch_files.Judgment("jax", "0.9.0", {"jax": "0.8.2", "jaxlib": "0.8.2", "flax": "0.12.6"}, "SAFE")
    watch_files.write_state(tmp_path / "state.json", [older])
    assert watch_once(tmp_path, FakeIndex("0.9.0")) == UNSAFE_EXIT and asked == ["jax==0.9.0"]
    assert watch_files.read_state(tmp_path / "state.json")[0] == older  # kept: the old lock's answer stays true


def test_a_release_that_cannot_be_installed_with_the_project_is_inconclusive_once(
        watching: tuple[list[str], list[str]], tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    ran, asked = watching
    monkeypatch.setattr(envbuild, "resolves", lambda cell: "flax 0.12.6 requires jax<0.9" if cell.jax == "0.9.0"
                        else None)
    assert watch_once(tmp_path, FakeIndex("0.9.0")) == INCONCLUSIVE_EXIT and ran == []
    assert ("jax 0.9.0: INCONCLUSIVE: no test run; jax0.9.0-flax0.12.6-py3.11 cannot be installed: flax 0.12.6 "
            "requires jax<0.9") in capsys.readouterr().out
    assert watch_once(tmp_path, FakeIndex("0.9.0")) == INCONCLUSIVE_EXIT and asked == ["jax==0.9.0"]


def test_the_judgments_can_be_kept_in_another_store(watching: tuple[list[str], list[str]], tmp_path: Path) -> None:
    class Memory:
        def __init__(self) -> None:
            self.kept: list[watch_files.Judgment] = []

        def load(self) -> list[watch_files.Judgment]:
            return list(self.kept)

        def save(self, judged: Any) -> None:
            self.kept = list(judged)

    from reports.cli import judge

    memory = Memory()
    argv = ["--project", str(DOWNSTREAM), "--out", str(tmp_path / "out")]
    watch.run(argv, command.invocation.cells(), judge, fetch=FakeIndex("0.8.4"), say=print, store=memory)
    assert [(j.version, j.verdict) for j in memory.kept] == [("0.8.4", "SAFE")]
    assert not homes.state_of(DOWNSTREAM).exists()  # the default file store was not used


def test_nothing_newer_is_safe_and_builds_nothing(watching: tuple[list[str], list[str]], tmp_path: Path,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    ran, asked = watching
    assert watch_once(tmp_path, FakeIndex()) == 0 and ran == [] and asked == []
    assert json.loads((tmp_path / "summary.json").read_text())["verdict"] == "SAFE"


def test_the_command_refuses_a_watch_outside_a_project_in_one_line(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.chdir(tmp_path)
    assert command.main(["watch", "--cases", str(tmp_path)]) == USAGE_EXIT
    assert capsys.readouterr().err == ("shardmatrix: watch needs a project: run it inside one, or give --project "
                                       "DIR\n")


@pytest.mark.parametrize("dependencies", [["jax>=0.5.3", "absl-py"], ["equinox>=0.10.6"]])
def test_a_project_with_no_lock_and_no_jax_pin_is_refused_without_advising_an_option_watch_lacks(
        tmp_path: Path, dependencies: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    # Shaped like optax (a jax range) and haliax (no jax at all: "install jax yourself"): the refusal advised
    # `--baseline jax==A,flax==B`, which watch answers with "unknown option --baseline".
    (tmp_path / "pyproject.toml").write_text(f'[project]\nname = "lib"\nversion = "1"\n'
                                             f"dependencies = {json.dumps(dependencies)}\n")
    assert command.main(["watch", "--project", str(tmp_path), "--out", str(tmp_path / "out")]) == USAGE_EXIT
    err = capsys.readouterr().err
    assert "no lock and no exact jax pin" in err and "`uv lock`" in err
    assert "watch --baseline" not in err and "(--baseline" not in err


def test_inside_a_project_watch_takes_it_as_the_project() -> None:
    assert command.project_here(["--state", "s.json"], DOWNSTREAM) == ["--project", str(DOWNSTREAM), "--state",
                                                                        "s.json"]


def test_a_misspelt_option_is_refused_before_anything_runs(capsys: pytest.CaptureFixture[str]) -> None:
    assert command.main(["watch", "--project", str(DOWNSTREAM), "--sate", "x.json"]) == USAGE_EXIT
    assert "unknown option --sate (did you mean --state?)" in capsys.readouterr().err


# --- listing releases ------------------------------------------------------------------------------------------------

def test_newer_lists_jax_releases_that_have_a_jaxlib_and_pre_releases_only_when_asked() -> None:
    fetch = FakeIndex("0.8.4", "0.9.0rc1", "0.9.0")
    fetch.documents["jax"]["releases"]["0.9.0.post1"] = [{"yanked": False}]  # no jaxlib of that version
    assert watch.newer("jax", "0.8.3", fetch) == [Version("0.8.4"), Version("0.9.0")]
    assert watch.newer("jax", "0.8.3", fetch, pre=True) == [Version(v) for v in ("0.8.4", "0.9.0rc1", "0.9.0")]
    assert watch.newer("flax", "0.12.6", fetch) == []


def test_newer_reads_the_extra_indexes_too() -> None:
    nightly = {"files": [{"filename": f"{name}-0.9.1.dev20261125-py3-none-any.whl"} for name in ("jax", "jaxlib")]}
    main = FakeIndex("0.9.0")

    def fetch(url: str, accept: str = "application/json") -> Any:
        if url.startswith("https://nightly.example/"):
            return {"files": [f for f in nightly["files"] if f["filename"].startswith(url.split("/")[-2] + "-")]}
        return main(url, accept)

    found = watch.newer("jax", "0.8.3", fetch, pre=True, indexes=["https://nightly.example/simple"])
    assert found == [Version("0.9.0"), Version("0.9.1.dev20261125")]
    assert watch.newer("jax", "0.8.3", fetch, indexes=["https://nightly.example/simple"]) == [Version("0.9.0")]


def test_the_options_of_watch_alone_are_not_passed_on() -> None:
    argv = ["--state", "s.json", "--json=o.json", "--pre", "--package", "jax", "-m", "not gpu", "--out", "o"]
    assert watch.without(argv, watch.OWN) == ["--pre", "-m", "not gpu", "--out", "o"]
    assert watch.without(watch.without(argv, watch.OWN), watch.LEFT_OUT) == ["--pre", "--out", "o"]


def test_inside_an_unchanged_project_its_files_stay_out_of_its_tree_and_the_baseline_is_reused(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    ran: list[str] = []
    fake_cells(monkeypatch, ran)
    faked = cellrun.freeze

    def freeze(venv: Path, dest: Path, cell: Cell) -> str:  # as the real freeze: the project's tree hash first
        text = envbuild.provenance(cell) + faked(venv, dest, cell)
        dest.write_text(text)
        return text

    monkeypatch.setattr(cellrun, "freeze", freeze)
    trainer = tmp_path / "trainer"
    shutil.copytree(DOWNSTREAM, trainer, ignore=shutil.ignore_patterns("__pycache__"))
    files = sorted(path.relative_to(trainer) for path in trainer.rglob("*"))
    tree = project.tree_hash(trainer)
    monkeypatch.chdir(trainer)
    from reports.cli import judge

    cells = command.invocation.cells()
    assert watch.run(["--project", str(trainer)], cells, judge, fetch=FakeIndex("0.8.4"), say=print) == 0
    assert ran == ["jax0.8.3-flax0.12.6-py3.11", "jax0.8.4-flax0.12.6-py3.11"]
    upgrade.prepare(["--project", str(trainer), "jax==0.8.4"], cells, say=print)
    assert len(ran) == 2  # the second upgrade of the unchanged project reuses both cells
    assert sorted(path.relative_to(trainer) for path in trainer.rglob("*")) == files
    assert project.tree_hash(trainer) == tree
    assert [j.version for j in watch_files.read_state(homes.state_of(trainer))] == ["0.8.4"]


# --- a first watch over many releases: verdicts as they come, each cause bisected once, one cell per release ---------

def counted_bisects(monkeypatch: pytest.MonkeyPatch) -> list[list[str]]:
    """The bisects watch runs (their argv), each still run."""
    calls: list[list[str]] = []
    real = watch.bisect.run

    def run(argv: list[str], *args: Any, **kwargs: Any) -> Any:
        calls.append(argv)
        return real(argv, *args, **kwargs)

    monkeypatch.setattr(watch.bisect, "run", run)
    return calls


def test_each_release_s_verdict_is_printed_as_it_is_judged(
        watching: tuple[list[str], list[str]], tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    watch_once(tmp_path, FakeIndex(*NEWER))
    out = capsys.readouterr().out
    assert out.index("jax 0.8.4: SAFE") < out.index("--- jax 0.9.0: upgrade from") \
        < out.index("jax 0.9.0: UNSAFE") < out.index("--- jax 0.9.1: upgrade from")


def test_a_first_watch_runs_the_baseline_once_and_one_cell_per_release_and_bisects_nothing_it_judged(
        watching: tuple[list[str], list[str]], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    ran, _ = watching
    bisects = counted_bisects(monkeypatch)
    assert watch_once(tmp_path, FakeIndex(*NEWER)) == UNSAFE_EXIT
    # 0.8.4 was judged passing the gather case, so 0.9.0 is its first bad release; 0.9.1 has the same cause.
    assert bisects == []
    assert ran == ["jax0.8.3-flax0.12.6-py3.11", *(f"jax{v}-flax0.12.6-py3.11" for v in NEWER)]
    judged = json.loads((tmp_path / "summary.json").read_text())["judged"]
    assert [(j["first_bad"], j["case"]) for j in judged[1:]] == [("jax==0.9.0", GATHER)] * 2
    assert judged[1]["first_bad_error"] == judged[2]["first_bad_error"] == f"ShardingTypeError: {GATHER_ERROR}"


def test_under_one_run_id_for_the_whole_invocation_the_baseline_is_still_run_once(
        watching: tuple[list[str], list[str]], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from harness.host.options import RUN_ID_ENV

    # nox shares one run id with every session it starts (`nox -s watch`, or the tests under `nox -s tests`): each
    # release still gets a run of its own, so the baseline's run is another run the cache reuses.
    monkeypatch.setenv(RUN_ID_ENV, "20261127T000000Z-nox0")
    ran, _ = watching
    assert watch_once(tmp_path, FakeIndex(*NEWER)) == UNSAFE_EXIT
    assert ran == ["jax0.8.3-flax0.12.6-py3.11", *(f"jax{v}-flax0.12.6-py3.11" for v in NEWER)]


@pytest.mark.parametrize("given", [["--run-id", "20261127T000000Z-mine"], ["--resume", "20261127T000000Z-mine"]])
def test_a_run_id_for_every_release_is_refused_in_one_line(watching: tuple[list[str], list[str]], tmp_path: Path,
                                                           given: list[str]) -> None:
    with pytest.raises(ShardmatrixError, match="judges each release in a run of its own"):
        watch_once(tmp_path, FakeIndex(*NEWER), *given)
    assert watching == ([], [])


def test_a_cause_is_bisected_once_when_the_releases_before_it_cannot_tell(
        watching: tuple[list[str], list[str]], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    bisects = counted_bisects(monkeypatch)
    # 0.8.4 judged before without an answer: the first bad release of 0.9.0's regression takes a bisect.
    unknown = watch_files.Judgment("jax", "0.8.4", {"jax": "0.8.3", "jaxlib": "0.8.3", "flax": "0.12.6"},
                                   "INCONCLUSIVE", reason="a cell did not finish")
    watch_files.write_state(tmp_path / "state.json", [unknown])
    assert watch_once(tmp_path, FakeIndex(*NEWER)) == UNSAFE_EXIT
    assert len(bisects) == 1 and "jax==0.9.0" in bisects[0]  # 0.9.1, same case: not bisected again
    judged = json.loads((tmp_path / "summary.json").read_text())["judged"]
    assert [(j["version"], j["first_bad"]) for j in judged] == [("0.9.0", "jax==0.9.0"), ("0.9.1", "jax==0.9.0")]


def test_a_case_that_passed_again_after_its_first_bad_release_is_a_new_cause() -> None:
    base = {"jax": "0.8.3", "jaxlib": "0.8.3", "flax": "0.12.6"}
    broke = watch_files.Judgment("jax", "0.9.0", base, "UNSAFE", regressed=[GATHER], case=GATHER,
                                 first_bad="jax==0.9.0")
    fixed = watch_files.Judgment("jax", "0.9.1", base, "SAFE")
    again = watch_files.Judgment("jax", "0.9.2", base, "UNSAFE", regressed=[GATHER])
    assert watch.named_before(again, [broke], [], {}).first_bad == "jax==0.9.0"  # type: ignore[union-attr]
    named = watch.named_before(again, [broke, fixed], ["0.8.4", "0.9.0", "0.9.1"], {GATHER: "E: x"})
    assert named is not None and (named.first_bad, named.first_bad_error) == ("jax==0.9.2", "E: x")  # 0.9.1 passed it


def test_a_release_whose_previous_release_has_no_answer_is_left_to_a_bisect() -> None:
    base = {"jax": "0.8.3", "jaxlib": "0.8.3", "flax": "0.12.6"}
    broken = watch_files.Judgment("jax", "0.9.0", base, "UNSAFE", regressed=[GATHER])
    unknown = watch_files.Judgment("jax", "0.8.4", base, "INCONCLUSIVE")
    assert watch.named_before(broken, [unknown], ["0.8.4"], {GATHER: "E: x"}) is None
    assert watch.named_before(broken, [], ["0.8.4"], {GATHER: "E: x"}) is None  # not judged at all
    assert watch.named_before(broken, [], [], {GATHER: "E: x"}).first_bad == "jax==0.9.0"  # type: ignore[union-attr]


def test_a_remembered_first_bad_release_that_is_no_version_is_not_taken() -> None:
    base = {"jax": "0.8.3", "jaxlib": "0.8.3", "flax": "0.12.6"}
    garbled = watch_files.Judgment("jax", "0.9.0", base, "UNSAFE", regressed=[GATHER], case=GATHER, first_bad="jax")
    again = watch_files.Judgment("jax", "0.9.1", base, "UNSAFE", regressed=[GATHER])
    assert watch.named_before(again, [garbled], ["0.9.0"], {GATHER: "E: x"}) is None  # left to a bisect


def test_a_documented_change_explains_a_regression_by_its_own_error_not_by_its_exception_class() -> None:
    from harness.change import Change, as_rows

    gather = Change("jax>=0.9.0", "a gather of a sharded array needs out_sharding=", raises="ShardingTypeError",
                    fix="pass axis_types=", kind="default", error="Use `.at[...].get(out_sharding=)`")
    declared = as_rows({"sharded_gathers_user::test_lookup": gather})
    errors = {"test_embed::test_rows": f"ShardingTypeError: {GATHER_ERROR}",
              # A sharding constraint's break raises the same class: it is not the gather change.
              "test_shard::test_constraint": "ShardingTypeError: with_sharding_constraint names an Explicit axis"}
    [entry] = watch.crossed(declared, {"jax": "0.8.3"}, {"jax": "0.9.0"}, errors)
    assert entry["explains"] == ["test_embed::test_rows"]


def test_the_tests_judged_leave_out_what_either_side_could_not_judge() -> None:
    from reports.verdicts.compare import Comparison
    from reports.verdicts.compare_tables import COLUMNS

    def table(*cases: str) -> Any:
        import pandas as pd

        return pd.DataFrame([{**dict.fromkeys(COLUMNS), "case_id": case} for case in cases], columns=COLUMNS)

    empty = table()
    found = Comparison([], *([empty] * 7), unjudged=table("m::a"), unrun=table("m::a", "m::b"), flaky=empty,
                       causes=empty, cells=empty, cases=6, short={2: 1}, left_out=table("m::c"))
    assert watch.judged_count(found) == 2  # 6 compared, 1 short on both sides, a b c not judged


@pytest.mark.parametrize(("where", "said"), [
    ("state", r"^--state .*/afile/deeper/state.json: .*/afile is a file, not a folder$"),
    ("out", r"^--out .*/afile/out: cannot be made: .*/afile is a file, not a folder$"),
    ("home", r"^the watch state's folder \(\$SHARDMATRIX_HOME: .*/afile\) .*/afile/projects/downstream-\w+: "
             r"cannot be made: .*/afile is a file, not a folder$"),
])
def test_a_file_in_the_way_of_the_state_or_the_runs_is_refused_before_anything_is_judged(
        watching: tuple[list[str], list[str]], tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str], where: str, said: str) -> None:
    (tmp_path / "afile").write_text("x")
    argv = ["--project", str(DOWNSTREAM)]
    if where == "state":
        argv += ["--state", str(tmp_path / "afile" / "deeper" / "state.json"), "--out", str(tmp_path / "out")]
    elif where == "out":
        argv += ["--state", str(tmp_path / "state.json"), "--out", str(tmp_path / "afile" / "out")]
    else:
        monkeypatch.setenv(homes.HOME_ENV, str(tmp_path / "afile"))
    assert command.main(["watch", *argv]) == USAGE_EXIT
    assert watching == ([], [])  # nothing built, nothing judged
    assert re.match(said, capsys.readouterr().err.strip().removeprefix("shardmatrix: "))


def test_a_state_and_runs_that_can_be_written_are_made_and_watched(watching: tuple[list[str], list[str]],
                                                                   tmp_path: Path) -> None:
    from reports.cli import judge

    argv = ["--project", str(DOWNSTREAM), "--state", str(tmp_path / "new" / "state.json"),
            "--out", str(tmp_path / "out")]
    assert watch.run(argv, command.invocation.cells(), judge, fetch=FakeIndex(), say=print) == 0
    assert (tmp_path / "new").is_dir() and (tmp_path / "out").is_dir()
