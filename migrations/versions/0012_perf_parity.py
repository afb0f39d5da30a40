"""Delivered performance: events of kind `result` (MLPerf Inference rows), the table
perf_parity (each regime's best result per accelerator, rewritten by each report) and the view
v_perf_parity over it (docs/methodology.md, "Delivered performance").

Revision ID: 0012
Revises: 0011
"""

import sqlalchemy as sa
from alembic import op

revision = "0012"
down_revision = "0011"
branch_labels = None
depends_on = None

KINDS_BEFORE = "release | note | issue | ci_run | ci_job"
KINDS = KINDS_BEFORE + " | result"
VIEW = (
    "CREATE VIEW v_perf_parity AS SELECT round, round_date, benchmark, scenario, regime, "
    "per_accelerator, units, accelerator, submitter, software, ratio_to_best_cuda, "
    "evidence_url, result, accelerators, weight_data_types, best_cuda_accelerator, "
    "peer_accelerator, ratio_to_peer, as_of FROM perf_parity"
)


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
    op.create_table(
        "perf_parity",
        sa.Column(
            "round", sa.String(32), nullable=False, comment="MLPerf Inference round, e.g. v5.1"
        ),
        sa.Column(
            "round_date",
            sa.DateTime(timezone=True),
            nullable=False,
            comment="the round's publication date",
        ),
        sa.Column(
            "benchmark", sa.String(100), nullable=False, comment="MLPerf Model, e.g. llama2-70b-99"
        ),
        sa.Column("scenario", sa.String(32), nullable=False),
        sa.Column(
            "units", sa.String(32), nullable=False, comment="Tokens/s | Samples/s | Queries/s"
        ),
        sa.Column("regime", sa.String(32), nullable=False),
        sa.Column(
            "per_accelerator",
            sa.Float(),
            nullable=False,
            comment="derived: result / accelerators (not an MLCommons metric)",
        ),
        sa.Column("result", sa.Float(), nullable=False, comment="the system's published result"),
        sa.Column(
            "accelerators",
            sa.Float(),
            nullable=False,
            comment="Total Accelerators, else a# x Nodes",
        ),
        sa.Column("accelerator", sa.Text(), nullable=False),
        sa.Column("submitter", sa.Text(), nullable=False),
        sa.Column("software", sa.Text(), nullable=False),
        sa.Column("weight_data_types", sa.Text(), nullable=False),
        sa.Column(
            "evidence_url",
            sa.Text(),
            nullable=False,
            comment="the result's folder in the round's repo",
        ),
        sa.Column(
            "ratio_to_best_cuda",
            sa.Float(),
            comment="per_accelerator / the best cuda one; the headline",
        ),
        sa.Column("best_cuda_accelerator", sa.Text()),
        sa.Column(
            "peer_accelerator", sa.Text(), comment="same-generation NVIDIA part (peer_parts.yaml)"
        ),
        sa.Column(
            "ratio_to_peer",
            sa.Float(),
            comment="per_accelerator / the best result of the peer part",
        ),
        sa.Column("as_of", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint(
            "round", "benchmark", "scenario", "units", "regime", name=op.f("pk_perf_parity")
        ),
        comment=(
            "each regime's best MLPerf Inference result per accelerator; rewritten by each report"
        ),
    )
    op.execute(VIEW)


def downgrade() -> None:
    op.execute("DROP VIEW IF EXISTS v_perf_parity")
    op.drop_table("perf_parity")
    _kind_comment(KINDS_BEFORE, KINDS)
