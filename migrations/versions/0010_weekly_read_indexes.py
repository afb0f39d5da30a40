"""Indexes the two weekly reads run from, and `tags` keyed by event_id on SQLite.

tracker/store/weekly.py groups every CI event, and every issue / note with its tag, by day. At a
million events SQLite read the full event rows (title, body, url, labels) for a few narrow
columns, and each tag twice (its primary-key index, then the table row). Now:

- ix_events_ci_weekly: CI events by (kind, outcome), with every column the CI read groups by.
  ``attrs`` is in it because the trigger lives there: SQLite 3.40 does not treat an index on an
  expression, nor one on a generated column, as covering (it reads the row for any expression
  or generated column), so a covering index must hold the JSON the trigger is taken from.
  Partial (CI kinds only): issues and notes never pay for it. SQLite only: a PostgreSQL btree
  entry holds at most about 2.7 kB and attrs is unbounded (an insert would fail); PostgreSQL
  hash-aggregates the rows it finds through ix_events_kind_occurred instead.
- ix_events_tagged_weekly: issues and notes by (kind, vanished_at, id): the friction read scans
  the items still upstream in id order, so its look-ups into `tags` walk that table in order.
- SQLite: `tags` becomes a WITHOUT ROWID table (clustered on event_id), so a tag is found by
  one b-tree search that ends at the row; no second index and no rowid look-up. The views that
  read it are dropped and created again around the copy. PostgreSQL: unchanged (a heap table).

Revision ID: 0010
Revises: 0009
"""

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision = "0010"
down_revision = "0009"
branch_labels = None
depends_on = None

CI_KINDS = "kind IN ('ci_run', 'ci_job')"
TAGGED_KINDS = "kind IN ('issue', 'note')"
TAG_VIEWS = ("v_event_tags", "v_friction_weekly")  # creation order: the second reads the first


def _rebuild_tags(with_rowid: bool) -> None:
    """SQLite: copy `tags` into a table of the same columns and constraints, with or without a
    rowid. SQLite cannot change that in place; the views reading `tags` would block the rename."""
    bind = op.get_bind()
    views = dict(
        bind.exec_driver_sql(
            "SELECT name, sql FROM sqlite_master WHERE type = 'view' AND name IN (?, ?)",
            TAG_VIEWS,
        ).all()
    )
    for name in reversed(TAG_VIEWS):
        op.execute(f"DROP VIEW IF EXISTS {name}")
    op.create_table(
        "tags_copy",
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
            ["event_id"], ["events.id"], name="fk_tags_event_id_events", ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("event_id", name="pk_tags"),
        sqlite_with_rowid=with_rowid,
    )
    # In key order: a clustered table fills page by page instead of splitting pages at random.
    op.execute("INSERT INTO tags_copy SELECT * FROM tags ORDER BY event_id")
    op.drop_table("tags")
    op.rename_table("tags_copy", "tags")
    for name in TAG_VIEWS:
        if name in views:
            op.execute(views[name])


def upgrade() -> None:
    sqlite = op.get_bind().dialect.name == "sqlite"
    if sqlite:
        op.create_index(
            "ix_events_ci_weekly",
            "events",
            ["kind", "outcome", "project", "regime", "source_id", "occurred_at", "attrs"],
            sqlite_where=sa.text(CI_KINDS),
        )
    op.create_index(
        "ix_events_tagged_weekly",
        "events",
        ["kind", "vanished_at", "id", "regime", "occurred_at"],
        sqlite_where=sa.text(TAGGED_KINDS),
        postgresql_where=sa.text(TAGGED_KINDS),
    )
    if sqlite:
        _rebuild_tags(with_rowid=False)


def downgrade() -> None:
    sqlite = op.get_bind().dialect.name == "sqlite"
    if sqlite:
        _rebuild_tags(with_rowid=True)
    op.drop_index("ix_events_tagged_weekly", table_name="events")
    if sqlite:
        op.drop_index("ix_events_ci_weekly", table_name="events")
