"""Turning a SQLite file to WAL without failing when another process does the same.

The store's connections use WAL (tracker.store.sqlite_lock.sqlite_pragmas); its pragma needs a lock
that SQLite's busy handler does not wait for, so the wait is here.
"""

from __future__ import annotations

import sqlite3
import time


def sqlite_wal(cursor, busy_timeout: float) -> None:
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
