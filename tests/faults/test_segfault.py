import ctypes


def test_before():
    assert True


def test_segfault():
    ctypes.string_at(0)


def test_after():
    assert True
