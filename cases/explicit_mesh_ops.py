"""Array operations on explicitly sharded arrays, as model code calls them: the jax fixes of the census's
sharded_gathers rows (scan, windowed reductions, convolutions, complex numbers, einsum, reshape, indexing).

Each case is the fix's own reproducer written the way a user's code is (a jitted step, the mesh its code builds),
asserts values and output shardings, and cites the report; its range is a known breakage
(cases/known_breakages.toml) whose end is the fix's first release, measured on both sides.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
from jax.sharding import Mesh, NamedSharding
from jax.sharding import PartitionSpec as P

from cases._support import ambient_mesh, explicit_mesh
from harness.case import Change, accepts, api, case, version

FAMILY = "sharded_gathers"

EXPLICIT = [api("jax.sharding.AxisType"), accepts("jax.make_mesh", "axis_types")]


def _on(mesh: Mesh, value: np.ndarray, spec: P) -> jax.Array:
    return jax.device_put(value, NamedSharding(mesh, spec))


@case(FAMILY, devices=4, needs=[version("jax>=0.5.1")], cites=("jax-ml/jax@9f37b5197f",))
def test_unrolled_scan_over_explicit_sharded_rows() -> None:
    """A jitted lax.scan with unroll=2 over the rows of an (8, 8) array split on its columns over an Explicit axis,
    into a carry split the same way, sums the rows into the carry (jax 0.5.1 and 0.5.2 built the stacked outputs
    with a wrong spec; fixed in 0.5.3).

    Cells: fails 0.5.1 and 0.5.2, passes 0.5.3 (jax releases, measured; 0.5.1 is the first with Explicit axes).
    """
    mesh = explicit_mesh((2, 2), ("x", "y"))
    rows = np.arange(64, dtype=np.float32).reshape(8, 8)
    with ambient_mesh(mesh):
        step = jax.jit(lambda carry, xs: jax.lax.scan(lambda c, x: (c + x, x), carry, xs, unroll=2))
        carry, ys = step(_on(mesh, np.ones(8, np.float32), P("y")), _on(mesh, rows, P(None, "y")))
    np.testing.assert_array_equal(np.asarray(carry), 1 + rows.sum(0))
    np.testing.assert_array_equal(np.asarray(ys), rows)


@case(FAMILY, devices=2, needs=EXPLICIT, cites=("jax-ml/jax@fb16d53335",))
def test_cumsum_along_a_new_axis_of_an_explicit_sharded_vector() -> None:
    """A jitted jnp.cumsum along a new trailing axis of a vector split over an Explicit axis keeps the split on the
    rows (reduce_window's sharding rule read its tuple padding as a scalar before jax 0.6.0).

    Cells: fails 0.5.3, passes 0.6.0 (jax releases, measured).
    """
    mesh = explicit_mesh((2,), ("x",))
    with ambient_mesh(mesh):
        out = jax.jit(lambda x: jnp.cumsum(jnp.expand_dims(x, 1), axis=1))(_on(mesh, np.arange(8.0), P("x")))
    assert out.sharding.is_equivalent_to(NamedSharding(mesh, P("x", None)), 2)
    np.testing.assert_array_equal(np.asarray(out), np.arange(8.0)[:, None])


@case(FAMILY, devices=8, needs=EXPLICIT, cites=("jax-ml/jax@1c3f4faedd",))
def test_conv1d_and_max_pool_of_explicit_sharded_sequences() -> None:
    """A jitted 1-D convolution with a replicated kernel, then a max pool, over sequences split on batch and length
    over Explicit axes keeps that split (conv_general_dilated had no sharding rule before jax 0.6.1).

    Cells: fails 0.5.3 and 0.6.0, passes 0.6.1 (jax releases, measured).
    """
    mesh = explicit_mesh((4, 2), ("x", "y"))

    def layer(x: jax.Array) -> jax.Array:
        out = jax.lax.conv_general_dilated(x, np.ones((5, 8, 10), np.float32), window_strides=(1,), padding="SAME",
                                           dimension_numbers=("NWC", "WIO", "NWC"))
        return jax.lax.reduce_window(out, -np.inf, jax.lax.max, (1, 2, 1), (1, 2, 1), "SAME")

    with ambient_mesh(mesh):
        out = jax.jit(layer)(_on(mesh, np.ones((16, 128, 8), np.float32), P("x", "y")))
    assert out.sharding.is_equivalent_to(NamedSharding(mesh, P("x", "y", None)), 3)
    np.testing.assert_array_equal(np.asarray(out)[:, 1:-1], np.full((16, 62, 10), 40.0))


@case(FAMILY, devices=2, needs=EXPLICIT, cites=("jax-ml/jax@50afd1ef97",))
def test_complex_numbers_under_jit_on_an_explicit_mesh() -> None:
    """Under an Explicit mesh, jax.grad of (x * 1j).real and a jitted lax.complex of two vectors lower and run
    (the broadcast of a complex operand lost its sharding and failed verification before jax 0.7.0).

    Cells: fails 0.5.3 to 0.6.2, passes 0.7.0 (jax releases, measured).
    """
    mesh = explicit_mesh((2,), ("x",))
    with ambient_mesh(mesh):
        grad = jax.jit(jax.grad(lambda x: (x * 1j).real))(1.0)
        out = jax.jit(jax.lax.complex)(jnp.arange(8, dtype=jnp.float32), np.arange(8, dtype=np.float32))
    assert float(grad) == 0.0
    np.testing.assert_array_equal(np.asarray(out), np.arange(8) * (1 + 1j))


@case(FAMILY, devices=1, cites=("jax-ml/jax@57dd3a7edc",))
def test_jacobian_of_frexp_on_a_sharded_vector() -> None:
    """jax.jacrev of jnp.frexp's mantissa over a vector placed with a NamedSharding gives an (8, 8) diagonal Jacobian
    (jax 0.6.1's new frexp derivative gave the tangent no sharding, a TypeError; fixed in 0.7.1).

    Cells: passes 0.6.0, fails 0.6.1 to 0.7.0, passes 0.7.1 (jax releases, measured).
    """
    mesh = Mesh(np.array(jax.devices()[:1]), ("x",))
    x = jax.device_put(np.ones(8, np.float32), NamedSharding(mesh, P("x")))
    jacobian = np.asarray(jax.jacrev(lambda v: jnp.frexp(v)[0])(x))
    assert jacobian.shape == (8, 8)
    np.testing.assert_array_equal(jacobian * (1 - np.eye(8)), np.zeros((8, 8)))


@case(FAMILY, devices=2, needs=EXPLICIT, cites=("jax-ml/jax@ded369479a",))
def test_gradient_of_a_padded_conv1d_over_explicit_sharded_batches() -> None:
    """jax.grad of a padded 1-D convolution over a batch split on an Explicit axis gives each gradient on its
    argument's sharding (the transpose could not be given an output sharding before jax 0.7.2).

    Cells: fails 0.5.3 to 0.7.1, passes 0.7.2 (jax releases, measured).
    """
    mesh = explicit_mesh((2,), ("x",))
    numbers = jax.lax.ConvDimensionNumbers((0, 2, 1), (2, 1, 0), (0, 2, 1))

    def loss(kernel: jax.Array, inputs: jax.Array) -> jax.Array:
        padded = jnp.pad(inputs, ((0, 0), (2, 0), (0, 0)))
        return jax.lax.conv_general_dilated(padded, kernel, (1,), "VALID", dimension_numbers=numbers).sum()

    with ambient_mesh(mesh):
        kernel = jnp.ones((3, 1, 16), jnp.float32)
        inputs = _on(mesh, np.ones((8, 32, 1), np.float32), P("x", None, None))
        d_kernel, d_inputs = jax.jit(jax.grad(loss, argnums=(0, 1)))(kernel, inputs)
    assert d_inputs.sharding.is_equivalent_to(inputs.sharding, 3)
    assert d_kernel.shape == (3, 1, 16) and float(d_kernel[0, 0, 0]) == 8 * 30


@case(FAMILY, devices=4, needs=[*EXPLICIT, api("jax.sharding.reshard")], cites=("jax-ml/jax@32a9d8287c",))
def test_three_operand_einsum_into_an_unreduced_output() -> None:
    """A jitted three-operand jnp.einsum contracting an Explicit axis into an unreduced output, then resharded,
    gives numpy's value (a multi-contraction einsum dropped into Auto mode before jax 0.8.0).

    Cells: fails 0.7.0 to 0.7.2, passes 0.8.0 (jax releases, measured; jax.sharding.reshard first in 0.7.0).
    """
    mesh = explicit_mesh((2, 2), ("x", "y"))
    a, b, c = np.arange(2.0), np.arange(8.0).reshape(2, 4), np.arange(2.0)
    with ambient_mesh(mesh):
        step = jax.jit(lambda u, v, w: jnp.einsum("d,dh,d->h", u, v, w, out_sharding=P("y", unreduced={"x"})))
        out = jax.sharding.reshard(step(_on(mesh, a, P("x")), _on(mesh, b, P("x", "y")), _on(mesh, c, P("x"))),
                                   P("y"))
    np.testing.assert_array_equal(np.asarray(out), np.einsum("d,dh,d->h", a, b, c))


@case(FAMILY, devices=2, needs=[accepts("jax.numpy.asarray", "device")], cites=("jax-ml/jax@7fbbe0190c",))
def test_boolean_mask_of_an_array_on_a_second_device() -> None:
    """Indexing an array placed on the second device with a boolean mask that selects nothing keeps the result on that
    device (the empty slice's sharding went to the default device before jax 0.9.1).

    Cells: fails 0.4.31 to 0.9.0, passes 0.9.1 (jax releases, measured).
    """
    device = jax.devices()[1]
    masked = jnp.asarray([1], device=device)[jnp.asarray([False], device=device)]
    assert masked.devices() == {device}
    assert masked.shape == (0,)


@case(FAMILY, devices=4, needs=EXPLICIT, cites=("jax-ml/jax@41220ca588",))
def test_reshape_splitting_an_axis_between_singletons_of_an_explicit_array() -> None:
    """jnp.reshape of a (4, 1, 8, 1, 32) array split on its rows over an Explicit axis to (4, 1, 2, 4, 1, 32), and
    back, keeps the split on the rows (jax 0.6.0 to 0.9.2 refuse it as a split on more than one axis).

    Cells: passes 0.5.3, fails 0.6.0 to 0.9.2, passes 0.10.0 (jax releases, measured).
    """
    mesh = explicit_mesh((2, 2), ("x", "y"))
    with ambient_mesh(mesh):
        split = jnp.reshape(_on(mesh, np.ones((4, 1, 8, 1, 32), np.float32), P("x")), (4, 1, 2, 4, 1, 32))
        merged = jnp.reshape(split, (4, 1, 8, 1, 32))
    assert split.sharding.is_equivalent_to(NamedSharding(mesh, P("x")), 6)
    assert merged.sharding.is_equivalent_to(NamedSharding(mesh, P("x")), 5)


@case(FAMILY, devices=2, needs=[*EXPLICIT, accepts("jax.numpy.reshape", "out_sharding")],
      cites=("jax-ml/jax@543cbac4e3",))
def test_fortran_order_reshape_with_out_sharding() -> None:
    """jnp.reshape(order='F', out_sharding=P(None, 'x')) of a vector split over an Explicit axis gives that
    sharding and Fortran order's values (the order='F' path dropped out_sharding before jax 0.8.1).

    Cells: fails 0.6.1 to 0.8.0, passes 0.8.1 (jax releases, measured; out_sharding first in 0.6.1).
    """
    mesh = explicit_mesh((2,), ("x",))
    with ambient_mesh(mesh):
        out = jnp.reshape(_on(mesh, np.arange(16.0), P("x")), (-1, 4), order="F", out_sharding=P(None, "x"))
    assert out.sharding.is_equivalent_to(NamedSharding(mesh, P(None, "x")), 2)
    np.testing.assert_array_equal(np.asarray(out), np.arange(16.0).reshape((-1, 4), order="F"))


@case(FAMILY, devices=8, cites=("jax-ml/jax#22073",),
      changed=Change("jax>=0.7.0", "jax.sharding.PositionalSharding is removed", raises="AttributeError",
                     kind="removal", fix="jax.NamedSharding over a Mesh of the devices"))
def test_device_put_of_a_scalar_on_a_replicated_positional_sharding() -> None:
    """jax.device_put of a scalar (an optimizer's step count) onto PositionalSharding(devices).replicate() gives a
    scalar on every device (jax 0.4.29 and 0.4.30 raise a shape mismatch; fixed in 0.4.31).

    Changes in jax 0.7.0: jax.sharding.PositionalSharding is removed (AttributeError; commit 4aa1db4f8b).
    Cells: passes 0.4.28, fails 0.4.29 and 0.4.30, passes 0.4.31 to 0.6.2, fails 0.7.0 (jax releases, measured).
    """
    sharding = jax.sharding.PositionalSharding(jax.devices()[:8]).replicate()  # type: ignore[attr-defined]
    count = jax.device_put(jnp.zeros([], jnp.int32), sharding)
    assert count.shape == () and int(count) == 0
    assert len(count.sharding.device_set) == 8


@case(FAMILY, devices=4, needs=[*EXPLICIT, api("flax.nnx.Dropout")], cites=("google/flax@0bff68cfd8",))
def test_nnx_dropout_of_an_explicit_sharded_batch() -> None:
    """nnx.Dropout of a batch split on its rows over an Explicit axis, eagerly and under jit, keeps the split (its
    mask was drawn replicated, and the select refused it, before flax 0.12.4).

    Cells: fails flax 0.10.6 to 0.12.3 (on jax 0.5.3 to 0.9.0), passes flax 0.12.4 (jax 0.9.0) (measured).
    """
    from flax import nnx

    mesh = explicit_mesh((2, 2), ("x", "y"))
    with ambient_mesh(mesh):
        batch = _on(mesh, np.arange(8.0, dtype=np.float32).reshape(2, 4), P("x", None))
        layer = nnx.Dropout(rate=0.5, rngs=nnx.Rngs(0))
        eager = layer(batch)
        jitted = jax.jit(lambda x, rngs: layer(x, rngs=rngs))(batch, nnx.Rngs(0))
    for out in (eager, jitted):
        assert out.sharding.is_equivalent_to(batch.sharding, 2)
        assert set(np.unique(np.asarray(out) / np.maximum(np.arange(8.0).reshape(2, 4) * 2, 1))) <= {0.0, 1.0}
