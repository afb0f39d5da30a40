"""The reads and writes of what is derived at ingest (tracker.store.derived) follow what they
touch, not the history's size: on SQLite and PostgreSQL, neither a report's reads
(Store.build_texts once its anchors are derived, Store.contradicting_events) nor the
derivation of a written batch scans the events table. Each fails if a statement goes back to
reading every event (a LIKE over every text, a scan for contradicting times)."""

from __future__ import annotations

import json
from datetime import UTC, datetime

from sqlalchemy import event

from tracker.events import Event

ANCHOR = "vllm-openai-rocm:"
SCANS = ("SCAN e ", "SCAN i ", "SCAN c ", "SCAN events")


def _nodes(plan):
    """Every node of a PostgreSQL JSON plan."""
    if isinstance(plan, list):
        for item in plan:
            yield from _nodes(item)
    elif isinstance(plan, dict):
        if "Node Type" in plan:
            yield plan
        for value in plan.values():
            if isinstance(value, (list, dict)):
                yield from _nodes(value)


def _items(n: int) -> list[Event]:
    at = datetime(2026, 3, 1, tzinfo=UTC)
    out = []
    for k in range(n):
        out.append(
            Event("s", "p", "issue", f"issue:{k}", at, f"issue {k}", body=f"{ANCHOR}v0.{k}.0")
        )
        out.append(Event("s", "p", "comment", f"comment:{k}", at, "c", attrs={"issue": k}))
    return out


def _captured(store, action) -> list[tuple]:
    statements: list[tuple] = []

    def capture(conn, cursor, statement, parameters, context, executemany):
        if not statement.lstrip().upper().startswith(("EXPLAIN", "LOCK", "SET", "SHOW")):
            statements.append((statement, parameters))

    event.listen(store.engine, "before_cursor_execute", capture)
    try:
        action()
    finally:
        event.remove(store.engine, "before_cursor_execute", capture)
    return statements


def _write(store, items):
    with store.transaction() as conn:
        store.upsert_events(conn, items)


def _statements(store) -> list[tuple]:
    _write(store, _items(30))
    store.derive_anchors([ANCHOR])  # the one pass over what is stored, not measured here
    written = _captured(store, lambda: _write(store, _items(3)))
    read = _captured(store, lambda: (store.build_texts([ANCHOR]), store.contradicting_events()))
    derived = [s for s in written if "events e" in s[0] or "comment_issues" in s[0]]
    assert derived and read, (written, read)
    return [s for s in derived + read if "FROM events" in s[0] or "events e" in s[0]]


def test_sqlite_plans_read_no_event_they_do_not_show(sqlite_store):
    statements = _statements(sqlite_store)
    with sqlite_store.engine.connect() as conn:
        for sql, params in statements:
            plan = [row[3] for row in conn.exec_driver_sql(f"EXPLAIN QUERY PLAN {sql}", params)]
            assert not any(step.startswith(SCANS) for step in plan), (sql, plan)


def test_postgresql_plans_read_no_event_they_do_not_show(pg_store):
    statements = _statements(pg_store)
    with pg_store.engine.connect() as conn:
        conn.exec_driver_sql("ANALYZE")
        conn.exec_driver_sql("SET enable_seqscan = off")  # an index path must exist
        cursor = conn.connection.driver_connection.cursor()
        for sql, params in statements:
            cursor.execute(f"EXPLAIN (FORMAT JSON) {sql}", params)
            plan = cursor.fetchone()[0]
            for node in _nodes(plan):
                if node.get("Relation Name") != "events":
                    continue
                whole = node["Node Type"] == "Seq Scan" or (
                    "Index" in node["Node Type"] and "Index Cond" not in node
                )  # a scan of every event, or of a whole index of them
                assert not whole, (sql, json.dumps(plan))
