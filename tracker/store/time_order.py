"""Timestamps that contradict each other: the one rule every read feeding a figure applies
beside `tables.dated`, and the data-quality listing of the rows it leaves out.

An event that ends before it begins (an issue closed before it was opened, a CI job or run that
ended before it started: ``ended_at`` earlier than ``occurred_at``), and a comment dated before
the issue it answers was opened, cannot both be right; which one is wrong cannot be told. Such
rows are left out of every figure (`in_order` in SQL, `answers_before_opening` for a comment
read beside its issue) and listed in the report's data-quality section and summary.json
(`Store.contradicting_events`), as far-dated rows are (`Store.far_dated_events`). The listing
reads the rows derived when the events were written (tracker.store.derived, with
`contradictions_sql`), not every stored event.

A mixin of `tracker.store.Store`, like tracker.store.reads.
"""

from __future__ import annotations

from contextlib import AbstractContextManager
from datetime import datetime
from typing import TYPE_CHECKING, Any

from sqlalchemy import Connection, TextClause, text

from tracker.store.tables import computable, dated

CONTRADICTING_LISTED = 50


def in_order(table: str = "events") -> TextClause:
    """SQL true for rows whose end is not before their start (or that have no end). Its text is
    the one spelling of the rule: the issue-response and CI-job reads use it as a clause, the
    weekly CI sums (store.weekly.ci_sql) as text; migration 0023 writes the same text into
    v_ci_pass_rate_weekly."""
    return text(f"({table}.ended_at IS NULL OR {table}.ended_at >= {table}.occurred_at)")


def answers_before_opening(comment_at: datetime, opened_at: datetime) -> bool:
    """Whether a comment (a response) is dated before its issue was opened."""
    return comment_at < opened_at


def _utc(dialect: str, column: str) -> str:
    return column if dialect == "sqlite" else f"{column} AT TIME ZONE 'UTC'"


def contradictions_sql(dialect: str, ended_where: str, early_where: str) -> tuple[str, str]:
    """SELECT (event id, reason) of the events that end before they begin (reason 'ended';
    also meeting `ended_where`, on ``events``) and of the comments dated before the issue they
    answer was opened ('early'; also meeting `early_where`, on the comment ``c``, its issue
    ``i`` and their comment_issues row ``ci``): the one spelling of the rule's listing, run by
    the derivation on write (tracker.store.derived) and by migration 0024's backfill at its
    revision. Far-dated rows are far_dated_events', not these."""
    issue_of = (
        "json_extract(c.attrs, '$.issue')" if dialect == "sqlite" else "(c.attrs ->> 'issue')"
    )
    ends_first = (
        "SELECT events.id, 'ended' FROM events WHERE events.ended_at < events.occurred_at "
        f"AND {dated(dialect).text} AND {computable(dialect, 'events.ended_at')} "
        f"AND {ended_where}"
    )
    early_answer = (
        "SELECT c.id, 'early' FROM comment_issues ci JOIN events c ON c.id = ci.comment_id "
        "JOIN events i ON i.id = ci.issue_id "
        "WHERE c.kind = 'comment' AND i.kind = 'issue' AND i.source_id = c.source_id "
        f"AND i.external_id = 'issue:' || {issue_of} AND c.occurred_at < i.occurred_at "
        f"AND {computable(dialect, 'c.occurred_at')} "
        f"AND {computable(dialect, 'i.occurred_at')} AND {early_where}"
    )
    return ends_first, early_answer


class TimeOrderReads:
    if TYPE_CHECKING:
        dialect: str

        def _connect(self) -> AbstractContextManager[Connection]: ...

    def contradicting_events(self, limit: int = CONTRADICTING_LISTED) -> dict[str, Any]:
        """Events left out of every figure because their timestamps contradict each other
        (module docstring): {"count": how many, "events": the first `limit` by source and id,
        each with id, source_id, kind, external_id, occurred_at and what contradicts it}.
        Far-dated rows are listed by far_dated_events, not here. Reads the rows derived when
        the events were written (time_contradictions), not every event."""
        d = self.dialect
        # SQLite: the derived rows first, whatever its planner guesses of the tables' sizes
        # (CROSS JOIN keeps the order); PostgreSQL's planner has the statistics.
        first = "CROSS JOIN" if d == "sqlite" else "JOIN"
        listed = text(
            f"SELECT e.id, e.source_id, e.kind, e.external_id, "
            f"CAST({_utc(d, 'e.occurred_at')} AS TEXT) AS occurred_at, "
            f"CASE WHEN t.reason = 'ended' "
            f"THEN 'ended ' || CAST({_utc(d, 'e.ended_at')} AS TEXT) || ', before it began' "
            f"ELSE 'before its issue was opened (' || CAST({_utc(d, 'i.occurred_at')} AS TEXT) "
            "|| ')' END AS why "
            f"FROM time_contradictions t {first} events e ON e.id = t.event_id "
            "LEFT JOIN comment_issues ci ON t.reason = 'early' AND ci.comment_id = t.event_id "
            "LEFT JOIN events i ON i.id = ci.issue_id "
            "ORDER BY e.source_id, e.id LIMIT :limit"
        )
        with self._connect() as conn:
            count = conn.execute(text("SELECT COUNT(*) FROM time_contradictions")).scalar_one()
            rows = [dict(r) for r in conn.execute(listed, {"limit": limit}).mappings()]
        return {"count": count, "events": rows}
