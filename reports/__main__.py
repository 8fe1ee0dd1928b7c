"""`python -m reports`: see reports/cli.py."""

from __future__ import annotations

from reports.cli import main

raise SystemExit(main())
