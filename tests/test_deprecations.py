from __future__ import annotations

import functools
import sys
import types
import warnings

import pytest

from harness.cell import deprecations


def test_texts_keep_category_and_whole_text_of_deprecations_only() -> None:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        warnings.warn("first line\nsecond line", DeprecationWarning, stacklevel=1)
        warnings.warn("not an API sign", UserWarning, stacklevel=1)
        warnings.warn("first line\nsecond line", DeprecationWarning, stacklevel=1)
    assert deprecations.texts(caught) == ["DeprecationWarning: first line\nsecond line"]


def test_merge_keeps_order_once_each_and_a_bound() -> None:
    assert deprecations.merge(["a", "b"], ["b", "c", "c"]) == ["a", "b", "c"]
    assert len(deprecations.merge([str(n) for n in range(50)])) == deprecations.MAX_WARNINGS


def test_recording_passes_warnings_on_even_when_the_block_raises() -> None:
    with warnings.catch_warnings(record=True) as outer:
        warnings.simplefilter("always")
        try:
            with deprecations.recording() as caught:
                warnings.warn("gone soon", FutureWarning, stacklevel=1)
                raise KeyError("boom")
        except KeyError:
            pass
    assert [str(w.message) for w in caught] == ["gone soon"]
    assert [str(w.message) for w in outer] == ["gone soon"]


def test_a_deprecated_attribute_jax_warns_for_once_per_process_warns_again_in_each_recording(
        monkeypatch: pytest.MonkeyPatch) -> None:
    # jax's module __getattr__ for deprecated names is a functools.cache: only its first access warns.
    module = types.ModuleType("jax.fake_deprecations")

    @functools.cache
    def lookup(name: str) -> int:
        warnings.warn(f"jax.{name} is deprecated", DeprecationWarning, stacklevel=2)
        return 1

    module.__getattr__ = lookup  # type: ignore[method-assign]
    monkeypatch.setitem(sys.modules, "jax.fake_deprecations", module)
    said = []
    for _ in range(2):  # two cases in one process, each reading the attribute
        with warnings.catch_warnings():
            warnings.simplefilter("always")
            with deprecations.recording() as caught:
                assert module.device_put_replicated == 1
        said.append(deprecations.texts(caught))
    assert said == [["DeprecationWarning: jax.device_put_replicated is deprecated"]] * 2


def _warning_module(name: str) -> types.ModuleType:
    """A module whose deprecated attribute warns on its first access only, as jax's do."""
    module = types.ModuleType(name)

    @functools.cache
    def lookup(attribute: str) -> int:
        warnings.warn(f"{name}.{attribute} is deprecated", DeprecationWarning, stacklevel=2)
        return 1

    module.__getattr__ = lookup  # type: ignore[method-assign]
    return module


def _warned(module: types.ModuleType) -> list[str]:
    with warnings.catch_warnings():
        warnings.simplefilter("always")
        with deprecations.recording() as caught:
            assert module.old == 1
    return deprecations.texts(caught)


def test_a_jax_module_imported_after_the_first_case_warns_again_too(monkeypatch: pytest.MonkeyPatch) -> None:
    deprecations.forget_warned_attributes()  # the scan is kept from here on
    late = _warning_module("jax.late_import")
    monkeypatch.setitem(sys.modules, "jax.late_import", late)
    assert [_warned(late), _warned(late)] == [["DeprecationWarning: jax.late_import.old is deprecated"]] * 2


def test_a_jax_module_imported_anew_under_its_name_is_the_one_made_to_warn_again(
        monkeypatch: pytest.MonkeyPatch) -> None:
    first = _warning_module("jax.reimported")
    monkeypatch.setitem(sys.modules, "jax.reimported", first)
    deprecations.forget_warned_attributes()
    # Removed and imported anew while sys.modules keeps its size: the scan is stale, and the new module still warns.
    monkeypatch.delitem(sys.modules, "jax.reimported")
    again = _warning_module("jax.reimported")
    monkeypatch.setitem(sys.modules, "jax.reimported", again)
    assert [_warned(again), _warned(again)] == [["DeprecationWarning: jax.reimported.old is deprecated"]] * 2
