"""lag_trend.recent_at_least and v_lag_trend with it: the headline answer's median, whole.

The headline answer per regime (docs/methodology.md, "The headline answer") is the pooled
"all projects" row of lag_trend: its verdict and the Kaplan-Meier median lag of the artifacts
whose day 0 is in the 12 months before as-of. When more than half of those are still open the
median is not reached and only a lower bound is known: ``recent_at_least``, the lower median of
their current lags (an open lag only grows). Without it the view showed an empty median where
the report and the digest say "at least N d".

Revision ID: 0011
Revises: 0010
"""

import sqlalchemy as sa
from alembic import op

revision = "0011"
down_revision = "0010"
branch_labels = None
depends_on = None

VIEW_COLUMNS = (
    'artifact_group, regime, definition, artifacts, "open", slope_low, slope_high, ci_low, '
    "ci_high, verdict, min_artifacts, recent_median, recent_artifacts, recent_open, "
    "prior_median, prior_artifacts, prior_open, as_of"
)


def upgrade() -> None:
    op.execute("DROP VIEW IF EXISTS v_lag_trend")
    with op.batch_alter_table("lag_trend") as batch:
        batch.add_column(
            sa.Column(
                "recent_at_least",
                sa.Float(),
                comment="median not reached: the recent median is at least this (days)",
            )
        )
    op.execute(f"CREATE VIEW v_lag_trend AS SELECT {VIEW_COLUMNS}, recent_at_least FROM lag_trend")


def downgrade() -> None:
    op.execute("DROP VIEW IF EXISTS v_lag_trend")
    with op.batch_alter_table("lag_trend") as batch:
        batch.drop_column("recent_at_least")
    op.execute(f"CREATE VIEW v_lag_trend AS SELECT {VIEW_COLUMNS} FROM lag_trend")
