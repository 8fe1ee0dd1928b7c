"""The cell's pytest process, once pytest has finished, exits without Python's teardown.

Tearing down an interpreter that ran a cell's cases is jax's atexit handlers and the freeing of every executable it
compiled: 2 to 5 s a cell, measured on the default matrix (the `session end and interpreter exit` part of the bench's
time budget, benchmarks/time_budget.py), after every record, the collection, the machine file and the log are
written and closed. Nothing a cell reports is decided there, so the process leaves with pytest's own exit status
as soon as Python starts to exit: the handler registered here is the last registered, so the first to run.
"""

from __future__ import annotations

import atexit
import os
import sys


def leave_on_exit(status: int) -> None:
    """When the interpreter starts to exit, flush stdout and stderr and end the process with `status` at once."""

    def leave() -> None:
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except (OSError, ValueError):  # closed, or its reader gone: nothing left to say
                pass
        os._exit(status)

    atexit.register(leave)
