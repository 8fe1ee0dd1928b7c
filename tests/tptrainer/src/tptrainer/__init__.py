"""A tiny tensor-parallel trainer: a (data, model) mesh, a vocab-sharded embedding, a matmul head, stacked layers."""

from tptrainer.mesh import make_mesh
from tptrainer.model import Params, embed, forward, init, layers, shard, shard_layers

__all__ = ["Params", "embed", "forward", "init", "layers", "make_mesh", "shard", "shard_layers"]
