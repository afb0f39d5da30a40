"""Realized efficiency in MLPerf Training (issue 56): perf_training gains the throughput, the
number format used and the efficiency columns of each row's best result set; the table
perf_format_adoption holds each regime's first round per number format beside NVIDIA's; the views
v_perf_efficiency and v_format_adoption read them (docs/methodology.md, "Realized efficiency"
and "Number-format adoption").

Revision ID: 0025
Revises: 0024
"""

import sqlalchemy as sa
from alembic import op

revision = "0025"
down_revision = "0024"
branch_labels = None
depends_on = None

REALIZED = (
    ("samples_per_second", sa.Float(), "per accelerator, runs' samples / seconds"),
    ("tokens_per_second", sa.Float(), "per accelerator, where samples are tokens"),
    ("format_used", sa.String(32), "BF16 | FP8 | FP4 | not stated"),
    ("format_evidence", sa.Text(), "the file that says the format"),
    ("efficiency_bf16", sa.Float(), "model FLOP/s / dense BF16 peak, no attention"),
    ("efficiency_bf16_attention", sa.Float(), "the same with causal attention"),
    ("efficiency_format", sa.Float(), "over the dense peak of the format used"),
    ("efficiency_format_attention", sa.Float(), "the same with causal attention"),
)
EFFICIENCY_VIEW = (
    "CREATE VIEW v_perf_efficiency AS SELECT round, round_date, benchmark, accelerators, regime, "
    "accelerator, system, submitter, minutes, samples_per_second, tokens_per_second, "
    "format_used, format_evidence, efficiency_bf16, efficiency_bf16_attention, "
    "efficiency_format, efficiency_format_attention, evidence_url, as_of FROM perf_training"
)
# v_perf_training as 0018 made it: SQLite rebuilds the table to drop columns, so the view over
# it is dropped first and made again.
TRAINING_VIEW = (
    "CREATE VIEW v_perf_training AS SELECT round, round_date, benchmark, accelerators, regime, "
    "status, minutes, nvidia_minutes, ratio_to_nvidia, accelerator, system, submitter, "
    "availability, software_versions, evidence_url, nvidia_accelerator, nvidia_system, "
    "nvidia_software_versions, nvidia_evidence_url, as_of FROM perf_training"
)
ADOPTION_VIEW = (
    "CREATE VIEW v_format_adoption AS SELECT regime, format, first_round, first_round_date, "
    "evidence_url, nvidia_first_round, nvidia_first_round_date, nvidia_evidence_url, lag_days, "
    "bound, as_of FROM perf_format_adoption"
)


def upgrade() -> None:
    for name, kind, comment in REALIZED:
        op.add_column("perf_training", sa.Column(name, kind, comment=comment))
    op.create_table(
        "perf_format_adoption",
        sa.Column("regime", sa.String(32), nullable=False),
        sa.Column("format", sa.String(16), nullable=False, comment="fp8 | fp4 (NVFP4 or MXFP4)"),
        sa.Column(
            "first_round", sa.String(32), comment="the regime's first round whose best used it"
        ),
        sa.Column("first_round_date", sa.DateTime(timezone=True)),
        sa.Column("evidence_url", sa.Text(), comment="the file that says the format"),
        sa.Column("nvidia_first_round", sa.String(32)),
        sa.Column("nvidia_first_round_date", sa.DateTime(timezone=True)),
        sa.Column("nvidia_evidence_url", sa.Text()),
        sa.Column("lag_days", sa.Integer(), comment="first_round_date - nvidia_first_round_date"),
        sa.Column(
            "bound",
            sa.String(32),
            nullable=False,
            comment="exact | at least | not yet | not stated",
        ),
        sa.Column("as_of", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("regime", "format", name=op.f("pk_perf_format_adoption")),
        comment="first MLPerf Training round per regime and number format; rewritten by each "
        "report",
    )
    op.execute(EFFICIENCY_VIEW)
    op.execute(ADOPTION_VIEW)


def downgrade() -> None:
    op.execute("DROP VIEW IF EXISTS v_format_adoption")
    op.execute("DROP VIEW IF EXISTS v_perf_efficiency")
    op.drop_table("perf_format_adoption")
    op.execute("DROP VIEW IF EXISTS v_perf_training")
    with op.batch_alter_table("perf_training") as batch:
        for name, _kind, _comment in REALIZED:
            batch.drop_column(name)
    op.execute(TRAINING_VIEW)
