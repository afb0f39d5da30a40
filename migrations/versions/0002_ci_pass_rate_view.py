"""CI pass-rate view: v_ci_pass_rate_weekly (docs/methodology.md, CI pass rate)

One row per (project, regime, ISO week of occurred_at) with something counted:
runs_passed / runs_failed over `ci_run` events, jobs_passed / jobs_failed over `ci_job` events
(outcome 'passed' / 'failed'; NULL outcomes -- cancelled, skipped, in progress, superseded
retries -- are not counted), and the two rates, never mixed: run_pass_rate and job_pass_rate in
0..1, NULL when their denominator is 0. `week` is ISO 8601 `YYYY-Www` in UTC.

SQLite: strftime('%G'/'%V') only exists since SQLite 3.46, so the ISO week is computed with the
Thursday rule (the ISO year and week of a day are those of the Thursday of its Monday-based
week). PostgreSQL: to_char(... 'IYYY-"W"IW') on the UTC timestamp (occurred_at is timestamptz,
so AT TIME ZONE 'UTC' makes the week independent of the session time zone).

Revision ID: 0002
Revises: 0001
"""

from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None

VIEW = "v_ci_pass_rate_weekly"

# Monday-based weekday 0..6 is (strftime('%w') + 6) % 7; the Thursday of that week is 3 days
# after its Monday. Its year is the ISO year, (day of year - 1) / 7 + 1 the ISO week.
_SQLITE_THURSDAY = (
    "date(occurred_at, '-' || ((CAST(strftime('%w', occurred_at) AS INTEGER) "
    "+ 6) % 7) || ' days', '+3 days')"
)
SQLITE_WEEK = (
    f"strftime('%Y', {_SQLITE_THURSDAY}) || '-W' || "
    f"printf('%02d', (CAST(strftime('%j', {_SQLITE_THURSDAY}) AS INTEGER) - 1) / 7 + 1)"
)
POSTGRES_WEEK = "to_char(occurred_at AT TIME ZONE 'UTC', 'IYYY-\"W\"IW')"


def _view_sql(week: str, real: str) -> str:
    def count(kind: str, outcome: str) -> str:
        return f"SUM(CASE WHEN kind = '{kind}' AND outcome = '{outcome}' THEN 1 ELSE 0 END)"

    return f"""
CREATE VIEW {VIEW} AS
SELECT project, regime, week,
       runs_passed, runs_failed, jobs_passed, jobs_failed,
       CAST(runs_passed AS {real}) / NULLIF(runs_passed + runs_failed, 0) AS run_pass_rate,
       CAST(jobs_passed AS {real}) / NULLIF(jobs_passed + jobs_failed, 0) AS job_pass_rate
FROM (
    SELECT project, regime, {week} AS week,
           {count("ci_run", "passed")} AS runs_passed,
           {count("ci_run", "failed")} AS runs_failed,
           {count("ci_job", "passed")} AS jobs_passed,
           {count("ci_job", "failed")} AS jobs_failed
    FROM events
    WHERE kind IN ('ci_run', 'ci_job') AND outcome IN ('passed', 'failed')
    GROUP BY project, regime, {week}
) AS counts
"""


def upgrade() -> None:
    dialect = op.get_bind().dialect.name
    if dialect == "postgresql":
        op.execute(_view_sql(POSTGRES_WEEK, "DOUBLE PRECISION"))
    else:
        op.execute(_view_sql(SQLITE_WEEK, "REAL"))


def downgrade() -> None:
    op.execute(f"DROP VIEW IF EXISTS {VIEW}")
