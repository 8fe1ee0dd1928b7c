"""Fixtures every test module shares, at the project's root: the mesh is built here, for the tp a test asks for."""

from __future__ import annotations

import jax
import pytest
import tptrainer


@pytest.fixture
def mesh(request: pytest.FixtureRequest) -> jax.sharding.Mesh:
    """The 1 x tp mesh of the tp a test is parametrized with (indirectly, `@pytest.mark.parametrize("mesh", ...)`)."""
    return tptrainer.make_mesh(request.param)


@pytest.fixture
def params() -> tptrainer.Params:
    return tptrainer.init()
