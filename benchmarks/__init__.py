"""shardmatrix benchmarks: `nox -s bench` prints the figures the README reports."""
