import os


def test_before():
    assert True


def test_abort():
    os.abort()


def test_after():
    assert True
