import os
from pathlib import Path


def test_fails_once_then_passes():
    marker = Path(os.environ["SHARDMATRIX_FAULT_STATE"]) / "flaky-attempted"
    if not marker.exists():
        marker.write_text("first attempt")
        raise AssertionError("first attempt fails")


def test_always_fails():
    raise AssertionError("fails every time")


def test_after():
    assert True
