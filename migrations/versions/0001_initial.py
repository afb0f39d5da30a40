"""initial schema: events, tags, overrides, source state, http cache, runs, locks

Revision ID: 0001
Revises:
Create Date: 2026-11-22 00:53:09.786326
"""

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "events",
        sa.Column(
            "id", sa.String(length=32), nullable=False, comment="hash of (source_id, external_id)"
        ),
        sa.Column("source_id", sa.String(length=200), nullable=False),
        sa.Column("project", sa.String(length=100), nullable=False),
        sa.Column(
            "kind",
            sa.String(length=16),
            nullable=False,
            comment="release | note | issue | ci_run | ci_job",
        ),
        sa.Column("external_id", sa.String(length=500), nullable=False),
        sa.Column(
            "occurred_at",
            sa.DateTime(timezone=True),
            nullable=False,
            comment="UTC time of the fact",
        ),
        sa.Column("title", sa.Text(), nullable=False),
        sa.Column("body", sa.Text(), nullable=False),
        sa.Column("url", sa.Text(), nullable=False, comment="provenance"),
        sa.Column("version", sa.String(length=100), nullable=True),
        sa.Column(
            "regime",
            sa.String(length=32),
            nullable=True,
            comment="from the source; NULL = the tagger decides",
        ),
        sa.Column(
            "labels",
            sa.JSON().with_variant(postgresql.JSONB(astext_type=sa.Text()), "postgresql"),
            nullable=False,
        ),
        sa.Column(
            "state",
            sa.String(length=50),
            nullable=True,
            comment="issue state or raw CI state / conclusion",
        ),
        sa.Column(
            "outcome",
            sa.String(length=16),
            nullable=True,
            comment="CI: passed | failed | NULL (not counted)",
        ),
        sa.Column(
            "ended_at",
            sa.DateTime(timezone=True),
            nullable=True,
            comment="issue closed / CI run finished",
        ),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column(
            "attrs",
            sa.JSON().with_variant(postgresql.JSONB(astext_type=sa.Text()), "postgresql"),
            nullable=False,
        ),
        sa.Column(
            "first_seen_at",
            sa.DateTime(timezone=True),
            nullable=False,
            comment="kept across re-collection",
        ),
        sa.Column("last_seen_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column(
            "vanished_at",
            sa.DateTime(timezone=True),
            nullable=True,
            comment="set when the item disappeared upstream",
        ),
        sa.Column(
            "imported", sa.Boolean(), nullable=False, comment="manual evidence from import-events"
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_events")),
    )
    with op.batch_alter_table("events", schema=None) as batch_op:
        batch_op.create_index("ix_events_kind_occurred", ["kind", "occurred_at"], unique=False)
        batch_op.create_index(
            "ix_events_project_kind_occurred", ["project", "kind", "occurred_at"], unique=False
        )
        batch_op.create_index(
            "ix_events_source_occurred", ["source_id", "occurred_at"], unique=False
        )

    op.create_table(
        "http_cache",
        sa.Column("source_id", sa.String(length=200), nullable=False),
        sa.Column("url", sa.Text(), nullable=False),
        sa.Column("etag", sa.Text(), nullable=True),
        sa.Column("last_modified", sa.Text(), nullable=True),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("source_id", "url", name=op.f("pk_http_cache")),
    )
    op.create_table(
        "locks",
        sa.Column("name", sa.String(length=200), nullable=False),
        sa.Column("holder", sa.String(length=200), nullable=False),
        sa.Column("acquired_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("expires_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("name", name=op.f("pk_locks")),
    )
    op.create_table(
        "runs",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column(
            "batch",
            sa.String(length=40),
            nullable=False,
            comment="one collect / nightly invocation",
        ),
        sa.Column("source_id", sa.String(length=200), nullable=False),
        sa.Column("started_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("finished_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column(
            "status",
            sa.String(length=16),
            nullable=False,
            comment="ok | failed | partial | skipped",
        ),
        sa.Column("events_seen", sa.Integer(), nullable=False),
        sa.Column("events_new", sa.Integer(), nullable=False),
        sa.Column("items_skipped", sa.Integer(), nullable=False),
        sa.Column("requests", sa.Integer(), nullable=False),
        sa.Column("not_modified", sa.Integer(), nullable=False),
        sa.Column("rate_remaining", sa.Integer(), nullable=True),
        sa.Column("error", sa.Text(), nullable=True),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_runs")),
    )
    with op.batch_alter_table("runs", schema=None) as batch_op:
        batch_op.create_index("ix_runs_source_started", ["source_id", "started_at"], unique=False)

    op.create_table(
        "source_state",
        sa.Column("source_id", sa.String(length=200), nullable=False),
        sa.Column(
            "cursor",
            sa.DateTime(timezone=True),
            nullable=True,
            comment="max event time saved, never past a run's start",
        ),
        sa.Column(
            "state",
            sa.JSON().with_variant(postgresql.JSONB(astext_type=sa.Text()), "postgresql"),
            nullable=False,
            comment="the collector's own state",
        ),
        sa.Column("last_run_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("last_success_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("last_status", sa.String(length=16), nullable=True),
        sa.Column("last_error", sa.Text(), nullable=True),
        sa.Column("requests", sa.Integer(), nullable=False),
        sa.Column("not_modified", sa.Integer(), nullable=False),
        sa.Column("rate_remaining", sa.Integer(), nullable=True),
        sa.PrimaryKeyConstraint("source_id", name=op.f("pk_source_state")),
    )
    op.create_table(
        "tag_overrides",
        sa.Column("event_id", sa.String(length=32), nullable=False),
        sa.Column("tag", sa.String(length=16), nullable=False),
        sa.Column("regime", sa.String(length=32), nullable=True),
        sa.Column("set_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["event_id"],
            ["events.id"],
            name=op.f("fk_tag_overrides_event_id_events"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("event_id", name=op.f("pk_tag_overrides")),
    )
    op.create_table(
        "tags",
        sa.Column("event_id", sa.String(length=32), nullable=False),
        sa.Column(
            "tag", sa.String(length=16), nullable=False, comment="friction | optimization | neutral"
        ),
        sa.Column("score", sa.Float(), nullable=False),
        sa.Column("regime", sa.String(length=32), nullable=False),
        sa.Column(
            "mentions",
            sa.JSON().with_variant(postgresql.JSONB(astext_type=sa.Text()), "postgresql"),
            nullable=False,
        ),
        sa.Column("tagger_version", sa.String(length=50), nullable=False),
        sa.Column("tagged_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["event_id"], ["events.id"], name=op.f("fk_tags_event_id_events"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("event_id", name=op.f("pk_tags")),
    )


def downgrade() -> None:
    op.drop_table("tags")
    op.drop_table("tag_overrides")
    op.drop_table("source_state")
    with op.batch_alter_table("runs", schema=None) as batch_op:
        batch_op.drop_index("ix_runs_source_started")

    op.drop_table("runs")
    op.drop_table("locks")
    op.drop_table("http_cache")
    with op.batch_alter_table("events", schema=None) as batch_op:
        batch_op.drop_index("ix_events_source_occurred")
        batch_op.drop_index("ix_events_project_kind_occurred")
        batch_op.drop_index("ix_events_kind_occurred")

    op.drop_table("events")
