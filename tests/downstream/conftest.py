"""Fixtures every test module shares, at the project's root as many projects keep them."""

from __future__ import annotations

import numpy as np
import pytest
import tinytrainer


@pytest.fixture
def mesh():
    return tinytrainer.vocab_mesh()


@pytest.fixture
def table() -> np.ndarray:
    return np.arange(64 * 4, dtype=np.float32).reshape(64, 4)
