"""Reproducer scripts: inline metadata, the case source, helpers, and which results get one."""

from __future__ import annotations

import ast
import sys
import types
from pathlib import Path
from typing import Any

import pytest
from record_factory import record

from harness import vocabulary
from reports.data.load import records_frame
from reports.data.tables import collapse
from reports.views.repro import SHIM, helpers, path_for, reproducible, script, write_reproducers

CASE = '''"""A case."""

from __future__ import annotations

import jax

from cases._support import ambient_mesh
from harness.case import case


@case("fam", devices=8)
def test_breaks():
    """It breaks."""
    raise ValueError("boom")
'''


def row(**fields: Any) -> dict[str, Any]:
    """A failing record of `mod::test_breaks` in `cellA` of run r1; keyword arguments override fields."""
    return record(**{"run_id": "r1", "cell_id": "cellA", "case_id": "mod::test_breaks", "status": "failed",
                     "error_type": "ValueError", "error_message": "boom", "numpy": "2.1.0", "python": "3.11.9",
                     **fields})


def test_script_pins_the_cell_and_runs_the_one_case() -> None:
    text = script(row(), CASE, {"cases._support": "ambient_mesh = None\n"})
    assert '# requires-python = "==3.11.*"' in text
    assert '"jax==0.10.2", "jaxlib==0.10.2", "flax==0.12.8", "numpy==2.1.0"' in text
    assert "--xla_force_host_platform_device_count=8" in text
    assert text.index("XLA_FLAGS") < text.index("import jax\n")
    assert "test_breaks()" in text and "ValueError: boom" in text
    ast.parse(text)  # one valid module, its future import first


def test_a_parametrized_case_runs_through_pytest() -> None:
    text = script(row(case_id="mod::test_breaks[x]"), CASE, {})
    assert "pytest.main" in text and '"pytest"' in text


def test_helpers_are_the_modules_imported_from_the_case_folder(tmp_path: Path) -> None:
    (tmp_path / "_support.py").write_text("from cases._base import X\n")
    (tmp_path / "_base.py").write_text("X = 1\n")
    assert list(helpers(CASE, tmp_path)) == ["cases._base", "cases._support"]
    assert helpers("import numpy\n", tmp_path) == {}


def test_reproducers_are_written_for_failures_with_kept_sources_only(tmp_path: Path) -> None:
    results = tmp_path / "results" / "r1" / "cellA.jsonl"
    (results.with_suffix("") / "cases").mkdir(parents=True)
    (results.with_suffix("") / "cases" / "mod.py").write_text(CASE)
    rows = [row(source=str(results)), row(case_id="mod::test_ok", status="passed", source=str(results)),
            row(case_id="gone::test_x", source=str(results))]
    frame = records_frame(rows)
    frame["source"] = str(results)
    written = write_reproducers(collapse(frame), tmp_path / "report")
    assert list(written) == [("cellA", "mod::test_breaks")]
    assert (tmp_path / "report" / written[("cellA", "mod::test_breaks")]).exists()
    assert path_for(tmp_path, "c", "m::t[a b]").name == "m__t_a_b_.py"


@pytest.mark.parametrize("status", [*vocabulary.ALL, "quarantined"])
def test_which_statuses_get_a_reproducer_follows_the_vocabulary_classes(status: str) -> None:
    # Every problem, an unknown status included, but install_error: no case ran, the environment failed.
    expected = vocabulary.is_problem(status) and status != vocabulary.INSTALL_ERROR
    assert reproducible(status) is expected
    assert reproducible(status) is (status in {"failed", "error", "xfailed", "crashed", "timeout", "quarantined"})


def test_an_unknown_status_gets_a_reproducer(tmp_path: Path) -> None:
    results = tmp_path / "results" / "r1" / "cellA.jsonl"
    (results.with_suffix("") / "cases").mkdir(parents=True)
    (results.with_suffix("") / "cases" / "mod.py").write_text(CASE)
    frame = records_frame([row(status="quarantined", source=str(results))])
    frame["source"] = str(results)
    assert list(write_reproducers(collapse(frame), tmp_path / "report")) == [("cellA", "mod::test_breaks")]


@pytest.mark.parametrize(("where", "label"), [("file:///tmp/w/flax-0.12.6-py3-none-any.whl", "wheel.0badc0de"),
                                              ("git+https://github.com/google/flax@main", "git.1a2b3c4d")])
def test_a_source_built_package_is_required_by_its_reference_and_a_release_by_its_version(where: str,
                                                                                        label: str) -> None:
    import tomllib

    from harness.formats import Source

    def dependencies(text: str) -> list[str]:
        block = text.split("# /// script\n", 1)[1].split("# ///\n", 1)[0]
        return list(tomllib.loads("".join(line[2:] + "\n" for line in block.splitlines()))["dependencies"])

    released = script(row(), CASE, {})
    built = script(row(), CASE, {}, {"flax": Source("flax", "0.12.8", where, label)})
    assert dependencies(released) == ["jax==0.10.2", "jaxlib==0.10.2", "flax==0.12.8", "numpy==2.1.0"]
    assert dependencies(built) == ["jax==0.10.2", "jaxlib==0.10.2", f"flax @ {where}", "numpy==2.1.0"]
    assert f"content hash {label}" in built and "content hash" not in released



def run_shim(helper: str) -> types.ModuleType:
    """Run a reproducer's shim with one helper module `cases._support`, leaving sys.modules as it found it."""
    ours = [name for name in sys.modules if name == "harness" or name.startswith(("harness.", "cases"))]
    saved = {name: sys.modules.pop(name) for name in ours}
    try:
        exec(compile(SHIM, "shim", "exec"), {"sys": sys, "types": types, "HELPERS": {"cases._support": helper}})
        return sys.modules["cases._support"]
    finally:
        for name in [n for n in sys.modules if n == "harness" or n.startswith(("harness.", "cases"))]:
            del sys.modules[name]
        sys.modules.update(saved)


def test_the_shim_answers_the_case_api_a_helper_module_imports() -> None:
    helper = ("from harness.case import Change, api\nfrom harness.change import Change as Declared\n"
              "X = Change('jax>=1')\n")
    assert run_shim(helper).X is None  # a declaration the run does not need


def test_the_shim_does_not_answer_a_name_the_case_api_lacks() -> None:
    with pytest.raises(ImportError):
        run_shim("from harness.case import not_a_name\n")
