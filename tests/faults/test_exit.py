import sys


def test_before():
    assert True


def test_exit():
    sys.exit(3)


def test_after():
    assert True
