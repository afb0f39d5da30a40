"""Observation windows and supersession in lag_samples (columns observed_through, covered_by)
and the lag views that show them (docs/methodology.md, "Observation windows", "Supersession").

- ``observed_through``: how far the row's definition's evidence was looked at (the earliest
  observed-through of its sources, never after as-of); an open row's lag_days is
  observed_through - day0. NULL on reference rows (day 0 itself).
- ``covered_by``: the newer series whose evidence covers the row's series; empty when its own.

The table is rewritten by every report; the columns are added (NULL / empty on old rows until
the next report). v_lag_series, v_model_lag and v_kernel_lag are recreated with both columns.

Revision ID: 0015
Revises: 0014
"""

import sqlalchemy as sa
from alembic import op

revision = "0015"
down_revision = "0014"
branch_labels = None
depends_on = None

LAG_COMMENT_BEFORE = "open rows: as_of - day0 (censored)"
LAG_COMMENT = "open rows: observed_through - day0 (censored)"

VIEWS_BEFORE = {
    "v_lag_series": (
        "CREATE VIEW v_lag_series AS SELECT project, series, regime, definition, "
        "is_primary, day0, available, lag_days, status, negative, evidence_url, as_of "
        "FROM lag_samples WHERE artifact = 'framework'"
    ),
    "v_model_lag": (
        "CREATE VIEW v_model_lag AS SELECT series AS family, regime, definition, day0_definition, "
        "is_primary, day0, day0_url, available, lag_days, status, negative, evidence_url, as_of "
        "FROM lag_samples WHERE artifact = 'model'"
    ),
    "v_kernel_lag": (
        "CREATE VIEW v_kernel_lag AS SELECT series AS feature, project AS library, regime, "
        "definition, day0, day0_url, available, lag_days, status, negative, evidence_url, as_of "
        "FROM lag_samples WHERE artifact = 'kernel'"
    ),
}
VIEWS = {
    "v_lag_series": (
        "CREATE VIEW v_lag_series AS SELECT project, series, regime, definition, "
        "is_primary, day0, available, lag_days, status, negative, evidence_url, as_of, "
        "observed_through, covered_by FROM lag_samples WHERE artifact = 'framework'"
    ),
    "v_model_lag": (
        "CREATE VIEW v_model_lag AS SELECT series AS family, regime, definition, day0_definition, "
        "is_primary, day0, day0_url, available, lag_days, status, negative, evidence_url, as_of, "
        "observed_through FROM lag_samples WHERE artifact = 'model'"
    ),
    "v_kernel_lag": (
        "CREATE VIEW v_kernel_lag AS SELECT series AS feature, project AS library, regime, "
        "definition, day0, day0_url, available, lag_days, status, negative, evidence_url, as_of, "
        "observed_through FROM lag_samples WHERE artifact = 'kernel'"
    ),
}


def _views(sql: dict[str, str]) -> None:
    for name in sql:
        op.execute(f"DROP VIEW IF EXISTS {name}")
    for statement in sql.values():
        op.execute(statement)


def _comment(text: str, before: str) -> None:
    if op.get_bind().dialect.name != "sqlite":  # SQLite keeps no column comments
        op.alter_column(
            "lag_samples",
            "lag_days",
            existing_type=sa.Integer(),
            existing_nullable=False,
            comment=text,
            existing_comment=before,
        )


def upgrade() -> None:
    for name in VIEWS:
        op.execute(f"DROP VIEW IF EXISTS {name}")
    op.add_column(
        "lag_samples",
        sa.Column(
            "observed_through",
            sa.DateTime(timezone=True),
            nullable=True,
            comment="how far the definition's evidence was looked at; NULL: reference rows",
        ),
    )
    op.add_column(
        "lag_samples",
        sa.Column(
            "covered_by",
            sa.String(50),
            nullable=False,
            server_default="",
            comment="the newer series whose evidence covers this one; empty: its own",
        ),
    )
    _comment(LAG_COMMENT, LAG_COMMENT_BEFORE)
    _views(VIEWS)


def downgrade() -> None:
    for name in VIEWS:
        op.execute(f"DROP VIEW IF EXISTS {name}")
    _comment(LAG_COMMENT_BEFORE, LAG_COMMENT)
    with op.batch_alter_table("lag_samples") as batch:
        batch.drop_column("covered_by")
        batch.drop_column("observed_through")
    _views(VIEWS_BEFORE)
