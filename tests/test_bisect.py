"""Bisection: binary search over releases with skips, fewer probes than a linear scan, arguments."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import pytest
from packaging.version import Version

from harness.host import matrix, options
from harness.tools import bisect, pins

CELLS = matrix.load(Path(__file__).resolve().parent.parent / "matrix.toml")

VERSIONS = [Version(f"0.{n}.0") for n in range(10)]


def prober(first_bad: int, skip: frozenset[int] = frozenset()) -> tuple[list[Version], bisect.Probe]:
    seen: list[Version] = []

    def probe(version: Version) -> bisect.Probe:
        seen.append(version)
        minor = version.minor
        status = "install_error" if minor in skip else "failed" if minor >= first_bad else "passed"
        return bisect.Probe(version, status, "Boom: x" if status == "failed" else "", f"cell{minor}")

    return seen, probe  # type: ignore[return-value]


def test_search_finds_the_first_bad_in_fewer_probes_than_a_linear_scan() -> None:
    seen, probe = prober(first_bad=7)
    outcome = bisect.search(VERSIONS, probe)  # type: ignore[arg-type]
    assert outcome.last_good == Version("0.6.0") and outcome.refusal is None
    assert outcome.first_bad is not None and outcome.first_bad.version == Version("0.7.0")
    assert len(outcome.probes) < bisect.linear_cost(outcome) == 8  # the good end is probed by both
    assert len(seen) == len(set(seen))  # each version built at most once
    assert seen[:2] == [VERSIONS[0], VERSIONS[-1]]  # both ends first: neither is taken on trust


def test_trusted_ends_are_not_probed_and_the_report_says_a_trusted_last_good_was_not_run() -> None:
    seen, probe = prober(first_bad=1)
    outcome = bisect.search(VERSIONS, probe, trust_ends=True)  # type: ignore[arg-type]
    assert VERSIONS[0] not in seen and outcome.last_good == VERSIONS[0] and bisect.linear_cost(outcome) == 1
    assert "last good: jax==0.0.0 (--trust-ends: not run)" in bisect.describe(outcome, "jax", "m::t")


def test_a_good_end_that_does_not_pass_is_refused_without_searching() -> None:
    # Before, --good was assumed and printed as "last good" without ever being run.
    seen, probe = prober(first_bad=0)
    outcome = bisect.search(VERSIONS, probe)  # type: ignore[arg-type]
    assert seen == [VERSIONS[0]] and outcome.first_bad is None and outcome.last_good is None
    assert outcome.refusal == ("--good 0.0.0 does not pass (failed: Boom: x; cell cell0): nothing to search "
                               "between the ends (--trust-ends to search anyway)")
    text = "\n".join(bisect.describe(outcome, "jax", "m::t"))
    assert "last good" not in text and "refused: --good 0.0.0 does not pass" in text


def test_a_bad_end_that_does_not_fail_is_refused_without_searching() -> None:
    seen, probe = prober(first_bad=99)
    outcome = bisect.search(VERSIONS, probe)  # type: ignore[arg-type]
    assert seen == [VERSIONS[0], VERSIONS[-1]] and outcome.first_bad is None
    assert outcome.refusal is not None and outcome.refusal.startswith("--bad 0.9.0 does not fail (passed; cell cell9)")


def test_an_end_that_cannot_be_judged_is_refused_too() -> None:
    _, probe = prober(first_bad=5, skip=frozenset({9}))
    outcome = bisect.search(VERSIONS, probe)  # type: ignore[arg-type]
    assert outcome.refusal is not None and outcome.refusal.startswith("--bad 0.9.0 cannot be judged (install_error")


def test_search_skips_uninstallable_versions_and_says_so() -> None:
    _, probe = prober(first_bad=5, skip=frozenset({4}))
    outcome = bisect.search(VERSIONS, probe)  # type: ignore[arg-type]
    assert outcome.last_good == Version("0.3.0") and outcome.first_bad is not None
    assert outcome.first_bad.version == Version("0.5.0")
    assert [p.version for p in outcome.skipped] == [Version("0.4.0")]
    text = "\n".join(bisect.describe(outcome, "jax", "m::t"))
    assert "skipped jax==0.4.0: install_error" in text and "first bad: jax==0.5.0 (cell5): failed: Boom: x" in text


def test_search_without_a_failing_end_reports_no_first_bad() -> None:
    _, probe = prober(first_bad=99)
    outcome = bisect.search(VERSIONS, probe, trust_ends=True)  # type: ignore[arg-type]
    assert outcome.first_bad is None
    assert "no bad release found" in "\n".join(bisect.describe(outcome, "jax", "m::t"))


def test_probe_cell_holds_the_other_package_and_picks_python() -> None:
    cell = bisect.probe_cell("jax", Version("0.11.2"), {"jax": "0.10.2", "flax": "0.12.8"})
    assert (cell.jax, cell.jaxlib, cell.flax, cell.python) == ("0.11.2", "0.11.2", "0.12.8", "3.12")


def namespace(**values: str | bool | None) -> argparse.Namespace:
    return argparse.Namespace(**{"case": "m::t", "good": "flax==0.11.0", "bad": "flax==0.12.2", "jax": None,
                                 "pre": False, "flax": None, **values})


def test_request_holds_jax_at_the_given_pin() -> None:
    req = bisect.request(namespace(jax="==0.7.2"), pins.make_cell("0.12.0.1", "0.12.12", "3.12"))
    assert req.package == "flax" and req.held == {"jax": "0.7.2", "flax": "0.12.12"}
    assert (req.good, req.bad) == (Version("0.11.0"), Version("0.12.2"))


def test_a_pre_release_end_is_taken_with_pre_and_refused_without() -> None:
    cell = pins.make_cell("0.12.0.1", "0.12.12", "3.12")
    req = bisect.request(namespace(good="jax==0.8.3", bad="jax==0.9.1.dev20261125", pre=True), cell)
    assert req.bad == Version("0.9.1.dev20261125")
    with pytest.raises(pins.PinError, match=r"is a pre-release \(--pre to allow it\)"):
        bisect.request(namespace(good="jax==0.8.3", bad="jax==0.9.1.dev20261125"), cell)


def test_request_refuses_ends_of_different_packages() -> None:
    with pytest.raises(pins.PinError):
        bisect.request(namespace(bad="jax==0.7.2"), pins.make_cell("0.12.0.1", "0.12.12", "3.12"))


@pytest.mark.parametrize("argv", [["--good", "flax==0.11.0", "--good", "flax==0.11.1", "--bad", "flax==0.12.0"],
                                  ["--good", "flax==0.11.0", "--bad", "flax==0.12.0", "--jax", "==0.7.2", "--jax=0.7"],
                                  ["--good", "flax==0.11.0,flax==0.11.1", "--bad", "flax==0.12.0"]])
def test_contradictory_ends_or_holds_are_refused_in_one_line_before_anything_runs(
        argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    from harness.formats import USAGE_EXIT
    from shardmatrix import command

    assert command.main(["bisect", "--case", "sharded_gathers::test_take", *argv]) == USAGE_EXIT
    said = capsys.readouterr().err
    assert "twice" in said and said.count("\n") == 1


def test_a_case_of_a_module_named_by_its_path_is_found_and_probed_under_its_stem(tmp_path: Path) -> None:
    """Two test_a.py in core/ and deprecated/v1/: the case v1/test_a::test_x is the second's, and a probe of that
    file alone records it as test_a::test_x (no other file shares its stem there); a folder no file ends with is
    named in one line."""
    for folder in ("core", "deprecated/v1"):
        (tmp_path / "tests" / folder).mkdir(parents=True)
        (tmp_path / "tests" / folder / "test_a.py").write_text("def test_x(): ...\n")
    found = bisect.case_file("v1/test_a::test_x", [str(tmp_path / "tests")])
    assert found == (tmp_path / "tests" / "deprecated" / "v1" / "test_a.py").resolve()
    assert bisect.probed_id("v1/test_a::test_x", found) == "test_a::test_x"
    with pytest.raises(pins.PinError, match=r"no module v2/test_a.py among the cases"):
        bisect.case_file("v2/test_a::test_x", [str(tmp_path / "tests")])


def test_case_file_finds_the_module_in_the_corpus() -> None:
    assert str(bisect.case_file("sharded_gathers::test_take", ["builtin"])).endswith("cases/sharded_gathers.py")
    assert bisect.case_file("sharded_gathers::Class::test_take", ["builtin"]).name == "sharded_gathers.py"
    with pytest.raises(pins.PinError):
        bisect.case_file("no_such_module::test_x", ["builtin"])


def test_a_probe_whose_module_did_not_import_is_bad_with_the_import_error() -> None:
    # Shaped like optax before its fix: on jax 0.10.0 `import optax` raises at its config update, the probe of
    # sharding_test records only the module's collection error, and the bad end was refused as 'no_record'.
    broken = {"sharding_test::<collection>": {"status": "error", "error_type": "AttributeError",
                                              "error_message": "Unrecognized config option: jax_pmap_shmap_merge"}}
    record = bisect.probe_record(broken, "sharding_test::ShardingTest::test_init_adam")
    probe = bisect.probe_of(VERSIONS[0], record, "c")
    assert (probe.verdict, probe.error) == ("bad", "AttributeError: Unrecognized config option: jax_pmap_shmap_merge")
    # Another module's collection error says nothing of this case.
    other = {"alias_test::<collection>": {"status": "error"}}
    assert bisect.probe_record(other, "sharding_test::t")["status"] == bisect.NO_RECORD


def test_a_probe_reads_exactly_its_case_and_a_missing_record_is_said_not_guessed() -> None:
    # Before, a missing record fell back to the cell's first record, another case's outcome.
    records = {"m::other": {"status": "passed"}, "m::t[a]": {"status": "failed"}}
    record = bisect.probe_record(records, "m::t")
    assert record == {"status": bisect.NO_RECORD, "error_message": "no record of m::t (recorded m::other, m::t[a])"}
    assert bisect.Probe(VERSIONS[0], bisect.NO_RECORD, "", "c").verdict == "skip"
    # The vocabulary decides the rest: passing is good, absent or a status nobody knows cannot be judged.
    verdicts = {status: bisect.Probe(VERSIONS[0], status, "", "c").verdict for status in
                ("passed", "xpassed", "not_applicable", "exploded", "install_error", "failed", "xfailed", "crashed")}
    assert verdicts == {"passed": "good", "xpassed": "good", "not_applicable": "skip", "exploded": "skip",
                        "install_error": "skip", "failed": "bad", "xfailed": "bad", "crashed": "bad"}
    assert bisect.probe_record(records, "m::t[a]") == {"status": "failed"}
    assert bisect.probe_record({}, "m::t")["error_message"] == "no record of m::t (nothing recorded)"


def test_an_unknown_module_is_refused_before_anything_is_built(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(bisect.cellrun, "probe", lambda *args, **kwargs: pytest.fail("a cell was run"))
    argv = ["--case", "no_such_module::test_x", "--good", "jax==0.10.2", "--bad", "jax==0.12.0.1"]
    with pytest.raises(pins.PinError, match=r"^no module no_such_module\.py among the cases \(builtin\)$"):
        bisect.run(argv, CELLS, fetch=lambda url: pytest.fail("the index was asked"))


COLLECTED = {"_clipping_test::ClippingTest::test_clip_by_block_rms": {"status": "failed"},
             "_clipping_test::ClippingTest::test_clip_by_global_norm[a]": {"status": "passed"},
             "_clipping_test::<collection>": {"status": "error"}}


def test_a_case_is_judged_against_what_pytest_collected_class_based_tests_included() -> None:
    # Before, a source scan that sees module-level functions only refused every test of a TestCase class.
    bisect.check_case("_clipping_test::ClippingTest::test_clip_by_block_rms", COLLECTED, "c")
    bisect.check_case("_clipping_test::ClippingTest::test_clip_by_global_norm", COLLECTED, "c")
    bisect.check_case("_clipping_test::ClippingTest::test_clip_by_global_norm[a]", COLLECTED, "c")
    with pytest.raises(bisect.BisectError, match=r"^unknown case _clipping_test::test_clip_by_block_rms: pytest "
                                                  r"collected no such case in c \(did you mean "
                                                  r"_clipping_test::ClippingTest::test_clip_by_block_rms\?\)$"):
        bisect.check_case("_clipping_test::test_clip_by_block_rms", COLLECTED, "c")


def test_a_cell_that_collected_nothing_cannot_refuse_a_case() -> None:
    bisect.check_case("m::test_x", {"c::<cell>": {"status": "install_error"}}, "c")
    bisect.check_case("m::test_x", {"m::<collection>": {"status": "error"}}, "c")


def test_a_class_based_case_id_is_accepted_on_the_command_line() -> None:
    req = bisect.request(namespace(case="_clipping_test::ClippingTest::test_clip_by_block_rms"),
                         pins.make_cell("0.12.0.1", "0.12.12", "3.12"))
    assert req.case_id == "_clipping_test::ClippingTest::test_clip_by_block_rms"


def test_an_unknown_option_is_refused_in_one_line() -> None:
    with pytest.raises(options.OptionsError, match=r"^nox -s bisect: unknown option --trust-end \(did you mean "
                                                   r"--trust-ends\?\)$"):
        bisect.parser().parse_strictly(["--case", "m::t", "--good", "jax==1", "--bad", "jax==2", "--trust-end"])


def test_exclude_newer_is_read_as_upgrade_reads_it_and_a_non_day_refused_in_one_line() -> None:
    args = ["--case", "m::t", "--good", "jax==1", "--bad", "jax==2", "--exclude-newer"]
    assert bisect.parser().parse_strictly([*args, "2026-01-21"]).exclude_newer == "2026-01-21"
    with pytest.raises(options.OptionsError, match=r"argument --exclude-newer: '2026-01' is not a YYYY-MM-DD day$"):
        bisect.parser().parse_strictly([*args, "2026-01"])


def test_a_probe_whose_case_history_has_a_gap_is_skipped_and_a_whole_one_stands(tmp_path: Path) -> None:
    from record_factory import collected, record

    from harness.results import read_cell

    path = tmp_path / "results" / "20261121T084500Z-ab12" / "jax0.10.2-flax0.12.8-py3.11.jsonl"
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps(record(status="failed")) + "\n" + json.dumps(record(attempt=2)) + "\n")
    collected(path)
    assert bisect.unaccounted_for(read_cell(path), "fam::test_a") is None
    path.write_text(json.dumps(record(attempt=2)) + "\n")
    doubt = bisect.unaccounted_for(read_cell(path), "fam::test_a")
    assert doubt is not None and "fam::test_a has attempt 2 without attempt 1" in doubt
    probe = bisect.Probe(Version("0.10.2"), bisect.UNACCOUNTED, doubt, "c")
    assert probe.verdict == "skip"


def short(version: Version, needed: int = 2, have: int = 1) -> dict[str, object]:
    """The record of fam::test_a not applicable for its devices in a cell of `have` devices."""
    from record_factory import record

    return record(jax=str(version), status="not_applicable", reason=f"needs {needed} devices, cell has {have}",
                  devices_needed=needed, device_count=have)


def recorded(by_version: dict[Version, dict[str, object]]) -> tuple[list[Version], bisect.Probe]:
    """A prober answering each version with its record (bisect.probe_of), passing where none is given."""
    from record_factory import record

    seen: list[Version] = []

    def probe(version: Version) -> bisect.Probe:
        seen.append(version)
        found = by_version.get(version, record(jax=str(version)))
        return bisect.probe_of(version, found, str(found["cell_id"]))

    return seen, probe  # type: ignore[return-value]


def test_a_case_short_of_devices_at_both_ends_is_refused_in_one_line() -> None:
    seen, probe = recorded({VERSIONS[0]: short(VERSIONS[0]), VERSIONS[-1]: short(VERSIONS[-1])})
    with pytest.raises(bisect.BisectError) as refused:
        bisect.search(VERSIONS, probe, case_id="fam::test_a")  # type: ignore[arg-type]
    assert str(refused.value) == ("fam::test_a needs 2 devices, cell has 1: short of devices at both ends "
                                  "(jax0.0.0-flax0.12.8-py3.11, jax0.9.0-flax0.12.8-py3.11), so no release between "
                                  "them can run it: nothing to bisect (on CPU, --devices 2 gives the cells "
                                  "enough)")
    assert "\n" not in str(refused.value) and seen == [VERSIONS[0], VERSIONS[-1]]  # nothing between was built
    # Ends that need different counts are each said.
    _, probe = recorded({VERSIONS[0]: short(VERSIONS[0], 8, 1), VERSIONS[-1]: short(VERSIONS[-1], 4, 1)})
    with pytest.raises(bisect.BisectError, match=r"^fam::test_a needs 8 devices, cell has 1 at the good end, needs 4 "
                                                  r"devices, cell has 1 at the bad: short of devices at both ends"):
        bisect.search(VERSIONS, probe, case_id="fam::test_a")  # type: ignore[arg-type]


def test_a_case_short_of_devices_at_one_end_only_is_bisected_as_before() -> None:
    from record_factory import record

    failing = {v: record(jax=str(v), status="failed", error_type="Boom", error_message="x") for v in VERSIONS[6:]}
    # Short at the good end only: that end cannot be judged, refused as any such end is (no BisectError).
    _, probe = recorded({**failing, VERSIONS[0]: short(VERSIONS[0])})
    outcome = bisect.search(VERSIONS, probe, case_id="fam::test_a")  # type: ignore[arg-type]
    assert outcome.refusal is not None and outcome.refusal.startswith(
        "--good 0.0.0 cannot be judged (not_applicable: needs 2 devices, cell has 1; cell jax0.0.0-flax0.12.8")
    # Short at the bad end only: the same, for the bad end.
    _, probe = recorded({VERSIONS[-1]: short(VERSIONS[-1])})
    outcome = bisect.search(VERSIONS, probe, case_id="fam::test_a")  # type: ignore[arg-type]
    assert outcome.refusal is not None and outcome.refusal.startswith("--bad 0.9.0 cannot be judged (not_applicable")
    # Short in between: skipped, and the search finds the first bad release around it.
    _, probe = recorded({**failing, VERSIONS[5]: short(VERSIONS[5]), VERSIONS[4]: short(VERSIONS[4])})
    outcome = bisect.search(VERSIONS, probe, case_id="fam::test_a")  # type: ignore[arg-type]
    assert outcome.refusal is None and outcome.last_good == VERSIONS[3]
    assert outcome.first_bad is not None and outcome.first_bad.version == VERSIONS[6]


def test_only_a_record_short_of_devices_reads_short() -> None:
    from record_factory import record

    assert bisect.probe_of(VERSIONS[0], short(VERSIONS[0]), "c").short_of_devices
    # An API the cell lacks, a count the cell has, or a count the record does not give is no shortage.
    absent = record(status="not_applicable", reason="jax.sharding.use_mesh is absent")
    enough = {**short(VERSIONS[0]), "device_count": 2}
    unsaid = {**short(VERSIONS[0]), "device_count": None}
    assert not any(bisect.probe_of(VERSIONS[0], found, "c").short_of_devices for found in (absent, enough, unsaid))
    assert bisect.probe_of(VERSIONS[0], {**short(VERSIONS[0]), "devices_needed": 2.0}, "c").needed == 2


CASE = "sharded_gathers::test_take_on_sharded_axis_raises_sharding_type_error"


def fake_probes(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, shortage: dict[str, int]) -> list[str]:
    """Each probe's cell writes, as a finished cell would, the record of CASE: short of devices in the cells of the
    jax releases in `shortage` (by the devices it needed), failing at 0.10.2, passing before; the cells built."""
    from record_factory import collected, record

    from harness.cellrecord import CellFiles, write_done
    from harness.host.cellrun import CellRun

    built: list[str] = []

    def probe(cell: matrix.Cell, opts: options.Options, paths: list[Path], say: object) -> CellRun:
        built.append(cell.id)
        files = CellFiles(opts.out, opts.run_id, cell.id)
        files.results.parent.mkdir(parents=True, exist_ok=True)
        fields: dict[str, object] = {"status": "failed", "error_type": "ShardingTypeError", "error_message": "x"} \
            if Version(cell.jax) >= Version("0.10.2") else {}
        if cell.jax in shortage:
            fields = {"status": "not_applicable", "devices_needed": shortage[cell.jax], "device_count": 1,
                      "reason": f"needs {shortage[cell.jax]} devices, cell has 1"}
        found = record(jax=cell.jax, flax=cell.flax, python=cell.python, case_id=CASE, family="sharded_gathers",
                       run_id=opts.run_id, **{"cell_id": cell.id, **fields})
        files.results.write_text(json.dumps(found) + "\n")
        collected(files.results)
        write_done(files.done, cell_id=cell.id, finished="2026-11-26T00:00:00+00:00", returncode=0,
                   fingerprint=None, reused_from=None, seconds=1.0)
        return CellRun(cell, files)

    monkeypatch.setattr(bisect.cellrun, "probe", probe)
    monkeypatch.setattr(bisect, "candidates",
                        lambda req, fetch, *day: [Version(v) for v in ("0.9.2", "0.10.0", "0.10.2")])
    return built


def test_the_command_refuses_a_case_short_at_both_ends_with_one_line_and_exit_64(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from harness.formats import USAGE_EXIT
    from shardmatrix import command

    built = fake_probes(monkeypatch, tmp_path, {"0.9.2": 8, "0.10.2": 8})
    argv = ["bisect", "--case", CASE, "--good", "jax==0.9.2", "--bad", "jax==0.10.2", "--out", str(tmp_path)]
    assert command.main(argv) == USAGE_EXIT
    err = capsys.readouterr().err
    assert err.startswith(f"shardmatrix: {CASE} needs 8 devices, cell has 1: short of devices at both ends (jax0.9.2-")
    assert err.count("\n") == 1 and len(built) == 2


def test_the_command_bisects_a_case_short_at_neither_end_though_short_between(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from shardmatrix import command

    built = fake_probes(monkeypatch, tmp_path, {"0.10.0": 8})
    argv = ["bisect", "--case", CASE, "--good", "jax==0.9.2", "--bad", "jax==0.10.2", "--out", str(tmp_path)]
    assert command.main(argv) == 0
    out = capsys.readouterr().out
    assert "skipped jax==0.10.0: not_applicable: needs 8 devices, cell has 1" in out
    assert "last good: jax==0.9.2" in out and "first bad: jax==0.10.2" in out and len(built) == 3


def test_a_file_in_the_way_of_out_is_refused_before_any_probe_is_built(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from harness.formats import USAGE_EXIT
    from shardmatrix import command

    built = fake_probes(monkeypatch, tmp_path, {})
    (tmp_path / "afile").write_text("")
    argv = ["bisect", "--case", CASE, "--good", "jax==0.9.2", "--bad", "jax==0.10.2", "--out",
            str(tmp_path / "afile" / "out")]
    assert command.main(argv) == USAGE_EXIT
    assert capsys.readouterr().err.strip().endswith(f"{tmp_path}/afile is a file, not a folder") and built == []


def test_each_bisect_probes_under_a_run_id_of_its_own_though_nox_shares_one(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    # Under nox every session (and a watch's every bisect) sees one $SHARDMATRIX_RUN_ID; a probe of a cell already
    # run under it was no cache hit and ran again into the same results file.
    from harness.runs import new_run_id

    shared = new_run_id()
    monkeypatch.setenv(options.RUN_ID_ENV, shared)
    fake_probes(monkeypatch, tmp_path, {})
    runs: list[str] = []
    probe = bisect.cellrun.probe

    def recording(cell: matrix.Cell, opts: options.Options, paths: list[Path], say: object) -> object:
        runs.append(opts.run_id)
        return probe(cell, opts, paths, say)

    monkeypatch.setattr(bisect.cellrun, "probe", recording)
    argv = ["--case", CASE, "--good", "jax==0.9.2", "--bad", "jax==0.10.2", "--out", str(tmp_path)]
    first, second = bisect.run(argv, CELLS, say=lambda line: None), bisect.run(argv, CELLS, say=lambda line: None)
    assert first.first_bad is not None and second.first_bad is not None
    assert shared not in runs and len(set(runs[:3])) == 1 and set(runs[:3]).isdisjoint(runs[3:])
    given = new_run_id()
    bisect.run([*argv, "--run-id", given], CELLS, say=lambda line: None)
    assert runs[-1] == given  # a run id named on the command line is the user's to share


def test_exclude_newer_probes_only_the_releases_out_before_that_day() -> None:
    # jax 0.8.3 reached the index on 2026-01-29, nine days after 0.9.0's day: a run of that day never saw it.
    from test_ecosystem_baseline import jax_index

    req = bisect.Request("m::t", "jax", Version("0.8.2"), Version("0.9.0"), {})
    assert bisect.candidates(req, jax_index()) == [Version("0.8.2"), Version("0.8.3"), Version("0.9.0")]
    assert bisect.candidates(req, jax_index(), "2026-01-21") == [Version("0.8.2"), Version("0.9.0")]


def test_exclude_newer_is_refused_in_one_line_when_the_index_gives_no_upload_days() -> None:
    def silent(url: str, accept: str) -> object:
        raise OSError("closed")

    with pytest.raises(bisect.BisectError, match=r"^--exclude-newer 2026-01-21: cannot tell which jax releases were "
                                                 r"out before it \(closed\)$"):
        bisect.out_before("jax", VERSIONS, "2026-01-21", silent)


def test_with_stops_passing_a_removal_is_bad_and_a_shortage_of_devices_still_unjudged() -> None:
    from record_factory import record

    removed = record(status="not_applicable", reason="jax.sharding.OldThing is gone")
    probe = bisect.probe_of(VERSIONS[1], removed, "c")
    assert probe.verdict == "skip"  # by default a skip says nothing of the case
    assert bisect.Probe(**{**probe.__dict__, "absent_is_bad": True}).verdict == "bad"
    short_one = bisect.probe_of(VERSIONS[1], {**short(VERSIONS[1]), "device_count": 1}, "c")
    assert bisect.Probe(**{**short_one.__dict__, "absent_is_bad": True}).verdict == "skip"


def test_the_command_takes_the_day_to_every_probe_and_a_removal_is_found_where_it_stops_passing(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    fake_probes(monkeypatch, tmp_path, {"0.10.0": 0})  # 0.10.0's record: not applicable, needing no devices
    days: list[str | None] = []
    probe = bisect.cellrun.probe

    def recording(cell: matrix.Cell, opts: options.Options, paths: list[Path], say: object) -> object:
        days.append(cell.exclude_newer)
        return probe(cell, opts, paths, say)

    monkeypatch.setattr(bisect.cellrun, "probe", recording)
    argv = ["--case", CASE, "--good", "jax==0.9.2", "--bad", "jax==0.10.2", "--out", str(tmp_path),
            "--exclude-newer", "2026-03-01"]
    found = bisect.run([*argv, "--stops-passing"], CELLS, say=lambda line: None)
    assert found.first_bad is not None and found.first_bad.version == Version("0.10.0")
    assert set(days) == {"2026-03-01"}
    skipped = bisect.run(argv, CELLS, say=lambda line: None)  # without it, the skip is passed over
    assert skipped.first_bad is not None and skipped.first_bad.version == Version("0.10.2")


def rc_index(url: str, accept: str) -> dict[str, object]:
    """jax 0.8.2, 0.9.0rc1, 0.9.0rc2 and 0.9.0 on the index."""
    return {"releases": {v: [{"filename": f"jax-{v}.tar.gz", "yanked": False,
                              "upload_time_iso_8601": "2026-01-10T10:00:00Z"}]
                         for v in ("0.8.2", "0.9.0rc1", "0.9.0rc2", "0.9.0")}}


@pytest.mark.parametrize(("flags", "bad", "probed"), [
    (["--pre"], "0.9.0rc2", ["0.8.2", "0.9.0rc1", "0.9.0rc2"]),  # a pre-release end: the ones before it too
    (["--pre"], "0.9.0", ["0.8.2", "0.9.0"]),  # final ends: finals between them, --pre or not
    ([], "0.9.0", ["0.8.2", "0.9.0"]),
])
def test_pre_widens_the_search_to_the_pre_releases_between_the_ends_only_when_an_end_is_one(
    flags: list[str], bad: str, probed: list[str]
) -> None:
    namespace = bisect.parser().parse_args(["--case", "tests/test_x.py::test_y", "--good", "jax==0.8.2", "--bad",
                                            f"jax=={bad}", *flags])
    req = bisect.request(namespace, CELLS[0])
    assert bisect.candidates(req, rc_index) == [Version(v) for v in probed]
