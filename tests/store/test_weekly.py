"""tracker/store/weekly.py reads the two weekly views by day and sums the days into ISO weeks:
its rows must be the views' rows, value for value, on SQLite and PostgreSQL. Random events
around ISO-year ends (2025-12-29 is in 2026-W01, 2027-01-01 in 2026-W53), minutes from UTC
midnight, triggers present, missing and odd, CI times in and out of order, every tag, analyst
overrides and vanished items."""

from __future__ import annotations

import random
from datetime import UTC, datetime, timedelta

from sqlalchemy import text

from tracker.events import Event
from tracker.store import weekly

DAYS = [datetime(2025, 12, 26, tzinfo=UTC) + timedelta(days=d) for d in range(12)] + [
    datetime(2026, 12, 27, tzinfo=UTC) + timedelta(days=d) for d in range(9)
]


def events(rng: random.Random) -> list[Event]:
    out = []
    for n in range(400):
        when = rng.choice(DAYS) + timedelta(minutes=rng.choice([0, 1, 719, 1439]))
        kind = rng.choice(["ci_run", "ci_job", "issue", "note", "release"])
        trigger = rng.choice([None, "schedule", "push", "webhook"])
        # No end, an end after the start, or one before it (left out: store.time_order).
        hours = rng.choice([None, 1, -1]) if kind.startswith("ci") else None
        out.append(
            Event(
                source_id=rng.choice(["bk", "gha"]),
                project=rng.choice(["vllm", "pytorch"]),
                kind=kind,
                external_id=f"{kind}:{n}",
                occurred_at=when,
                title=f"{kind} {n}",
                regime=rng.choice([None, "rocm", "xla", "neuron"]),
                outcome=rng.choice([None, "passed", "failed"]) if kind.startswith("ci") else None,
                attrs={"trigger": trigger} if trigger else {},
                ended_at=None if hours is None else when + timedelta(hours=hours),
            )
        )
    return out


def view(conn, name: str) -> list[dict]:
    return [dict(r) for r in conn.execute(text(f"SELECT * FROM {name}")).mappings()]


def by_keys(rows: list[dict], keys: tuple[str, ...]) -> list[dict]:
    return sorted(rows, key=lambda r: tuple((r[k] is not None, r[k]) for k in keys))


def test_weekly_rows_equal_the_views(store):
    rng = random.Random(21)
    items = events(rng)
    with store.transaction() as conn:
        store.upsert_events(conn, items)
    tagged = [e for e in items if e.kind in ("issue", "note")]
    store.save_tags(
        [
            {
                "event_id": e.id,
                "tag": rng.choice(["friction", "optimization", "neutral", "other"]),
                "score": 0.5,
                "regime": rng.choice(["rocm", "xla", "neuron"]),
                "mentions": [],
                "tagger_version": "t",
            }
            for e in tagged[:-5]  # a few untagged: not in v_event_tags
        ]
    )
    for e in tagged[:20:3]:
        store.set_override(
            e.id, rng.choice(["friction", "optimization"]), rng.choice([None, "xla"])
        )
    with store.transaction() as conn:
        gone = [e.external_id for e in tagged[20:40:4] if e.source_id == "bk"]
        assert store.mark_vanished(conn, "bk", gone, datetime(2027, 1, 5, tzinfo=UTC)) > 0

    ci_keys = ("project", "regime", "source_id", "trigger", "week")
    with store.engine.connect() as conn:
        ci = weekly.ci_pass_rate_weekly(conn, store.dialect)
        friction = weekly.friction_weekly(conn, store.dialect)
        assert ci == by_keys(view(conn, "v_ci_pass_rate_weekly"), ci_keys)
        assert friction == by_keys(view(conn, "v_friction_weekly"), ("regime", "week"))
    counted = sum(
        r["runs_passed"] + r["runs_failed"] + r["jobs_passed"] + r["jobs_failed"] for r in ci
    )
    assert 0 < counted < sum(1 for e in items if e.kind.startswith("ci") and e.outcome)
    weeks = {r["week"] for r in ci}
    assert {"2026-W01", "2026-W53", "2025-W52"} <= weeks  # the year ends were exercised
    assert any(r["friction_ratio"] is None for r in friction)  # a week of neutral/other only
    assert store.view_rows("v_friction_weekly") == friction


def test_iso_week_of_a_day():
    assert weekly.iso_week("2027-01-01") == "2026-W53"
    assert weekly.iso_week(datetime(2025, 12, 29).date()) == "2026-W01"
    assert weekly.iso_week(None) is None


def plan(conn, sql: str, params=()) -> list[str]:
    return [row[3] for row in conn.exec_driver_sql(f"EXPLAIN QUERY PLAN {sql}", params)]


def test_weekly_reads_run_from_indexes_alone(sqlite_store):
    """SQLite reads no event row for either weekly read (migrations/versions/0010): each scans
    one partial covering index, and tags are found by their clustered key. Fails if an index is
    dropped or a read's WHERE stops naming the kinds its partial index holds."""
    with sqlite_store.engine.connect() as conn:
        ci = plan(conn, weekly.ci_sql("sqlite"))
        friction = plan(conn, weekly.friction_sql("sqlite"))
    assert any("USING COVERING INDEX ix_events_ci_weekly" in step for step in ci), ci
    assert not any(step.startswith(("SCAN events", "SEARCH events USING INDEX")) for step in ci)
    assert "SEARCH e USING COVERING INDEX ix_events_tagged_weekly (kind=? AND vanished_at=?)" in (
        friction
    ), friction
    assert "SEARCH t USING PRIMARY KEY (event_id=?)" in friction, friction


def test_the_untagged_scan_reads_issue_and_note_ids_from_an_index(sqlite_store):
    """A nightly asks for untagged events and usually finds none: issues and notes are checked
    by the ids ix_events_tagged_weekly holds, not by reading every event's row. Fails if the
    index goes or the query stops repeating its WHERE."""
    from sqlalchemy import event

    statements: list[tuple] = []

    def capture(conn, cursor, statement, parameters, context, executemany):
        if "FROM events" in statement:
            statements.append((statement, parameters))

    event.listen(sqlite_store.engine, "before_cursor_execute", capture)
    try:
        assert list(sqlite_store.events_to_tag()) == []
    finally:
        event.remove(sqlite_store.engine, "before_cursor_execute", capture)
    with sqlite_store.engine.connect() as conn:
        plans = [plan(conn, sql, params) for sql, params in statements]
    assert len(plans) == 2, statements
    assert "SEARCH events USING INDEX ix_events_tagged_weekly (kind=?)" in plans[0], plans
