"""lag_trend.not_observed and recent_not_observed, and v_lag_trend with them: every headline
counts the series it leaves out as unknown ("42 artifacts, 5 open, 0 not observed").

A framework series that no channel of its definition observed (day 0 after every window, or
before every stream's start) is unknown and left out of every median, trend and answer
(docs/methodology.md, "Observation windows"). The report, summary.json, the digest and
`tracker lag --trend` count those series beside the artifacts and open ones; the view says the
same: on framework rows and the pooled "all projects" rows (the headline answer), empty on model
families' rows, whose unknown rows stand for every day-0 definition at once.

Revision ID: 0022
Revises: 0021
"""

import importlib.util
from pathlib import Path

import sqlalchemy as sa
from alembic import op

revision = "0022"
down_revision = "0021"
branch_labels = None
depends_on = None

# v_layer_answer (0020) reads lag_trend: it is dropped while the table changes (SQLite's batch
# mode may rebuild the table, and a rename under a view that names it fails) and made again.
_spec = importlib.util.spec_from_file_location(
    "_layers", Path(__file__).with_name("0020_collective_layer.py")
)
_layers = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_layers)

VIEW_COLUMNS = (
    'artifact_group, regime, definition, artifacts, "open", slope_low, slope_high, ci_low, '
    "ci_high, verdict, min_artifacts, recent_median, recent_artifacts, recent_open, "
    "prior_median, prior_artifacts, prior_open, as_of, recent_at_least"
)


def upgrade() -> None:
    op.execute("DROP VIEW IF EXISTS v_layer_answer")
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
    op.execute(_layers.LAYER_ANSWER)


def downgrade() -> None:
    op.execute("DROP VIEW IF EXISTS v_layer_answer")
    op.execute("DROP VIEW IF EXISTS v_lag_trend")
    with op.batch_alter_table("lag_trend") as batch:
        batch.drop_column("recent_not_observed")
        batch.drop_column("not_observed")
    op.execute(f"CREATE VIEW v_lag_trend AS SELECT {VIEW_COLUMNS} FROM lag_trend")
    op.execute(_layers.LAYER_ANSWER)
