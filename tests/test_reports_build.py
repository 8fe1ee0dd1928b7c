"""Tests for reports/build.py, and write_synthetic_tree(): a realistic results tree for looking at reports."""

from __future__ import annotations

import ast
import json
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
from record_factory import collected, record

import reports
from reports.build import Report, build_report, report_dir, results_dir
from reports.data.load import ResultsError

REPORTS = Path(reports.__file__).parent

HOSTILE = "<script>alert(1)</script> | pipe\nsecond line `tick` *star* [x](y) & $x$"

#: (jax, jaxlib, flax, python) of each synthetic cell, deliberately not in version order.
CELLS: tuple[tuple[str, str, str, str], ...] = (
    ("0.10.2", "0.10.2", "0.12.8", "3.12"),
    ("0.4.38", "0.4.38", "0.10.2", "3.12"),
    ("0.4.30", "0.4.30", "0.8.5", "3.10"),
    ("0.4.30", "0.4.30", "0.8.5", "3.11"),
    ("0.4.35", "0.4.35", "0.10.0", "3.11"),
    ("0.5.0", "0.5.0", "0.10.2", "3.11"),
    ("0.5.3", "0.5.3", "0.10.4", "3.12"),
    ("0.6.2", "0.6.2", "0.10.6", "3.12"),
    ("0.7.0", "0.7.0", "0.11.0", "3.12"),
    ("0.7.2", "0.7.2", "0.11.2", "3.13"),
    ("0.8.1", "0.8.1", "0.12.0", "3.12"),
    ("0.9.0", "0.9.0", "0.12.2", "3.13"),
    ("0.10.0", "0.10.0", "0.12.6", "3.13"),
    ("0.10.2", "0.10.2", "0.12.8", "3.11"),
)

CASES: tuple[str, ...] = (
    "sharded_gathers::test_at_get_out_sharding",
    "sharded_gathers::test_take_along_axis",
    "sharded_gathers::test_gather_batched[4x2]",
    "shard_map::test_experimental_shard_map",
    "shard_map::test_jax_shard_map",
    "shard_map::test_check_vma",
    "named_sharding::test_device_put_named",
    "named_sharding::test_with_sharding_constraint",
    "nnx_partitioning::test_nnx_get_partition_spec",
    "nnx_partitioning::test_logical_to_mesh",
    "mesh_utils::test_create_device_mesh",
    "mesh_utils::test_make_mesh_axis_types",
)


def _v(text: str) -> tuple[int, ...]:
    return tuple(int(part) for part in text.split("."))


def _outcome(case_id: str, jax: str, flax: str, python: str, rng: random.Random) -> dict[str, Any]:
    """A plausible outcome for one case in one cell; the rules mimic how sharding APIs moved."""
    v = _v(jax)
    if case_id.endswith("test_jax_shard_map") and v < (0, 5, 0):
        return {"status": "not_applicable", "reason": "jax.shard_map absent (needs jax>=0.5.0)"}
    if case_id.endswith("test_make_mesh_axis_types") and v < (0, 6, 0):
        return {"status": "not_applicable", "reason": "jax.sharding.AxisType absent"}
    if case_id.endswith("test_check_vma") and v < (0, 6, 2):
        return {"status": "not_applicable", "reason": "shard_map(check_vma=) parameter absent"}
    if case_id.endswith("test_experimental_shard_map") and v >= (0, 8, 0):
        return {
            "status": "passed",
            "warnings": ["DeprecationWarning: jax.experimental.shard_map is deprecated; use jax.shard_map"],
        }
    if case_id.endswith("test_with_sharding_constraint") and v >= (0, 10, 0):
        return {"status": "failed", "error_type": "ValueError", "error_message": HOSTILE}
    if case_id.endswith("test_at_get_out_sharding") and v < (0, 4, 35):
        return {"status": "failed", "error_type": "TypeError",
                "error_message": "_rewriting_take() got an unexpected keyword argument 'out_sharding'"}
    if case_id.endswith("test_nnx_get_partition_spec") and _v(flax) < (0, 10, 0):
        return {"status": "xfailed", "reason": "flax#4123: nnx.get_partition_spec drops PartitionSpec on Variables"}
    if case_id.endswith("test_logical_to_mesh") and _v(flax) == (0, 11, 0):
        return {"status": "xpassed", "reason": "flax#4410 listed as broken in 0.11.0 but now passes"}
    if case_id.endswith("test_gather_batched[4x2]") and jax == "0.7.0":
        return {"status": "timeout", "reason": "stopped after 120 s"}
    if case_id.endswith("test_take_along_axis") and jax == "0.9.0":
        return {"status": "crashed", "reason": "worker died: signal 11 (SIGSEGV)"}
    if case_id.endswith("test_device_put_named") and v >= (0, 7, 0):
        return {"status": "passed", "warnings": [
            "DeprecationWarning: jax.sharding.PositionalSharding is deprecated",
            "UserWarning: Explicitly requested dtype float64 requested in zeros is not available",
        ]}
    return {"status": "passed"}


#: Where a cell's venv happened to live: no report may show it.
VENV = "/tmp/shardmatrix-ci/.nox/cell-jax0-5-3-flax0-10-4-py3-11/lib/python3.11/site-packages"

#: The synthetic cell that was interrupted (no done marker), and how many of its cases it recorded first.
INTERRUPTED = ("jax0.10.0-flax0.12.6-py3.13", 8)

#: (cell, case): the attempts a retried case made, first to last; flaky where they disagree.
RETRIED: dict[tuple[str, str], tuple[str, ...]] = {
    ("jax0.8.1-flax0.12.0-py3.12", "sharded_gathers::test_gather_batched[4x2]"): ("failed", "passed"),
    ("jax0.6.2-flax0.10.6-py3.12", "mesh_utils::test_create_device_mesh"): ("crashed", "failed"),
    ("jax0.10.2-flax0.12.8-py3.12", "named_sharding::test_with_sharding_constraint"): ("failed", "failed"),
}

#: What a retried attempt that did not pass says.
ATTEMPT_ERRORS: dict[str, dict[str, Any]] = {
    "failed": {"error_type": "AssertionError", "error_message": "arrays differ: max abs diff 0.03125 (shard 5 of 8)"},
    "crashed": {"reason": "worker died: signal 6 (SIGABRT)"},
}


def write_synthetic_tree(out_dir: Path, run_id: str = "20261121T084500Z-ab12", seed: int = 0) -> Path:
    """Write a realistic OUT/results/<run_id>/ tree (14 cells, 12 cases, 5 families, every status, retried and
    flaky cases, one interrupted cell); return it."""
    rng = random.Random(seed)
    run_dir = results_dir(out_dir) / run_id
    run_dir.mkdir(parents=True, exist_ok=True)
    for jax, jaxlib, flax, python in CELLS:
        cell_id = f"jax{jax}-flax{flax}-py{python}"
        patch = rng.randint(1, 9)
        lines = []
        for case_id in CASES:
            if python == "3.13" and _v(jax) < (0, 8, 0):
                outcome: dict[str, Any] = {"status": "install_error", "error_type": "InstallError",
                                           "error_message": f"No solution found: jaxlib=={jaxlib} has no wheel "
                                                            f"for CPython {python}"}
            elif jax == "0.5.3":
                outcome = {"status": "error", "error_type": "ImportError",
                           "error_message": f"cannot import name 'linear_util' from 'jax' "
                                            f"({VENV}/flax/core/axes_scan.py)",
                           "warnings": [f"DeprecationWarning: old ({VENV}/jax/_src/deprecations.py:55)"]}
            else:
                outcome = _outcome(case_id, jax, flax, python, rng)
            installed = outcome["status"] != "install_error"
            duration = round(rng.uniform(0.05, 2.5) * (1 + _v(jax)[1] / 20), 4) if installed else None
            compile_s = round(duration * rng.uniform(0.5, 0.8), 4) if duration else None
            family = case_id.partition("::")[0]
            made = record(
                jax, flax, f"{python}.{patch}" if installed else python, run_id=run_id, cell_id=cell_id,
                case_id=case_id, family=family, status=outcome["status"], reason=outcome.get("reason"),
                duration_s=duration, compile_s=compile_s,
                execute_s=round(duration - compile_s, 4) if duration and compile_s else None,
                error_type=outcome.get("error_type"), error_message=outcome.get("error_message"),
                warnings=outcome.get("warnings", []), jaxlib=jaxlib, numpy="2.1.3" if installed else None,
                backend="cpu" if installed else None, device_kind="cpu" if installed else None,
                device_count=8 if installed else None, platform="Linux-x86_64" if installed else None,
                timestamp="2026-11-21T08:45:12.123456+00:00",
            )
            attempts = RETRIED.get((cell_id, case_id), (outcome["status"],))
            for number, status in enumerate(attempts, start=1):
                final = number == len(attempts)
                details = {} if final and status == outcome["status"] else ATTEMPT_ERRORS.get(status, {})
                keep = {"error_type": None, "error_message": None, "reason": None} if status == "passed" else {}
                lines.append(json.dumps({**made, **keep, **details, "status": status, "attempt": number}))
            if case_id.endswith("test_take_along_axis") and installed:
                # A plain repeat, not a retry: the report shows the last record and the median duration.
                lines.append(json.dumps({**made, "duration_s": made["duration_s"] * 1.1}))
        if cell_id == INTERRUPTED[0]:
            # Stopped part-way: the last case's line was torn mid-write, and no done marker follows.
            kept = [line for line in lines if json.loads(line)["case_id"] in CASES[: INTERRUPTED[1]]]
            (run_dir / f"{cell_id}.jsonl").write_text("\n".join(kept) + "\n" + lines[len(kept)][:40],
                                                      encoding="utf-8")
            collected(run_dir / f"{cell_id}.jsonl")
            continue
        (run_dir / f"{cell_id}.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
        collected(run_dir / f"{cell_id}.jsonl")
        marker = {"schema_version": 1, "cell_id": cell_id, "finished": "2026-11-21T08:52:40.000000+00:00",
                  "returncode": 1}
        (run_dir / f"{cell_id}.done.json").write_text(json.dumps(marker) + "\n", encoding="utf-8")
    (run_dir / "cell.log").write_text("not a results file\n", encoding="utf-8")
    return run_dir


# --- reports/ stands alone (what it imports: tests/test_layout.py) ------------------------------------------


def test_importing_reports_loads_no_harness_module_but_the_vocabulary() -> None:
    allowed = ("('harness', 'harness.vocabulary', 'harness.cellrecord', 'harness.formats', 'harness.outputs', "
               "'harness.results', 'harness.celldocuments', 'harness.cellidentity', 'harness.runs')")
    code = ("import sys, reports.cli; "
            f"sys.exit(any(m.split('.')[0] == 'harness' and m not in {allowed} for m in sys.modules))")
    assert subprocess.run([sys.executable, "-c", code], cwd=REPORTS.parent).returncode == 0


# --- build_report ---------------------------------------------------------------------------------------------


def test_paths_are_decided_in_one_place(tmp_path: Path) -> None:
    assert results_dir(tmp_path) == tmp_path / "results"
    assert report_dir(tmp_path) == tmp_path / "report"


def synthetic_report(out_dir: Path) -> Report:
    """The report of the synthetic tree, whose interrupted cell's torn last line is expected."""
    with pytest.warns(RuntimeWarning, match=rf"{INTERRUPTED[0]}\.jsonl:\d+: skipped line: not valid JSON"):
        return build_report(out_dir)


def test_build_report_writes_every_file(tmp_path: Path) -> None:
    write_synthetic_tree(tmp_path)
    report = synthetic_report(tmp_path)
    assert report.paths == tuple(report_dir(tmp_path) / name
                                 for name in ("results.csv", "matrix.md", "matrix.html", "compat.csv", "compat.json",
                                              "changes.csv"))
    for path in report.paths:
        assert path.is_file() and path.stat().st_size > 0
    assert "jax0.4.30-flax0.8.5-py3.10" in report.summary.splitlines()[2]


def test_synthetic_tree_shows_every_status_and_the_hostile_text_escaped(tmp_path: Path) -> None:
    write_synthetic_tree(tmp_path)
    report = synthetic_report(tmp_path)
    html = report.html_path.read_text(encoding="utf-8")
    markdown = report.markdown_path.read_text(encoding="utf-8")
    for status in ("passed", "passed_deprecated", "failed", "error", "not_applicable", "xfailed", "xpassed",
                   "crashed", "timeout", "install_error"):
        assert f"status st-{status}" in html, status
    assert "<script>" not in html and "&lt;script&gt;" in html
    assert "\\<script\\>alert(1)\\</script\\> \\| pipe" in markdown
    assert len(pd.read_csv(report.csv_path)) == 14 * 12 - (12 - INTERRUPTED[1])


def test_synthetic_tree_shows_flaky_results_and_the_interrupted_cell(tmp_path: Path) -> None:
    write_synthetic_tree(tmp_path)
    report = synthetic_report(tmp_path)
    results = pd.read_csv(report.csv_path)
    flaky = results[results["flaky"]]
    assert sorted(flaky["status"]) == ["failed", "passed"]
    assert (results["attempts"] > 1).sum() == len(RETRIED)
    assert set(results.loc[~results["cell_complete"], "cell"]) == {INTERRUPTED[0]}
    assert f"incomplete: {INTERRUPTED[0]} (interrupted; resume with: nox -s matrix -- --resume" in report.summary
    html = report.html_path.read_text(encoding="utf-8")
    assert html.count("status st-passed flaky") == html.count("status st-failed flaky") == 1
    assert "flaky: failed → passed" in report.markdown_path.read_text(encoding="utf-8")


def test_no_report_file_shows_a_venv_path(tmp_path: Path) -> None:
    write_synthetic_tree(tmp_path)
    synthetic_report(tmp_path)
    texts = {path.name: path.read_text(encoding="utf-8") for path in report_dir(tmp_path).rglob("*") if path.is_file()}
    assert set(texts) >= {"results.csv", "matrix.md", "matrix.html", "compat.csv", "compat.json"}
    for name, text in texts.items():
        for venv_part in ("/.nox/", "site-packages/", "/tmp/"):
            assert venv_part not in text, (name, venv_part)
    # The package-relative path is kept: it says where the error came from.
    assert "(flax/core/axes_scan.py)" in texts["results.csv"] and "(flax/core/axes_scan.py)" in texts["matrix.html"]


def test_compat_files_hold_one_verdict_per_cell(tmp_path: Path) -> None:
    write_synthetic_tree(tmp_path)
    report = synthetic_report(tmp_path)
    table = pd.read_csv(report.compat_csv_path)
    assert list(table["key"]) == [f"c{n}" for n in range(1, 15)]
    verdicts = dict(zip(table["cell_id"], table["verdict"], strict=True))
    assert verdicts[INTERRUPTED[0]] == "interrupted"
    assert verdicts["jax0.4.30-flax0.8.5-py3.10"] == "partial"
    assert "not_built" in verdicts.values()
    assert len(json.loads(report.compat_json_path.read_text(encoding="utf-8"))) == 14


def test_build_report_of_chosen_runs_puts_them_side_by_side(tmp_path: Path) -> None:
    write_synthetic_tree(tmp_path, run_id="20261120T000000Z-aaaa")
    write_synthetic_tree(tmp_path, run_id="20261121T000000Z-bbbb")
    newest = synthetic_report(tmp_path)
    assert "20261120T000000Z-aaaa" not in newest.csv_path.read_text(encoding="utf-8")
    with pytest.warns(RuntimeWarning):
        both = build_report(tmp_path, all_runs=True)
    assert len(pd.read_csv(both.csv_path)) == 2 * (14 * 12 - (12 - INTERRUPTED[1]))
    markdown = both.markdown_path.read_text(encoding="utf-8")
    assert "Runs r1 `20261120T000000Z-aaaa`, r2 `20261121T000000Z-bbbb`" in markdown


def test_build_report_without_results_raises(tmp_path: Path) -> None:
    with pytest.raises(ResultsError, match="no results folder"):
        build_report(tmp_path)


def test_a_measured_frontier_joins_both_pages_and_a_bad_one_is_left_out_with_a_warning(tmp_path: Path) -> None:
    write_synthetic_tree(tmp_path)
    report = synthetic_report(tmp_path)
    assert 'id="frontier"' not in report.html_path.read_text(encoding="utf-8")  # none measured: no section
    frontier = {"schema_version": 2, "jax": ["0.7.0", "0.7.1"], "releases": [{
        "flax": "0.10.2", "requirement": "jax>=0.7.0,<=0.7.0",
        "row": {"flax": "0.10.2", "declared_jax": ">=0.4.27", "core_from": "0.7.0", "core_to": "0.7.0",
                "works_from": "0.7.0", "works_to": "0.7.0",
                "first_broken_below": "", "first_broken_above": "0.7.1", "cause_below": "",
                "cause_above": "TypeError: boom", "probes": "2", "holes": ""},
        "probes": [{"jax": "0.7.0", "works": True, "cell": "jax0.7.0-flax0.10.2-py3.11", "cause": "", "seconds": 1},
                   {"jax": "0.7.1", "works": False, "cell": "jax0.7.1-flax0.10.2-py3.11", "cause": "TypeError: boom",
                    "seconds": 1}]}]}
    (report_dir(tmp_path) / "frontier.json").write_text(json.dumps(frontier), encoding="utf-8")
    report = synthetic_report(tmp_path)
    page = report.html_path.read_text(encoding="utf-8")
    assert 'id="frontier"' in page and 'href="#frontier"' in page and "jax&gt;=0.7.0,&lt;=0.7.0" in page
    assert "## Frontier" in report.markdown_path.read_text(encoding="utf-8")
    (report_dir(tmp_path) / "frontier.json").write_text('{"schema_version": 99}', encoding="utf-8")
    with pytest.warns(UserWarning, match="frontier left out of the report"):
        report = synthetic_report(tmp_path)
    assert 'id="frontier"' not in report.html_path.read_text(encoding="utf-8")


def test_the_cycle_collector_is_paused_during_a_build_and_restored_after_even_a_failed_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import gc

    import reports.build

    write_synthetic_tree(tmp_path)
    seen: list[bool] = []
    real = reports.build.build_matrix

    def watched(*args: Any, **kwargs: Any) -> Any:
        seen.append(gc.isenabled())
        return real(*args, **kwargs)

    monkeypatch.setattr(reports.build, "build_matrix", watched)
    assert gc.isenabled()
    synthetic_report(tmp_path)
    assert seen == [False] and gc.isenabled()
    with pytest.raises(ResultsError):
        build_report(tmp_path / "nothing here")
    assert gc.isenabled()
    gc.disable()
    try:  # a caller that paused it itself keeps it paused
        synthetic_report(tmp_path)
        assert not gc.isenabled()
    finally:
        gc.enable()


# --- a released cell beside one whose flax was built from a source tree -------------------------------------------

BRANCH_CASE = '"""A case."""\n\n\ndef test_take():\n    """It breaks."""\n    raise ValueError("boom")\n'


def write_source_pair(out_dir: Path, run_id: str = "20261124T040000Z-5c5c") -> tuple[str, str]:
    """A run of two cells on jax 0.9.2 and flax 0.12.6, the second's flax built from /src/flax, each with its freeze
    written by the harness's own writer and one failing case whose module was kept; returns their cell ids."""
    from harness.cellrecord import CellFiles
    from harness.host import envbuild
    from harness.host.matrix import Cell, Origin

    origin = Origin(package="flax", version="0.12.6", label="tree.5a0b5832", where="file:///src/flax",
                    requirement="flax @ file:///built/flax-0.12.6-py3-none-any.whl")
    released = Cell(id="jax0.9.2-flax0.12.6-py3.11", jax="0.9.2", jaxlib="0.9.2", flax="0.12.6", python="3.11")
    branch = Cell(id=f"jax0.9.2-flax{origin.tag}-py3.11", jax="0.9.2", jaxlib="0.9.2", flax="0.12.6",
                  python="3.11", sources=(origin,))
    run_dir = results_dir(out_dir) / run_id
    for cell in (released, branch):
        results = run_dir / f"{cell.id}.jsonl"
        (results.with_suffix("") / "cases").mkdir(parents=True)
        (results.with_suffix("") / "cases" / "gathers.py").write_text(BRANCH_CASE, encoding="utf-8")
        made = record("0.9.2", "0.12.6", "3.11.9", run_id=run_id, cell_id=cell.id, case_id="gathers::test_take",
                      family="gathers", status="failed", error_type="ValueError", error_message="boom",
                      numpy="2.1.3", backend="cpu", device_kind="cpu")
        results.write_text(json.dumps(made) + "\n", encoding="utf-8")
        freeze = CellFiles.of(results).freeze
        freeze.write_text(envbuild.provenance(cell) + "flax==0.12.6\njax==0.9.2\n", encoding="utf-8")
        (run_dir / f"{cell.id}.done.json").write_text('{"returncode": 1}\n', encoding="utf-8")
    return released.id, branch.id


def test_a_source_built_flax_is_named_by_its_source_in_every_report_file(tmp_path: Path) -> None:
    released, branch = write_source_pair(tmp_path)
    report = build_report(tmp_path)
    markdown = report.markdown_path.read_text(encoding="utf-8")
    cells = markdown.split("## Cells", 1)[1]
    rows = {line.split("|")[2].strip(" `"): line for line in cells.splitlines() if line.startswith("| **c")}
    assert "flax 0.12.6+tree.5a0b5832 from /src/flax" in rows[branch]
    assert "from" not in rows[released]
    assert list(rows) == [released, branch]  # the branch after the release whose version it carries
    # Its own row of the compatibility table, never the release's: the released 0.12.6 has one too.
    compat_md = markdown.split("## Compatibility", 1)[1].split("##", 1)[0]
    assert "| **0.12.6+tree.5a0b5832 (from `/src/flax`)** |" in compat_md
    assert "| **0.12.6** |" in compat_md
    html = report.html_path.read_text(encoding="utf-8")
    assert "0.12.6+tree.5a0b5832 (from /src/flax)" in html  # its compatibility row
    assert "flax 0.12.6+tree.5a0b5832 from /src/flax" in html  # its Cells note
    table = pd.read_csv(report.compat_csv_path, keep_default_na=False).set_index("cell_id")
    assert table.at[branch, "flax"] == "0.12.6+tree.5a0b5832"
    assert table.at[branch, "sources"] == "flax 0.12.6+tree.5a0b5832 from file:///src/flax"
    assert (table.at[released, "flax"], table.at[released, "sources"]) == ("0.12.6", "")
    verdicts = {row["cell_id"]: row for row in json.loads(report.compat_json_path.read_text(encoding="utf-8"))}
    assert verdicts[branch]["sources"] == {"flax": {"version": "0.12.6", "where": "file:///src/flax",
                                                    "label": "tree.5a0b5832"}}
    assert verdicts[released]["sources"] == {}


def test_a_reproducer_installs_a_source_built_flax_from_its_source_and_a_released_one_by_version(
        tmp_path: Path) -> None:
    import tomllib

    released, branch = write_source_pair(tmp_path)
    build_report(tmp_path)

    def metadata(cell_id: str) -> tuple[dict[str, Any], str]:
        text = (report_dir(tmp_path) / "repro" / cell_id / "gathers__test_take.py").read_text(encoding="utf-8")
        block = text.split("# /// script\n", 1)[1].split("# ///\n", 1)[0]
        return tomllib.loads("".join(line[2:] + "\n" for line in block.splitlines())), text

    plain, _ = metadata(released)
    assert plain["dependencies"] == ["jax==0.9.2", "jaxlib==0.9.2", "flax==0.12.6", "numpy==2.1.3"]
    built, text = metadata(branch)
    assert built["dependencies"] == ["jax==0.9.2", "jaxlib==0.9.2", "flax @ file:///src/flax", "numpy==2.1.3"]
    assert '"flax @ file:///src/flax",  # recorded as 0.12.6, content hash tree.5a0b5832' in text
    assert "flax came from file:///src/flax, built as 0.12.6+tree.5a0b5832" in text
    ast.parse(text)


# --- a failed build leaves the previous report whole -----------------------------------------------------------------


def small_tree(out_dir: Path, status: str) -> None:
    """One finished cell of two cases, the second of `status`."""
    path = results_dir(out_dir) / "20261121T084500Z-ab12" / "jax0.10.2-flax0.12.8-py3.11.jsonl"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r) + "\n" for r in (record(), record(case_id="fam::b", status=status))),
                    encoding="utf-8")
    path.with_suffix(".done.json").write_text('{"returncode": 0}', encoding="utf-8")


def test_a_second_build_replaces_every_report_file(tmp_path: Path) -> None:
    small_tree(tmp_path, "passed")
    first = build_report(tmp_path)
    small_tree(tmp_path, "failed")
    second = build_report(tmp_path)
    assert "failed" in second.markdown_path.read_text(encoding="utf-8") and first.paths == second.paths
    assert not [p.name for p in report_dir(tmp_path).iterdir() if p.name.endswith(".tmp")]


def test_a_build_that_fails_midway_leaves_the_previous_report_whole(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    small_tree(tmp_path, "passed")
    before = {path.name: path.read_bytes() for path in build_report(tmp_path).paths}
    small_tree(tmp_path, "failed")

    def broken(*args: object, **kwargs: object) -> str:
        raise RuntimeError("the html view broke after the markdown was made")

    monkeypatch.setattr(reports.build, "render_html", broken)
    with pytest.raises(RuntimeError, match="the html view broke"):
        build_report(tmp_path)
    after = {path.name: path.read_bytes() for path in report_dir(tmp_path).iterdir() if path.is_file()}
    assert after == before  # matrix.md included: nothing half-written, no temporary left beside it
