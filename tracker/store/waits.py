"""The store's bounded waits on PostgreSQL (tracker.config.database.DatabaseWaits): the connect
timeout, the lock timeout and the statement deadline given to each new connection, and the one
line that says which of them ended a statement. SQLite's lock wait is tracker.store.sqlite_lock.

The lock timeout and the deadline are set on each new connection (one round trip, once per
pooled connection), not sent in libpq's startup `options`, which PgBouncer refuses; a SET LOCAL
in a transaction still wins there (`tracker query --timeout`).
"""

from __future__ import annotations

import math
from dataclasses import replace
from typing import Any

from sqlalchemy.engine import Engine
from sqlalchemy.exc import SQLAlchemyError

from tracker.config.database import DatabaseWaits
from tracker.errors import first_line

LOCK_NOT_AVAILABLE, QUERY_CANCELED = "55P03", "57014"
# The tables another session holds a lock on that blocks this one's reads or writes (what a
# statement that gave up on a lock most likely waited for: the wait itself is over by now).
BLOCKING_LOCKS = """
SELECT DISTINCT c.relname FROM pg_locks l JOIN pg_class c ON c.oid = l.relation
 WHERE l.granted AND l.pid <> pg_backend_pid()
   AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())
   AND l.mode IN ('AccessExclusiveLock', 'ExclusiveLock', 'ShareRowExclusiveLock', 'ShareLock')
   AND c.relkind IN ('r', 'p', 'm')
 ORDER BY 1
"""


def postgres_connect_params(cparams: dict[str, Any], waits: DatabaseWaits) -> None:
    """Add the connect timeout to psycopg's connect parameters (SQLAlchemy's do_connect
    event); a connect_timeout in the URL itself is kept."""
    # libpq counts whole seconds and never less than 2
    cparams.setdefault("connect_timeout", max(2, math.ceil(waits.connect_timeout)))


def postgres_session(dbapi_connection: Any, waits: DatabaseWaits) -> None:
    """Set the lock timeout and the statement deadline of a new psycopg connection (SQLAlchemy's
    connect event), committed: a rollback would undo them."""
    with dbapi_connection.cursor() as cursor:
        cursor.execute(
            "SELECT set_config('lock_timeout', %s, false), "
            "set_config('statement_timeout', %s, false)",
            (f"{_ms(waits.lock_timeout)}ms", f"{_ms(waits.statement_timeout)}ms"),
        )
    dbapi_connection.commit()


def _ms(seconds: float) -> int:
    return max(1, round(seconds * 1000))


def wait_problem(exc: Exception, waits: DatabaseWaits) -> str | None:
    """What `exc` (a SQLAlchemy or driver error) says about a wait that ran out: "waited 15 s
    for the server to answer the connection", "waited 600 s for a lock held by another
    session", "a statement ran past its 1800 s deadline"; None when it is about something
    else. The caller names the database and the tables."""
    error = getattr(exc, "orig", None) or exc
    if type(error).__name__ == "ConnectionTimeout":
        seconds = max(2, math.ceil(waits.connect_timeout))
        return f"waited {seconds:g} s for the server to answer the connection"
    state = getattr(error, "sqlstate", None)
    if state == LOCK_NOT_AVAILABLE:
        return f"waited {waits.lock_timeout:g} s for a lock held by another session"
    if state == QUERY_CANCELED and "statement timeout" in str(error):
        return f"a statement ran past its {waits.statement_timeout:g} s deadline"
    return None


def advice(problem: str) -> str:
    """What an operator does next, for a wait_problem."""
    if "connection" in problem:
        return "is the server up and answering? TRACKER_DB_CONNECT_TIMEOUT sets the wait"
    if "lock" in problem:
        return (
            "pg_stat_activity names the session holding it; TRACKER_DB_LOCK_TIMEOUT sets the wait"
        )
    return "is it stuck, or is the store bigger? TRACKER_DB_STATEMENT_TIMEOUT sets the deadline"


def failure_line(
    exc: Exception, waits: DatabaseWaits, safe_url: str, engine: Engine, outcome: str = ""
) -> str:
    """The one line for a database error `exc` on the database `safe_url`: a wait that ran out
    says what it waited for (for a lock, the tables other sessions lock), then `outcome` and
    what to do; any other error, its first line."""
    in_url = engine.url.query.get("connect_timeout")  # kept by postgres_connect_params
    if isinstance(in_url, str) and in_url.replace(".", "", 1).isdigit():
        waits = replace(waits, connect_timeout=float(in_url))
    problem = wait_problem(exc, waits)
    if problem is None:
        return f"database {safe_url}: {first_line(exc)}" + (f" ({outcome})" if outcome else "")
    if "lock" in problem:
        tables = _locked_tables(engine)
        problem += f" on table {tables}" if tables else ""
    done = f"; {outcome}" if outcome else ""
    return f"database {safe_url}: {problem}{done} ({advice(problem)})"


def _locked_tables(engine: Engine) -> str:
    """The tables other sessions hold a blocking lock on ("" when none, or unknown)."""
    try:
        with engine.connect() as conn:
            return ", ".join(conn.exec_driver_sql(BLOCKING_LOCKS).scalars())
    except SQLAlchemyError:
        return ""
