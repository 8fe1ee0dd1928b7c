"""shardmatrix harness: a pytest plugin that records one JSONL line per case per cell.

Modules here are imported both by the host (the noxfile, on the interpreter nox runs on) and inside every cell's
virtual environment, so nothing at module level may import jax, flax or pandas.
"""
