"""harness.host.rolling: one issue per package line, filed or updated while UNSAFE or INCONCLUSIVE, closed by SAFE."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from harness.host import rolling
from harness.host.nightly import GhError

URL = "https://github.com/o/r/actions/runs/7"


class FakeGh:
    """gh holding issues; every call recorded with the body file's text read at call time."""

    def __init__(self, issues: list[dict[str, Any]] | None = None, fails: str = "") -> None:
        self.issues, self.fails = issues or [], fails
        self.calls: list[list[str]] = []
        self.bodies: list[str] = []

    def __call__(self, args: Sequence[str]) -> str:
        self.calls.append(list(args))
        if self.fails and " ".join(args).startswith(self.fails):
            raise GhError(f"gh {' '.join(args)} failed (exit 1): HTTP 502")
        if "--body-file" in args:
            self.bodies.append(Path(args[list(args).index("--body-file") + 1]).read_text())
        if list(args[:2]) == ["issue", "list"]:
            return json.dumps([i for i in self.issues if i.get("state", "open") == "open"])
        return ""


def test_unsafe_without_an_open_issue_files_one_titled_by_the_verdict() -> None:
    gh = FakeGh([{"number": 3, "title": "shardmatrix: upgrading jaxlib is UNSAFE"}])  # another line's issue
    done = rolling.keep(gh, rolling.line_issue("jax"), "UNSAFE", "## UNSAFE\n", URL)
    assert done == "filed: shardmatrix: upgrading jax is UNSAFE"
    assert gh.calls[-1][:4] == ["issue", "create", "--title", "shardmatrix: upgrading jax is UNSAFE"]
    assert gh.bodies == ["## UNSAFE\n"]


def test_inconclusive_with_an_open_issue_retitles_it_replaces_its_body_and_comments() -> None:
    gh = FakeGh([{"number": 5, "title": "shardmatrix: upgrading jax is UNSAFE"}])
    assert rolling.keep(gh, rolling.line_issue("jax"), "INCONCLUSIVE", "why", URL).startswith("updated issue #5")
    assert gh.calls[1][:5] == ["issue", "edit", "5", "--title", "shardmatrix: upgrading jax is INCONCLUSIVE"]
    assert gh.calls[2] == ["issue", "comment", "5", "--body", f"Inconclusive in {URL}"]


def test_safe_closes_the_open_issue_naming_the_run() -> None:
    gh = FakeGh([{"number": 5, "title": "shardmatrix: upgrading jax is INCONCLUSIVE"}])
    assert rolling.keep(gh, rolling.line_issue("jax"), "SAFE", "", URL) == "closed issue #5"
    assert gh.calls[-1] == ["issue", "close", "5", "--comment", f"Safe again in {URL}"]


def test_safe_without_an_open_issue_touches_nothing() -> None:
    gh = FakeGh([{"number": 5, "title": "shardmatrix: upgrading flax is UNSAFE"}])
    assert rolling.keep(gh, rolling.line_issue("jax"), "SAFE", "", URL) == "SAFE, and no issue open"
    assert [c[:2] for c in gh.calls] == [["issue", "list"]]


def test_a_body_that_fits_is_whole_and_a_longer_one_is_cut_at_a_line_saying_where_the_rest_is() -> None:
    assert rolling.cut("a\nb\n", URL, limit=100) == "a\nb\n"
    long = "".join(f"line {n}\n" for n in range(100))
    cut = rolling.cut(long, URL, limit=300)
    assert len(cut) <= 300 and cut.startswith("line 0\n") and URL in cut
    assert cut.split("\n\n*Cut")[0].endswith("\n"), "cut at a line"


def test_a_gh_failure_is_one_line_and_exit_1(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    body = tmp_path / "compare.md"
    body.write_text("## UNSAFE\n")
    args = ["--line", "jax", "--verdict", "UNSAFE", "--body-file", str(body), "--run-url", URL]
    assert rolling.main(args, FakeGh(fails="issue create")) == 1
    assert capsys.readouterr().err.count("\n") == 1
    assert rolling.main(args, FakeGh()) == 0


@pytest.mark.parametrize("args", [
    ["--line", "jax", "--verdict", "GREEN", "--body-file", "x", "--run-url", URL],  # not a verdict
    ["--line", "jax", "--verdict", "SAFE", "--body-file", "missing.md", "--run-url", URL],  # no body file
    ["--line", " ", "--verdict", "SAFE", "--body-file", "body.md", "--run-url", URL],  # no line
    ["--nightly", "--verdict", "SAFE", "--body-file", "body.md", "--run-url", URL],  # a line's verdict, nightly
    ["--verdict", "SAFE", "--body-file", "body.md", "--run-url", URL],  # neither a line nor the nightly
])
def test_bad_usage_is_one_line_and_64(args: list[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                      capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "body.md").write_text("b")
    gh = FakeGh()
    assert rolling.main(args, gh) == 64
    assert capsys.readouterr().err.count("\n") == 1 and gh.calls == []


def test_the_nightly_issue_is_titled_and_commented_as_the_matrix_workflow_always_did() -> None:
    gh = FakeGh([{"number": 2, "title": "shardmatrix: the nightly matrix is inconclusive"}])
    assert rolling.keep(gh, rolling.NIGHTLY, "regressed", "body", URL).startswith("updated issue #2")
    assert gh.calls[1][:5] == ["issue", "edit", "2", "--title", "shardmatrix: the nightly matrix regressed"]
    assert gh.calls[2][-1] == f"Regressed in {URL}"
    assert rolling.keep(gh, rolling.NIGHTLY, "clean", "", URL) == "closed issue #2"
    assert gh.calls[-1] == ["issue", "close", "2", "--comment", f"Clean again in {URL}"]


def test_the_nightly_issue_and_a_line_s_never_answer_for_each_other() -> None:
    gh = FakeGh([{"number": 2, "title": "shardmatrix: the nightly matrix regressed"}])
    assert rolling.keep(gh, rolling.line_issue("jax"), "SAFE", "", URL) == "SAFE, and no issue open"
    gh = FakeGh([{"number": 3, "title": "shardmatrix: upgrading jax is UNSAFE"}])
    assert rolling.keep(gh, rolling.NIGHTLY, "clean", "", URL) == "clean, and no issue open"
