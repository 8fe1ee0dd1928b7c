"""harness.cell.caseapi: the corpus's `from harness.case import case` is answered by the plugin's own modules, and by
nothing else of ours, only when asked."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import harness
from harness import case, change
from harness.cell import caseapi
from harness.host import cellplugin

BOUND = """
import harness.case as api, shardmatrix_cell.case as own, shardmatrix_cell.change as change
from shardmatrix_cell.cell import caseapi
before = api.ORIGIN
caseapi.bind()
from harness.case import case
from harness.change import Change
try:
    import harness.cell
    rest = "harness.cell answers"
except ImportError:
    rest = "nothing else"
print(before, case is own.case, Change is change.Change, rest)
"""


def test_where_the_plugin_is_harness_itself_binding_changes_nothing() -> None:
    assert caseapi.bind() is harness
    assert sys.modules["harness.case"] is case and sys.modules["harness.change"] is change


def test_a_staged_plugin_binds_the_case_api_over_any_other_harness_on_the_path(tmp_path: Path) -> None:
    # A checkout's `harness` first on the path, as in a cell run from one: the cases still get the plugin's modules.
    (tmp_path / "checkout" / "harness").mkdir(parents=True)
    (tmp_path / "checkout" / "harness" / "__init__.py").write_text("", encoding="utf-8")
    (tmp_path / "checkout" / "harness" / "case.py").write_text('ORIGIN = "checkout"\n', encoding="utf-8")
    staged = cellplugin.staged(tmp_path / "staged")
    done = subprocess.run([sys.executable, "-P", "-c", BOUND], cwd=tmp_path, capture_output=True, text=True,
                          env={"PYTHONPATH": f"{tmp_path / 'checkout'}:{staged}"}, check=False)
    assert done.stdout.split() == ["checkout", "True", "True", "nothing", "else"], done.stderr
