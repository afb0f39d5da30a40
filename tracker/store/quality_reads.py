"""Reads behind the data-quality figures: each source's newest evidence (staleness), the
collection runs (source health) and the tagged events of a window (the digest's top events).

A mixin of `tracker.store.Store`. Each read is bounded by an as-of or window end, so a report
or digest of a past date reads the same rows however much was collected since.
"""

from __future__ import annotations

from collections.abc import Iterable
from contextlib import AbstractContextManager
from datetime import UTC, datetime, time
from typing import TYPE_CHECKING, Any

from sqlalchemy import Boolean, Connection, Float, String, Text, column, func, select, table

from tracker.events import utc
from tracker.store.tables import Timestamp, dated, events, runs

# The documented view v_event_tags: the effective class and regime of each tagged event
# (an analyst override wins), the same rows v_friction_weekly counts.
_EVENT_TAGS = table(
    "v_event_tags",
    column("event_id", String),
    column("kind", String),
    column("occurred_at", Timestamp),
    column("title", Text),
    column("url", Text),
    column("vanished_at", Timestamp),
    column("tag", String),
    column("regime", String),
    column("overridden", Boolean),
    column("score", Float),
)


class QualityReads:
    if TYPE_CHECKING:
        dialect: str

        def _connect(self) -> AbstractContextManager[Connection]: ...

    def newest_evidence(self, as_of: datetime) -> dict[str, datetime]:
        """Per source id, the time of its newest stored event at or before `as_of` (UTC),
        far-dated ones left out (tables.dated)."""
        query = (
            select(events.c.source_id, func.max(events.c.occurred_at))
            .where(events.c.occurred_at <= as_of, dated(self.dialect))
            .group_by(events.c.source_id)
        )
        with self._connect() as conn:
            return {sid: utc(last) for sid, last in conn.execute(query) if last is not None}

    def observation_ends(self) -> dict[str, datetime]:
        """Per source id, how far its last successful collection (status ``ok``) looked:
        a replay's snapshot date (the end of that day, UTC), else the run's finish (UTC).
        Sources without a successful run are absent (measure.lag.windows)."""
        latest = (
            select(runs.c.source_id, func.max(runs.c.id).label("id"))
            .where(runs.c.status == "ok")
            .group_by(runs.c.source_id)
            .subquery()
        )
        query = select(runs.c.source_id, runs.c.snapshot_date, runs.c.finished_at).join(
            latest, runs.c.id == latest.c.id
        )
        out: dict[str, datetime] = {}
        with self._connect() as conn:
            for source_id, snapshot, finished in conn.execute(query):
                if snapshot is not None:
                    out[source_id] = datetime.combine(snapshot, time.max, tzinfo=UTC)
                elif finished is not None:
                    out[source_id] = utc(finished)
        return out

    def run_history(self, source_ids: Iterable[str], end: datetime) -> list[dict[str, Any]]:
        """The collection runs of `source_ids` that started before `end`, oldest first:
        source_id, started_at, status, error."""
        wanted = sorted(set(source_ids))
        if not wanted:
            return []
        query = (
            select(runs.c.source_id, runs.c.started_at, runs.c.status, runs.c.error)
            .where(runs.c.source_id.in_(wanted), runs.c.started_at < end)
            .order_by(runs.c.started_at)
        )
        with self._connect() as conn:
            return [dict(r) for r in conn.execute(query).mappings()]

    def tagged_events(self, start: datetime, end: datetime) -> list[dict[str, Any]]:
        """Friction and optimization issues / release-note items that occurred in [start, end)
        and are still upstream (the rows v_friction_weekly counts), highest tagger score first."""
        v = _EVENT_TAGS
        query = (
            select(
                v.c.event_id, v.c.occurred_at, v.c.title, v.c.url, v.c.tag, v.c.regime, v.c.score
            )
            .where(
                v.c.kind.in_(("issue", "note")),
                v.c.vanished_at.is_(None),
                v.c.tag.in_(("friction", "optimization")),
                v.c.occurred_at >= start,
                v.c.occurred_at < end,
            )
            .order_by(v.c.score.desc(), v.c.occurred_at.desc(), v.c.event_id)
        )
        with self._connect() as conn:
            return [dict(r) for r in conn.execute(query).mappings()]
