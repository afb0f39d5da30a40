"""How long the store waits for its database: the ``database:`` section of sources.yaml and the
TRACKER_DB_* variables (which win), checked once into DatabaseWaits (docs/operations.md,
"Waits and signals")."""

from __future__ import annotations

import math
import os
from collections.abc import Mapping
from dataclasses import dataclass, fields, replace
from pathlib import Path
from typing import Any

from tracker.config.preview import preview, unknown_key
from tracker.errors import ConfigError

# A server on the same network answers a connection in milliseconds: 15 s is a host that is
# down or a server that accepted the socket and never speaks.
DEFAULT_CONNECT_TIMEOUT = 15.0
# A writer waits out another's transaction: a first backfill's biggest source (~100k CI jobs at
# the ~4,600 events/s benchmarks/ingest.py measures on a loaded host) writes for tens of seconds;
# 10 minutes leaves room for a slow disk (SQLite's write lock has always waited this long).
DEFAULT_LOCK_TIMEOUT = 600.0
# The slowest statement of the demo nightly and report on PostgreSQL takes 0.25 s; at 500,000
# events the report's take 0.6 s, tag's search for untagged events 0.13 s (docs/operations.md).
# Half an hour ends only a statement that is stuck.
DEFAULT_STATEMENT_TIMEOUT = 1800.0

MAX_SECONDS = 2_000_000  # PostgreSQL takes at most 2^31 - 1 ms (24.8 days)
ENVIRONMENT = {
    "connect_timeout": "TRACKER_DB_CONNECT_TIMEOUT",
    "lock_timeout": "TRACKER_DB_LOCK_TIMEOUT",
    "statement_timeout": "TRACKER_DB_STATEMENT_TIMEOUT",
}


@dataclass(frozen=True)
class DatabaseWaits:
    """Seconds the store waits, at most, for each thing it can wait for."""

    # for the server to answer a new connection (PostgreSQL; per address the host name has)
    connect_timeout: float = DEFAULT_CONNECT_TIMEOUT
    # for a lock another session holds (a PostgreSQL table or row, SQLite's write lock)
    lock_timeout: float = DEFAULT_LOCK_TIMEOUT
    # for one statement of the store's own work to finish (PostgreSQL)
    statement_timeout: float = DEFAULT_STATEMENT_TIMEOUT


def parse_database_waits(raw: Any, file: str | Path) -> DatabaseWaits:
    """The ``database:`` mapping of sources.yaml (ConfigError names the file and the key)."""
    if raw is None:
        return DatabaseWaits()
    if not isinstance(raw, dict):
        raise ConfigError(f"{file}: 'database' must be a mapping, e.g. {{lock_timeout: 600}}")
    unknown = unknown_key(raw, ENVIRONMENT)
    if unknown:
        raise ConfigError(
            f"{file}: database: unknown key {unknown} (allowed: {', '.join(sorted(ENVIRONMENT))})"
        )
    return DatabaseWaits(
        **{key: _seconds(value, f"{file}: database: {key}") for key, value in raw.items()}
    )


def database_waits(
    configured: DatabaseWaits | None = None, environ: Mapping[str, str] = os.environ
) -> DatabaseWaits:
    """`configured` (sources.yaml's, else the defaults) with each TRACKER_DB_* variable that is
    set in its place; ConfigError naming the variable for a value that is not seconds."""
    waits = configured or DatabaseWaits()
    given = {
        field.name: _seconds(environ[variable], variable)
        for field in fields(DatabaseWaits)
        if (variable := ENVIRONMENT[field.name]) in environ and environ[variable].strip()
    }
    return replace(waits, **given) if given else waits


def _seconds(value: Any, where: str) -> float:
    """A positive, finite number of seconds (text from the environment too)."""
    number: Any = value
    if isinstance(value, str):
        try:
            number = float(value)
        except ValueError:
            number = None
    if isinstance(number, bool) or not isinstance(number, int | float):
        number = None
    if number is None or not math.isfinite(number) or not 0 < number <= MAX_SECONDS:
        raise ConfigError(
            f"{where}: expected a number of seconds above 0 and at most {MAX_SECONDS:,}, "
            f"got {preview(value)}"
        )
    return float(number)
