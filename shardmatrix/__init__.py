"""shardmatrix: the commands, on the floor above harness/ and reports/.

The `shardmatrix` command (shardmatrix/command.py) and the subcommands that judge with the report: `watch`,
`ecosystem` and `frontier`, with what only they use (the watcher's state, the ecosystem's project list and sources,
the frontier's search, corpus, files and smoke subset, what the index says about releases). They import harness/ and
reports/, and neither imports them back (tests/test_layout.py). This is also the one top-level name the installed
wheel puts in an environment: hatch_build.py stages harness/ and reports/ inside it.
"""

from __future__ import annotations


def main() -> int:
    """Run the `shardmatrix` command on the command line's arguments (imported here, so `import shardmatrix` is
    cheap)."""
    from shardmatrix.command import main as command

    return command()
