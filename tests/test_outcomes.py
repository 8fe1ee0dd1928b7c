from __future__ import annotations

import pytest

from harness import vocabulary
from harness.cell.outcomes import Phase, Verdict, collection_verdict, skip_reason, verdict

SETUP_OK = Phase("setup", "passed")
TEARDOWN_OK = Phase("teardown", "passed")


@pytest.mark.parametrize(
    ("phases", "expected"),
    [
        ([SETUP_OK, Phase("call", "passed"), TEARDOWN_OK], Verdict(vocabulary.PASSED)),
        ([SETUP_OK, Phase("call", "failed", "AssertionError"), TEARDOWN_OK], Verdict(vocabulary.FAILED)),
        ([Phase("setup", "failed", "ImportError"), TEARDOWN_OK], Verdict(vocabulary.ERROR)),
        ([Phase("setup", "skipped", "Skipped: jax.shard_map is absent"), TEARDOWN_OK],
         Verdict(vocabulary.NOT_APPLICABLE, "jax.shard_map is absent")),
        ([SETUP_OK, Phase("call", "skipped", "", xfail_reason="upstream bug"), TEARDOWN_OK],
         Verdict(vocabulary.XFAILED, "upstream bug")),
        ([SETUP_OK, Phase("call", "passed", "", xfail_reason="flaky"), TEARDOWN_OK],
         Verdict(vocabulary.XPASSED, "flaky")),
        ([SETUP_OK, Phase("call", "failed", "[XPASS(strict)] fixed upstream", known_breakage=True), TEARDOWN_OK],
         Verdict(vocabulary.XPASSED, "fixed upstream")),
        # A test's own strict xfail (a project's xfail_strict) that passes fails, as in its own pytest run.
        ([SETUP_OK, Phase("call", "failed", "[XPASS(strict)] not fixed yet"), TEARDOWN_OK],
         Verdict(vocabulary.FAILED)),
        ([SETUP_OK, Phase("call", "failed", "Failed: Timeout (>1.0s) from pytest-timeout."), TEARDOWN_OK],
         Verdict(vocabulary.TIMEOUT)),
        ([SETUP_OK, Phase("call", "passed"), Phase("teardown", "failed", "boom")],
         Verdict(vocabulary.ERROR, "teardown failed")),
        ([SETUP_OK, Phase("???", "failed", "worker 'gw0' crashed while running 'x.py::t'")],
         Verdict(vocabulary.CRASHED, "worker 'gw0' crashed while running 'x.py::t'")),
        ([], Verdict(vocabulary.ERROR, "the case reported no call phase")),
        ([SETUP_OK, Phase("call", "failed", "E ImportError", error_type="ImportError"), TEARDOWN_OK],
         Verdict(vocabulary.ERROR, "the case could not import a module it uses")),
        ([SETUP_OK, Phase("call", "failed", "E ImportError", error_type="ImportError",
                          missing_name="jax.sharding has no use_mesh (jax 0.4.30)"), TEARDOWN_OK],
         Verdict(vocabulary.FAILED)),
        ([Phase("setup", "failed", "E ImportError", error_type="ImportError",
                missing_name="jax.sharding has no use_mesh (jax 0.4.30)"), TEARDOWN_OK],
         Verdict(vocabulary.FAILED)),
        ([Phase("setup", "failed", "E ModuleNotFoundError", error_type="ModuleNotFoundError"), TEARDOWN_OK],
         Verdict(vocabulary.ERROR, "the case could not import a module it uses")),
        ([Phase("setup", "failed", "E ModuleNotFoundError", error_type="ModuleNotFoundError",
                import_hint="No module named 'sklearn': the cell lacks it; add it with --with scikit-learn"),
          TEARDOWN_OK],
         Verdict(vocabulary.ERROR, "No module named 'sklearn': the cell lacks it; add it with --with scikit-learn")),
        ([SETUP_OK, Phase("call", "failed", "E ModuleNotFoundError", error_type="ModuleNotFoundError",
                          import_hint="No module named 'optax': ..."), TEARDOWN_OK],
         Verdict(vocabulary.ERROR, "No module named 'optax': ...")),
        ([Phase("setup", "failed", "E RuntimeError", error_type="RuntimeError",
                cell_problem="backend failed to start: RuntimeError: no GPU"), TEARDOWN_OK],
         Verdict(vocabulary.ERROR, "backend failed to start: RuntimeError: no GPU")),
        ([SETUP_OK, Phase("call", "skipped", "", xfail_reason="known", cell_problem="backend failed to start: x"),
          TEARDOWN_OK],
         Verdict(vocabulary.ERROR, "backend failed to start: x")),
        ([SETUP_OK, Phase("call", "failed", "E AttributeError", error_type="AttributeError"), TEARDOWN_OK],
         Verdict(vocabulary.FAILED)),
    ],
)
def test_verdict(phases: list[Phase], expected: Verdict) -> None:
    assert verdict(phases) == expected
    assert expected.status in vocabulary.ALL


@pytest.mark.parametrize(
    ("phase", "expected"),
    [
        (Phase("collect", "failed", error_type="SyntaxError"), Verdict(vocabulary.ERROR, "collection failed")),
        (Phase("collect", "failed", error_type="ModuleNotFoundError", import_hint="No module named 'sklearn': ..."),
         Verdict(vocabulary.ERROR, "No module named 'sklearn': ...")),
        (Phase("collect", "failed", error_type="ImportError", missing_name="jax.sharding has no use_mesh"),
         Verdict(vocabulary.FAILED, "collection failed")),
    ],
)
def test_collection_verdict(phase: Phase, expected: Verdict) -> None:
    assert collection_verdict(phase) == expected


def test_skip_reason_strips_prefix() -> None:
    assert skip_reason("Skipped: needs 8 devices, cell has 1") == "needs 8 devices, cell has 1"
    assert skip_reason("plain") == "plain"


def test_the_cell_unusable_mark_is_in_the_report_of_such_a_case(pytester: pytest.Pytester) -> None:
    # The runner passes it to --rerun-except: a cell that cannot run cases is not retried case by case.
    from harness.cell.outcomes import CELL_UNUSABLE_MARK

    (pytester.path / "jax").mkdir()
    (pytester.path / "jax" / "__init__.py").write_text("def devices():\n    raise RuntimeError('no GPU')\n")
    pytester.syspathinsert()
    pytester.makepyfile(test_x="def test_a():\n    pass\n")
    result = pytester.runpytest("test_x.py", "--shardmatrix-out", str(pytester.path / "out"),
                                "--shardmatrix-devices", "0", "-p", "no:cacheprovider")
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines([f"*{CELL_UNUSABLE_MARK}: backend failed to start: RuntimeError: no GPU*"])
