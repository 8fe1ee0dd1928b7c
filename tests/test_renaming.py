"""harness.host.renaming: the one rewriter of our imports, for the cell's `shardmatrix_cell` and the wheel's
`shardmatrix.harness` and `shardmatrix.reports`."""

from __future__ import annotations

from pathlib import Path

import pytest

from harness.host import renaming

WRITTEN = '''"""A docstring keeps harness.case as written."""
from harness import vocabulary
from  harness.cell.needs import (
    Need,
)
import os, harness.results as results


def late() -> str:
    import harness.formats
    return "harness.case"
'''

CELL = {"harness": "shardmatrix_cell"}
WHEEL = {"harness": "shardmatrix.harness", "reports": "shardmatrix.reports"}


def test_staging_renames_each_import_of_harness_and_nothing_else(tmp_path: Path) -> None:
    (tmp_path / "m.py").write_text(WRITTEN, encoding="utf-8")
    assert renaming.renamed(tmp_path / "m.py", CELL) == (
        WRITTEN.replace("from harness import", "from shardmatrix_cell import")
        .replace("from  harness.cell", "from  shardmatrix_cell.cell").replace("os, harness.", "os, shardmatrix_cell.")
        .replace("import harness.formats", "import shardmatrix_cell.formats"))


def test_staging_refuses_an_import_it_could_not_rename(tmp_path: Path) -> None:
    (tmp_path / "m.py").write_text("import os, \\\n    harness.formats\n", encoding="utf-8")
    with pytest.raises(renaming.StagingError, match=r"m.py:1: an import of harness that staging could not rename"):
        renaming.renamed(tmp_path / "m.py", CELL)


def test_the_wheel_puts_harness_and_reports_under_shardmatrix_each_once() -> None:
    source = ("from harness.formats import command\nfrom reports.cli import main\nimport reports.build as build\n"
              "from harnessing import x\nfrom shardmatrix.harness import y\n")
    assert renaming.renamed_source(source, WHEEL) == (
        "from shardmatrix.harness.formats import command\nfrom shardmatrix.reports.cli import main\n"
        "import shardmatrix.reports.build as build\nfrom harnessing import x\nfrom shardmatrix.harness import y\n")


def test_a_dotted_name_is_renamed_as_one_package_and_a_longer_name_is_not() -> None:
    # The wheel's harness staged for a cell: `shardmatrix.harness` is the package staging renames.
    source = "from shardmatrix.harness.cell import plugin\nfrom shardmatrix.harnesses import z\n"
    assert renaming.renamed_source(source, {"shardmatrix.harness": "shardmatrix_cell"}) == (
        "from shardmatrix_cell.cell import plugin\nfrom shardmatrix.harnesses import z\n")


def test_an_import_left_unrenamed_names_the_source_it_is_in() -> None:
    with pytest.raises(renaming.StagingError, match=r"hatch_build.INIT:2: an import of reports"):
        renaming.renamed_source("import os\nimport os, \\\n    reports\n", WHEEL, "hatch_build.INIT")

