"""Snapshot dates: the day a replay's facts were true, the as-of date it reports at, and staleness.

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
- A source is **stale** when its newest stored event is more than ``stale_after_days`` (the
  sources.yaml key ``report: {stale_after_days: N}``, default 45) before as-of: its open rows
  are then as old as the stream, not as the artifact, and the report says so.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, date, datetime, time
from pathlib import Path
from typing import Any

from sqlalchemy import func, select

from tracker.errors import ConfigError

log = logging.getLogger("tracker.snapshot")

SNAPSHOT_LINE = re.compile(r"^#\s*snapshot:\s*(\d{4}-\d{2}-\d{2})\b", re.IGNORECASE)
HEADER_LINES = 40  # the snapshot line sits in the leading comment block
DEFAULT_STALE_AFTER_DAYS = 45
REPORT_KEYS = {"stale_after_days"}


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


# -- cassettes ------------------------------------------------------------------------------
def read_snapshot(path: str | Path) -> date | None:
    """The ``# snapshot: YYYY-MM-DD`` date of a cassette file, or None when it states none."""
    try:
        with Path(path).open(encoding="utf-8") as handle:
            for number, line in enumerate(handle):
                if number >= HEADER_LINES or not line.startswith("#"):
                    break
                match = SNAPSHOT_LINE.match(line)
                if match:
                    return date.fromisoformat(match.group(1))
    except (OSError, ValueError) as exc:
        log.warning("%s: cannot read its snapshot date: %s", path, exc)
    return None


def stamp(path: str | Path, day: date, how: str = "recorded by tracker collect --record") -> None:
    """Put ``# snapshot: DAY (how)`` on the first line of a freshly written cassette (an old
    snapshot line, if any, is replaced)."""
    file = Path(path)
    lines = file.read_text(encoding="utf-8").splitlines(keepends=True)
    lines = [line for line in lines if not SNAPSHOT_LINE.match(line)]
    file.write_text(f"# snapshot: {day.isoformat()} ({how})\n" + "".join(lines), encoding="utf-8")


def newest_snapshot(directory: str | Path, source_ids: Sequence[str] | None = None) -> date | None:
    """The newest snapshot date of the cassettes in `directory` (only `source_ids` when given)."""
    folder = Path(directory)
    paths = (
        [folder / f"{s}.yaml" for s in source_ids]
        if source_ids is not None
        else sorted(folder.glob("*.yaml"))
    )
    days = [d for d in (read_snapshot(p) for p in paths if p.exists()) if d is not None]
    return max(days, default=None)


# -- the store ------------------------------------------------------------------------------
def default_as_of(store) -> AsOf | None:
    """As-of from the store's latest successful run per source: the newest snapshot date when
    every one of them was a dated replay, else None (live data). One live source makes the
    store live: an old snapshot of another source must not date it back (its later facts
    would be silently ignored)."""
    from tracker.models import runs

    latest = (
        select(runs.c.source_id, func.max(runs.c.id).label("id"))
        .where(runs.c.status.in_(("ok", "partial")))
        .group_by(runs.c.source_id)
        .subquery()
    )
    query = select(runs.c.snapshot_date, runs.c.replay).join(latest, runs.c.id == latest.c.id)
    with store.engine.connect() as conn:
        rows = conn.execute(query).all()
    if not rows or any(r.snapshot_date is None for r in rows):
        return None
    newest = max(rows, key=lambda r: r.snapshot_date)
    return AsOf(end_of_day(newest.snapshot_date), newest.snapshot_date, newest.replay)


def resolve_as_of(
    store, explicit: date | datetime | None = None, now: Callable[[], datetime] | None = None
) -> AsOf:
    """--as-of (the end of that day) when given, else the replayed snapshot, else `now()`
    (default: the wall clock, UTC)."""
    if explicit is not None:
        day = explicit.date() if isinstance(explicit, datetime) else explicit
        return AsOf(end_of_day(day), explicit=True)
    return default_as_of(store) or AsOf(now() if now else datetime.now(UTC))


# -- staleness ------------------------------------------------------------------------------
def validate_report_settings(raw: Any, file: str | Path) -> dict[str, Any]:
    """The ``report:`` mapping of sources.yaml, checked like the rest (ConfigError names the
    file and the key)."""
    if raw is None:
        return {}
    if not isinstance(raw, dict):
        raise ConfigError(f"{file}: 'report' must be a mapping, e.g. {{stale_after_days: 45}}")
    unknown = set(raw) - REPORT_KEYS
    if unknown:
        raise ConfigError(
            f"{file}: report: unknown key {sorted(unknown)[0]!r} "
            f"(allowed: {', '.join(sorted(REPORT_KEYS))})"
        )
    days = raw.get("stale_after_days", DEFAULT_STALE_AFTER_DAYS)
    if isinstance(days, bool) or not isinstance(days, int) or days < 0:
        raise ConfigError(
            f"{file}: report: stale_after_days must be a whole number of days >= 0, got {days!r}"
        )
    return dict(raw)


def stale_after_days(settings: Mapping[str, Any] | None) -> int:
    return int((settings or {}).get("stale_after_days", DEFAULT_STALE_AFTER_DAYS))


def stale_sources(store, config, as_of: datetime) -> list[dict[str, Any]]:
    """Sources whose newest stored event is more than stale_after_days before `as_of`, oldest
    stream first: source, project, regime, last evidence date, days behind as-of."""
    from tracker.models import events

    limit = stale_after_days(getattr(config, "report", None))
    specs = {s.id: s for s in config.sources}
    query = (
        select(events.c.source_id, func.max(events.c.occurred_at).label("last"))
        .where(events.c.occurred_at <= as_of)
        .group_by(events.c.source_id)
    )
    with store.engine.connect() as conn:
        rows = conn.execute(query).all()
    out = []
    for source_id, last in rows:
        if source_id not in specs or last is None:
            continue
        last = last if last.tzinfo else last.replace(tzinfo=UTC)
        behind = (as_of.date() - last.date()).days
        if behind > limit:
            spec = specs[source_id]
            out.append(
                {
                    "source_id": source_id,
                    "project": spec.project,
                    "regime": spec.regime or "",
                    "last_evidence": last.date().isoformat(),
                    "days_behind": behind,
                    "stale_after_days": limit,
                }
            )
    return sorted(out, key=lambda r: (-r["days_behind"], r["source_id"]))


def stale_definitions(
    spans: Mapping[tuple[str, str, str], tuple[datetime, datetime] | None],
    as_of: datetime,
    settings: Mapping[str, Any] | None,
) -> set[tuple[str, str, str]]:
    """(project, regime, definition) whose evidence stream ends stale_after_days before as-of:
    their open rows age with the stream's silence, not with upstream's."""
    limit = stale_after_days(settings)
    return {
        key for key, span in spans.items() if span and (as_of.date() - span[1].date()).days > limit
    }
