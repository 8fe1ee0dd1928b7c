"""Shared test configuration: pytester drives the plugin in throwaway pytest sessions."""

from __future__ import annotations

pytest_plugins = ["pytester"]
