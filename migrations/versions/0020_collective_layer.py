"""The collectives layer in v_lag_series, and the answer per layer: v_layer_answer.

v_lag_series gains the column ``artifact`` and the collectives layer's rows (NCCL minor series,
artifact ``collective``) beside the framework series: both are release series with one row per
series, regime and definition (model families and kernel features keep v_model_lag and
v_kernel_lag). v_layer_answer: the answer per layer and regime (docs/methodology.md, "The answer
per layer"): the pooled rows of lag_trend, one per layer (framework: "all projects", the
headline answer; "all kernel features", "all model families", "all collectives"), with the
same verdict and median the report, summary.json, the digest and `tracker lag --trend` show.

Revision ID: 0020
Revises: 0019
"""

from alembic import op

revision = "0020"
down_revision = "0019"
branch_labels = None
depends_on = None

LAG_SERIES_BEFORE = (
    "CREATE VIEW v_lag_series AS SELECT project, series, regime, definition, "
    "is_primary, day0, available, lag_days, status, negative, evidence_url, as_of, "
    "observed_through, covered_by, channel FROM lag_samples WHERE artifact = 'framework'"
)
LAG_SERIES = (
    "CREATE VIEW v_lag_series AS SELECT project, series, regime, definition, "
    "is_primary, day0, available, lag_days, status, negative, evidence_url, as_of, "
    "observed_through, covered_by, channel, artifact FROM lag_samples "
    "WHERE artifact IN ('framework', 'collective')"
)
LAYER_ANSWER = (
    "CREATE VIEW v_layer_answer AS SELECT CASE artifact_group "
    "WHEN 'all projects' THEN 'framework' WHEN 'all kernel features' THEN 'kernel' "
    "WHEN 'all model families' THEN 'model' ELSE 'collective' END AS layer, regime, verdict, "
    "recent_median AS median_days, recent_at_least AS at_least_days, "
    'recent_artifacts AS artifacts, recent_open AS "open", artifacts AS pooled_artifacts, '
    "\"open\" AS pooled_open, as_of FROM lag_trend WHERE definition = 'primary' AND artifact_group "
    "IN ('all projects', 'all kernel features', 'all model families', 'all collectives')"
)


def upgrade() -> None:
    op.execute("DROP VIEW IF EXISTS v_lag_series")
    op.execute(LAG_SERIES)
    op.execute(LAYER_ANSWER)


def downgrade() -> None:
    op.execute("DROP VIEW IF EXISTS v_layer_answer")
    op.execute("DROP VIEW IF EXISTS v_lag_series")
    op.execute(LAG_SERIES_BEFORE)
