"""The read behind "builds named in any record" (tracker.measure.lag.builds): the stored texts
that may name an install channel's build.

A mixin of `tracker.store.Store`, like tracker.store.reads. The channels' patterns are regular
expressions run in Python; the store only picks the records whose title, body or (for a
page's revisions) removed lines hold one of the patterns' plain ``contains`` texts (anchors),
ignoring case, so every kind of record is read the same way without a scan in Python of every
event. Which record holds which anchor is derived once (tracker.store.derived): when the
record is written, or, for an anchor no read asked for before (a new or changed pattern), by
one pass over the stored records when a read first asks for it. A read then reads the records
of its anchors only, not every stored text.
"""

from __future__ import annotations

from collections.abc import Sequence
from contextlib import AbstractContextManager
from typing import TYPE_CHECKING, Any

from sqlalchemy import Connection, delete, select, text

from tracker.events import now_utc, utc
from tracker.store.derived_tables import build_anchors, text_anchors
from tracker.store.tables import dated, events, ids_in, ids_param

# Kinds of records whose text can name a build (CI runs, jobs and benchmark results cannot).
TEXT_KINDS = ("release", "note", "issue", "comment", "commit")
MAX_ANCHORS = 200  # plain texts per read, and kept derived: a bound on the statement's size
# An anchor is kept by its first ANCHOR_CHARS characters (at most 2 kB of UTF-8: PostgreSQL's
# btree keys hold about 2.7 kB). A record holding a text holds its start, and the patterns
# themselves decide (measure.lag.builds): a shorter anchor only picks more records to match.
ANCHOR_CHARS = 500
_KINDS_SQL = ", ".join(f"'{kind}'" for kind in TEXT_KINDS)


def _like(text: str) -> str:
    """A LIKE pattern for `text` anywhere, its wildcards escaped (with "\\")."""
    escaped = text.lower().replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    return f"%{escaped}%"


def _kept(anchors: Sequence[str]) -> list[str]:
    """`anchors` as the store keeps them (ANCHOR_CHARS), once each, at most MAX_ANCHORS."""
    return list(dict.fromkeys(a[:ANCHOR_CHARS] for a in anchors if a))[:MAX_ANCHORS]


def anchor_rows_sql(where: str) -> str:
    """SELECT (event id, anchor) of the records of TEXT_KINDS whose title, body or attrs hold
    an anchor of build_anchors (its LIKE pattern, on the lower-case text) and that meet
    `where` (on ``e``, the events, and ``a``, the anchors). The one spelling of a match: the
    derivation on write and a new anchor's pass both run it."""
    matched = " OR ".join(
        f"lower({column}) LIKE a.pattern ESCAPE '\\'"
        for column in ("e.title", "e.body", "CAST(e.attrs AS TEXT)")
    )
    return (
        f"SELECT e.id, a.anchor FROM events e JOIN build_anchors a ON ({matched}) "
        f"WHERE e.kind IN ({_KINDS_SQL}) AND {where}"
    )


def lock_anchors(conn: Connection, dialect: str, exclusive: bool = False) -> None:
    """PostgreSQL: a writer reads the anchors (SHARE) while no pass adds one (SHARE ROW
    EXCLUSIVE), so that no event written meanwhile misses a new anchor. SQLite's write lock
    already orders them."""
    if dialect == "postgresql":
        mode = "SHARE ROW EXCLUSIVE" if exclusive else "SHARE"
        conn.execute(text(f"LOCK TABLE build_anchors IN {mode} MODE"))


class BuildReads:
    if TYPE_CHECKING:
        dialect: str

        def _connect(self) -> AbstractContextManager[Connection]: ...
        def transaction(self) -> AbstractContextManager[Connection]: ...

    def build_texts(self, anchors: Sequence[str]) -> list[dict[str, Any]]:
        """source_id, kind, occurred_at (UTC), url, title, body and attrs of every record of
        TEXT_KINDS holding one of `anchors` (ignoring case) in its title, body or attrs,
        oldest first; far-dated rows left out (tables.dated). Anchors not derived yet are
        derived first (derive_anchors)."""
        wanted = _kept(anchors)
        if not wanted:
            return []
        self.derive_anchors(wanted)
        holding = select(text_anchors.c.event_id).where(text_anchors.c.anchor.in_(wanted))
        query = (
            select(
                events.c.source_id,
                events.c.kind,
                events.c.occurred_at,
                events.c.url,
                events.c.title,
                events.c.body,
                events.c.attrs,
            )
            .where(events.c.id.in_(holding), dated(self.dialect))
            .order_by(events.c.occurred_at, events.c.id)
        )
        with self._connect() as conn:
            rows = [dict(r) for r in conn.execute(query).mappings()]
        for row in rows:
            row["occurred_at"] = utc(row["occurred_at"])
        return rows

    def derive_anchors(self, anchors: Sequence[str]) -> list[str]:
        """Make `anchors` derived: each one the store does not keep yet is matched against
        every stored record once (then against every record written). The anchors kept beyond
        MAX_ANCHORS, oldest first among those not asked for, are dropped with their rows.
        Returns the anchors derived now (none when all were kept)."""
        wanted = _kept(anchors)
        with self._connect() as conn:
            kept = set(conn.execute(select(build_anchors.c.anchor)).scalars())
        if not set(wanted) - kept:
            return []
        with self.transaction() as conn:
            lock_anchors(conn, self.dialect, exclusive=True)
            rows = conn.execute(
                select(build_anchors.c.anchor).order_by(build_anchors.c.derived_at.desc())
            ).scalars()
            kept_now = list(rows)
            new = [a for a in wanted if a not in kept_now]
            if not new:
                return []
            others = [a for a in kept_now if a not in wanted]
            dropped = others[max(0, MAX_ANCHORS - len(wanted)) :]
            if dropped:
                conn.execute(delete(build_anchors).where(build_anchors.c.anchor.in_(dropped)))
            at = now_utc()
            conn.execute(
                build_anchors.insert(),
                [{"anchor": a, "pattern": _like(a), "derived_at": at} for a in new],
            )
            conn.execute(
                text(
                    "INSERT INTO text_anchors (event_id, anchor) "
                    + anchor_rows_sql(ids_in(self.dialect, "a.anchor"))
                ),
                {"ids": ids_param(self.dialect, new)},
            )
        return new
