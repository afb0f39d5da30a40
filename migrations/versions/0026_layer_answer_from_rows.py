"""v_layer_answer reads the layer from the row: lag_trend gains ``layer``, set by the report on
each layer's pooled rows (tracker.names.LAYERS: framework "all projects", the headline answer;
kernel, model, collective), and the view lists every row that carries one. A new layer's rows
appear in the view without another migration (before, the view named the four layers' groups
in SQL and a fifth dropped out of it). The rows, their order and their columns are those of the
view 0020 made (the order, which that view had from the table's key on SQLite, is now stated);
rows stored before this revision get their layer here.

Revision ID: 0026
Revises: 0025
"""

import importlib.util
from pathlib import Path

import sqlalchemy as sa
from alembic import op

revision = "0026"
down_revision = "0025"
branch_labels = None
depends_on = None


def _revision(name: str):
    spec = importlib.util.spec_from_file_location(name, Path(__file__).with_name(f"{name}.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


_layers = _revision("0020_collective_layer")  # the view as it was (downgrade)
_trend = _revision("0022_lag_not_observed")  # v_lag_trend, made again after the table changes

# The four layers' pooled groups as 0020 named them: the rows stored before this revision.
BEFORE = {
    "all projects": "framework",
    "all kernel features": "kernel",
    "all model families": "model",
    "all collectives": "collective",
}

LAYER_ANSWER = (
    "CREATE VIEW v_layer_answer AS SELECT layer, regime, verdict, "
    "recent_median AS median_days, recent_at_least AS at_least_days, "
    'recent_artifacts AS artifacts, recent_open AS "open", artifacts AS pooled_artifacts, '
    '"open" AS pooled_open, as_of FROM lag_trend WHERE layer IS NOT NULL '
    "ORDER BY artifact_group, regime"  # the order 0020's view had on SQLite (its key's), now said
)
LAG_TREND = (
    f"CREATE VIEW v_lag_trend AS SELECT {_trend.VIEW_COLUMNS}, not_observed, "
    "recent_not_observed FROM lag_trend"
)


def upgrade() -> None:
    # both views read lag_trend: dropped while the table changes (see 0022)
    op.execute("DROP VIEW IF EXISTS v_layer_answer")
    op.execute("DROP VIEW IF EXISTS v_lag_trend")
    with op.batch_alter_table("lag_trend") as batch:
        batch.add_column(
            sa.Column(
                "layer",
                sa.String(32),
                comment="the layer whose pooled row this is (tracker.names.LAYERS); else null",
            )
        )
    trend = sa.table(
        "lag_trend",
        sa.column("artifact_group", sa.String),
        sa.column("definition", sa.String),
        sa.column("layer", sa.String),
    )
    for group, layer in BEFORE.items():
        op.execute(
            trend.update()
            .where(trend.c.artifact_group == group, trend.c.definition == "primary")
            .values(layer=layer)
        )
    op.execute(LAG_TREND)
    op.execute(LAYER_ANSWER)


def downgrade() -> None:
    op.execute("DROP VIEW IF EXISTS v_layer_answer")
    op.execute("DROP VIEW IF EXISTS v_lag_trend")
    with op.batch_alter_table("lag_trend") as batch:
        batch.drop_column("layer")
    op.execute(LAG_TREND)
    op.execute(_layers.LAYER_ANSWER)
