"""What is derived from stored events is derived once, when they are written, and kept in the
tables of tracker.store.derived_tables, so that a report reads what it shows instead of every
stored text and every stored event again (issue 58):

- which stored records hold which of the store's anchors (a ``builds:`` pattern's plain text;
  tracker.store.build_reads says what a match is): rewritten for every event written here, and
  for every stored event once when an anchor is new (Store.build_texts: a changed pattern's
  text is derived at the next read that asks for it);
- the issue each comment answers, and the events whose timestamps contradict each other
  (tracker.store.time_order says what contradicts): rewritten for every event written, and for
  the comments of every issue written.

Every derivation runs the same SQL over the written ids as the one over the whole store (the
migration's backfill, a new anchor's pass), in the writer's transaction.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from sqlalchemy import Connection, text

from tracker.events import Event, event_id
from tracker.store.build_reads import anchor_rows_sql
from tracker.store.derived_tables import comment_issues
from tracker.store.tables import ids_in, ids_param
from tracker.store.time_order import contradictions_sql


def issue_key(value: Any, dialect: str) -> str | None:
    """A comment's attrs ``issue`` as the contradiction rule's SQL spells it in an external id
    (json_extract on SQLite, ->> on PostgreSQL); None for no number or text (such a comment
    answers no stored issue)."""
    if isinstance(value, bool):
        if dialect == "sqlite":
            return "1" if value else "0"
        return "true" if value else "false"
    if isinstance(value, (int, float, str)):
        return str(value)
    return None


def comment_issue_rows(items: Iterable[Event], dialect: str) -> list[dict[str, str]]:
    """comment_issues rows of the comments among `items`."""
    out = []
    for item in items:
        if item.kind != "comment" or not isinstance(item.attrs, dict):
            continue
        key = issue_key(item.attrs.get("issue"), dialect)
        if key is not None:
            out.append(
                {"comment_id": item.id, "issue_id": event_id(item.source_id, f"issue:{key}")}
            )
    return out


def derive_written(conn: Connection, dialect: str, items: Sequence[Event]) -> None:
    """Rewrite the derived rows of `items` (just written through `conn`)."""
    latest = {item.id: item for item in items}  # duplicates: the last one was written
    ids = list(latest)
    if not ids:
        return
    bound = {"ids": ids_param(dialect, ids)}
    written = ids_in(dialect, "comment_id")
    conn.execute(text(f"DELETE FROM comment_issues WHERE {written}"), bound)
    rows = comment_issue_rows(latest.values(), dialect)
    if rows:
        conn.execute(comment_issues.insert(), rows)
    # a written comment, or a comment of a written issue: compared again
    compared = (
        f"(SELECT value FROM json_each(:ids) UNION SELECT comment_id FROM comment_issues "
        f"WHERE {ids_in(dialect, 'issue_id')})"
        if dialect == "sqlite"
        else f"(SELECT unnest(CAST(:ids AS VARCHAR[])) UNION SELECT comment_id "
        f"FROM comment_issues WHERE {ids_in(dialect, 'issue_id')})"
    )
    conn.execute(
        text(
            f"DELETE FROM time_contradictions WHERE {ids_in(dialect, 'event_id')} "
            f"OR (reason = 'early' AND event_id IN {compared})"
        ),
        bound,
    )
    ended, early = contradictions_sql(
        dialect, ended_where=ids_in(dialect, "events.id"), early_where=f"c.id IN {compared}"
    )
    for found in (ended, early):
        conn.execute(text(f"INSERT INTO time_contradictions (event_id, reason) {found}"), bound)
    if conn.execute(text("SELECT 1 FROM build_anchors LIMIT 1")).first() is None:
        return
    conn.execute(text(f"DELETE FROM text_anchors WHERE {ids_in(dialect, 'event_id')}"), bound)
    matched = anchor_rows_sql(ids_in(dialect, "e.id"))
    conn.execute(text(f"INSERT INTO text_anchors (event_id, anchor) {matched}"), bound)
