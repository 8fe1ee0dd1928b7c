"""Partitioning metadata on parameters: linen boxes (Partitioned, LogicallyPartitioned) and NNX variable metadata."""

# Version facts (probed on the matrix cells; "cell" bounds are the nearest cells, not the exact release):
# - NNX Param partition names: metadata key `sharding` before flax 0.11.2, `sharding_names` from 0.11.2,
#   `out_sharding` from 0.12.4 (cells: 0.10.7 `sharding`, 0.12.0 `sharding_names`, 0.12.6 `out_sharding`).
# - flax.config.flax_always_shard_variable (eager sharding, on by default): flax 0.12.0; partitioned NNX
#   variables then need a mesh in context, also when nnx.bridge rebuilds one to read its spec.
# - eager sharding under an Explicit mesh fails before flax 0.12.3 (see known_breakages.toml).
# - flax.nnx.bridge ToNNX / ToLinen / lazy_init: in every cell (flax 0.10.2 to 0.12.12); ToLinen boxes NNX
#   variables as bridge.NNXMeta, not nn.Partitioned.

from __future__ import annotations

import flax
import flax.linen as nn
import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jax.sharding import NamedSharding
from jax.sharding import PartitionSpec as P

from cases._support import FEATURES, IN_DIM, ambient_mesh, mesh_2x4
from harness.case import accepts, api, case, version

FAMILY = "partitioned_metadata"


def _init_dense(**kwargs: object) -> dict:
    """Variables of a linen Dense(FEATURES) on an (2, IN_DIM) input, built with `kwargs`."""
    return nn.Dense(FEATURES, **kwargs).init(jax.random.PRNGKey(0), jnp.ones((2, IN_DIM)))  # type: ignore[arg-type]


@case(FAMILY, smoke=True)
def test_dense_kernel_with_partitioning() -> None:
    """A linen Dense kernel made with with_partitioning is a Partitioned box with the names and its shape."""
    variables = _init_dense(kernel_init=nn.with_partitioning(nn.initializers.lecun_normal(), (None, "model")))
    kernel = variables["params"]["kernel"]
    assert isinstance(kernel, nn.Partitioned)
    assert kernel.names == (None, "model")
    assert kernel.value.shape == (IN_DIM, FEATURES)
    assert nn.unbox(variables)["params"]["kernel"].shape == (IN_DIM, FEATURES)
    assert nn.get_partition_spec(variables)["params"]["kernel"] == P(None, "model")


@case(FAMILY)
def test_dense_bias_with_partitioning() -> None:
    """A linen Dense bias made with with_partitioning yields a one-axis PartitionSpec."""
    variables = _init_dense(bias_init=nn.with_partitioning(nn.initializers.zeros_init(), ("model",)))
    specs = nn.get_partition_spec(variables)
    assert specs["params"]["bias"] == P("model")
    assert nn.unbox(variables)["params"]["bias"].shape == (FEATURES,)


@case(FAMILY)
def test_embed_with_partitioning() -> None:
    """A linen Embed table made with with_partitioning is boxed and yields a vocab-sharded spec."""
    embed = nn.Embed(16, FEATURES, embedding_init=nn.with_partitioning(nn.initializers.normal(), ("model", None)))
    variables = embed.init(jax.random.PRNGKey(0), jnp.arange(4))
    assert isinstance(variables["params"]["embedding"], nn.Partitioned)
    assert nn.get_partition_spec(variables)["params"]["embedding"] == P("model", None)
    assert nn.unbox(variables)["params"]["embedding"].shape == (16, FEATURES)


@case(FAMILY)
def test_unbox_gives_the_same_values() -> None:
    """nn.unbox strips Partitioned boxes to plain arrays holding the boxed values."""
    variables = _init_dense(kernel_init=nn.with_partitioning(nn.initializers.lecun_normal(), (None, "model")))
    plain = nn.unbox(variables)
    assert isinstance(plain["params"]["kernel"], jax.Array)
    np.testing.assert_array_equal(plain["params"]["kernel"], variables["params"]["kernel"].value)


@case(FAMILY)
def test_apply_with_boxed_params_matches_unboxed() -> None:
    """Applying a Dense with boxed params gives the same output as with the unboxed params."""
    module = nn.Dense(FEATURES, kernel_init=nn.with_partitioning(nn.initializers.lecun_normal(), (None, "model")))
    x = jnp.arange(2 * IN_DIM, dtype=jnp.float32).reshape(2, IN_DIM)
    variables = module.init(jax.random.PRNGKey(0), x)
    np.testing.assert_allclose(module.apply(variables, x), module.apply(nn.unbox(variables), x), rtol=1e-6)


@case(FAMILY)
def test_logical_partitioning_under_axis_rules() -> None:
    """LogicallyPartitioned names map to mesh axes through nn.logical_axis_rules."""
    rules = (("embed", None), ("mlp", "model"))
    variables = _init_dense(kernel_init=nn.with_logical_partitioning(nn.initializers.lecun_normal(), ("embed", "mlp")))
    assert isinstance(variables["params"]["kernel"], nn.LogicallyPartitioned)
    assert nn.get_partition_spec(variables)["params"]["kernel"] == P("embed", "mlp")
    assert nn.logical_to_mesh_axes(("embed", "mlp"), rules) == P(None, "model")
    with nn.logical_axis_rules(rules):
        assert nn.logical_to_mesh(nn.get_partition_spec(variables))["params"]["kernel"] == P(None, "model")


@case(FAMILY)
def test_partitioned_msgpack_round_trip() -> None:
    """Boxed params survive to_state_dict, msgpack and from_state_dict with values and names intact."""
    variables = _init_dense(kernel_init=nn.with_partitioning(nn.initializers.lecun_normal(), (None, "model")))
    blob = flax.serialization.msgpack_serialize(flax.serialization.to_state_dict(variables))
    restored = flax.serialization.from_state_dict(variables, flax.serialization.msgpack_restore(blob))
    assert isinstance(restored["params"]["kernel"], nn.Partitioned)
    assert restored["params"]["kernel"].names == (None, "model")
    np.testing.assert_array_equal(restored["params"]["kernel"].value, variables["params"]["kernel"].value)


@case(FAMILY, devices=8)
def test_wrong_rank_names_rejected_when_sharding() -> None:
    """Placing a kernel whose names tuple has the wrong rank fails instead of sharding silently."""
    variables = _init_dense(kernel_init=nn.with_partitioning(nn.initializers.lecun_normal(), ("model",)))
    spec = nn.get_partition_spec(variables)["params"]["kernel"]
    assert spec == P("model")
    with pytest.raises(ValueError):
        jax.device_put(nn.unbox(variables)["params"]["kernel"], NamedSharding(mesh_2x4(), P(None, None, "model")))


class _Block(nn.Module):
    """A carry-to-carry Dense for nn.scan."""

    @nn.compact
    def __call__(self, carry: jax.Array, _: None) -> tuple[jax.Array, None]:
        dense = nn.Dense(IN_DIM, kernel_init=nn.with_partitioning(nn.initializers.lecun_normal(), (None, "model")))
        return dense(carry), None


@case(FAMILY)
def test_scan_metadata_params_prepends_axis_name() -> None:
    """nn.scan with metadata_params adds the stacked axis name in front of the kernel names."""
    scanned = nn.scan(
        _Block,
        variable_axes={"params": 0},
        split_rngs={"params": True},
        length=3,
        metadata_params={nn.PARTITION_NAME: "layers"},
    )()
    variables = scanned.init(jax.random.PRNGKey(0), jnp.ones((2, IN_DIM)), None)
    kernel = variables["params"]["Dense_0"]["kernel"]
    assert kernel.names == ("layers", None, "model")
    assert kernel.value.shape == (3, IN_DIM, IN_DIM)


@case(FAMILY)
def test_vmap_metadata_params_prepends_axis_name() -> None:
    """nn.vmap with metadata_params adds the mapped axis name in front of the kernel names."""
    vmapped = nn.vmap(
        nn.Dense,
        variable_axes={"params": 0},
        split_rngs={"params": True},
        in_axes=0,
        metadata_params={nn.PARTITION_NAME: "batch"},
    )(FEATURES, kernel_init=nn.with_partitioning(nn.initializers.lecun_normal(), (None, "model")))
    variables = vmapped.init(jax.random.PRNGKey(0), jnp.ones((3, 2, IN_DIM)))
    assert variables["params"]["kernel"].names == ("batch", None, "model")
    assert nn.get_partition_spec(variables)["params"]["kernel"] == P("batch", None, "model")


def _nnx_linear():  # type: ignore[no-untyped-def]
    """An NNX Linear with a (None, "model") kernel, built under the 2x4 mesh."""
    from flax import nnx

    init = nnx.with_partitioning(nnx.initializers.lecun_normal(), (None, "model"))
    with ambient_mesh(mesh_2x4()):
        return nnx.Linear(IN_DIM, FEATURES, kernel_init=init, rngs=nnx.Rngs(0))


@case(FAMILY, needs=[api("flax.nnx.with_partitioning")])
def test_nnx_with_partitioning_outside_any_mesh() -> None:
    """An NNX Linear with a partitioned kernel can be built with no mesh in context."""
    from flax import nnx

    init = nnx.with_partitioning(nnx.initializers.lecun_normal(), (None, "model"))
    model = nnx.Linear(IN_DIM, FEATURES, kernel_init=init, rngs=nnx.Rngs(0))
    assert model.kernel.value.shape == (IN_DIM, FEATURES)


@case(FAMILY, devices=8, needs=[api("flax.nnx.get_partition_spec")])
def test_nnx_linear_get_partition_spec() -> None:
    """nnx.get_partition_spec of an NNX Linear's state gives the kernel's names as a PartitionSpec."""
    from flax import nnx

    specs = nnx.get_partition_spec(nnx.state(_nnx_linear()))
    assert specs["kernel"].value == P(None, "model")
    assert specs["bias"].value == P()


@case(FAMILY, needs=[api("flax.nnx.get_named_sharding")], devices=8)
def test_nnx_get_named_sharding() -> None:
    """nnx.get_named_sharding turns an NNX state's names into NamedShardings on a mesh."""
    from flax import nnx

    mesh = mesh_2x4()
    shardings = nnx.get_named_sharding(nnx.state(_nnx_linear()), mesh)
    assert shardings["kernel"].value == NamedSharding(mesh, P(None, "model"))


@case(FAMILY, devices=8, needs=[api("flax.nnx.with_partitioning"), version("flax<0.11.2")])
def test_nnx_param_sharding_attribute() -> None:
    """An NNX Param made with with_partitioning exposes its names as `.sharding` (flax < 0.11.2 spelling)."""
    assert _nnx_linear().kernel.sharding == (None, "model")


@case(FAMILY, devices=8, needs=[api("flax.nnx.with_partitioning"), version("flax>=0.11.2")])
def test_nnx_param_sharding_names_attribute() -> None:
    """An NNX Param made with with_partitioning exposes its names as `.sharding_names` (flax >= 0.11.2)."""
    assert tuple(_nnx_linear().kernel.sharding_names) == (None, "model")


@case(FAMILY, devices=8, needs=[api("flax.nnx.with_partitioning"), version("flax>=0.12.4")])
def test_nnx_param_out_sharding_attribute() -> None:
    """An NNX Param made with with_partitioning exposes its names as `.out_sharding` (flax >= 0.12.4)."""
    assert tuple(_nnx_linear().kernel.out_sharding) == (None, "model")


@case(FAMILY, devices=8, needs=[api("flax.config.flax_always_shard_variable")])
def test_nnx_eager_sharding_under_auto_mesh() -> None:
    """With eager sharding, an NNX kernel built under an auto mesh is already placed by its names."""
    from flax import nnx

    init = nnx.with_partitioning(nnx.initializers.lecun_normal(), (None, "model"))
    with ambient_mesh(mesh_2x4()):
        model = nnx.Linear(IN_DIM, FEATURES, kernel_init=init, rngs=nnx.Rngs(0))
    assert model.kernel[...].sharding.spec == P(None, "model")


@case(
    FAMILY,
    devices=8,
    needs=[
        api("flax.config.flax_always_shard_variable"),
        api("jax.sharding.AxisType"),
        accepts("jax.make_mesh", "axis_types"),
    ],
)
def test_nnx_eager_sharding_under_explicit_mesh() -> None:
    """With eager sharding, an NNX kernel built under an explicit mesh is already placed by its names."""
    from flax import nnx
    from jax.sharding import AxisType

    mesh = jax.make_mesh((2, 4), ("data", "model"), axis_types=(AxisType.Explicit, AxisType.Explicit))
    init = nnx.with_partitioning(nnx.initializers.lecun_normal(), (None, "model"))
    with ambient_mesh(mesh):
        model = nnx.Linear(IN_DIM, FEATURES, kernel_init=init, rngs=nnx.Rngs(0))
    assert model.kernel[...].sharding.spec == P(None, "model")


@case(FAMILY, devices=8, needs=[api("flax.nnx.bridge.ToNNX"), api("flax.nnx.bridge.lazy_init")])
def test_bridge_to_nnx_keeps_linen_partitioning() -> None:
    """A linen Dense with a partitioned kernel wrapped in nnx.bridge.ToNNX keeps its names as NNX metadata."""
    from flax import nnx
    from flax.nnx import bridge

    dense = nn.Dense(FEATURES, kernel_init=nn.with_partitioning(nn.initializers.lecun_normal(), (None, "model")))
    with ambient_mesh(mesh_2x4()):
        model = bridge.lazy_init(bridge.ToNNX(dense, rngs=nnx.Rngs(0)), jnp.ones((2, IN_DIM)))
    specs = nnx.get_partition_spec(nnx.state(model))
    assert specs["kernel"].value == P(None, "model")
    assert specs["bias"].value == P()
    assert model.kernel[...].shape == (IN_DIM, FEATURES)


@case(FAMILY, devices=8, needs=[api("flax.nnx.bridge.ToLinen"), api("flax.nnx.with_partitioning")])
def test_bridge_to_linen_keeps_nnx_partitioning() -> None:
    """An NNX Linear with a partitioned kernel wrapped in nnx.bridge.ToLinen yields a boxed, (None, "model") kernel."""
    from flax import nnx
    from flax.nnx import bridge

    init = nnx.with_partitioning(nnx.initializers.lecun_normal(), (None, "model"))
    module = bridge.ToLinen(nnx.Linear, args=(IN_DIM, FEATURES), kwargs={"kernel_init": init})
    # flax >= 0.12 rebuilds (and so re-shards) the NNX variable to read its spec: keep the mesh in context.
    with ambient_mesh(mesh_2x4()):
        variables = module.init(jax.random.PRNGKey(0), jnp.ones((2, IN_DIM)))
        spec = nn.get_partition_spec(variables)["params"]["kernel"]
    assert isinstance(variables["params"]["kernel"], bridge.NNXMeta)
    assert spec == P(None, "model")
    assert nn.unbox(variables)["params"]["kernel"].shape == (IN_DIM, FEATURES)
