import os
import signal
from pathlib import Path


def test_before():
    assert True


def test_interrupts_the_run_once():
    # Ctrl-C reaching the cell's pytest process mid-run: this process, or an xdist worker's parent.
    marker = Path(os.environ["SHARDMATRIX_FAULT_STATE"]) / "interrupted"
    if not marker.exists():
        marker.write_text("interrupted")
        os.kill(os.getppid() if os.environ.get("PYTEST_XDIST_WORKER") else os.getpid(), signal.SIGINT)
        import time

        time.sleep(30)


def test_after():
    assert True
