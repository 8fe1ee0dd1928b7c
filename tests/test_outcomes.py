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
        (Phase("collect", "skipped", message="Skipped: could not import 'jax.experimental.shard_map'"),
         Verdict(vocabulary.NOT_APPLICABLE, "could not import 'jax.experimental.shard_map'")),
    ],
)
def test_collection_verdict(phase: Phase, expected: Verdict) -> None:
    assert collection_verdict(phase) == expected


SHORT = "Number of devices 1 must be >= the product of mesh_shape (1, 2)"
OOM = "RESOURCE_EXHAUSTED: : CUDA_ERROR_OUT_OF_MEMORY: out of memory [executable_name='jit_multiply']"


def _raised(error_type: str, message: str, when: str = "call", **facts: object) -> list[Phase]:
    phases = [Phase(when, "failed", f"E {error_type}: {message}", error_type=error_type, error_message=message,
                    **facts)]  # type: ignore[arg-type]
    return [SETUP_OK, *phases, TEARDOWN_OK] if when == "call" else [*phases, TEARDOWN_OK]


@pytest.mark.parametrize("when", ["call", "setup"])
def test_a_mesh_larger_than_the_cell_is_not_applicable_in_the_body_or_a_fixture(when: str) -> None:
    assert verdict(_raised("ValueError", SHORT, when, device_count=1)) == Verdict(
        vocabulary.NOT_APPLICABLE, "needs 2 devices, cell has 1")


@pytest.mark.parametrize(("when", "expected"), [("call", vocabulary.FAILED), ("setup", vocabulary.ERROR)])
def test_the_same_error_in_a_cell_with_the_devices_it_asked_for_is_the_tests_own(when: str, expected: str) -> None:
    """The message names 1 device (the test passed jax.devices()[:1]), but the cell has 8: no shortage."""
    assert verdict(_raised("ValueError", SHORT, when, device_count=8)).status == expected


def test_a_shortage_in_a_cpu_cell_short_of_the_devices_the_harness_asked_for_is_an_error() -> None:
    assert verdict(_raised("ValueError", SHORT, device_count=1, cpu_devices_asked=8)) == Verdict(
        vocabulary.ERROR, "jax has 1 CPU devices, the harness asked for 8")


def test_a_shortage_in_a_cpu_cell_with_the_devices_it_asked_for_is_not_applicable() -> None:
    assert verdict(_raised("ValueError", SHORT, device_count=1, cpu_devices_asked=1)).status == (
        vocabulary.NOT_APPLICABLE)


def test_a_shortage_without_a_recorded_device_count_is_a_failure() -> None:
    assert verdict(_raised("ValueError", SHORT)) == Verdict(vocabulary.FAILED)


@pytest.mark.parametrize("error_type", ["JaxRuntimeError", "XlaRuntimeError"])
@pytest.mark.parametrize("when", ["call", "setup"])
def test_out_of_device_memory_is_an_error_naming_memory(error_type: str, when: str) -> None:
    decided = verdict(_raised(error_type, OOM, when, device_count=1))
    assert decided.status == vocabulary.ERROR and decided.reason is not None and "memory" in decided.reason


@pytest.mark.parametrize(("error_type", "message"), [("JaxRuntimeError", "INTERNAL: an XLA failure"),
                                                     ("ValueError", "RESOURCE_EXHAUSTED is a word in my test")])
def test_other_runtime_errors_and_the_words_alone_stay_failures(error_type: str, message: str) -> None:
    assert verdict(_raised(error_type, message, device_count=1)) == Verdict(vocabulary.FAILED)


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
