"""Reads and writes behind "How long do users wait?": the stored issues and comments of the
sources with ``comments: true`` and the tables issue_response and issue_response_quarterly that
the views v_issue_response and v_issue_response_quarterly read.

A mixin of `tracker.store.Store`, like tracker.store.reads.
"""

from __future__ import annotations

from collections.abc import Sequence
from contextlib import AbstractContextManager
from datetime import datetime
from typing import TYPE_CHECKING, Any

from sqlalchemy import Connection, select

from tracker.events import utc
from tracker.store.tables import (
    dated,
    events,
    issue_response,
    issue_response_quarterly,
    known_time,
)
from tracker.store.time_order import answers_before_opening, in_order


class ResponseReads:
    if TYPE_CHECKING:
        dialect: str

        def _connect(self) -> AbstractContextManager[Connection]: ...
        def transaction(self) -> AbstractContextManager[Connection]: ...

    def issue_response_facts(
        self, source_ids: Sequence[str], as_of: datetime
    ) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
        """(issues, comments) of `source_ids` created at or before `as_of`, not vanished.
        Issues (pull requests left out): source_id, project, regime, number, url, created_at,
        author, closed_at, close_reason, state. Comments: source_id, issue, author, author_type,
        association, created_at. Far-dated rows are not read (tables.dated); a far closing time
        is read as unknown (measure.response says what that means). Timestamps that contradict
        each other (store.time_order) are not read either: an issue closed before it was opened,
        a comment dated before its issue's opening."""
        if not source_ids:
            return [], []
        columns = (
            events.c.source_id,
            events.c.project,
            events.c.regime,
            events.c.kind,
            events.c.url,
            events.c.occurred_at,
            known_time(self.dialect, events.c.ended_at).label("ended_at"),
            events.c.state,
            events.c.attrs,
        )
        query = (
            select(*columns)
            .where(
                events.c.source_id.in_(sorted(set(source_ids))),
                events.c.kind.in_(("issue", "comment")),
                events.c.occurred_at <= as_of,
                events.c.vanished_at.is_(None),
                dated(self.dialect),
                in_order(),
            )
            .order_by(events.c.source_id, events.c.occurred_at, events.c.id)
        )
        issues, comments = [], []
        with self._connect() as conn:
            for row in conn.execute(query):
                attrs = row.attrs or {}
                if row.kind == "comment":
                    comments.append(
                        {
                            "source_id": row.source_id,
                            "issue": attrs.get("issue"),
                            "author": str(attrs.get("author") or ""),
                            "author_type": attrs.get("author_type"),
                            "association": attrs.get("association"),
                            "created_at": utc(row.occurred_at),
                        }
                    )
                elif not attrs.get("pull") and isinstance(attrs.get("number"), int):
                    issues.append(
                        {
                            "source_id": row.source_id,
                            "project": row.project,
                            "regime": row.regime,
                            "number": attrs["number"],
                            "url": row.url,
                            "created_at": utc(row.occurred_at),
                            "author": attrs.get("author"),
                            "closed_at": utc(row.ended_at) if row.ended_at else None,
                            "close_reason": attrs.get("state_reason"),
                            "state": row.state,
                        }
                    )
        opened = {(i["source_id"], i["number"]): i["created_at"] for i in issues}
        comments = [
            c
            for c in comments
            if (c["source_id"], c["issue"]) not in opened
            or not answers_before_opening(c["created_at"], opened[(c["source_id"], c["issue"])])
        ]
        return issues, comments

    def replace_issue_response(self, issues: list[dict], quarterly: list[dict]) -> None:
        """Swap in one report's rows of both tables (one transaction: readers see old or new)."""
        with self.transaction() as conn:
            conn.execute(issue_response.delete())
            conn.execute(issue_response_quarterly.delete())
            if issues:
                conn.execute(issue_response.insert(), issues)
            if quarterly:
                conn.execute(issue_response_quarterly.insert(), quarterly)
