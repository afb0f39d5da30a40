"""lag_trend.not_observed and recent_not_observed, and v_lag_trend with them: every headline
counts the series it leaves out as unknown ("42 artifacts, 5 open, 0 not observed").

A framework series that no channel of its definition observed (day 0 after every window, or
before every stream's start) is unknown and left out of every median, trend and answer
(docs/methodology.md, "Observation windows"). The report, summary.json, the digest and
`tracker lag --trend` count those series beside the artifacts and open ones; the view says the
same: on framework rows and the pooled "all projects" rows (the headline answer), empty on model
families' rows, whose unknown rows stand for every day-0 definition at once.

Revision ID: 0021
Revises: 0017
"""

import sqlalchemy as sa
from alembic import op

revision = "0021"
down_revision = "0017"
branch_labels = None
depends_on = None

VIEW_COLUMNS = (
    'artifact_group, regime, definition, artifacts, "open", slope_low, slope_high, ci_low, '
    "ci_high, verdict, min_artifacts, recent_median, recent_artifacts, recent_open, "
    "prior_median, prior_artifacts, prior_open, as_of, recent_at_least"
)


def upgrade() -> None:
    op.execute("DROP VIEW IF EXISTS v_lag_trend")
    with op.batch_alter_table("lag_trend") as batch:
        batch.add_column(
            sa.Column(
                "not_observed",
                sa.Integer(),
                comment="left out as unknown (framework and pooled rows)",
            )
        )
        batch.add_column(
            sa.Column(
                "recent_not_observed",
                sa.Integer(),
                comment="... of them, day 0 in the last 12 months",
            )
        )
    op.execute(
        f"CREATE VIEW v_lag_trend AS SELECT {VIEW_COLUMNS}, not_observed, recent_not_observed "
        "FROM lag_trend"
    )


def downgrade() -> None:
    op.execute("DROP VIEW IF EXISTS v_lag_trend")
    with op.batch_alter_table("lag_trend") as batch:
        batch.drop_column("recent_not_observed")
        batch.drop_column("not_observed")
    op.execute(f"CREATE VIEW v_lag_trend AS SELECT {VIEW_COLUMNS} FROM lag_trend")
