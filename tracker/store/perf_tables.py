"""The table perf_training behind "Delivered performance: training" (the view v_perf_training
reads it): each regime's best MLPerf Training time to train per round, benchmark and accelerator
count beside the best NVIDIA one, rewritten by each report (tracker.measure.perf.training)."""

from __future__ import annotations

from sqlalchemy import Column, Float, Integer, String, Table, Text

from tracker.store.columns import Timestamp, metadata


def realized_columns() -> list[Column]:
    """Realized efficiency of the row's best result set (docs/methodology.md)."""
    return [
        Column("samples_per_second", Float, comment="per accelerator, runs' samples / seconds"),
        Column("tokens_per_second", Float, comment="per accelerator, where samples are tokens"),
        Column("format_used", String(32), comment="BF16 | FP8 | FP4 | not stated"),
        Column("format_evidence", Text, comment="the file that says the format"),
        Column("efficiency_bf16", Float, comment="model FLOP/s / dense BF16 peak, no attention"),
        Column("efficiency_bf16_attention", Float, comment="the same with causal attention"),
        Column("efficiency_format", Float, comment="over the dense peak of the format used"),
        Column("efficiency_format_attention", Float, comment="the same with causal attention"),
    ]


perf_training = Table(
    "perf_training",
    metadata,
    Column("round", String(32), primary_key=True, comment="MLPerf Training round, e.g. v5.0"),
    Column("round_date", Timestamp, nullable=False, comment="the round's publication date"),
    Column("benchmark", String(100), primary_key=True, comment="e.g. llama2_70b_lora"),
    Column("accelerators", Integer, primary_key=True, comment="accelerators per node x nodes"),
    Column("regime", String(32), primary_key=True),
    Column(
        "status", String(64), nullable=False, comment="measured | no NVIDIA result at this count"
    ),
    Column("minutes", Float, comment="the regime's best time to train (summarizer's score)"),
    Column("accelerator", Text),
    Column("system", Text),
    Column("submitter", Text),
    Column("availability", Text),
    Column(
        "software_versions", Text, comment="NCCL / RCCL / ROCm / CUDA ... named by the system file"
    ),
    Column("evidence_url", Text, comment="the result folder in the round's repo"),
    Column("nvidia_minutes", Float, comment="the best cuda time to train at the same count"),
    Column("nvidia_accelerator", Text),
    Column("nvidia_system", Text),
    Column("nvidia_software_versions", Text),
    Column("nvidia_evidence_url", Text),
    Column("ratio_to_nvidia", Float, comment="minutes / nvidia_minutes; > 1 slower"),
    *realized_columns(),
    Column("as_of", Timestamp, nullable=False),
    comment="each regime's best MLPerf Training time to train; rewritten by each report",
)

perf_format_adoption = Table(
    "perf_format_adoption",
    metadata,
    Column("regime", String(32), primary_key=True),
    Column("format", String(16), primary_key=True, comment="fp8 | fp4 (NVFP4 or MXFP4)"),
    Column("first_round", String(32), comment="the regime's first round whose best used it"),
    Column("first_round_date", Timestamp),
    Column("evidence_url", Text, comment="the file that says the format"),
    Column("nvidia_first_round", String(32)),
    Column("nvidia_first_round_date", Timestamp),
    Column("nvidia_evidence_url", Text),
    Column("lag_days", Integer, comment="first_round_date - nvidia_first_round_date"),
    Column("bound", String(32), nullable=False, comment="exact | at least | not yet | not stated"),
    Column("as_of", Timestamp, nullable=False),
    comment="first MLPerf Training round per regime and number format; rewritten by each report",
)
