"""Statements that end when the process is told to stop (SIGTERM, SIGINT), in every thread.

Python runs a signal handler in the main thread only, and a driver stops the statement of the
thread the resulting exception reaches (psycopg cancels it; SQLite ends with its call). A
statement of another thread (the report reads on a second one: tracker.measure.figures) went
on waiting, a lock held elsewhere for ever, and the main thread, unwinding, waited for that
thread: `tracker report` ignored SIGTERM. tracker.cli.main's handler calls `stop_statements`
first: every statement running on a connection of any store is cancelled (PostgreSQL) or
interrupted (SQLite), and other threads start no new one, while the main thread unwinds and
releases what it holds (its rollback, the run's locks) on its own connection.
"""

from __future__ import annotations

import logging
import threading
from typing import Any

from sqlalchemy import event as sa_event
from sqlalchemy.engine import Engine

from tracker.errors import StoreError

log = logging.getLogger("tracker.store")
CANCEL_WAIT = 2.0  # seconds to wait for the server to take a cancel request
# driver connections checked out of any store's pool, by their pool record (checkin is told
# the record even when the connection was invalidated meanwhile)
_in_use: dict[int, Any] = {}
_stopping = threading.Event()


def watch(engine: Engine) -> None:
    """Follow `engine`'s connections in use, so that stop_statements reaches them."""
    sa_event.listen(engine, "checkout", _checked_out)
    sa_event.listen(engine, "checkin", _checked_in)
    sa_event.listen(engine, "before_cursor_execute", _refuse_once_stopping)


def stop_statements() -> None:
    """Stop every statement running on a store's connection, and refuse new ones outside the
    main thread. Meant for a signal handler: it neither blocks long nor raises."""
    _stopping.set()
    for connection in list(_in_use.values()):
        try:
            _interrupt(connection)
        except Exception as exc:  # a connection already gone has nothing to stop
            log.debug("could not stop a statement: %s", exc)


def _interrupt(connection: Any) -> None:
    if hasattr(connection, "cancel_safe"):  # psycopg: a cancel request, when it is busy
        from psycopg import pq

        if connection.pgconn.transaction_status == pq.TransactionStatus.ACTIVE:
            connection.cancel_safe(timeout=CANCEL_WAIT)
    elif hasattr(connection, "interrupt"):  # sqlite3: safe from any thread
        connection.interrupt()


def _checked_out(dbapi_connection: Any, record: Any, _proxy: Any) -> None:
    _in_use[id(record)] = dbapi_connection


def _checked_in(_dbapi_connection: Any, record: Any) -> None:
    _in_use.pop(id(record), None)


def _refuse_once_stopping(*_args: Any) -> None:
    if _stopping.is_set() and threading.current_thread() is not threading.main_thread():
        raise StoreError("stopped: the process was told to stop")
