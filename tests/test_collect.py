"""ResilientModule and UnimportableCase, seen through pytest's own outcomes."""

from __future__ import annotations

import pytest


def run(pytester: pytest.Pytester) -> pytest.RunResult:
    out = pytester.path.parent / f"{pytester.path.name}-out"  # outside the folder pytest collects
    return pytester.runpytest("--shardmatrix-out", str(out), "--shardmatrix-devices", "0",
                              "-p", "no:cacheprovider")


def test_broken_module_becomes_one_error_per_case(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_broken="import missing_dep_xyz\ndef test_a():\n    pass\ndef test_b():\n    pass\n")
    result = run(pytester)
    result.assert_outcomes(errors=2)
    result.stdout.fnmatch_lines(["*ModuleNotFoundError*missing_dep_xyz*"])


def test_healthy_module_is_collected_as_usual(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_fine="def test_a():\n    pass\n")
    run(pytester).assert_outcomes(passed=1)


def test_syntax_error_stays_a_collection_error(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_bad="def test_a(:\n    pass\n")
    result = run(pytester)
    result.assert_outcomes(errors=1)


def test_without_out_a_broken_module_is_pytest_s_own_collection_error(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_broken="import missing_dep_xyz\ndef test_a():\n    pass\ndef test_b():\n    pass\n")
    pytester.runpytest("-p", "no:cacheprovider").assert_outcomes(errors=1)
