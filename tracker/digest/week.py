"""The digest's week: which complete ISO week a digest reports, and the clock that decides it.

`default_clock` is the one place the CLI (`tracker digest`) and the scheduler read "now" from.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from typing import TYPE_CHECKING

from tracker.events import OUT_OF_RANGE, computable, now_utc

if TYPE_CHECKING:
    from tracker.config import Config
    from tracker.store import Store

_WEEK = re.compile(r"^(\d{4})-W(\d{2})$")


def default_clock(config: Config | None = None, store: Store | None = None) -> datetime:
    """The digest's "now" when neither --week nor --as-of is given, for the CLI and the
    scheduler alike: the one place to change it. A replayed store reports as of its cassettes'
    snapshot date (tracker.store.asof), so the demo's digest does not age with the wall clock;
    live data: now."""
    del config  # the clock depends on the store alone
    if store is not None:
        from tracker.store.asof import resolve_as_of

        return resolve_as_of(store, now=now_utc).when
    return now_utc()


@dataclass(frozen=True)
class DigestWeek:
    """One ISO week: [start, end) in UTC; numbers are computed as of `as_of` (its last instant)."""

    name: str
    start: datetime
    end: datetime

    @property
    def as_of(self) -> datetime:
        return self.end - timedelta(microseconds=1)

    def shifted(self, weeks: int) -> DigestWeek:
        return week_of(self.start.date() + timedelta(weeks=weeks))


def iso_week(when: datetime | date) -> str:
    year, week, _ = when.isocalendar()
    return f"{year}-W{week:02d}"


def week_of(day: date) -> DigestWeek:
    """The ISO week that contains `day`."""
    monday = day - timedelta(days=day.weekday())
    start = datetime(monday.year, monday.month, monday.day, tzinfo=UTC)
    return DigestWeek(iso_week(monday), start, start + timedelta(days=7))


def resolve_week(week: str | None, as_of: date | None, now: datetime) -> DigestWeek:
    """--week YYYY-Www, else the last ISO week complete at the end of --as-of DATE, else the
    last ISO week complete at `now`. ValueError (for the CLI to show) on a malformed or not yet
    complete week, or when both are given."""
    if week is not None and as_of is not None:
        raise ValueError("give --week or --as-of, not both")
    # `now` may be the last instant of a day (a replay's snapshot, Sunday 23:59:59.999999):
    # the next instant is when that day, and a week ending with it, is complete.
    now = now + timedelta(microseconds=1)
    if week is not None:
        match = _WEEK.match(week.strip())
        if not match:
            raise ValueError(f"{week!r} is not an ISO week like 2026-W47")
        try:
            monday = date.fromisocalendar(int(match[1]), int(match[2]), 1)
        except ValueError:
            raise ValueError(f"{week!r}: {match[1]} has no week {match[2]}") from None
        if not computable(datetime(monday.year, monday.month, monday.day, tzinfo=UTC)):
            raise ValueError(f"{week!r} {OUT_OF_RANGE}")
        chosen = week_of(monday)
        if chosen.end > now:
            raise ValueError(
                f"{chosen.name} is not complete yet (it ends {chosen.end:%Y-%m-%d} 00:00 UTC)"
            )
        return chosen
    # The end of DATE (like `tracker lag --as-of`): a Sunday completes its own week.
    instant = (
        datetime(as_of.year, as_of.month, as_of.day, tzinfo=UTC) + timedelta(days=1)
        if as_of is not None
        else now
    )
    return week_of(instant.date()).shifted(-1)
