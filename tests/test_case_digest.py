"""A case's digest follows its source and declaration; a stored check is stamped only where git shows its case
unchanged since the commit it ran at."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from harness import outputs
from harness.tools import case_digest, range_check

CASES = '''
from harness.case import Change, case

WORDING = "use_mesh is removed"


@case("toy")
def test_a():
    assert 1 + 1 == 2


@case("toy", changed=Change("jax>=0.7.1", WORDING, raises="AttributeError", kind="api", fix="jax.set_mesh"))
def test_b():
    pass
'''
KNOWN = '''
[[breakage]]
case = "test_toy::test_a"
jax = "<0.8.0"
reason = "fails"
link = "https://github.com/jax-ml/jax/issues/1"
'''


def folder(tmp_path: Path, cases: str = CASES, known: str = KNOWN) -> Path:
    root = tmp_path / "cases"
    root.mkdir(exist_ok=True)
    (root / "test_toy.py").write_text(cases)
    (root / "known_breakages.toml").write_text(known)
    return root


def digests(root: Path) -> dict[str, str]:
    return case_digest.digests([root / "test_toy.py"], [root / "known_breakages.toml"])


def test_a_digest_is_the_same_for_the_same_case_and_moves_with_its_body_change_or_breakage(tmp_path: Path) -> None:
    before = digests(folder(tmp_path))
    assert set(before) == {"test_toy::test_a", "test_toy::test_b"} and before == digests(folder(tmp_path))
    body = digests(folder(tmp_path, CASES.replace("1 + 1 == 2", "2 + 2 == 4")))
    assert body["test_toy::test_a"] != before["test_toy::test_a"] and body["test_toy::test_b"] == before[
        "test_toy::test_b"]
    # The Change as read from source: a module-level wording counts though the function's text is the same.
    wording = digests(folder(tmp_path, CASES.replace('"use_mesh is removed"', '"use_mesh is gone"')))
    assert wording["test_toy::test_b"] != before["test_toy::test_b"]
    breakage = digests(folder(tmp_path, CASES, KNOWN.replace("<0.8.0", "<0.8.1")))
    assert breakage["test_toy::test_a"] != before["test_toy::test_a"]


def test_stamping_gives_a_digest_only_to_the_cases_of_its_rows_unchanged_since() -> None:
    document = {"edges": [{"case": "m::a"}, {"case": "m::b"}, {"case": "m::gone"}, {"case": "m::kept"}],
                "cases": {"m::kept": {"digest": "k", "commit": "c0"}}}
    stamped, left = case_digest.stamp(document, {"m::a": "1", "m::b": "2", "m::kept": "k2"}, {"m::a": "1", "m::b": "3"},
                                       "c1")
    assert stamped["cases"] == {"m::a": {"digest": "1", "commit": "c1"}, "m::kept": {"digest": "k", "commit": "c0"}}
    assert left == ["m::b", "m::gone"] and stamped["commit"] == "c1"


def git(repo: Path, *args: str) -> str:
    done = subprocess.run(["git", "-C", str(repo), *args], capture_output=True, text=True, check=True)
    return done.stdout.strip()


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
def test_the_stamp_step_reads_the_cases_at_the_check_s_commit_with_git(tmp_path: Path) -> None:
    root = folder(tmp_path)
    git(tmp_path, "init", "-q")
    git(tmp_path, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "--allow-empty", "-m", "empty")
    git(tmp_path, "add", "-A")
    git(tmp_path, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "cases")
    checked_at = git(tmp_path, "rev-parse", "HEAD")
    row = {"package": "jax", "declared": "<0.8.0", "source": "x", "status": "confirmed", "found": None, "why": ""}
    old = {"probes": 1, "budget": 1, "wrong": 0, "unchecked": 0, "needs_without_change": [],
           "edges": [{**row, "case": "test_toy::test_a"}, {**row, "case": "test_toy::test_b"}]}
    check = outputs.write_ranges(tmp_path / "old", {**old, "options": {}, "commit": None, "cases": {}})
    (root / "test_toy.py").write_text(CASES.replace("1 + 1 == 2", "2 + 2 == 4"))  # test_a changed since
    said: list[str] = []
    argv = ["--cases", str(root), "--out", str(tmp_path / "out"), "--stamp", str(check), "--checked-at", checked_at]
    assert range_check.run(argv, [], say=said.append) == []
    stamped = outputs.read_ranges(tmp_path / "out" / "report" / "ranges.json")
    assert stamped["cases"] == {"test_toy::test_b": {"digest": digests(root)["test_toy::test_b"],
                                                     "commit": checked_at}}
    assert stamped["edges"] == outputs.read_ranges(check)["edges"]
    assert "1 case(s) stamped as unchanged since" in said[0] and said[0].endswith("left unstamped (changed since, "
                                                                                  "or gone: a --merge keeps their "
                                                                                  "rows unchecked): test_toy::test_a")
    # Before the cases were committed, git has none of them: every case is left.
    first = git(tmp_path, "rev-list", "--max-parents=0", "HEAD")
    with pytest.raises(range_check.RangeCheckError, match=f"--checked-at {first}: commit {first}: git cannot read"):
        range_check.run([*argv[:-1], first], [], say=said.append)
    with pytest.raises(range_check.RangeCheckError, match="--checked-at nosuch: "):
        range_check.run([*argv[:-1], "nosuch"], [], say=said.append)


def _commit(repo: Path, message: str) -> str:
    git(repo, "add", "-A")
    git(repo, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "--allow-empty", "-m", message)
    return git(repo, "rev-parse", "HEAD")


def _check(tmp_path: Path, commit: str | None = None, cases: tuple[str, ...] = ("test_toy::test_b",)) -> Path:
    """A stored check of `cases`, recording `commit` as the one it ran at (None: it recorded none)."""
    row = {"package": "jax", "declared": "<0.8.0", "source": "x", "status": "confirmed", "found": None, "why": ""}
    return outputs.write_ranges(tmp_path / "old" / "-".join(cases), {
        "probes": 1, "budget": 1, "wrong": 0, "unchecked": 0, "needs_without_change": [], "options": {},
        "edges": [{**row, "case": case} for case in cases], "commit": commit, "cases": {}})


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
def test_a_stamp_names_the_full_commit_of_a_branch_or_short_hash_and_a_row_keeps_its_first_stamp(
        tmp_path: Path) -> None:
    root = folder(tmp_path)
    git(tmp_path, "init", "-q", "-b", "main")
    first = _commit(tmp_path, "cases")
    (root / "test_toy.py").write_text(CASES.replace("1 + 1 == 2", "2 + 2 == 4"))  # test_a changed
    later = _commit(tmp_path, "later")
    argv = ["--cases", str(root), "--out", str(tmp_path / "out")]
    # Rows checked at two commits, merged by hand: each stamped at its own, test_b at the first (unchanged since).
    check = _check(tmp_path, cases=("test_toy::test_a", "test_toy::test_b"))
    range_check.run([*argv, "--stamp", str(check), "--checked-at", first[:9]], [], say=print)
    stored = tmp_path / "out" / "report" / "ranges.json"
    range_check.run([*argv, "--stamp", str(stored), "--checked-at", "main"], [], say=print)
    stamped = outputs.read_ranges(stored)
    assert {case: stamp["commit"] for case, stamp in stamped["cases"].items()} == {
        "test_toy::test_b": first, "test_toy::test_a": later}
    assert stamped["commit"] == first


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
def test_a_stamp_replaces_no_other_check_stored_where_it_would_write(tmp_path: Path) -> None:
    root = folder(tmp_path)
    git(tmp_path, "init", "-q")
    checked_at = _commit(tmp_path, "cases")
    argv = ["--cases", str(root), "--out", str(tmp_path / "out"), "--checked-at", checked_at]
    fresh = _check(tmp_path, cases=("test_toy::test_a", "test_toy::test_b"))
    target = outputs.write_ranges(tmp_path / "out" / "report", outputs.read_ranges(fresh))
    before = target.read_bytes()
    with pytest.raises(range_check.RangeCheckError, match=f"^--stamp: {target} holds another check \\(2 rows, not the "
                                                          "1 of .*\\); a stamp would replace it: give another --out$"):
        range_check.run([*argv, "--stamp", str(_check(tmp_path))], [], say=print)
    assert target.read_bytes() == before
    # The same check, unstamped there, may be stamped over it; the stored file stamped in place replaces only itself.
    range_check.run([*argv, "--stamp", str(fresh)], [], say=print)
    range_check.run([*argv, "--stamp", str(target)], [], say=print)
    stamped = target.read_bytes()
    assert len(outputs.read_ranges(target)["cases"]) == 2
    # The source stamped again over its earlier stamp would drop the digests that stamp added.
    with pytest.raises(range_check.RangeCheckError, match=f"^--stamp: {target} holds digests of 2 case\\(s\\) that "
                                                          f"{fresh} lacks \\(test_toy::test_a, ...: an earlier "
                                                          f"stamp's\\); stamp {target} itself, or give another --out$"):
        range_check.run([*argv, "--stamp", str(fresh)], [], say=print)
    assert target.read_bytes() == stamped


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
def test_a_case_file_that_today_s_reader_refuses_at_the_check_s_commit_is_named_as_git_names_it(
        tmp_path: Path) -> None:
    root = folder(tmp_path, known=KNOWN.replace('reason = "fails"', 'reason = "fails"\nsince = "0.7"'))
    git(tmp_path, "init", "-q")
    checked_at = _commit(tmp_path, "cases, with a key the known-breakages reader does not know")
    folder(tmp_path)
    argv = ["--cases", str(root), "--out", str(tmp_path / "out"), "--stamp", str(_check(tmp_path)), "--checked-at",
            checked_at]
    with pytest.raises(range_check.RangeCheckError) as refused:
        range_check.run(argv, [], say=print)
    said = str(refused.value)
    assert said.startswith(f"--checked-at {checked_at}: commit {checked_at}: a case file there cannot be read")
    assert f"{checked_at}:cases/known_breakages.toml" in said and "\n" not in said
    assert not (tmp_path / "out" / "report" / "ranges.json").exists()
