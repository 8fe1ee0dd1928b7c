"""A tiny trainer: a vocab-sharded embedding lookup and an optax step."""

from tinytrainer.embed import lookup, vocab_mesh
from tinytrainer.train import sgd_step

__all__ = ["lookup", "sgd_step", "vocab_mesh"]
