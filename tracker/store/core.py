"""The store: engine, bulk upserts (SQLite and PostgreSQL), source state, locks,
read-only queries.

Writes go through Core executemany upserts on the stable event id: no per-row ORM objects and no
RETURNING on the bulk path, so the store is never the slow side of a backfill.
"""

from __future__ import annotations

import json
import re
from collections.abc import Collection, Iterable, Iterator, Sequence
from contextlib import contextmanager
from datetime import datetime
from typing import Any

from sqlalchemy import create_engine, func, select, update
from sqlalchemy import event as sa_event
from sqlalchemy.engine import Connection, Engine
from sqlalchemy.exc import DatabaseError, OperationalError, SQLAlchemyError

from tracker.config.database import DatabaseWaits, database_waits
from tracker.errors import StoreError
from tracker.events import Event, now_utc
from tracker.store.build_reads import BuildReads, lock_anchors
from tracker.store.ci_reads import CiReads
from tracker.store.ci_test_reads import CiTestReads
from tracker.store.derived import derive_written
from tracker.store.migrate import Migrations
from tracker.store.perf_reads import PerfReads
from tracker.store.quality_reads import QualityReads
from tracker.store.reads import StoreQueries
from tracker.store.response_reads import ResponseReads
from tracker.store.sqlite_lock import sqlite_pragmas, take_write_lock
from tracker.store.sqlite_rows import sqlite_row, sqlite_time
from tracker.store.state import SourceStates
from tracker.store.stopping import watch
from tracker.store.tables import events
from tracker.store.time_order import TimeOrderReads
from tracker.store.waits import failure_line, postgres_connect_params, postgres_session

EVENT_COLUMNS = [c.name for c in events.columns]
# Re-collecting an event refreshes everything but these: first-seen survives, as does provenance
# of manual imports.
_KEEP_ON_UPSERT = {"id", "first_seen_at", "imported"}


def _json_default(value: Any) -> Any:
    if isinstance(value, datetime):
        return value.isoformat()
    if isinstance(value, (set, tuple)):
        return list(value)
    return str(value)


_ENCODE = json.JSONEncoder(default=_json_default, ensure_ascii=False).encode
# The same encoding made once: JSONEncoder.encode builds a C encoder on every call, which costs
# as much as encoding a labels list or an attrs dict. No markers (no circular-reference check,
# and no state shared between threads): events hold JSON read from APIs, which has no cycles.
_C_ENCODE = (
    json.encoder.c_make_encoder(  # type: ignore[attr-defined]  # missing from the stub
        None, _json_default, json.encoder.encode_basestring, None, ": ", ", ", False, False, True
    )
    if json.encoder.c_make_encoder is not None  # type: ignore[attr-defined]
    else None
)


def _dumps(value: Any) -> str:
    """A value as the store's JSON text (labels, attrs, the json_serializer of the engine)."""
    if _C_ENCODE is None:
        return _ENCODE(value)
    return "".join(_C_ENCODE(value, 0))


class Store(
    StoreQueries,
    QualityReads,
    PerfReads,
    CiReads,
    CiTestReads,
    ResponseReads,
    TimeOrderReads,
    BuildReads,
    SourceStates,
    Migrations,
):
    """One database (SQLite file or PostgreSQL), addressed by SQLAlchemy URL."""

    def __init__(self, url: str, waits: DatabaseWaits | None = None) -> None:
        """`waits`: how long to wait for the database (default: TRACKER_DB_* over the
        defaults; tracker.config.database)."""
        self.url = url
        self.waits = waits or database_waits()
        try:
            self.engine: Engine = create_engine(url, json_serializer=_dumps, future=True)
        except (SQLAlchemyError, ImportError, ValueError) as exc:
            raise StoreError(f"cannot open database {self.safe_url}: {exc}") from None
        self.dialect = self.engine.dialect.name
        self._sqlite_sql: str | None = None
        watch(self.engine)
        # Both read self.waits when a connection opens: use_waits can still change them.
        if self.dialect == "sqlite":
            sa_event.listen(
                self.engine,
                "connect",
                lambda dbapi_connection, _record: sqlite_pragmas(
                    dbapi_connection, self.busy_timeout
                ),
            )
        elif self.dialect == "postgresql":
            sa_event.listen(
                self.engine,
                "do_connect",
                lambda _dialect, _record, _args, cparams: postgres_connect_params(
                    cparams, self.waits
                ),
            )
            sa_event.listen(
                self.engine,
                "connect",
                lambda dbapi_connection, _record: postgres_session(dbapi_connection, self.waits),
            )

    @property
    def busy_timeout(self) -> float:
        """How long a write waits for another process's SQLite write lock."""
        return self.waits.lock_timeout

    def use_waits(self, waits: DatabaseWaits) -> None:
        """Wait as `waits` says from now on (sources.yaml's, read after the store opened)."""
        if waits != self.waits:
            self.waits = waits
            self.engine.dispose()  # the connections open now were given the old ones

    def close(self) -> None:
        """Close the store's connections (it opens new ones if used again)."""
        self.engine.dispose()

    @property
    def safe_url(self) -> str:
        """The URL with any password hidden, for messages."""
        return (
            self.engine.url.render_as_string(hide_password=True)
            if hasattr(self, "engine")
            else re.sub(r":[^:@/]+@", ":***@", self.url)
        )

    @contextmanager
    def _connect(self) -> Iterator[Connection]:
        try:
            with self.engine.connect() as conn:
                yield conn
        except (OperationalError, DatabaseError) as exc:  # unreachable, or not a database file
            raise StoreError(self._failure(exc)) from None

    @contextmanager
    def transaction(self) -> Iterator[Connection]:
        """One transaction: committed on success, rolled back on any exception."""
        driver_error = self.engine.dialect.loaded_dbapi.OperationalError
        try:
            with self.engine.begin() as conn:
                if self.dialect == "sqlite":
                    self._sqlite_write_lock(conn)
                yield conn
        except (OperationalError, driver_error) as exc:
            raise StoreError(self._failure(exc, "nothing was written")) from None

    def _failure(self, exc: Exception, outcome: str = "") -> str:
        return failure_line(exc, self.waits, self.safe_url, self.engine, outcome)

    def _sqlite_write_lock(self, conn: Connection) -> None:
        """Take SQLite's write lock at the start of the transaction (sqlite_lock)."""
        take_write_lock(conn.connection.driver_connection, self.busy_timeout, self.safe_url)

    # -- events ----------------------------------------------------------------------------
    def _insert(self):
        if self.dialect == "postgresql":
            from sqlalchemy.dialects.postgresql import insert
        else:
            from sqlalchemy.dialects.sqlite import insert
        return insert

    def upsert_events(
        self,
        conn: Connection,
        items: Iterable[Event],
        *,
        imported: bool = False,
        seen_at: datetime | None = None,
    ) -> tuple[int, int]:
        """Insert or refresh events by id; return (rows written, rows that were new).

        A re-collected event keeps its first_seen_at; a vanished one that reappears is unmarked.
        """
        items = list(items)
        sources = sorted({item.source_id for item in items})
        if not sources:
            return 0, 0
        before = self._count_for(conn, sources)
        written = self.write_events(conn, items, imported=imported, seen_at=seen_at)
        return written, self._count_for(conn, sources) - before

    def write_events(
        self,
        conn: Connection,
        items: Iterable[Event],
        *,
        imported: bool = False,
        seen_at: datetime | None = None,
    ) -> int:
        """upsert_events without counting what was new (a bulk import counts once, at the end);
        return the rows written (duplicates within `items`: the last one wins)."""
        seen_at = seen_at or now_utc()
        items = list(items)
        if not items:
            return 0
        lock_anchors(conn, self.dialect)
        if self.dialect == "sqlite":
            seen, flag = sqlite_time(seen_at), int(imported)
            assert seen is not None  # seen_at is a datetime
            params = {item.id: sqlite_row(item, seen, flag, _dumps) for item in items}
            raw = conn.connection.driver_connection
            assert raw is not None  # a connection in use has its driver connection
            raw.executemany(self._sqlite_upsert_sql(), list(params.values()))
            written = len(params)
        else:
            rows = {item.id: event_row(item, seen_at, imported) for item in items}
            values = list(rows.values())
            if self.dialect == "postgresql":
                self._copy_upsert(conn, values)
            else:
                conn.execute(self._upsert_statement(), values)  # other dialects: plain Core
            written = len(values)
        # what is derived from the events is derived now, once (tracker.store.derived)
        derive_written(conn, self.dialect, items)
        return written

    def _upsert_statement(self):
        stmt = self._insert()(events)
        return stmt.on_conflict_do_update(
            index_elements=[events.c.id],
            set_={
                name: stmt.excluded[name] for name in EVENT_COLUMNS if name not in _KEEP_ON_UPSERT
            },
        )

    def _sqlite_upsert_sql(self) -> str:
        """The compiled SQLite upsert, its parameters in column order (sqlite_row's order):
        rows go straight to the driver's executemany (Core's per-row parameter handling costs
        more than the insert itself)."""
        if self._sqlite_sql is None:
            compiled = self._upsert_statement().compile(dialect=self.engine.dialect)
            if list(compiled.positiontup or ()) != EVENT_COLUMNS:
                raise StoreError(f"unexpected upsert parameters: {compiled.positiontup}")
            self._sqlite_sql = str(compiled)
        return self._sqlite_sql

    def _copy_upsert(self, conn: Connection, values: list[dict]) -> None:
        """PostgreSQL: COPY into a temporary staging table, then one INSERT ... SELECT ...
        ON CONFLICT. Several times faster than executemany; same transaction as the caller."""
        columns = ", ".join(EVENT_COLUMNS)
        updates = ", ".join(
            f"{name} = EXCLUDED.{name}" for name in EVENT_COLUMNS if name not in _KEEP_ON_UPSERT
        )
        raw = conn.connection.driver_connection
        assert raw is not None  # a connection in use has its driver connection
        with raw.cursor() as cursor:
            cursor.execute(
                "CREATE TEMP TABLE IF NOT EXISTS events_stage "
                "(LIKE events INCLUDING DEFAULTS) ON COMMIT DELETE ROWS"
            )
            cursor.execute("TRUNCATE events_stage")
            with cursor.copy(f"COPY events_stage ({columns}) FROM STDIN") as copy:
                for row in values:
                    copy.write_row(
                        [
                            _dumps(row[name]) if name in ("labels", "attrs") else row[name]
                            for name in EVENT_COLUMNS
                        ]
                    )
            cursor.execute(
                f"INSERT INTO events ({columns}) SELECT {columns} FROM events_stage "
                f"ON CONFLICT (id) DO UPDATE SET {updates}"
            )
            cursor.execute("TRUNCATE events_stage")

    @staticmethod
    def count_events(
        conn: Connection,
        *,
        last_seen_at: datetime | None = None,
        other_than: Collection[str] | None = None,
    ) -> int:
        """How many events the store holds (only those last seen at `last_seen_at`, if given:
        what one write stamped; only those of sources not in `other_than`, if given)."""
        query = select(func.count()).select_from(events)
        if last_seen_at is not None:
            query = query.where(events.c.last_seen_at == last_seen_at)
        if other_than is not None:
            query = query.where(events.c.source_id.not_in(list(other_than)))
        return conn.execute(query).scalar_one()

    @staticmethod
    def _count_for(conn: Connection, sources: Sequence[str]) -> int:
        return conn.execute(
            select(func.count()).select_from(events).where(events.c.source_id.in_(sources))
        ).scalar_one()

    def mark_vanished(
        self, conn: Connection, source_id: str, external_ids: Iterable[str], when: datetime
    ) -> int:
        """Mark events that disappeared upstream; they are kept, never deleted."""
        ids = list(external_ids)
        if not ids:
            return 0
        result = conn.execute(
            update(events)
            .where(
                events.c.source_id == source_id,
                events.c.external_id.in_(ids),
                events.c.vanished_at.is_(None),
            )
            .values(vanished_at=when)
        )
        return result.rowcount or 0

    def iter_events(
        self, source_id: str | None = None, kind: str | None = None, batch: int = 2000
    ) -> Iterator[dict]:
        """All events as dicts, oldest first (for export and tests)."""
        query = select(events).order_by(events.c.occurred_at, events.c.id)
        if source_id:
            query = query.where(events.c.source_id == source_id)
        if kind:
            query = query.where(events.c.kind == kind)
        with self._connect() as conn:
            result = conn.execution_options(yield_per=batch).execute(query)
            for row in result.mappings():
                yield dict(row)


def open_store(url: str, waits: DatabaseWaits | None = None) -> Store:
    """A Store for `url` (see tracker.config.database_url for the defaults), waiting as `waits`
    says (default: TRACKER_DB_* over the defaults of tracker.config.database)."""
    return Store(url, waits)


def event_row(item: Event, seen_at: datetime, imported: bool = False) -> dict[str, Any]:
    """The `events` row of one Event."""
    return {
        "id": item.id,
        "source_id": item.source_id,
        "project": item.project,
        "kind": item.kind,
        "external_id": item.external_id,
        "occurred_at": item.occurred_at,
        "title": item.title or "",
        "body": item.body or "",
        "url": item.url or "",
        "version": item.version,
        "regime": item.regime,
        "labels": list(item.labels),
        "state": item.state,
        "outcome": item.outcome,
        "ended_at": item.ended_at,
        "updated_at": item.updated_at,
        "attrs": dict(item.attrs),
        "first_seen_at": seen_at,
        "last_seen_at": seen_at,
        "vanished_at": None,
        "imported": imported,
    }
