"""`events` rows as the SQLite driver takes them, built straight from Events.

SQLAlchemy's per-value bind processors (the UTC decorator, then the SQLite DATETIME format; the
JSON serializer; the Boolean) cost more than the insert itself on a bulk import. This module
writes the same values they write, in the columns' order, with one tuple per event:
timestamps as UTC "YYYY-MM-DD HH:MM:SS.ffffff" (SQLite DATETIME's storage format), labels and
attrs as the store's JSON text, booleans as 0 / 1. tests/store/test_sqlite_rows.py checks every
value against SQLAlchemy's own processors.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

from tracker.events import Event

_FORMAT = "%04d-%02d-%02d %02d:%02d:%02d.%06d"


def sqlite_time(value: datetime | None) -> str | None:
    """A timestamp as the store keeps it on SQLite (UTC; naive values are UTC)."""
    if value is None:
        return None
    if value.tzinfo is not None and value.tzinfo is not UTC:
        value = value.astimezone(UTC)
    return _FORMAT % (
        value.year,
        value.month,
        value.day,
        value.hour,
        value.minute,
        value.second,
        value.microsecond,
    )


def sqlite_row(
    item: Event, seen: str, imported: int, dumps: Callable[[Any], str]
) -> tuple[Any, ...]:
    """The `events` row of `item` in column order (tracker.store.tables.events), ready for the
    driver: `seen` is first / last seen as sqlite_time gives it, `imported` 0 or 1, `dumps` the
    store's JSON serializer. vanished_at is NULL: a written event is seen now."""
    return (
        item.id,
        item.source_id,
        item.project,
        item.kind,
        item.external_id,
        sqlite_time(item.occurred_at),
        item.title or "",
        item.body or "",
        item.url or "",
        item.version,
        item.regime,
        dumps(list(item.labels)),
        item.state,
        item.outcome,
        sqlite_time(item.ended_at),
        sqlite_time(item.updated_at),
        dumps(dict(item.attrs)),
        seen,
        seen,
        None,
        imported,
    )
