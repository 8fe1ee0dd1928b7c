"""Release tools built on the host: upgrade checks (`nox -s upgrade`), bisection over released versions, the frontier,
and the `shardmatrix` command (harness.tools.command) whose subcommands the nox sessions run."""
