"""Delivered training performance: events of kind `training_result` (MLPerf Training result
sets), the table perf_training (each regime's best time to train per round, benchmark and
accelerator count beside the best NVIDIA one, rewritten by each report) and the view
v_perf_training over it (docs/methodology.md, "Delivered performance: training").

Revision ID: 0018
Revises: 0017
"""

import sqlalchemy as sa
from alembic import op

revision = "0018"
down_revision = "0017"
branch_labels = None
depends_on = None

KINDS_BEFORE = "release | note | issue | ci_run | ci_job | result | comment"
KINDS = KINDS_BEFORE + " | training_result"
VIEW = (
    "CREATE VIEW v_perf_training AS SELECT round, round_date, benchmark, accelerators, regime, "
    "status, minutes, nvidia_minutes, ratio_to_nvidia, accelerator, system, submitter, "
    "availability, software_versions, evidence_url, nvidia_accelerator, nvidia_system, "
    "nvidia_software_versions, nvidia_evidence_url, as_of FROM perf_training"
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
        "perf_training",
        sa.Column(
            "round", sa.String(32), nullable=False, comment="MLPerf Training round, e.g. v5.0"
        ),
        sa.Column(
            "round_date",
            sa.DateTime(timezone=True),
            nullable=False,
            comment="the round's publication date",
        ),
        sa.Column("benchmark", sa.String(100), nullable=False, comment="e.g. llama2_70b_lora"),
        sa.Column(
            "accelerators", sa.Integer(), nullable=False, comment="accelerators per node x nodes"
        ),
        sa.Column("regime", sa.String(32), nullable=False),
        sa.Column(
            "status",
            sa.String(64),
            nullable=False,
            comment="measured | no NVIDIA result at this count",
        ),
        sa.Column(
            "minutes", sa.Float(), comment="the regime's best time to train (summarizer's score)"
        ),
        sa.Column("accelerator", sa.Text()),
        sa.Column("system", sa.Text()),
        sa.Column("submitter", sa.Text()),
        sa.Column("availability", sa.Text()),
        sa.Column(
            "software_versions",
            sa.Text(),
            comment="NCCL / RCCL / ROCm / CUDA ... named by the system file",
        ),
        sa.Column("evidence_url", sa.Text(), comment="the result folder in the round's repo"),
        sa.Column(
            "nvidia_minutes", sa.Float(), comment="the best cuda time to train at the same count"
        ),
        sa.Column("nvidia_accelerator", sa.Text()),
        sa.Column("nvidia_system", sa.Text()),
        sa.Column("nvidia_software_versions", sa.Text()),
        sa.Column("nvidia_evidence_url", sa.Text()),
        sa.Column("ratio_to_nvidia", sa.Float(), comment="minutes / nvidia_minutes; > 1 slower"),
        sa.Column("as_of", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint(
            "round", "benchmark", "accelerators", "regime", name=op.f("pk_perf_training")
        ),
        comment="each regime's best MLPerf Training time to train; rewritten by each report",
    )
    op.execute(VIEW)


def downgrade() -> None:
    op.execute("DROP VIEW IF EXISTS v_perf_training")
    op.drop_table("perf_training")
    _kind_comment(KINDS_BEFORE, KINDS)
