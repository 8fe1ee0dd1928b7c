"""Code that runs on the host, on the interpreter nox runs on: builds cell environments, runs cells, caches.

It may read harness.cell's dependency-free helpers (known breakages, case sources, the record writer) but never
imports pytest, jax or flax at module level.
"""
