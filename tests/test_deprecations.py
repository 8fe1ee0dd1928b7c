from __future__ import annotations

import warnings

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
