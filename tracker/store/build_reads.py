"""The read behind "builds named in any record" (tracker.measure.lag.builds): the stored texts
that may name an install channel's build.

A mixin of `tracker.store.Store`, like tracker.store.reads. The channels' patterns are regular
expressions run in Python; the store only picks the records whose title, body or (for a
page's revisions) removed lines hold one of the patterns' plain ``contains`` texts, ignoring
case, so every kind of record is read the same way without a scan in Python of every event.
"""

from __future__ import annotations

from collections.abc import Sequence
from contextlib import AbstractContextManager
from typing import TYPE_CHECKING, Any

from sqlalchemy import Connection, Text, cast, func, or_, select

from tracker.events import utc
from tracker.store.tables import dated, events

# Kinds of records whose text can name a build (CI runs, jobs and benchmark results cannot).
TEXT_KINDS = ("release", "note", "issue", "comment", "commit")
MAX_ANCHORS = 200  # plain texts per read: a bound on the statement's size


def _like(text: str) -> str:
    """A LIKE pattern for `text` anywhere, its wildcards escaped (with "\\")."""
    escaped = text.lower().replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    return f"%{escaped}%"


class BuildReads:
    if TYPE_CHECKING:
        dialect: str

        def _connect(self) -> AbstractContextManager[Connection]: ...

    def build_texts(self, anchors: Sequence[str]) -> list[dict[str, Any]]:
        """source_id, kind, occurred_at (UTC), url, title, body and attrs of every record of
        TEXT_KINDS holding one of `anchors` (ignoring case) in its title, body or attrs,
        oldest first; far-dated rows left out (tables.dated)."""
        wanted = [a for a in dict.fromkeys(anchors) if a][:MAX_ANCHORS]
        if not wanted:
            return []
        columns = (
            func.lower(events.c.title),
            func.lower(events.c.body),
            func.lower(cast(events.c.attrs, Text)),
        )
        query = (
            select(
                events.c.source_id,
                events.c.kind,
                events.c.occurred_at,
                events.c.url,
                events.c.title,
                events.c.body,
                events.c.attrs,
            )
            .where(
                events.c.kind.in_(TEXT_KINDS),
                or_(*(c.like(_like(a), escape="\\") for a in wanted for c in columns)),
                dated(self.dialect),
            )
            .order_by(events.c.occurred_at, events.c.id)
        )
        with self._connect() as conn:
            rows = [dict(r) for r in conn.execute(query).mappings()]
        for row in rows:
            row["occurred_at"] = utc(row["occurred_at"])
        return rows
