"""Timestamps that contradict each other: the one rule every read feeding a figure applies
beside `tables.dated`, and the data-quality listing of the rows it leaves out.

An event that ends before it begins (an issue closed before it was opened, a CI job or run that
ended before it started: ``ended_at`` earlier than ``occurred_at``), and a comment dated before
the issue it answers was opened, cannot both be right; which one is wrong cannot be told. Such
rows are left out of every figure (`in_order` in SQL, `answers_before_opening` for a comment
read beside its issue) and listed in the report's data-quality section and summary.json
(`Store.contradicting_events`), as far-dated rows are (`Store.far_dated_events`).

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


class TimeOrderReads:
    if TYPE_CHECKING:
        dialect: str

        def _connect(self) -> AbstractContextManager[Connection]: ...

    def contradicting_events(self, limit: int = CONTRADICTING_LISTED) -> dict[str, Any]:
        """Events left out of every figure because their timestamps contradict each other
        (module docstring): {"count": how many, "events": the first `limit` by source and id,
        each with id, source_id, kind, external_id, occurred_at and what contradicts it}.
        Far-dated rows are listed by far_dated_events, not here."""
        when = "e.occurred_at" if self.dialect == "sqlite" else "e.occurred_at AT TIME ZONE 'UTC'"
        ended = "ended_at" if self.dialect == "sqlite" else "ended_at AT TIME ZONE 'UTC'"
        opened = "i.occurred_at" if self.dialect == "sqlite" else "i.occurred_at AT TIME ZONE 'UTC'"
        issue_of = (
            "json_extract(c.attrs, '$.issue')"
            if self.dialect == "sqlite"
            else "(c.attrs ->> 'issue')"
        )
        ends_first = (
            f"SELECT events.id, 'ended ' || CAST({ended} AS TEXT) || ', before it began' AS why "
            f"FROM events WHERE events.ended_at < events.occurred_at "
            f"AND {dated(self.dialect).text} AND {computable(self.dialect, 'ended_at')}"
        )
        early_answer = (
            f"SELECT c.id, 'before its issue was opened (' || CAST({opened} AS TEXT) || ')' "
            "AS why FROM events c JOIN events i ON i.source_id = c.source_id "
            f"AND i.kind = 'issue' AND i.external_id = 'issue:' || {issue_of} "
            "WHERE c.kind = 'comment' AND c.occurred_at < i.occurred_at "
            f"AND {computable(self.dialect, 'c.occurred_at')} "
            f"AND {computable(self.dialect, 'i.occurred_at')}"
        )
        found = f"{ends_first} UNION ALL {early_answer}"
        listed = text(
            f"SELECT e.id, e.source_id, e.kind, e.external_id, CAST({when} AS TEXT) AS "
            f"occurred_at, f.why FROM events e JOIN ({found}) AS f ON f.id = e.id "
            "ORDER BY e.source_id, e.id LIMIT :limit"
        )
        with self._connect() as conn:
            count = conn.execute(text(f"SELECT COUNT(*) FROM ({found}) AS f")).scalar_one()
            rows = [dict(r) for r in conn.execute(listed, {"limit": limit}).mappings()]
        return {"count": count, "events": rows}
