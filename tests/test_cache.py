from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest
from matrix_factory import case_folder, cell_toml

from harness.celldocuments import read_collection, write_collection
from harness.cellrecord import CellFiles, make_record
from harness.host import cache, matrix
from harness.results import read_cell

SETTINGS = cache.Settings(devices=8, backend="cpu", timeout=300.0, reruns=1, hard_grace=10.0, repeats=1)
CELL = matrix.parse(cell_toml("0.4.38", "0.10.2", "3.11"))[0]


def test_fingerprint_is_stable_and_sees_every_input(tmp_path: Path) -> None:
    folder = case_folder(tmp_path, "cases", "test_a.py", ("test_a",))
    everything = cache.selection([folder])
    base = cache.fingerprint("jax==0.4.38\n", "3.11.7", [folder], SETTINGS, everything)
    assert base == cache.fingerprint("jax==0.4.38\n", "3.11.7", [folder], SETTINGS, everything)
    assert base != cache.fingerprint("jax==0.4.37\n", "3.11.7", [folder], SETTINGS, everything)
    assert base != cache.fingerprint("jax==0.4.38\n", "3.12.1", [folder], SETTINGS, everything)
    assert base != cache.fingerprint("jax==0.4.38\n", "3.11.7", [folder], replace(SETTINGS, devices=4), everything)
    assert base != cache.fingerprint("jax==0.4.38\n", "3.11.7", [folder], replace(SETTINGS, repeats=3), everything)
    assert base != cache.fingerprint("jax==0.4.38\n", "3.11.7", [folder], replace(SETTINGS, suite_budget=60.0),
                                     everything)
    # A test may read the cell's variables (an ecosystem project's env): other values are other inputs.
    keras = replace(SETTINGS, environment=(("KERAS_BACKEND", "jax"),))
    assert base != cache.fingerprint("jax==0.4.38\n", "3.11.7", [folder], keras, everything)
    assert cache.fingerprint("jax==0.4.38\n", "3.11.7", [folder], keras, everything) != cache.fingerprint(
        "jax==0.4.38\n", "3.11.7", [folder], replace(SETTINGS, environment=(("KERAS_BACKEND", "torch"),)), everything)
    # A probe of one case (a bisect's) is not the whole corpus, nor a probe of another case.
    one = cache.selection([Path(f"{folder}/test_a.py::TestA::test_a")])
    assert one == ["test_a.py::TestA::test_a"]
    assert base != cache.fingerprint("jax==0.4.38\n", "3.11.7", [folder], SETTINGS, one)
    (folder / "test_a.py").write_text("def test_a(): assert False\n")
    assert base != cache.fingerprint("jax==0.4.38\n", "3.11.7", [folder], SETTINGS, everything)


def test_a_run_without_a_suite_budget_keeps_the_fingerprint_it_had_before_budgets(tmp_path: Path) -> None:
    import dataclasses
    import hashlib

    folder = case_folder(tmp_path, "cases", "test_a.py", ("test_a",))
    everything = cache.selection([folder])
    # The fingerprint as it was computed before suite_budget existed: the six settings alone.
    before = hashlib.sha256()
    before.update(b"jax==0.4.38\n")
    before.update(b"3.11.7")
    for root in [cache.HARNESS, folder]:
        for path in cache._sources(root):
            before.update(str(path.relative_to(root) if root.is_dir() else path.name).encode())
            before.update(path.read_bytes())
    fields = {k: v for k, v in dataclasses.asdict(SETTINGS).items() if k not in ("suite_budget", "environment")}
    before.update(json.dumps(fields, sort_keys=True, default=str).encode())
    before.update(json.dumps(sorted(everything)).encode())
    assert cache.fingerprint("jax==0.4.38\n", "3.11.7", [folder], SETTINGS, everything) == before.hexdigest()


def test_find_and_reuse_pair(tmp_path: Path) -> None:
    out = tmp_path / "out"
    old = CellFiles(out, "r1", "c").results
    old.parent.mkdir(parents=True)
    stored = make_record(run_id="r1", cell_id="c", case_id="m::t", family="m", status="passed")
    old.write_text(json.dumps(stored) + "\n{torn\n")
    write_collection(old, "c", ["m::t"])
    CellFiles(out, "r1", "c").done.write_text(json.dumps({"fingerprint": "k", "returncode": 1}))
    (old.with_suffix("") / "cases").mkdir(parents=True)
    (old.with_suffix("") / "cases" / "fam.py").write_text("def test_t(): ...\n")
    assert cache.find(CellFiles(out, "r2", "c"), "other-key") is None
    hit = cache.find(CellFiles(out, "r2", "c"), "k")
    assert hit is not None and hit.run_id == "r1"
    target = CellFiles(out, "r2", "c").results
    assert cache.reuse(hit, CellFiles(out, "r2", "c")) == 1
    first, torn = target.read_text().splitlines()
    assert json.loads(first) == {**stored, "run_id": "r2"}
    assert torn == "{torn", "a line the reader cannot use is copied as it stands"
    assert read_collection(target) == ("m::t",), "the reused records carry what the cell was expected to run"
    assert (target.with_suffix("") / "cases" / "fam.py").exists()  # reproducers of r2 find the case source


def _stored_run(out: Path, text: str) -> cache.Hit:
    old = CellFiles(out, "r1", "c").results
    old.parent.mkdir(parents=True)
    old.write_text(text)
    write_collection(old, "c", ["m::t"])
    CellFiles(out, "r1", "c").done.write_text(json.dumps({"fingerprint": "k", "returncode": 1}))
    hit = cache.find(CellFiles(out, "r2", "c"), "k")
    assert hit is not None
    return hit


def test_a_reused_cell_reads_as_its_source_did_with_its_problems(tmp_path: Path) -> None:
    record = json.dumps(make_record(run_id="r1", cell_id="c", case_id="m::t", family="m", status="passed"))
    hit = _stored_run(tmp_path, record + "\n{torn\n")
    cache.reuse(hit, CellFiles(tmp_path, "r2", "c"))
    source, copy = read_cell(hit.records), read_cell(CellFiles(tmp_path, "r2", "c").results)
    assert not source.accounted and not copy.accounted
    assert len(copy.problems) == len(source.problems) >= 1


def test_a_reused_clean_cell_reads_clean(tmp_path: Path) -> None:
    record = json.dumps(make_record(run_id="r1", cell_id="c", case_id="m::t", family="m", status="passed"))
    hit = _stored_run(tmp_path, record + "\n")
    cache.reuse(hit, CellFiles(tmp_path, "r2", "c"))
    assert read_cell(CellFiles(tmp_path, "r2", "c").results).accounted


def test_interrupted_run_is_never_a_hit(tmp_path: Path) -> None:
    out = tmp_path / "out"
    CellFiles(out, "r1", "c").results.parent.mkdir(parents=True)
    CellFiles(out, "r1", "c").results.write_text("")
    assert cache.find(CellFiles(out, "r2", "c"), "k") is None  # no done marker: interrupted
    CellFiles(out, "r1", "c").done.write_text('{"fingerprint": "k", "returncode": 1, "schema_version": 99}')
    assert cache.find(CellFiles(out, "r2", "c"), "k") is None  # a marker nobody can read vouches for nothing


def test_the_harness_s_release_tools_are_no_input_of_a_cell_but_its_cell_code_is(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    harness = tmp_path / "harness"
    for module in ("cell/plugin.py", "tools/ranges.py", "vocabulary.py"):
        (harness / module).parent.mkdir(parents=True, exist_ok=True)
        (harness / module).write_text("X = 1\n")
    monkeypatch.setattr(cache, "HARNESS", harness)
    monkeypatch.setattr(cache, "_NOT_A_CELL_INPUT", harness / "tools")
    folder = case_folder(tmp_path, "cases", "test_a.py", ("test_a",))

    def now() -> str:
        return cache.fingerprint("jax==0.4.38\n", "3.11.7", [folder], SETTINGS, cache.selection([folder]))

    base = now()
    (harness / "tools/ranges.py").write_text("X = 2\n")  # the range checker judges cells; it never runs in one
    assert now() == base
    (harness / "cell/plugin.py").write_text("X = 2\n")
    assert now() != base
