"""lag_samples gains ``channel``, and v_lag_series shows it: an earliest-build row (the
earliest official build a user can install, over a regime's install channels:
tracker.measure.lag.channels; docs/methodology.md, lag definitions) names the channel whose
evidence came first. Empty on every other row, and on open earliest-build rows.

The table is rewritten by every report; the column is added with an empty default, so rows a
report wrote before stay readable.

Revision ID: 0016
Revises: 0015
"""

import sqlalchemy as sa
from alembic import op

revision = "0016"
down_revision = "0015"
branch_labels = None
depends_on = None

LAG_SERIES_BEFORE = (
    "CREATE VIEW v_lag_series AS SELECT project, series, regime, definition, "
    "is_primary, day0, available, lag_days, status, negative, evidence_url, as_of, "
    "observed_through, covered_by FROM lag_samples WHERE artifact = 'framework'"
)
LAG_SERIES = (
    "CREATE VIEW v_lag_series AS SELECT project, series, regime, definition, "
    "is_primary, day0, available, lag_days, status, negative, evidence_url, as_of, "
    "observed_through, covered_by, channel FROM lag_samples WHERE artifact = 'framework'"
)


def upgrade() -> None:
    op.execute("DROP VIEW IF EXISTS v_lag_series")
    op.add_column(
        "lag_samples",
        sa.Column(
            "channel",
            sa.String(100),
            nullable=False,
            server_default="",
            comment="earliest-build rows: the channel whose evidence came first",
        ),
    )
    op.execute(LAG_SERIES)


def downgrade() -> None:
    op.execute("DROP VIEW IF EXISTS v_lag_series")
    op.execute("ALTER TABLE lag_samples DROP COLUMN channel")
    op.execute(LAG_SERIES_BEFORE)
