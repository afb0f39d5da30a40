"""What is derived from stored events is derived once, when they are written (issue 58;
tracker.store.derived), so that a report no longer re-reads every stored text and every event:

- ``build_anchors`` and ``text_anchors``: which stored record holds which ``builds:`` plain
  text (anchor). Not backfilled here: the anchors are the channels' (sources.yaml), which a
  migration does not read; the table starts empty and the first read that asks for an anchor
  (Store.build_texts, i.e. the next report) matches every stored record against it once.
- ``comment_issues``: the issue each stored comment answers (its event id, computed as
  tracker.events.event_id does at this revision), backfilled here for every stored comment.
- ``time_contradictions``: the events whose timestamps contradict each other (issue 49),
  backfilled here with the rule's SQL as tracker.store.time_order spells it at this revision
  (written here, not imported: a migration builds the schema of its revision).

Revision ID: 0024
Revises: 0023
"""

import hashlib
import json

import sqlalchemy as sa
from alembic import op

revision = "0024"
down_revision = "0023"
branch_labels = None
depends_on = None

ANCHORS_COMMENT = (
    "the plain texts text_anchors is derived for (Store.build_texts keeps them current)"
)
BATCH = 5000  # comments per insert of the backfill
# tracker.events.EVENT_TIME_START / EVENT_TIME_END at this revision, as tables.time_bounds
BOUNDS = {
    "sqlite": ("'1970-01-01'", "'2200-01-01'"),
    "postgresql": (
        "TIMESTAMPTZ '1970-01-01 00:00:00+00'",
        "TIMESTAMPTZ '2200-01-01 00:00:00+00'",
    ),
}


def _computable(dialect: str, column: str) -> str:
    start, end = BOUNDS[dialect]
    return f"{column} >= {start} AND {column} < {end}"


def _event_id(source_id: str, external_id: str) -> str:
    key = f"{source_id}\x00{external_id}".encode("utf-8", "surrogatepass")
    return hashlib.sha256(key).hexdigest()[:32]


def _issue_key(value, dialect: str):
    if isinstance(value, bool):
        if dialect == "sqlite":
            return "1" if value else "0"
        return "true" if value else "false"
    if isinstance(value, (int, float, str)):
        return str(value)
    return None


def _contradictions(dialect: str) -> list[str]:
    issue_of = (
        "json_extract(c.attrs, '$.issue')" if dialect == "sqlite" else "(c.attrs ->> 'issue')"
    )
    return [
        "INSERT INTO time_contradictions (event_id, reason) "
        "SELECT events.id, 'ended' FROM events WHERE events.ended_at < events.occurred_at "
        f"AND {_computable(dialect, 'events.occurred_at')} "
        f"AND {_computable(dialect, 'events.ended_at')}",
        "INSERT INTO time_contradictions (event_id, reason) "
        "SELECT c.id, 'early' FROM comment_issues ci JOIN events c ON c.id = ci.comment_id "
        "JOIN events i ON i.id = ci.issue_id "
        "WHERE c.kind = 'comment' AND i.kind = 'issue' AND i.source_id = c.source_id "
        f"AND i.external_id = 'issue:' || {issue_of} AND c.occurred_at < i.occurred_at "
        f"AND {_computable(dialect, 'c.occurred_at')} "
        f"AND {_computable(dialect, 'i.occurred_at')}",
    ]


def _backfill(dialect: str) -> None:
    conn = op.get_bind()
    table = sa.table("comment_issues", sa.column("comment_id"), sa.column("issue_id"))
    rows = conn.execute(
        sa.text("SELECT id, source_id, attrs FROM events WHERE kind = 'comment' ORDER BY id")
    )
    batch = []
    for comment_id, source_id, attrs in rows:
        if isinstance(attrs, str):  # SQLite keeps the JSON text
            try:
                attrs = json.loads(attrs)
            except ValueError:
                continue
        key = _issue_key(attrs.get("issue"), dialect) if isinstance(attrs, dict) else None
        if key is not None:
            batch.append(
                {"comment_id": comment_id, "issue_id": _event_id(source_id, f"issue:{key}")}
            )
        if len(batch) >= BATCH:
            conn.execute(table.insert(), batch)
            batch = []
    if batch:
        conn.execute(table.insert(), batch)
    for statement in _contradictions(dialect):
        conn.execute(sa.text(statement))


def _event_fk(table: str) -> sa.ForeignKeyConstraint:
    column = "comment_id" if table == "comment_issues" else "event_id"
    return sa.ForeignKeyConstraint(
        [column], ["events.id"], name=op.f(f"fk_{table}_{column}_events"), ondelete="CASCADE"
    )


def upgrade() -> None:
    dialect = op.get_bind().dialect.name
    op.create_table(
        "build_anchors",
        sa.Column(
            "anchor", sa.Text(), nullable=False, comment="a builds: pattern's contains, as written"
        ),
        sa.Column(
            "pattern", sa.Text(), nullable=False, comment="the LIKE pattern it is matched with"
        ),
        sa.Column(
            "derived_at",
            sa.DateTime(timezone=True),
            nullable=False,
            comment="when every stored text was matched",
        ),
        sa.PrimaryKeyConstraint("anchor", name=op.f("pk_build_anchors")),
        comment=ANCHORS_COMMENT,
    )
    op.create_table(
        "text_anchors",
        sa.Column("event_id", sa.String(32), nullable=False),
        sa.Column("anchor", sa.Text(), nullable=False),
        _event_fk("text_anchors"),
        sa.ForeignKeyConstraint(
            ["anchor"],
            ["build_anchors.anchor"],
            name=op.f("fk_text_anchors_anchor_build_anchors"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("event_id", "anchor", name=op.f("pk_text_anchors")),
        comment="records whose title, body or attrs hold an anchor, ignoring case",
        sqlite_with_rowid=False,
    )
    op.create_index("ix_text_anchors_anchor", "text_anchors", ["anchor", "event_id"])
    op.create_table(
        "comment_issues",
        sa.Column("comment_id", sa.String(32), nullable=False),
        sa.Column(
            "issue_id", sa.String(32), nullable=False, comment="event id of the issue it answers"
        ),
        _event_fk("comment_issues"),
        sa.PrimaryKeyConstraint("comment_id", name=op.f("pk_comment_issues")),
        comment="each stored comment's issue (its attrs' issue number), for time_contradictions",
        sqlite_with_rowid=False,
    )
    op.create_index("ix_comment_issues_issue", "comment_issues", ["issue_id", "comment_id"])
    op.create_table(
        "time_contradictions",
        sa.Column("event_id", sa.String(32), nullable=False),
        sa.Column(
            "reason",
            sa.String(8),
            nullable=False,
            comment="ended: ended before it began | early: a comment before its issue's opening",
        ),
        _event_fk("time_contradictions"),
        sa.PrimaryKeyConstraint("event_id", "reason", name=op.f("pk_time_contradictions")),
        comment="events whose timestamps contradict each other (tracker.store.time_order)",
        sqlite_with_rowid=False,
    )
    _backfill(dialect)


def downgrade() -> None:
    op.drop_table("time_contradictions")
    op.drop_index("ix_comment_issues_issue", table_name="comment_issues")
    op.drop_table("comment_issues")
    op.drop_index("ix_text_anchors_anchor", table_name="text_anchors")
    op.drop_table("text_anchors")
    op.drop_table("build_anchors")
