"""The cell's pytest process, once pytest has finished, exits without pytest's cleanup and Python's teardown.

Tearing down an interpreter that ran a cell's cases is jax's atexit handlers and the freeing of every executable it
compiled: 2 to 5 s a cell, measured on the default matrix (the `session end and interpreter exit` part of the bench's
time budget, benchmarks/time_budget.py), after every record, the collection, the machine file and the log are
written and closed. pytest's own cleanup after its last hook (pytest >= 8.4 collects the whole heap there, a second
time) only restores the process's state and turns late unraisable exceptions into warnings nobody records. Nothing a
cell reports is decided there, so the process leaves with pytest's own exit status from the plugin's last hook.
"""

from __future__ import annotations

import os
import sys


def leave(status: int) -> None:
    """Flush stdout and stderr and end the process with `status` at once."""
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):  # closed, or its reader gone: nothing left to say
            pass
    os._exit(status)
