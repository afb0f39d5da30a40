"""SQLite's locks. The write lock, taken at the start of a write transaction (BEGIN IMMEDIATE):
a writer waits up to the lock timeout (tracker.config.database) for another process's write to
end, says that it waits and how long it waited, and never fails half-way with "database is
locked". And the lock a new connection needs to turn a new file to WAL, which SQLite's busy
handler does not wait for (sqlite_pragmas waits for it here).

SQLite waits inside C, where Python runs no signal handler: the wait goes on in slices of
_QUICK_TRY seconds, so that SIGTERM and SIGINT end a waiting command within one slice.
"""

from __future__ import annotations

import logging
import sqlite3
import time
from typing import Any

from tracker.errors import StoreError

log = logging.getLogger("tracker.store")
_QUICK_TRY = 1.0  # seconds to wait before saying that we wait; and each slice of the wait


def take_write_lock(raw: Any, timeout: float, safe_url: str) -> None:
    """BEGIN IMMEDIATE on the sqlite3 connection `raw` (unless a transaction is open), waiting
    up to `timeout` seconds; StoreError naming the database `safe_url` when that runs out."""
    if raw.in_transaction:
        return
    try:
        raw.execute(f"PRAGMA busy_timeout = {int(min(_QUICK_TRY, timeout) * 1000)}")
        try:
            raw.execute("BEGIN IMMEDIATE")
            return
        except raw.OperationalError as exc:
            if "locked" not in str(exc) or timeout <= _QUICK_TRY:
                raise
        log.warning(
            "database %s: another process is writing to it; waiting up to %g s for its write lock",
            safe_url,
            timeout,
        )
        started = time.monotonic()
        deadline = started + timeout - _QUICK_TRY
        while not _begin(raw, deadline):
            if time.monotonic() >= deadline:
                raise StoreError(
                    f"database {safe_url} is locked: another process held SQLite's write lock "
                    f"for over {timeout:g} s, the longest tracker waits; nothing was written "
                    "(is a stuck process holding it? `fuser` on the file names it; "
                    "TRACKER_DB_LOCK_TIMEOUT sets the wait)"
                )
        log.info(
            "database %s: got the write lock after waiting %.0f s for another writer",
            safe_url,
            time.monotonic() - started,
        )
    finally:
        raw.execute(f"PRAGMA busy_timeout = {int(timeout * 1000)}")


def _begin(raw: Any, deadline: float) -> bool:
    """One slice of the wait (at most _QUICK_TRY s, never past `deadline`): whether BEGIN
    IMMEDIATE got the lock."""
    slice_ms = max(1, int(min(_QUICK_TRY, deadline - time.monotonic()) * 1000))
    raw.execute(f"PRAGMA busy_timeout = {slice_ms}")
    try:
        raw.execute("BEGIN IMMEDIATE")
        return True
    except raw.OperationalError as exc:
        if "locked" not in str(exc):
            raise
        return False


def sqlite_pragmas(dbapi_connection: Any, busy_timeout: float) -> None:
    """A new connection's settings."""
    cursor = dbapi_connection.cursor()
    # WAL lets analysts read while the nightly writes; busy_timeout waits out another writer.
    cursor.execute(f"PRAGMA busy_timeout={int(busy_timeout * 1000)}")
    _turn_to_wal(cursor, busy_timeout)
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.close()


def _turn_to_wal(cursor, busy_timeout: float) -> None:
    """PRAGMA journal_mode=WAL, waiting up to `busy_timeout` for another connection's write
    lock. Turning a file that is not WAL yet (a new one) to WAL reads it, then writes it, and
    SQLite fails a reader's ask to write at once, without its busy handler (waiting could
    deadlock): a second `init-db` connecting while the first turned the new file to WAL ended
    in "database is locked". The failed statement holds no lock, so waiting and asking again
    is safe; once the file is WAL the pragma writes nothing."""
    deadline, pause = time.monotonic() + busy_timeout, 0.005
    while True:
        try:
            cursor.execute("PRAGMA journal_mode=WAL")
            return
        except sqlite3.OperationalError as exc:
            if "locked" not in str(exc) or time.monotonic() >= deadline:
                raise
        time.sleep(pause)
        pause = min(pause * 2, 0.1)
