from __future__ import annotations

from pathlib import Path

import pytest

from harness.host import options


def test_defaults(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(options.RUN_ID_ENV, raising=False)
    opts = options.parse([])
    assert opts.cells == [] and opts.out == Path("out") and opts.cases == [options.BUILTIN]
    assert opts.run_id and opts.workers == 0 and opts.reruns == 1 and not opts.resume and opts.report_args == []


def test_everything_given(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(options.RUN_ID_ENV, "from-env")
    opts = options.parse(["--cells", "jax0.12*", "--cells", "*py3.11", "--out", "/tmp/o", "--cases", "builtin",
                          "--cases", "mine", "--workers", "2", "--timeout", "9", "--devices", "4", "--compare", "x"])
    assert opts.cells == ["jax0.12*", "*py3.11"] and opts.out == Path("/tmp/o")
    assert opts.cases == ["builtin", "mine"] and opts.workers == 2 and opts.timeout == 9 and opts.devices == 4
    assert opts.run_id == "from-env"
    assert opts.report_args == ["--compare", "x"]


def test_resume_names_the_run(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(options.RUN_ID_ENV, "from-env")
    opts = options.parse(["--resume", "20261121T090000Z-1a2b"])
    assert opts.resume and opts.run_id == "20261121T090000Z-1a2b"


def test_run_id_flag_beats_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(options.RUN_ID_ENV, "from-env")
    assert options.parse(["--run-id", "mine"]).run_id == "mine"
