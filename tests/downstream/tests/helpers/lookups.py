"""Test data shared by the test modules, importable through pytest's `pythonpath` setting."""

import numpy as np

IDS = np.array([3, 17, 40, 63, 0, 9, 22, 50], dtype=np.int32)
