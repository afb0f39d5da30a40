"""Model artifacts in lag_samples (columns artifact, day0_definition) and the view v_model_lag.

lag_samples gains ``artifact`` (framework | model) and ``day0_definition`` (upstream_release for
framework series; vllm_cuda or public_weights for model families, whose two day-0 definitions give
separate rows, so it joins the primary key). The table is rewritten by every report, so it is
recreated empty rather than altered (SQLite cannot change a primary key in place).

v_model_lag: the model rows, one per family, regime, definition and day-0 definition;
v_lag_series keeps the framework series only (its meaning before this revision).

Revision ID: 0008
Revises: 0007
"""

import sqlalchemy as sa
from alembic import op

revision = "0008"
down_revision = "0007"
branch_labels = None
depends_on = None

LAG_SERIES_BEFORE = (
    "CREATE VIEW v_lag_series AS SELECT project, series, regime, definition, "
    "is_primary, day0, available, lag_days, status, negative, evidence_url, as_of "
    "FROM lag_samples"
)
# Framework series only, as before: model rows would enter its aggregates twice (one row per
# day-0 definition) with nothing to tell them apart; they have v_model_lag.
LAG_SERIES = LAG_SERIES_BEFORE + " WHERE artifact = 'framework'"
MODEL_LAG = (
    "CREATE VIEW v_model_lag AS SELECT series AS family, regime, definition, day0_definition, "
    "is_primary, day0, day0_url, available, lag_days, status, negative, evidence_url, as_of "
    "FROM lag_samples WHERE artifact = 'model'"
)


def _lag_samples(with_models: bool) -> None:
    extra = (
        [
            sa.Column("artifact", sa.String(16), nullable=False, comment="framework | model"),
            sa.Column(
                "day0_definition",
                sa.String(32),
                nullable=False,
                comment="upstream_release (frameworks); vllm_cuda | public_weights (models)",
            ),
        ]
        if with_models
        else []
    )
    key = ["project", "series", "regime", "definition"]
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
        *extra,
        sa.PrimaryKeyConstraint(
            *(key + ["day0_definition"] if with_models else key), name=op.f("pk_lag_samples")
        ),
        comment="day-0 coverage lag per artifact, regime and definition; rewritten by each report",
    )


def upgrade() -> None:
    op.execute("DROP VIEW IF EXISTS v_lag_series")
    op.drop_table("lag_samples")
    _lag_samples(with_models=True)
    op.execute(LAG_SERIES)
    op.execute(MODEL_LAG)


def downgrade() -> None:
    op.execute("DROP VIEW IF EXISTS v_model_lag")
    op.execute("DROP VIEW IF EXISTS v_lag_series")
    op.drop_table("lag_samples")
    _lag_samples(with_models=False)
    op.execute(LAG_SERIES_BEFORE)
