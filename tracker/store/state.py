"""The store's run-state side: each source's cursor, collector state and HTTP validators,
the runs table, per-source status, and the locks that keep two runs from colliding.

A mixin of `tracker.store.Store` (which owns the engine and the write path).
"""

from __future__ import annotations

import os
import socket
import uuid
from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any

from sqlalchemy import func, select
from sqlalchemy.engine import Connection

from tracker.events import now_utc
from tracker.processes import running_here
from tracker.store.tables import events, http_cache, locks, runs, source_state


@dataclass
class SourceState:
    """What the runner needs to resume a source."""

    cursor: datetime | None = None
    state: dict[str, Any] = field(default_factory=dict)
    validators: dict[str, dict] = field(default_factory=dict)
    last_status: str | None = None


HTTP_CACHE_DAYS = 30


@dataclass(frozen=True)
class LockTaken:
    """What `Store.lock` yields: true when this run holds the lock; otherwise who does.

    A holder on this host is known to be alive (a dead one is taken over at once). A holder on
    another host may be alive or dead: no run can tell, so the caller reports it (named, with
    since and until) and `tracker unlock NAME` clears it once an operator knows it is dead."""

    name: str
    acquired: bool
    holder: str = ""
    since: datetime | None = None
    until: datetime | None = None

    def __bool__(self) -> bool:
        return self.acquired

    @property
    def elsewhere(self) -> bool:
        """Held by a run on another host (whose process this run cannot check)."""
        return not self.acquired and _host_of(self.holder) != socket.gethostname()

    def describe(self) -> str:
        """ "held by HOST:PID:NONCE since ... until ... UTC" for messages."""
        return f"held by {self.holder} since {_minute(self.since)} until {_minute(self.until)} UTC"

    def advice(self) -> str:
        """What an operator does about a lock held on another host."""
        return (
            f"if that run is dead (its host rebooted, its process killed), clear the lock with "
            f"`tracker unlock {self.name}`; otherwise it expires at {_minute(self.until)} UTC"
        )


def _minute(value: datetime | None) -> str:
    return value.strftime("%Y-%m-%d %H:%M") if value else "?"


def _host_of(holder: str) -> str:
    return holder.partition(":")[0]


class SourceStates:
    """Source state, runs, status and locks (mixed into Store)."""

    if TYPE_CHECKING:  # what Store provides to this mixin

        def _connect(self) -> AbstractContextManager[Connection]: ...
        def transaction(self) -> AbstractContextManager[Connection]: ...
        def _insert(self) -> Any: ...

    # -- source state ----------------------------------------------------------------------
    def load_source(self, source_id: str) -> SourceState:
        with self._connect() as conn:
            row = (
                conn.execute(select(source_state).where(source_state.c.source_id == source_id))
                .mappings()
                .first()
            )
            cache = (
                conn.execute(select(http_cache).where(http_cache.c.source_id == source_id))
                .mappings()
                .all()
            )
        validators = {
            r["url"]: {"etag": r["etag"], "last_modified": r["last_modified"]} for r in cache
        }
        if row is None:
            return SourceState(validators=validators)
        return SourceState(row["cursor"], dict(row["state"] or {}), validators, row["last_status"])

    def save_source(
        self,
        conn: Connection,
        source_id: str,
        *,
        values: dict[str, Any],
        validators: dict[str, dict] | None = None,
    ) -> None:
        """Upsert the source's state row (and the HTTP validators) inside `conn`'s transaction."""
        insert = self._insert()
        stmt = insert(source_state).values(source_id=source_id, **values)
        conn.execute(
            stmt.on_conflict_do_update(index_elements=[source_state.c.source_id], set_=values)
        )
        if validators:
            now = now_utc()
            cache_rows = [
                {
                    "source_id": source_id,
                    "url": url,
                    "etag": v.get("etag"),
                    "last_modified": v.get("last_modified"),
                    "updated_at": now,
                }
                for url, v in validators.items()
            ]
            stmt = insert(http_cache)
            conn.execute(
                stmt.on_conflict_do_update(
                    index_elements=[http_cache.c.source_id, http_cache.c.url],
                    set_={
                        "etag": stmt.excluded.etag,
                        "last_modified": stmt.excluded.last_modified,
                        "updated_at": stmt.excluded.updated_at,
                    },
                ),
                cache_rows,
            )
        # Listing URLs carry the cursor (`since=`), so each night adds a row: drop the ones not
        # renewed for a month (at worst one unconditional request for a URL still in use).
        conn.execute(
            http_cache.delete().where(
                http_cache.c.source_id == source_id,
                http_cache.c.updated_at < now_utc() - timedelta(days=HTTP_CACHE_DAYS),
            )
        )

    def record_run(self, conn: Connection, row: dict[str, Any]) -> None:
        conn.execute(runs.insert().values(**row))

    def status(self) -> list[dict[str, Any]]:
        """Per source: state row plus the counts of its stored events."""
        with self._connect() as conn:
            states = {
                r["source_id"]: dict(r) for r in conn.execute(select(source_state)).mappings()
            }
            counts: dict[str, int] = dict(
                conn.execute(
                    select(events.c.source_id, func.count()).group_by(events.c.source_id)
                ).all()
            )
        out = []
        for source_id in sorted(set(states) | set(counts)):
            row = states.get(source_id, {"source_id": source_id})
            row["events"] = counts.get(source_id, 0)
            out.append(row)
        return out

    # -- locks -----------------------------------------------------------------------------
    def lock_holder(self, name: str) -> tuple[str, datetime] | None:
        """Who holds the named lock ("host:pid:nonce") and until when; None when nobody does."""
        with self._connect() as conn:
            row = conn.execute(
                select(locks.c.holder, locks.c.expires_at).where(locks.c.name == name)
            ).first()
        return (row.holder, row.expires_at) if row else None

    def locks_held(self) -> list[dict[str, Any]]:
        """Every lock in the store: name, holder, acquired_at, expires_at, and `state`: "alive
        here", "dead here" (taken over by the next run) or "another host" (unknown)."""
        with self._connect() as conn:
            rows = [dict(r) for r in conn.execute(select(locks).order_by(locks.c.name)).mappings()]
        for row in rows:
            if _host_of(row["holder"]) != socket.gethostname():
                row["state"] = "another host"
            else:
                row["state"] = "dead here" if _dead_here(row["holder"]) else "alive here"
        return rows

    def unlock(self, name: str) -> str | None:
        """Remove the named lock whoever holds it (an operator's call, for a run known dead);
        return its holder, None when nobody held it."""
        with self.transaction() as conn:
            holder = conn.execute(select(locks.c.holder).where(locks.c.name == name)).scalar()
            conn.execute(locks.delete().where(locks.c.name == name))
        return holder

    @contextmanager
    def lock(self, name: str, ttl: timedelta = timedelta(hours=6)) -> Iterator[LockTaken]:
        """Hold the named lock for the block. Yields a LockTaken: true when held; false (and
        holding nothing) when another run has it, with who and until when. An expired lock,
        or one whose holder ran on this host and is gone, is taken over."""
        holder = f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:8]}"
        now = now_utc()
        insert = self._insert()
        stmt = insert(locks).values(name=name, holder=holder, acquired_at=now, expires_at=now + ttl)
        stmt = stmt.on_conflict_do_update(
            index_elements=[locks.c.name],
            set_={"holder": holder, "acquired_at": now, "expires_at": now + ttl},
            where=locks.c.expires_at < now,
        )
        with self.transaction() as conn:
            conn.execute(stmt)
            got = conn.execute(select(locks.c.holder).where(locks.c.name == name)).scalar_one()
            if got != holder and _dead_here(got):
                # Its holder ran on this host and is gone (killed, crashed): no need to wait
                # for the lock to expire. Taken over only if nobody else took it meanwhile.
                conn.execute(
                    locks.update()
                    .where(locks.c.name == name, locks.c.holder == got)
                    .values(holder=holder, acquired_at=now, expires_at=now + ttl)
                )
                got = conn.execute(select(locks.c.holder).where(locks.c.name == name)).scalar_one()
            row = conn.execute(
                select(locks.c.holder, locks.c.acquired_at, locks.c.expires_at).where(
                    locks.c.name == name
                )
            ).one()
        acquired = got == holder
        try:
            yield LockTaken(name, acquired, row.holder, row.acquired_at, row.expires_at)
        finally:
            if acquired:
                with self.transaction() as conn:
                    conn.execute(
                        locks.delete().where(locks.c.name == name, locks.c.holder == holder)
                    )


def _dead_here(holder: str) -> bool:
    """Whether a lock holder ("host:pid:nonce") ran on this host and its process is gone."""
    host, _, rest = holder.partition(":")
    pid = rest.partition(":")[0]
    if host != socket.gethostname() or not pid.isdigit():
        return False
    return not running_here(int(pid))
