"""Small helpers shared by the case files: shapes and the 2x4 mesh every jax version can build."""

from __future__ import annotations

from contextlib import AbstractContextManager

import jax
import numpy as np
from jax.sharding import Mesh

IN_DIM = 4
FEATURES = 8


def mesh_2x4() -> Mesh:
    """A ("data", "model") mesh over 8 devices, spelled the way every jax release accepts."""
    return Mesh(np.array(jax.devices()[:8]).reshape(2, 4), ("data", "model"))


def ambient_mesh(mesh: Mesh) -> AbstractContextManager[object]:
    """Make `mesh` the ambient mesh with whichever spelling this jax has (set_mesh, use_mesh, `with mesh`).

    Cases use this only to set up models (flax >= 0.12 shards NNX variables eagerly and needs a mesh);
    the spellings themselves are tested by their own cases.
    """
    enter = getattr(jax, "set_mesh", None) or getattr(jax.sharding, "use_mesh", None)
    return enter(mesh) if enter is not None else mesh  # type: ignore[no-any-return]
