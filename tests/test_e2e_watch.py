"""End to end, with real uv-built cells: `shardmatrix watch` on tests/downstream (locked at jax 0.8.3) on the day jax
0.9.0 came out (PyPI cut to the lock's releases and 0.9.0). Measured fact it rests on: jax 0.9.0 makes jax.make_mesh
axes Explicit, and the fixture's gather fails there (the documented change of sharded_gathers_user). Marked e2e."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from benchmarks.bench import one_release_index
from harness.formats import UNSAFE_EXIT
from harness.host import invocation
from shardmatrix import watch

DOWNSTREAM = Path(__file__).resolve().parent / "downstream"
GATHER = "test_embed::TestEmbedding::test_lookup_gives_the_rows"


@pytest.mark.e2e
def test_watch_judges_a_real_release_names_it_first_bad_and_links_the_change(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from reports.cli import judge

    argv = ["--project", str(DOWNSTREAM), "--package", "jax", "--out", str(tmp_path / "out"), "--state",
            str(tmp_path / "state.json"), "--json", str(tmp_path / "summary.json")]
    fetch = one_release_index("0.9.0", "0.8.3")
    assert watch.run(argv, invocation.cells(), judge, fetch=fetch) == UNSAFE_EXIT, capsys.readouterr().out[-3000:]
    judged = json.loads((tmp_path / "summary.json").read_text())["judged"]
    assert [(j["version"], j["verdict"], j["first_bad"]) for j in judged] == [("0.9.0", "UNSAFE", "jax==0.9.0")]
    assert judged[0]["regressed"] == [GATHER]
    assert any(GATHER in entry["explains"] and entry["fix"] for entry in judged[0]["changes"])
    assert all(Path(path).is_file() for path in judged[0]["reproducers"]) and judged[0]["reproducers"]
    capsys.readouterr()
    assert watch.run(argv, invocation.cells(), judge, fetch=fetch) == UNSAFE_EXIT  # nothing new: nothing built
    assert "1 newer release(s), 0 not judged yet" in capsys.readouterr().out
