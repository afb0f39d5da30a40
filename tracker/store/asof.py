"""As-of dates: the moment a report is computed at, from --as-of, a replayed snapshot or now.

A cassette is a fixed snapshot of upstream. Aging its open artifacts to the wall clock would make
a replayed report change every day it is run, so a replay reports as of its snapshot.

Contracts:
- Every cassette states its snapshot in a comment line near the top that vcrpy ignores:
  ``# snapshot: YYYY-MM-DD`` (the date its facts were true). ``tracker collect --record`` writes
  it (``stamp``); hand-written cassettes say ``hand-written`` on that line.
- The runner records each replayed run's snapshot (and the replay directory) on its ``runs``
  row; a live run records none. ``default_as_of(store)`` is the newest snapshot among each
  source's latest successful run, as the end of that day (UTC), or None when no latest run was
  a dated replay (live data: the wall clock applies). A later ``tracker report`` or
  ``tracker lag`` on the same store therefore still reports as of the snapshot.
- ``resolve_as_of`` is what the CLI paths call: an explicit ``--as-of`` wins, then the
  snapshot, then now.
- Staleness (a stream that ended long before as-of) is tracker.measure.quality.staleness.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, date, datetime, time

from sqlalchemy import func, select

from tracker.store.tables import runs


@dataclass(frozen=True)
class AsOf:
    """The moment a report is computed at, and why (for the console and the page)."""

    when: datetime
    snapshot: date | None = None
    replay: str | None = None
    explicit: bool = False

    @property
    def label(self) -> str:
        """E.g. "as of 2026-08-21, replay of cassettes/"; live: "as of 2026-11-23 20:15 UTC"."""
        if self.snapshot is not None and not self.explicit:
            where = f", replay of {self.replay}" if self.replay else ", replayed snapshot"
            return f"as of {self.snapshot.isoformat()}{where}"
        if self.explicit:
            return f"as of {self.when.date().isoformat()} (--as-of)"
        return f"as of {self.when:%Y-%m-%d %H:%M} UTC (now, live data)"


def end_of_day(day: date) -> datetime:
    """The last instant of `day` in UTC: a fact dated that day is known as of it."""
    return datetime.combine(day, time.max, tzinfo=UTC)


def default_as_of(store) -> AsOf | None:
    """As-of from the store's latest successful run per source: the newest snapshot date when
    every one of them was a dated replay, else None (live data). One live source makes the
    store live: an old snapshot of another source must not date it back (its later facts
    would be silently ignored)."""
    latest = (
        select(runs.c.source_id, func.max(runs.c.id).label("id"))
        .where(runs.c.status.in_(("ok", "partial")))
        .group_by(runs.c.source_id)
        .subquery()
    )
    query = select(runs.c.snapshot_date, runs.c.replay).join(latest, runs.c.id == latest.c.id)
    with store._connect() as conn:  # its errors are one line, a wait's says what it waited for
        rows = conn.execute(query).all()
    if not rows or any(r.snapshot_date is None for r in rows):
        return None
    newest = max(rows, key=lambda r: r.snapshot_date)
    return AsOf(end_of_day(newest.snapshot_date), newest.snapshot_date, newest.replay)


def resolve_as_of(
    store, explicit: date | datetime | None = None, now: Callable[[], datetime] | None = None
) -> AsOf:
    """The one place every command's as-of date is resolved: an explicit date (`--as-of`) is
    the end of that day, an explicit datetime that moment (UTC); else the replayed snapshot,
    else `now()` (default: the wall clock, UTC)."""
    if isinstance(explicit, datetime):
        when = explicit if explicit.tzinfo else explicit.replace(tzinfo=UTC)
        return AsOf(when.astimezone(UTC), explicit=True)
    if explicit is not None:
        return AsOf(end_of_day(explicit), explicit=True)
    return default_as_of(store) or AsOf(now() if now else datetime.now(UTC))
