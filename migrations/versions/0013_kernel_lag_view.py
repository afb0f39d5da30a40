"""The view v_kernel_lag: the kernel layer's rows of lag_samples.

Kernel features (tracker/measure/data/kernel_features.yaml; docs/methodology.md, "The kernel
layer") are a third kind of artifact: lag_samples rows with ``artifact = 'kernel'`` (project =
the library, series = the feature id, day0_definition = cuda_kernel). The table needs no new
column; v_lag_series keeps the framework series only, v_model_lag the model families, and this
view the kernel cells the evidence dates or leaves open (unknown cells are not rows: the report
and `tracker lag --artifact kernel` list them with their reasons).

Revision ID: 0013
Revises: 0012
"""

from alembic import op

revision = "0013"
down_revision = "0012"
branch_labels = None
depends_on = None

KERNEL_LAG = (
    "CREATE VIEW v_kernel_lag AS SELECT series AS feature, project AS library, regime, "
    "definition, day0, day0_url, available, lag_days, status, negative, evidence_url, as_of "
    "FROM lag_samples WHERE artifact = 'kernel'"
)


def upgrade() -> None:
    op.execute(KERNEL_LAG)


def downgrade() -> None:
    op.execute("DROP VIEW IF EXISTS v_kernel_lag")
