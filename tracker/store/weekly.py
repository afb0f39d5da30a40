"""The rows of the two weekly views, v_ci_pass_rate_weekly and v_friction_weekly, read faster.

Both views group every CI or issue/note event by an ISO-week expression evaluated per event
(on SQLite a chain of date() and strftime() calls, the larger part of the views' time at a
million events). Here the database groups by UTC day, which it computes cheaply, with the same
filters, keys and counts as the views (migrations/versions/0002, 0003, 0004, 0009, 0023); the days,
a few per key and week, are summed into ISO weeks in Python. Same rows, same values (the rates
are the same IEEE double divisions), on SQLite and PostgreSQL; ordered by the views' group keys
(NULL first), the order SQLite's GROUP BY gives. tests/store/test_weekly.py compares them with
the views. One difference, on purpose: these reads feed the figures, so they leave out events
dated outside the dates tracker computes with (tables.computable); the views, for analysts,
still show them.

Each read runs from one index of `events` alone (migrations/versions/0010): ix_events_ci_weekly
holds every column the CI read groups by or filters on (ended_at since 0023, for
store.time_order.in_order), attrs included for the trigger; ix_events_tagged_weekly
lists issues and notes still upstream in id order, and on SQLite `tags` is clustered on event_id,
so each tag is one ordered look-up. Both indexes are partial: the reads below spell their kinds
with the indexes' own WHERE texts (tables.CI_EVENTS, tables.ISSUES_AND_NOTES), or SQLite could not
use them (the plan test fails then).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable
from datetime import date
from typing import Any

from sqlalchemy import Connection

from tracker.store.tables import CI_EVENTS, ISSUES_AND_NOTES, computable
from tracker.store.time_order import in_order

CI_VIEW, FRICTION_VIEW = "v_ci_pass_rate_weekly", "v_friction_weekly"
_DAY = {
    "sqlite": "date(occurred_at)",
    "postgresql": "CAST(occurred_at AT TIME ZONE 'UTC' AS DATE)",
}
# The dates tracker computes with (tables.computable). On SQLite the unary "+" keeps the range
# from drawing the planner to ix_events_kind_occurred, which would read every event's row: the
# range holds nearly all of them, and the covering partial index reads none.
_COMPUTABLE = {
    "sqlite": computable("sqlite", "+occurred_at"),
    "postgresql": computable("postgresql"),
}
_TRIGGER = {  # as migrations/versions/0009_ci_trigger.py spells it
    "sqlite": "COALESCE(json_extract(attrs, '$.trigger'), 'unknown')",
    "postgresql": "COALESCE(attrs->>'trigger', 'unknown')",
}
_CI_COUNTS = {
    ("ci_run", "passed"): "runs_passed",
    ("ci_run", "failed"): "runs_failed",
    ("ci_job", "passed"): "jobs_passed",
    ("ci_job", "failed"): "jobs_failed",
}
_FRICTION_COUNTS = ("friction", "optimization", "neutral")


def iso_week(day: date | str | None) -> str | None:
    """'YYYY-Www' of a day (a date, or SQLite's 'YYYY-MM-DD'); None stays None (the views'
    week of an unreadable time is NULL too)."""
    if day is None:
        return None
    year, week, _ = (date.fromisoformat(day) if isinstance(day, str) else day).isocalendar()
    return f"{year:04d}-W{week:02d}"


def _rate(passed: int, failed: int) -> float | None:
    return passed / (passed + failed) if passed + failed else None


def _sorted(rows: list[dict[str, Any]], keys: tuple[str, ...]) -> list[dict[str, Any]]:
    return sorted(rows, key=lambda r: tuple((r[k] is not None, r[k]) for k in keys))


def ci_sql(dialect: str) -> str:
    """CI runs and jobs counted by key, day, kind and outcome; a run or job that ended before
    it started is not (store.time_order.in_order, as in the view since revision 0023)."""
    day, trigger = _DAY[dialect], _TRIGGER[dialect]
    return f"""
SELECT project, regime, source_id, {trigger} AS trig, {day} AS day, kind, outcome, COUNT(*)
FROM events
WHERE {CI_EVENTS} AND outcome IN ('passed', 'failed') AND {_COMPUTABLE[dialect]}
  AND {in_order().text}
GROUP BY project, regime, source_id, {trigger}, {day}, kind, outcome
"""


def friction_sql(dialect: str) -> str:
    """Issues and notes still upstream counted by effective regime, day and tag."""
    day = _DAY[dialect]
    return f"""
SELECT regime, {day} AS day, tag, COUNT(*)
FROM v_event_tags
WHERE {ISSUES_AND_NOTES} AND vanished_at IS NULL AND {_COMPUTABLE[dialect]}
GROUP BY regime, {day}, tag
"""


def ci_pass_rate_weekly(conn: Connection, dialect: str) -> list[dict[str, Any]]:
    """The rows of v_ci_pass_rate_weekly."""
    counts: dict[tuple, dict[str, int]] = defaultdict(lambda: dict.fromkeys(_CI_COUNTS.values(), 0))
    by_day = conn.exec_driver_sql(ci_sql(dialect))
    for project, regime, source_id, trig, on, kind, outcome, n in by_day:
        counts[(project, regime, source_id, trig, iso_week(on))][_CI_COUNTS[(kind, outcome)]] += n
    rows = [
        {
            "project": project,
            "regime": regime,
            "source_id": source_id,
            "trigger": trig,
            "week": week,
            **c,
            "run_pass_rate": _rate(c["runs_passed"], c["runs_failed"]),
            "job_pass_rate": _rate(c["jobs_passed"], c["jobs_failed"]),
        }
        for (project, regime, source_id, trig, week), c in counts.items()
    ]
    return _sorted(rows, ("project", "regime", "source_id", "trigger", "week"))


def friction_weekly(conn: Connection, dialect: str) -> list[dict[str, Any]]:
    """The rows of v_friction_weekly (issues and release-note items still upstream, by the
    tag v_event_tags gives them: an analyst's override wins)."""
    counts: dict[tuple, dict[str, int]] = defaultdict(lambda: dict.fromkeys(_FRICTION_COUNTS, 0))
    for regime, on, tag, n in conn.exec_driver_sql(friction_sql(dialect)):
        row = counts[(regime, iso_week(on))]  # every (regime, week) seen has a row, as in the view
        if tag in row:
            row[tag] += n
    rows = [
        {
            "regime": regime,
            "week": week,
            **c,
            "friction_ratio": _rate(c["friction"], c["optimization"]),
        }
        for (regime, week), c in counts.items()
    ]
    return _sorted(rows, ("regime", "week"))


READERS: dict[str, Callable[[Connection, str], list[dict[str, Any]]]] = {
    CI_VIEW: ci_pass_rate_weekly,
    FRICTION_VIEW: friction_weekly,
}
