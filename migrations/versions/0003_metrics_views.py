"""Metrics: lag_samples table, v_event_tags, v_friction_weekly and v_lag_series views.

v_event_tags: one row per tagged event with the effective class and regime: an analyst override
wins; else the source's regime (a regime-specific source), else the tagger's.
v_friction_weekly: per regime and ISO week (`YYYY-Www`, UTC) of issues and release-note items:
friction, optimization and neutral counts and friction_ratio = friction / (friction +
optimization), NULL when both are 0. CI runs and jobs are left out: they have their own
pass-rate series, and counting hundreds of jobs per build would swamp the issues.
v_lag_series: lag_samples as written by the last report (docs/methodology.md, coverage lag).

Revision ID: 0003
Revises: 0002
"""

import importlib.util
from pathlib import Path

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None

# The ISO-week expressions are the ones the pass-rate view uses (one definition of a week).
_spec = importlib.util.spec_from_file_location(
    "_ci_view", Path(__file__).with_name("0002_ci_pass_rate_view.py")
)
_ci_view = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_ci_view)

EVENT_TAGS = """
CREATE VIEW v_event_tags AS
SELECT e.id AS event_id, e.source_id, e.project, e.kind, e.occurred_at, e.title, e.url,
       COALESCE(o.tag, t.tag) AS tag,
       COALESCE(o.regime, e.regime, t.regime) AS regime,
       o.event_id IS NOT NULL AS overridden,
       t.score, t.tagger_version
FROM events e
JOIN tags t ON t.event_id = e.id
LEFT JOIN tag_overrides o ON o.event_id = e.id
"""


def _friction_sql(week: str, real: str) -> str:
    def count(tag: str) -> str:
        return f"SUM(CASE WHEN tag = '{tag}' THEN 1 ELSE 0 END)"

    return f"""
CREATE VIEW v_friction_weekly AS
SELECT regime, week, friction, optimization, neutral,
       CAST(friction AS {real}) / NULLIF(friction + optimization, 0) AS friction_ratio
FROM (
    SELECT regime, {week} AS week, {count("friction")} AS friction,
           {count("optimization")} AS optimization, {count("neutral")} AS neutral
    FROM v_event_tags
    WHERE kind IN ('issue', 'note')
    GROUP BY regime, {week}
) AS counts
"""


def upgrade() -> None:
    op.create_table(
        "lag_samples",
        sa.Column("project", sa.String(100), nullable=False),
        sa.Column("series", sa.String(50), nullable=False),
        sa.Column("regime", sa.String(32), nullable=False),
        sa.Column("definition", sa.String(100), nullable=False),
        sa.Column("is_primary", sa.Boolean(), nullable=False),
        sa.Column("day0", sa.DateTime(timezone=True), nullable=False),
        sa.Column("day0_url", sa.Text(), nullable=False),
        sa.Column("available", sa.DateTime(timezone=True), nullable=True),
        sa.Column(
            "lag_days", sa.Integer(), nullable=False, comment="open rows: as_of - day0 (censored)"
        ),
        sa.Column("status", sa.String(16), nullable=False, comment="covered | open"),
        sa.Column(
            "negative", sa.Boolean(), nullable=False, comment="available before day 0: check it"
        ),
        sa.Column("evidence_url", sa.Text(), nullable=False),
        sa.Column("as_of", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint(
            "project", "series", "regime", "definition", name=op.f("pk_lag_samples")
        ),
        comment="day-0 coverage lag per artifact, regime and definition; rewritten by each report",
    )
    postgres = op.get_bind().dialect.name == "postgresql"
    op.execute(EVENT_TAGS)
    op.execute(
        _friction_sql(
            _ci_view.POSTGRES_WEEK if postgres else _ci_view.SQLITE_WEEK,
            "DOUBLE PRECISION" if postgres else "REAL",
        )
    )
    op.execute(
        "CREATE VIEW v_lag_series AS SELECT project, series, regime, definition, "
        "is_primary, day0, available, lag_days, status, negative, evidence_url, as_of "
        "FROM lag_samples"
    )


def downgrade() -> None:
    op.execute("DROP VIEW IF EXISTS v_lag_series")
    op.execute("DROP VIEW IF EXISTS v_friction_weekly")
    op.execute("DROP VIEW IF EXISTS v_event_tags")
    op.drop_table("lag_samples")
