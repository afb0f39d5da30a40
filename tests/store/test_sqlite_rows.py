"""The SQLite bulk rows equal what SQLAlchemy's own bind processors write, value for value, and
a row written through them reads back as the Event it came from."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

from sqlalchemy import select

from tracker.events import Event
from tracker.store import Store, event_row
from tracker.store.core import _dumps
from tracker.store.revisions import linear_head
from tracker.store.sqlite_rows import sqlite_row, sqlite_time
from tracker.store.tables import events

PLUS8 = timezone(timedelta(hours=8))


def _events() -> list[Event]:
    return [
        Event(
            source_id="s",
            project="p",
            kind="ci_run",
            external_id="run:1",
            occurred_at=datetime(2025, 3, 1, 23, 30, 5, 123456, tzinfo=PLUS8),
            title="Ünïcode ✓",
            body="b",
            url="https://example.test/1",
            version="2.9.0",
            regime="rocm",
            labels=("a", "é"),
            state="success",
            outcome="passed",
            ended_at=datetime(2025, 3, 2, 0, 0),  # naive: UTC
            updated_at=datetime(2025, 3, 2, 0, 0, 1, tzinfo=UTC),
            attrs={"n": 1, "x": [1.5, None, "ü"], "nested": {"k": True}},
        ),
        Event(
            source_id="s",
            project="p",
            kind="release",
            external_id="r:1",
            occurred_at=datetime(1, 1, 1, tzinfo=UTC),
            title="",
        ),
    ]


def test_rows_equal_sqlalchemys_processed_values(sqlite_store: Store):
    dialect = sqlite_store.engine.dialect
    processors = [c.type.dialect_impl(dialect).bind_processor(dialect) for c in events.columns]
    seen = datetime(2026, 1, 2, 3, 4, 5, 6, tzinfo=UTC)
    for imported in (False, True):
        for item in _events():
            row = event_row(item, seen, imported)
            expected = tuple(
                row[c.name] if p is None else p(row[c.name])
                for c, p in zip(events.columns, processors, strict=True)
            )
            assert sqlite_row(item, sqlite_time(seen), int(imported), _dumps) == expected


def test_written_rows_read_back(sqlite_store: Store):
    items = _events()
    with sqlite_store.transaction() as conn:
        assert sqlite_store.upsert_events(conn, items + items[:1]) == (2, 2)
        stored = {r.external_id: r for r in conn.execute(select(events))}
    first = stored["run:1"]
    assert first.occurred_at == items[0].occurred_at
    assert first.ended_at == datetime(2025, 3, 2, 0, 0, tzinfo=UTC)
    assert first.labels == ["a", "é"] and first.attrs == dict(items[0].attrs)
    assert first.imported is False and first.vanished_at is None


def test_linear_head_is_alembics_head(sqlite_store: Store):
    from tracker.store.migrate import MIGRATIONS

    assert linear_head(MIGRATIONS / "versions") == sqlite_store.head_revision()
    current, head = sqlite_store.current_revision(), sqlite_store.head_revision()
    assert sqlite_store._quick_revisions() == (current, head)
