from __future__ import annotations

import json
from pathlib import Path

from reports import regressions


def write_run(out: Path, run_id: str, statuses: dict[str, str]) -> Path:
    target = out / "results" / run_id / "jax0.4.38-flax0.10.2-py3.11.jsonl"
    target.parent.mkdir(parents=True)
    lines = [json.dumps({"schema_version": 2, "run_id": run_id, "cell_id": target.stem, "case_id": case,
                         "family": case.split("::")[0], "status": status, "attempt": 1,
                         "error_message": "AssertionError: boom" if status == "failed" else None})
             for case, status in statuses.items()]
    target.write_text("\n".join(lines) + "\n")
    return out


def test_a_case_that_passed_and_now_fails_is_a_regression(tmp_path: Path, capsys: object) -> None:
    before = write_run(tmp_path / "a", "20260101T000000Z-aaaa", {"f::test_x": "passed", "f::test_y": "failed"})
    after = write_run(tmp_path / "b", "20260102T000000Z-bbbb", {"f::test_x": "failed", "f::test_y": "failed"})
    code = regressions.main(["--previous", str(before), "--current", str(after), "--run-url", "https://x/runs/1"])
    body = capsys.readouterr().out  # type: ignore[attr-defined]
    assert code == 1
    assert "| `jax0.4.38-flax0.10.2-py3.11` | `f::test_x` | passed | failed | AssertionError: boom |" in body
    assert "test_y" not in body and "[this run](https://x/runs/1)" in body
    assert 'nox -s "cell(jax0.4.38-flax0.10.2-py3.11)"' in body


def test_a_case_still_passing_or_newly_fixed_is_no_regression(tmp_path: Path, capsys: object) -> None:
    before = write_run(tmp_path / "a", "20260101T000000Z-aaaa", {"f::test_x": "passed", "f::test_y": "failed"})
    after = write_run(tmp_path / "b", "20260102T000000Z-bbbb", {"f::test_x": "passed", "f::test_y": "passed"})
    assert regressions.main(["--previous", str(before), "--current", str(after)]) == 0
    assert capsys.readouterr().out == "No regressions against the previous scheduled run.\n"  # type: ignore[attr-defined]


def test_unreadable_results_exit_2(tmp_path: Path) -> None:
    after = write_run(tmp_path / "b", "20260102T000000Z-bbbb", {"f::test_x": "passed"})
    assert regressions.main(["--previous", str(tmp_path / "missing"), "--current", str(after)]) == 2
