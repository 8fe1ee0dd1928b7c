"""End to end, on real uv-built cells: `shardmatrix ecosystem` with a list of two projects, each an sdist of
tests/downstream (tinytrainer) on a local index under its own name, asks whether jax 0.9.2 is safe against jax
0.8.3 with flax 0.12.6. Both break the same way (tinytrainer's vocab-sharded `table[ids]` under a default
jax.make_mesh raises ShardingTypeError on jax 0.9.2, measured in tests/test_e2e_project.py), so the report holds
one cause naming both projects, with a reproducer each. Slow (four real cells): marked e2e.
"""

from __future__ import annotations

import io
import shutil
import tarfile
from datetime import date
from pathlib import Path
from typing import Any

import pytest

from harness import ecosystem_summary, formats
from harness.host import matrix
from shardmatrix import ecosystem, ecosystem_sources

pytestmark = pytest.mark.e2e

ROOT = Path(__file__).resolve().parent.parent
FIXTURE = Path(__file__).resolve().parent / "downstream"
LIST = """schema_version = 1
{entries}"""
ENTRY = """
[[project]]
name = "{name}"
why = "a vocab-sharded embedding lookup under jax.make_mesh"
source = "sdist"
tests = ["tests"]
whole = true
devices = 8
budget = 120
"""


def sdist_of(fixture: Path, name: str, folder: Path) -> Path:
    """The fixture project's files as the sdist `name`-0.1.0.tar.gz (one top folder, caches left out)."""
    path = folder / f"{name}-0.1.0.tar.gz"
    with tarfile.open(path, "w:gz") as archive:
        for file in sorted(p for p in fixture.rglob("*") if p.is_file() and "__pycache__" not in p.parts
                           and ".venv" not in p.parts):
            data = file.read_bytes()
            info = tarfile.TarInfo(f"{name}-0.1.0/{file.relative_to(fixture)}")
            info.size = len(data)
            archive.addfile(info, io.BytesIO(data))
    return path


def test_one_cause_in_two_real_projects_is_one_row_naming_both(tmp_path: Path,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    from reports.cli import judge
    from reports.ecosystem_report import write

    served = {}
    for name in ("trainer-a", "trainer-b"):
        made = sdist_of(FIXTURE, name, tmp_path)
        served[name] = {"releases": {"0.1.0": [{"filename": made.name, "url": made.as_uri(), "packagetype": "sdist",
                                                "upload_time_iso_8601": "2026-11-01T10:00:00Z"}]}}

    def fetch(url: str, accept: str) -> Any:
        return served[url.split("/")[-2]]

    listed = tmp_path / "ecosystem.toml"
    listed.write_text(LIST.format(entries="".join(ENTRY.format(name=name) for name in served)))
    monkeypatch.setattr(ecosystem_sources, "FETCHED", tmp_path / "fetched")
    said: list[str] = []
    today = date.today().isoformat()
    code = ecosystem.run(["jax==0.9.2", "--baseline", "jax==0.8.3,flax==0.12.6", "--as-of", today, "--list",
                          str(listed), "--out", str(tmp_path / "out")], matrix.load(ROOT / "matrix.toml"), judge,
                         write, fetch=fetch, say=said.append)
    assert code == formats.UNSAFE_EXIT, "\n".join(said)
    summary = ecosystem_summary.read_ecosystem(tmp_path / "out" / "report" / ecosystem_summary.ECOSYSTEM_JSON.name)
    assert [p["verdict"] for p in summary["projects"]] == ["UNSAFE", "UNSAFE"]
    (cause,) = summary["causes"]
    assert cause["projects"] == ["trainer-a", "trainer-b"]
    assert cause["example"].startswith("ShardingTypeError")
    assert [r["case_id"] for r in cause["reproducers"]] == ["test_embed::TestEmbedding::test_lookup_gives_the_rows"] * 2
    assert all(Path(r["script"]).is_file() for r in cause["reproducers"])
    page = (tmp_path / "out" / "report" / ecosystem_summary.ECOSYSTEM_MD).read_text()
    assert "in 2 project(s): trainer-a, trainer-b" in page
    shutil.rmtree(tmp_path / "fetched")
