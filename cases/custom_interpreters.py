"""A user's own jaxpr interpreter, as tracer libraries keep one (quax, jax-scalify, unxt): each primitive of a traced
function evaluated by a rule of the library's, called with the primitive's params.

A primitive that gains a param breaks every such rule that spells its params out: the change is jax's by design, so
the case declares it (`changed=`), and a user pinned below the release learns what their rules will meet.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

from harness.case import Change, case

FAMILY = "sharded_gathers"


def _interpret(fun: Callable[..., Any], rules: dict[Any, Callable[..., Any]], *args: Any) -> list[Any]:
    """Evaluate fun's jaxpr with numpy through `rules`, one per primitive, each given the equation's params."""
    closed = jax.make_jaxpr(fun)(*args)
    env: dict[Any, Any] = dict(zip(closed.jaxpr.constvars, closed.consts, strict=True))
    env.update(zip(closed.jaxpr.invars, args, strict=True))

    def read(atom: Any) -> Any:
        # A literal carries its value; a variable is looked up.
        return atom.val if type(atom).__name__ == "Literal" else env[atom]

    for eqn in closed.jaxpr.eqns:
        env[eqn.outvars[0]] = rules[eqn.primitive](*map(read, eqn.invars), **eqn.params)
    return [read(atom) for atom in closed.jaxpr.outvars]


@case(FAMILY, devices=1, cites=("graphcore-research/jax-scalify#132",),
      changed=Change("jax>=0.4.31", "convert_element_type_p gains a `sharding` param: a custom rule that spells out "
                     "new_dtype and weak_type raises TypeError", raises="TypeError", kind="api",
                     fix="accept the new param in the rule (sharding=None, or **params)"))
def test_custom_rule_for_convert_element_type_with_its_params_spelled_out() -> None:
    """A jaxpr interpreter whose convert_element_type rule takes (x, *, new_dtype, weak_type) evaluates
    x.astype(float32) * 2 (jax 0.4.31 added `sharding` to that primitive's params: jax-scalify#132, quax#25).

    Cells: passes 0.4.30, fails from 0.4.31 (jax releases, measured).
    """
    rules = {
        lax.convert_element_type_p: lambda x, *, new_dtype, weak_type: np.asarray(x).astype(new_dtype),
        lax.mul_p: lambda x, y, **params: np.multiply(x, y),
    }
    (out,) = _interpret(lambda x: x.astype(jnp.float32) * 2.0, rules, np.arange(4, dtype=np.int32))
    np.testing.assert_array_equal(out, np.arange(4, dtype=np.float32) * 2)
