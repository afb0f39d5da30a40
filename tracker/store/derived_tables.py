"""The tables derived from stored events once, when they are written (tracker.store.derived),
so that no report re-reads every stored text:

- ``build_anchors``: the plain texts (a ``builds:`` pattern's ``contains``) the store picks
  records by; ``text_anchors``: which stored record of a kind that can name a build holds which
  of them (Store.build_texts reads it).
- ``comment_issues``: the issue each stored comment answers (its event id), and
  ``time_contradictions``: the events whose timestamps contradict each other
  (tracker.store.time_order; Store.contradicting_events reads it).

Rows follow their event (ON DELETE CASCADE) and are rewritten whenever it is.
"""

from __future__ import annotations

from sqlalchemy import Column, ForeignKey, Index, String, Table, Text

from tracker.store.columns import Timestamp, metadata

build_anchors = Table(
    "build_anchors",
    metadata,
    Column("anchor", Text, primary_key=True, comment="a builds: pattern's contains, as written"),
    Column("pattern", Text, nullable=False, comment="the LIKE pattern it is matched with"),
    Column("derived_at", Timestamp, nullable=False, comment="when every stored text was matched"),
    comment="the plain texts text_anchors is derived for (Store.build_texts keeps them current)",
)

text_anchors = Table(
    "text_anchors",
    metadata,
    Column("event_id", String(32), ForeignKey("events.id", ondelete="CASCADE"), primary_key=True),
    Column(
        "anchor",
        Text,
        ForeignKey("build_anchors.anchor", ondelete="CASCADE"),
        primary_key=True,
    ),
    comment="records whose title, body or attrs hold an anchor, ignoring case",
    sqlite_with_rowid=False,
)
# Store.build_texts: the records of the wanted anchors, without reading any other.
Index("ix_text_anchors_anchor", text_anchors.c.anchor, text_anchors.c.event_id)

comment_issues = Table(
    "comment_issues",
    metadata,
    Column("comment_id", String(32), ForeignKey("events.id", ondelete="CASCADE"), primary_key=True),
    Column("issue_id", String(32), nullable=False, comment="event id of the issue it answers"),
    comment="each stored comment's issue (its attrs' issue number), for time_contradictions",
    sqlite_with_rowid=False,
)
# An issue written again: its comments are compared with its opening again.
Index("ix_comment_issues_issue", comment_issues.c.issue_id, comment_issues.c.comment_id)

time_contradictions = Table(
    "time_contradictions",
    metadata,
    Column("event_id", String(32), ForeignKey("events.id", ondelete="CASCADE"), primary_key=True),
    Column(
        "reason",
        String(8),
        primary_key=True,
        comment="ended: ended before it began | early: a comment before its issue's opening",
    ),
    comment="events whose timestamps contradict each other (tracker.store.time_order)",
    sqlite_with_rowid=False,
)
