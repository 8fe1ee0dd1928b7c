"""Sharding metadata as model code writes it: reproducers of flax and jax changes the census found.

Each case is the smallest user code a report is about: hooks given to nnx.with_metadata, a logical spec compared with
a tuple, an optimizer state sharded apart from its parameter. Each cites its report, and its range is declared (a
known breakage in cases/known_breakages.toml, or a Change) at the transition its census row names.
"""

from __future__ import annotations

import jax
import numpy as np
from jax.sharding import Mesh, NamedSharding
from jax.sharding import PartitionSpec as P

from harness.case import Change, accepts, api, case


@case("partitioned_metadata", devices=1, needs=[api("flax.nnx.with_metadata")],
      cites=("google/flax@5a4859d2c8",))
def test_with_metadata_runs_each_of_its_create_value_hooks() -> None:
    """nnx.with_metadata(init, on_create_value=(hook,)) runs each hook on the value a layer's kernel is created with.

    Fails before flax 0.12.7: from 0.11 with_metadata passed its hooks under names Variable does not read, and
    Variable called the tuple itself (TypeError); flax 0.10 read only `create_value_hooks` (AssertionError). Fixed by
    commit 5a4859d2, first in flax 0.12.7 (which warns that hooks are deprecated).
    """
    from flax import nnx

    def doubled(variable: object, value: jax.Array) -> jax.Array:
        return value * 2

    init = nnx.with_metadata(nnx.initializers.ones, on_create_value=(doubled,))
    layer = nnx.Linear(2, 3, kernel_init=init, rngs=nnx.Rngs(0))
    np.testing.assert_array_equal(np.asarray(layer.kernel[...]), np.full((2, 3), 2.0))


@case("partitioned_metadata", devices=1, needs=[api("flax.linen.logical_to_mesh_axes")],
      changed=Change("jax>=0.10.0", "a PartitionSpec no longer compares equal to a tuple: a logical spec checked "
                     "against a tuple reads unequal", raises="AssertionError", kind="behaviour",
                     fix="compare with a PartitionSpec (P('data', None)), or compare tuple(spec)"),
      cites=("google/flax@dceec7d67a",))
def test_logical_spec_compared_with_a_tuple() -> None:
    """The spec nn.logical_to_mesh_axes gives for ("batch", "embed") equals the tuple ("data", None) it stands for.

    Changes in jax 0.10.0, by design: a PartitionSpec no longer compares equal to a tuple (jax commit b52e741e), so
    the check fails; flax commit dceec7d6 (first in flax 0.12.7) rewrote flax's own tests the same way, no library
    code. Cells: passes 0.9.2, fails from 0.10.0.
    """
    from flax import linen as nn

    rules = (("batch", "data"), ("embed", None))
    spec = nn.logical_to_mesh_axes(("batch", "embed"), rules)
    assert spec == ("data", None), spec


@case("nnx_sharded_merge", devices=4, needs=[api("jax.set_mesh"), accepts("flax.nnx.Linear", "kernel_metadata")],
      cites=("google/flax#5172",))
def test_adam_state_sharded_apart_from_a_replicated_kernel() -> None:
    """A replicated kernel whose `optimizer_sharding` metadata names ("row", "col") gets Adam moments split that way.

    Fails before flax 0.12.7 (AssertionError: nnx.Optimizer shards its state exactly as the variable, google/flax#5172);
    flax 0.12.7 reads the `optimizer_sharding` key (google/flax#5231, commit 61e0d32d).
    """
    import optax
    from flax import nnx

    mesh = Mesh(np.array(jax.devices()[:4]).reshape(2, 2), ("row", "col"))
    with jax.set_mesh(mesh):
        model = nnx.Linear(4, 2, rngs=nnx.Rngs(0), kernel_metadata={"optimizer_sharding": ("row", "col")})
        optimizer = nnx.Optimizer(model, optax.adam(1e-3), wrt=nnx.Param)
    moment = optimizer.opt_state[0].mu["kernel"][...]
    assert moment.sharding.is_equivalent_to(NamedSharding(mesh, P("row", "col")), 2), moment.sharding
