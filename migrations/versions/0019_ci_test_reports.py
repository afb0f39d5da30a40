"""CI test reports: events of kind `ci_tests` (one job's test counts in one build, from a CI's
published test reports) and the view v_ci_test_pass_rate_weekly, the test-level pass rate beside
v_ci_pass_rate_weekly's job-level one (docs/methodology.md, CI pass rate: two units).

v_ci_test_pass_rate_weekly: one row per (project, regime, source_id, pipeline, ISO week of the
report's nightly date): builds reported, job reports, job reports with no test counts
(job_level_only), tests passed / failed / errors / skipped summed over the week's reports, and
test_pass_rate = passed / (passed + failed + errors) = passed / (tests - skipped), NULL when no
test had a verdict.

Revision ID: 0019
Revises: 0018
"""

import importlib.util
from pathlib import Path

import sqlalchemy as sa
from alembic import op

revision = "0019"
down_revision = "0018"
branch_labels = None
depends_on = None

_spec = importlib.util.spec_from_file_location(
    "_ci_view", Path(__file__).with_name("0002_ci_pass_rate_view.py")
)
_ci_view = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_ci_view)

KINDS_BEFORE = "release | note | issue | ci_run | ci_job | result | comment | training_result"
KINDS = KINDS_BEFORE + " | ci_tests"
VIEW = "v_ci_test_pass_rate_weekly"


def _number(dialect: str, key: str) -> str:
    if dialect == "postgresql":
        return f"COALESCE(CAST(attrs->>'{key}' AS BIGINT), 0)"
    return f"COALESCE(CAST(json_extract(attrs, '$.{key}') AS INTEGER), 0)"


def _text(dialect: str, key: str) -> str:
    if dialect == "postgresql":
        return f"attrs->>'{key}'"
    return f"json_extract(attrs, '$.{key}')"


def view_sql(dialect: str) -> str:
    """The view's CREATE statement on `dialect` (see the module)."""
    week = _ci_view.POSTGRES_WEEK if dialect == "postgresql" else _ci_view.SQLITE_WEEK
    real = "DOUBLE PRECISION" if dialect == "postgresql" else "REAL"
    passed, failed, errors, skipped = (
        _number(dialect, k) for k in ("passed", "failed", "errors", "skipped")
    )
    return f"""
CREATE VIEW {VIEW} AS
SELECT project, regime, source_id, pipeline, week, builds, job_reports, job_level_only,
       tests_passed, tests_failed, tests_errors, tests_skipped,
       CAST(tests_passed AS {real})
           / NULLIF(tests_passed + tests_failed + tests_errors, 0) AS test_pass_rate
FROM (
    SELECT project, regime, source_id, {_text(dialect, "pipeline")} AS pipeline, {week} AS week,
           COUNT(DISTINCT {_text(dialect, "build_number")}) AS builds,
           COUNT(*) AS job_reports,
           SUM(CASE WHEN {_text(dialect, "job_level")} IS NOT NULL THEN 1 ELSE 0 END)
               AS job_level_only,
           SUM({passed}) AS tests_passed,
           SUM({failed}) AS tests_failed,
           SUM({errors}) AS tests_errors,
           SUM({skipped}) AS tests_skipped
    FROM events
    WHERE kind = 'ci_tests'
    GROUP BY project, regime, source_id, {_text(dialect, "pipeline")}, {week}
) AS counts
"""


def _kind_comment(comment: str, before: str) -> None:
    # Only PostgreSQL keeps column comments (SQLite has none to change).
    if op.get_bind().dialect.name == "postgresql":
        op.alter_column(
            "events",
            "kind",
            existing_type=sa.String(16),
            existing_nullable=False,
            comment=comment,
            existing_comment=before,
        )


def upgrade() -> None:
    _kind_comment(KINDS, KINDS_BEFORE)
    op.execute(view_sql(op.get_bind().dialect.name))


def downgrade() -> None:
    op.execute(f"DROP VIEW IF EXISTS {VIEW}")
    _kind_comment(KINDS_BEFORE, KINDS)
