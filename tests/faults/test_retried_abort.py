import os
from pathlib import Path


def test_before():
    assert True


def test_aborts_on_its_retry():
    marker = Path(os.environ["SHARDMATRIX_FAULT_STATE"]) / "retried-abort-attempted"
    if not marker.exists():
        marker.write_text("first attempt")
        raise AssertionError("first attempt fails")
    os.abort()


def test_after():
    assert True
