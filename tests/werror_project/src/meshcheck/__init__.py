"""A project written for jax 0.8: its meshes come from jax.make_mesh with the default axis types."""
