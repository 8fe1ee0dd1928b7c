"""harness/tools/census_table.py: the census's table per family, generated from the census and `cites=`."""

from __future__ import annotations

from pathlib import Path

from harness.tools.census_table import census_table

ENTRY = """
[[report]]
id = "{id}"
link = "https://github.com/{repo}/issues/{number}"
family = "fam"
date = "{date}"
appeared = "jax==0.8.1"
fixed = "jax==0.9.0"
summary = "a | b"
{extra}
"""


def _census(tmp_path: Path) -> Path:
    rows = [ENTRY.format(id="jax-ml/jax#2", repo="jax-ml/jax", number=2, date="2026-01-02", extra=""),
            ENTRY.format(id="jax-ml/jax#1", repo="jax-ml/jax", number=1, date="2025-01-01",
                         extra='uncited = "needs a TPU"')]
    (tmp_path / "census.toml").write_text("schema_version = 1\n" + "".join(rows))
    (tmp_path / "fam.py").write_text("@case('fam', cites=('jax-ml/jax#2',))\ndef test_x():\n    pass\n")
    return tmp_path


def test_a_cited_report_names_its_case_and_an_uncited_one_its_reason(tmp_path: Path) -> None:
    lines = census_table("fam", _census(tmp_path)).splitlines()
    assert lines[2].startswith("| [jax-ml/jax#1]") and lines[2].endswith("| not yet: needs a TPU |")
    assert "`fam::test_x`" in lines[3] and "a \\| b" in lines[3]


def test_another_family_gets_only_the_header(tmp_path: Path) -> None:
    assert len(census_table("other", _census(tmp_path)).splitlines()) == 2
