from __future__ import annotations

import jax
from jax.sharding import AxisType


def test_the_default_mesh_has_auto_axes():
    # jax 0.8.1 warns here (the default axis_types will change), jax 0.9.0 makes the axes Explicit.
    mesh = jax.make_mesh((1,), ("x",))
    assert mesh.axis_types == (AxisType.Auto,)


def test_a_mesh_that_says_its_axis_types():
    mesh = jax.make_mesh((1,), ("x",), axis_types=(AxisType.Auto,))
    assert mesh.axis_names == ("x",)
