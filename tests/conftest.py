"""Shared test configuration: pytester drives the plugin in throwaway pytest sessions."""

from __future__ import annotations

pytest_plugins = ["pytester"]

# Deliberately broken cases, run only through the harness by test_faults.py.
collect_ignore = ["faults"]
