"""lag_samples gains ``evidence_kind``, and v_lag_series shows it: the kind of record that dated
a covered row (release, note, configuration commit, issue, comment, page revision;
tracker.measure.lag.builds, docs/methodology.md "Builds named in any record"). Empty on open
rows.

The table is rewritten by every report; the column is added with an empty default, so rows a
report wrote before stay readable.

Revision ID: 0021
Revises: 0020
"""

import sqlalchemy as sa
from alembic import op

revision = "0021"
down_revision = "0020"
branch_labels = None
depends_on = None

LAG_SERIES_BEFORE = (
    "CREATE VIEW v_lag_series AS SELECT project, series, regime, definition, "
    "is_primary, day0, available, lag_days, status, negative, evidence_url, as_of, "
    "observed_through, covered_by, channel, artifact FROM lag_samples "
    "WHERE artifact IN ('framework', 'collective')"
)
LAG_SERIES = (
    "CREATE VIEW v_lag_series AS SELECT project, series, regime, definition, "
    "is_primary, day0, available, lag_days, status, negative, evidence_url, as_of, "
    "observed_through, covered_by, channel, artifact, evidence_kind FROM lag_samples "
    "WHERE artifact IN ('framework', 'collective')"
)


def upgrade() -> None:
    op.execute("DROP VIEW IF EXISTS v_lag_series")
    op.add_column(
        "lag_samples",
        sa.Column(
            "evidence_kind",
            sa.String(32),
            nullable=False,
            server_default="",
            comment="covered rows: the kind of record that dated it",
        ),
    )
    op.execute(LAG_SERIES)


def downgrade() -> None:
    op.execute("DROP VIEW IF EXISTS v_lag_series")
    op.execute("ALTER TABLE lag_samples DROP COLUMN evidence_kind")
    op.execute(LAG_SERIES_BEFORE)
