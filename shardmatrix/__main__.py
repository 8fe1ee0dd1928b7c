"""`python -m shardmatrix`: the `shardmatrix` command."""

import sys

from shardmatrix import main

sys.exit(main())
