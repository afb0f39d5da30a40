"""sources.yaml checked whole, before any work starts: tracker.config reads the file into typed
records (sources against the collector kinds, coverage rules, report and digest settings, CI
trigger selectors), so `tracker sources check` and a nightly run fail before collecting, not at
the report, and every stage receives those records instead of the file's raw sections."""

from __future__ import annotations

import os

from tracker.collect.sources import KINDS
from tracker.config import Config, read_config


def load_config(path: str | os.PathLike | None = None) -> Config:
    """Read and validate sources.yaml; raise ConfigError naming file, source and key."""
    return read_config(path, KINDS)
