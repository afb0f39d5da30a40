"""CI pass rates count only runs and jobs whose times agree (issue 49: timestamps that contradict
each other are left out of every figure and listed in data quality).

v_ci_pass_rate_weekly: as in 0009 (same columns, keys and counts), but a ``ci_run`` or ``ci_job``
whose ``ended_at`` is before its ``occurred_at`` (it finished before it started) is not counted.
The condition is the text of tracker.store.time_order.in_order as it is at this revision, the one
rule every read that feeds a figure applies (tracker/store/weekly.py's daily sums too). It is
written here, not imported: a migration builds the schema of its revision, whatever the code says
later (tests/store/test_weekly.py checks that the view and weekly.py count the same).

ix_events_ci_weekly (SQLite only, 0010) gains ``ended_at`` after ``occurred_at``, so the weekly
CI read, which now compares the two, still reads no event row.

Revision ID: 0023
Revises: 0022
"""

import importlib.util
from pathlib import Path

import sqlalchemy as sa
from alembic import op

revision = "0023"
down_revision = "0022"
branch_labels = None
depends_on = None

# tracker.store.time_order.in_order("events") at this revision
IN_ORDER = "(events.ended_at IS NULL OR events.ended_at >= events.occurred_at)"


def _load(name: str):
    spec = importlib.util.spec_from_file_location(f"_{name[:4]}", Path(__file__).with_name(name))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


_week = _load("0002_ci_pass_rate_view.py")
_trigger = _load("0009_ci_trigger.py")
_indexes = _load("0010_weekly_read_indexes.py")

VIEW = _week.VIEW
INDEX = "ix_events_ci_weekly"
INDEX_BEFORE = ["kind", "outcome", "project", "regime", "source_id", "occurred_at", "attrs"]
INDEX_COLUMNS = [*INDEX_BEFORE[:-1], "ended_at", "attrs"]


def _view_sql(week: str, real: str, trigger: str) -> str:
    def count(kind: str, outcome: str) -> str:
        return f"SUM(CASE WHEN kind = '{kind}' AND outcome = '{outcome}' THEN 1 ELSE 0 END)"

    return f"""
CREATE VIEW {VIEW} AS
SELECT project, regime, source_id, "trigger", week,
       runs_passed, runs_failed, jobs_passed, jobs_failed,
       CAST(runs_passed AS {real}) / NULLIF(runs_passed + runs_failed, 0) AS run_pass_rate,
       CAST(jobs_passed AS {real}) / NULLIF(jobs_passed + jobs_failed, 0) AS job_pass_rate
FROM (
    SELECT project, regime, source_id, {trigger} AS "trigger", {week} AS week,
           {count("ci_run", "passed")} AS runs_passed,
           {count("ci_run", "failed")} AS runs_failed,
           {count("ci_job", "passed")} AS jobs_passed,
           {count("ci_job", "failed")} AS jobs_failed
    FROM events
    WHERE kind IN ('ci_run', 'ci_job') AND outcome IN ('passed', 'failed')
      AND {IN_ORDER}
    GROUP BY project, regime, source_id, {trigger}, {week}
) AS counts
"""


def _index(columns: list[str]) -> None:
    op.drop_index(INDEX, table_name="events")
    op.create_index(INDEX, "events", columns, sqlite_where=sa.text(_indexes.CI_KINDS))


def upgrade() -> None:
    postgres = op.get_bind().dialect.name == "postgresql"
    op.execute(f"DROP VIEW IF EXISTS {VIEW}")
    if postgres:
        op.execute(_view_sql(_week.POSTGRES_WEEK, "DOUBLE PRECISION", _trigger.POSTGRES_TRIGGER))
    else:
        op.execute(_view_sql(_week.SQLITE_WEEK, "REAL", _trigger.SQLITE_TRIGGER))
        _index(INDEX_COLUMNS)


def downgrade() -> None:
    postgres = op.get_bind().dialect.name == "postgresql"
    op.execute(f"DROP VIEW IF EXISTS {VIEW}")
    if postgres:
        op.execute(
            _trigger._view_sql(_week.POSTGRES_WEEK, "DOUBLE PRECISION", _trigger.POSTGRES_TRIGGER)
        )
    else:
        op.execute(_trigger._view_sql(_week.SQLITE_WEEK, "REAL", _trigger.SQLITE_TRIGGER))
        _index(INDEX_BEFORE)
