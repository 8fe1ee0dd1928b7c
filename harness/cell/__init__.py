"""Code that runs inside every cell's virtual environment: the pytest plugin and what it records.

It runs on whatever jax, flax and Python the cell pins, so it imports only pytest, packaging, the standard
library and harness.vocabulary: never harness.host, harness.tools or pandas (tests/test_layout.py checks it).
Nothing at module level imports jax or flax.
"""
