import signal
import time

import pytest


def test_before():
    assert True


@pytest.mark.timeout(1)
def test_hangs_in_python():
    time.sleep(60)


@pytest.mark.timeout(1)
def test_hangs_where_the_alarm_cannot_reach():
    # Like a deadlock inside XLA: pytest-timeout's SIGALRM never gets through.
    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGALRM})
    time.sleep(60)


def test_after():
    assert True
