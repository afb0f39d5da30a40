"""lag_trend table and v_lag_trend view: is the day-0 lag gap closing?

One row per (artifact group, regime, definition), rewritten by each report: the Theil-Sen slope
of lag against day 0 (days per year) as a bracket that holds whatever the open artifacts' final
lags, its 90% bootstrap interval, a verdict ("closing", "widening", "no clear change", "too few
artifacts"), and the Kaplan-Meier median lag of the last 12 months against the 12 months before,
with counts of artifacts and of open ones. Method: docs/methodology.md ("Is the gap closing?").

Revision ID: 0006
Revises: 0005
"""

import sqlalchemy as sa
from alembic import op

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "lag_trend",
        sa.Column(
            "artifact_group",
            sa.String(100),
            nullable=False,
            comment="a project, or 'all projects'",
        ),
        sa.Column("regime", sa.String(32), nullable=False),
        sa.Column("definition", sa.String(100), nullable=False, comment="'primary' on pooled rows"),
        sa.Column("artifacts", sa.Integer(), nullable=False),
        sa.Column(
            "open", sa.Integer(), nullable=False, comment="open (censored) artifacts, counted"
        ),
        sa.Column(
            "slope_low",
            sa.Float(),
            nullable=True,
            comment="days of lag per year of day 0: bracket low end",
        ),
        sa.Column(
            "slope_high",
            sa.Float(),
            nullable=True,
            comment="bracket high end; +Infinity: unbounded (open artifacts)",
        ),
        sa.Column(
            "ci_low", sa.Float(), nullable=True, comment="90% interval of the slope, low end"
        ),
        sa.Column(
            "ci_high", sa.Float(), nullable=True, comment="90% interval of the slope, high end"
        ),
        sa.Column("verdict", sa.String(32), nullable=False),
        sa.Column(
            "min_artifacts", sa.Integer(), nullable=False, comment="fewer: 'too few artifacts'"
        ),
        sa.Column(
            "recent_median",
            sa.Float(),
            nullable=True,
            comment="KM median lag, day 0 in the last 12 months",
        ),
        sa.Column("recent_artifacts", sa.Integer(), nullable=False),
        sa.Column("recent_open", sa.Integer(), nullable=False),
        sa.Column(
            "prior_median",
            sa.Float(),
            nullable=True,
            comment="KM median lag, day 0 in the 12 months before",
        ),
        sa.Column("prior_artifacts", sa.Integer(), nullable=False),
        sa.Column("prior_open", sa.Integer(), nullable=False),
        sa.Column("as_of", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint(
            "artifact_group", "regime", "definition", name=op.f("pk_lag_trend")
        ),
        comment=(
            "is the lag gap closing? per artifact group, regime, definition; "
            "rewritten by each report"
        ),
    )
    op.execute(
        "CREATE VIEW v_lag_trend AS SELECT artifact_group, regime, definition, artifacts, "
        '"open", slope_low, slope_high, ci_low, ci_high, verdict, min_artifacts, '
        "recent_median, recent_artifacts, recent_open, prior_median, prior_artifacts, "
        "prior_open, as_of FROM lag_trend"
    )


def downgrade() -> None:
    op.execute("DROP VIEW IF EXISTS v_lag_trend")
    op.drop_table("lag_trend")
