from __future__ import annotations

import pytest

from harness.cell import needs


def test_api_present_is_met_and_absent_names_the_missing_part() -> None:
    assert needs.api("json.dumps").unmet() is None
    assert needs.api("json.no_such_function").unmet() == "json.no_such_function is absent"
    assert needs.api("json.decoder.JSONDecoder").unmet() is None


def test_api_absent_module_is_absent() -> None:
    reason = needs.api("no_such_top_module_xyz.thing").unmet()
    assert reason == "no_such_top_module_xyz.thing is absent (no module no_such_top_module_xyz)"
    assert needs.api("json.no_such_submodule.x").unmet() == "json.no_such_submodule is absent"


def test_module_that_is_present_but_broken_is_not_called_absent(tmp_path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "brokenpkg_xyz").mkdir()
    (tmp_path / "brokenpkg_xyz" / "__init__.py").write_text("import a_dependency_that_is_missing_xyz\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    # The cell is broken, not lacking the API: the case must run and show the real error.
    assert needs.api("brokenpkg_xyz.feature").unmet() is None


def test_accepts_parameter_pair() -> None:
    assert needs.accepts("textwrap.dedent", "text").unmet() is None
    assert needs.accepts("textwrap.dedent", "graph").unmet() == "textwrap.dedent does not accept 'graph'"


def test_accepts_var_keyword_callable_is_not_judged() -> None:
    def takes_anything(**kwargs: object) -> None: ...

    import sys
    import types

    module = types.ModuleType("kwmod_xyz")
    module.f = takes_anything  # type: ignore[attr-defined]
    sys.modules["kwmod_xyz"] = module
    try:
        assert needs.accepts("kwmod_xyz.f", "graph").unmet() is None
    finally:
        del sys.modules["kwmod_xyz"]


def test_version_pair() -> None:
    assert needs.version("pytest>=1").unmet() is None
    reason = needs.version("pytest<1").unmet()
    assert reason is not None and reason.startswith("needs pytest<1, cell has pytest ")
    reason = needs.version("not-installed-dist-xyz>=1").unmet()
    assert reason == "needs not-installed-dist-xyz>=1, not-installed-dist-xyz is not installed"


def test_first_unmet_returns_first_reason() -> None:
    assert needs.first_unmet((needs.api("json.dumps"),)) is None
    several = (needs.api("json.dumps"), needs.api("json.nope"), needs.api("json.nah"))
    assert needs.first_unmet(several) == "json.nope is absent"
