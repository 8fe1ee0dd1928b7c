# As real JAX libraries do: jax imported at module level, and the CPU device count the tests were written for set
# before the backend starts.
import jax

jax.config.update("jax_num_cpu_devices", 2)
