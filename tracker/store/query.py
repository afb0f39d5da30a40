"""`tracker query`: one read-only statement, bounded in time, that Ctrl-C and SIGTERM stop at
once, and that on PostgreSQL never runs with more than a read-only role's rights.

Three lines of defence, outermost first:

1. the text: one statement, starting SELECT / WITH / EXPLAIN / VALUES / SHOW / TABLE, that names
   none of the functions reaching server files, other sessions, settings or dynamic SQL
   (`DENIED_FUNCTIONS`; the whole text is scanned, strings and comments included, so no quoting
   trick hides a name: a string that merely mentions one is refused too);
2. the session: SQLite `PRAGMA query_only`, PostgreSQL a READ ONLY transaction, rolled back;
3. the role (PostgreSQL): a superuser, a member of the server-file or signalling roles, or a
   role that can write tracker's tables runs the statement as the read-only role
   (`SET ROLE tracker_reader`, name from TRACKER_QUERY_ROLE); without that role it is refused.
   The strongest set-up is a login that is itself read-only (TRACKER_QUERY_DATABASE_URL):
   then there is no more privileged session user to go back to. docs/operations.md.

Time: `timeout` seconds (0 = none), through SQLite's progress handler and PostgreSQL's
`statement_timeout`. Signals: while the statement runs, SIGINT and SIGTERM interrupt it (SQLite
`interrupt()`, PostgreSQL a cancel request) and are raised again once it has stopped, so the
process ends as it would have (SIGTERM: exit 143). Python runs signal handlers only between
bytecodes, never while SQLite is inside C: the progress handler is Python code run every few
thousand SQLite instructions, which is when the handler gets its turn.
"""

from __future__ import annotations

import difflib
import logging
import re
import signal
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from sqlalchemy import Connection, Engine
from sqlalchemy.exc import SQLAlchemyError

from tracker.errors import StoreError, first_line

log = logging.getLogger("tracker.store")

DEFAULT_TIMEOUT = 60.0
_READ_ONLY_START = re.compile(
    r"^\s*(select|with|explain|values|show|table|pragma\s+table_info)\b", re.IGNORECASE
)
# Server files, other sessions, the server itself, settings (set_config('role', ...) would undo
# SET ROLE) and functions that run SQL given as a string (which could spell any of these).
DENIED_FUNCTIONS = re.compile(
    r"\b(pg_read_file|pg_read_binary_file|pg_ls_\w*|pg_stat_file|pg_file_\w*|pg_logdir_ls"
    r"|lo_\w+|loread|lowrite|pg_terminate_backend|pg_cancel_backend|pg_reload_conf"
    r"|pg_rotate_logfile|pg_promote|pg_log_backend_memory_contexts|pg_switch_wal"
    r"|pg_create_restore_point|pg_\w*replication_slot\w*|pg_replication_origin\w*"
    r"|set_config|query_to_xml\w*|cursor_to_xml\w*|ts_stat|ts_rewrite|dblink\w*"
    r"|pg_background\w*|pg_notify|load_extension|readfile|writefile)\b"
    # U&"..." spells an identifier with escapes: it could spell any name above
    r"|\bu&\"",
    re.IGNORECASE,
)
# Membership in these gives server-file access or the right to signal other sessions.
_POWER_ROLES = (
    "pg_read_server_files",
    "pg_write_server_files",
    "pg_execute_server_program",
    "pg_signal_backend",
    "pg_write_all_data",
)
_PRIVILEGES = f"""
SELECT current_user AS name,
       (SELECT rolsuper FROM pg_roles WHERE rolname = current_user) AS superuser,
       (SELECT string_agg(rolname, ', ' ORDER BY rolname) FROM pg_roles
         WHERE rolname IN ({", ".join(f"'{r}'" for r in _POWER_ROLES)})
           AND pg_has_role(current_user, oid, 'USAGE')) AS powers,
       (SELECT string_agg(relname, ', ' ORDER BY relname) FROM pg_class
         WHERE relkind IN ('r', 'p')
           AND relnamespace = coalesce(
                 (SELECT relnamespace FROM pg_class WHERE oid = to_regclass('events')),
                 to_regnamespace(current_schema()))
           AND has_table_privilege(oid, 'INSERT, UPDATE, DELETE, TRUNCATE')) AS writes
"""


# First words of statements that write or change the database or the session: a refusal, not
# a typo (anything else that is not SELECT / WITH / EXPLAIN is reported as unreadable).
_WRITING_WORDS = frozenset(
    "INSERT UPDATE DELETE UPSERT MERGE REPLACE DROP CREATE ALTER TRUNCATE RENAME GRANT REVOKE "
    "ATTACH DETACH PRAGMA VACUUM ANALYZE REINDEX COPY SET RESET BEGIN COMMIT ROLLBACK SAVEPOINT "
    "RELEASE LOCK CALL DO EXECUTE PREPARE DEALLOCATE LISTEN NOTIFY UNLISTEN LOAD CLUSTER "
    "COMMENT DISCARD REFRESH SECURITY IMPORT".split()
)


def check_statement(sql: str) -> str:
    """The statement to run (trimmed), or StoreError saying why it is refused unexecuted."""
    statement = sql.strip().rstrip(";").strip()
    if ";" in _strip_sql_strings(statement):
        raise StoreError("one statement at a time, please (found ';' inside the query)")
    bare = _strip_sql_comments(statement)
    if not _READ_ONLY_START.match(bare):
        first = (bare.split() or [""])[0].upper()
        if first in _WRITING_WORDS:
            raise StoreError(
                f"refused: {first} writes or changes the database; `tracker query` runs "
                "read-only statements (SELECT / WITH / EXPLAIN); nothing was executed"
            )
        guess = difflib.get_close_matches(first, ("SELECT", "WITH", "EXPLAIN"), n=1)
        hint = f" (did you mean {guess[0]}?)" if guess else ""
        raise StoreError(
            f"not a statement `tracker query` runs: it starts with {first[:40]!r}{hint}; "
            "start with SELECT, WITH or EXPLAIN; nothing was executed"
        )
    denied = DENIED_FUNCTIONS.search(statement)
    if denied:
        name = denied.group().rstrip('&"')
        raise StoreError(
            f"refused: {name!r} reaches server files, other sessions, "
            "settings or dynamic SQL, which `tracker query` never runs (the check reads "
            "strings and comments too); nothing was executed"
        )
    return statement


def run_query(engine: Engine, sql: str, timeout: float, role: str) -> tuple[list[str], list[tuple]]:
    """Run one read-only statement on `engine`: (column names, rows). StoreError when it is
    refused, fails or outlives `timeout` seconds (0: no limit); a signal that arrives meanwhile
    stops it and is raised again afterwards."""
    statement = check_statement(sql)
    dialect = engine.dialect.name
    try:
        with engine.connect() as conn:
            driver_errors = conn.dialect.loaded_dbapi.Error
            try:
                if dialect == "postgresql":
                    return _run_postgres(conn, statement, timeout, role)
                return _run_sqlite(conn, statement, timeout)
            finally:
                conn.rollback()
    except (SQLAlchemyError, driver_errors) as exc:
        raise StoreError(f"query failed: {first_line(exc)}") from None


def _limit_message(timeout: float) -> str:
    return (
        f"query stopped: it ran longer than its time limit of {timeout:g} s "
        "(`tracker query --timeout SECONDS`, 0 for none); nothing was changed"
    )


def _run_sqlite(conn: Connection, statement: str, timeout: float):
    raw: Any = conn.connection.driver_connection
    deadline = time.monotonic() + timeout if timeout > 0 else None
    expired = []

    def progress() -> int:
        # Python code: signal handlers run here. Non-zero stops the statement.
        if deadline is not None and time.monotonic() > deadline:
            expired.append(True)
            return 1
        return 0

    conn.exec_driver_sql("PRAGMA query_only = ON")
    raw.set_progress_handler(progress, 5000)
    try:
        with _stoppable(raw.interrupt):
            try:
                result = conn.exec_driver_sql(statement)
                columns = list(result.keys()) if result.returns_rows else []
                rows = [tuple(r) for r in result] if result.returns_rows else []
            except SQLAlchemyError as exc:
                if expired and "interrupt" in str(exc):
                    raise StoreError(_limit_message(timeout)) from None
                raise
    finally:
        raw.set_progress_handler(None, 0)
        conn.rollback()
        conn.exec_driver_sql("PRAGMA query_only = OFF")
    return columns, rows


def _run_postgres(conn: Connection, statement: str, timeout: float, role: str):
    import psycopg

    raw: Any = conn.connection.driver_connection
    conn.exec_driver_sql("SET TRANSACTION READ ONLY")
    conn.exec_driver_sql(f"SET LOCAL statement_timeout = {int(timeout * 1000)}")
    _drop_privileges(conn, role)
    cursor = raw.cursor()
    try:
        with _stoppable(raw.cancel):
            try:
                # The extended protocol takes exactly one statement: text the lexical check
                # misreads ($$-quoting) cannot smuggle a COMMIT, and a write after it, out of
                # the read-only transaction.
                cursor.execute(statement, prepare=True)
            except psycopg.errors.QueryCanceled as exc:
                if "statement timeout" in str(exc):
                    raise StoreError(_limit_message(timeout)) from None
                raise
            if cursor.description is None:
                return [], []
            columns = [column.name for column in cursor.description]
            return columns, [tuple(r) for r in cursor.fetchall()]
    finally:
        cursor.close()


def _privileges(conn: Connection) -> tuple[str, str]:
    """(current role, what makes it more than a reader: "" when nothing)."""
    row = conn.exec_driver_sql(_PRIVILEGES).one()
    if row.superuser:
        return row.name, "is a superuser"
    reasons = []
    if row.powers:
        reasons.append(f"is a member of {row.powers}")
    if row.writes:
        reasons.append(f"can write tables ({_short(row.writes)})")
    return row.name, " and ".join(reasons)


def _drop_privileges(conn: Connection, role: str) -> None:
    """Leave the session running as a role that can only read (StoreError when there is
    none): as it is when it already is one, else as `role` through SET LOCAL ROLE."""
    user, why = _privileges(conn)
    if not why:
        return
    advice = (
        f"create the read-only role {role} and GRANT {role} TO {user} (docs/operations.md, "
        "'Read-only queries'), or set TRACKER_QUERY_DATABASE_URL to a read-only login's URL; "
        "nothing was executed"
    )
    if conn.exec_driver_sql("SELECT 1 FROM pg_roles WHERE rolname = %s", (role,)).first() is None:
        raise StoreError(f"refused: {user} {why}, and there is no role {role}: {advice}")
    if not conn.exec_driver_sql(
        "SELECT pg_has_role(current_user, %s, 'MEMBER')", (role,)
    ).scalar_one():
        raise StoreError(f"refused: {user} {why} and is not a member of {role}: {advice}")
    quoted = conn.dialect.identifier_preparer.quote_identifier(role)
    conn.exec_driver_sql(f"SET LOCAL ROLE {quoted}")
    _, still = _privileges(conn)
    if still:
        raise StoreError(
            f"refused: the query role {role} {still}; it must only read (docs/operations.md, "
            "'Read-only queries'); nothing was executed"
        )
    log.info("query: %s %s, so the statement runs as the read-only role %s", user, why, role)


def _short(names: str, keep: int = 3) -> str:
    parts = names.split(", ")
    return ", ".join(parts[:keep]) + (f" and {len(parts) - keep} more" if len(parts) > keep else "")


@contextmanager
def _stoppable(interrupt: Callable[[], object]) -> Iterator[None]:
    """While the block runs, SIGINT and SIGTERM call `interrupt` (which stops the running
    statement) instead of raising inside the driver; on the way out the previous handlers come
    back and the signal is raised again, so it ends the process as it would have."""
    if threading.current_thread() is not threading.main_thread():
        yield  # signal handlers belong to the main thread; the time limit still holds
        return
    caught: list[int] = []

    def handler(signum: int, _frame: object) -> None:
        if not caught:
            caught.append(signum)
            interrupt()

    previous = {sig: signal.signal(sig, handler) for sig in (signal.SIGINT, signal.SIGTERM)}
    try:
        yield
    finally:
        for sig, old in previous.items():
            signal.signal(sig, old if old is not None else signal.SIG_DFL)
        if caught:
            signal.raise_signal(caught[0])


# Strings, quoted names and comments, read left to right (a '--' inside a string is a string).
_SQL_LEXEMES = re.compile(r"'(?:[^']|'')*'|\"(?:[^\"]|\"\")*\"|--[^\n]*|/\*.*?\*/", re.DOTALL)


def _strip_sql_comments(sql: str) -> str:
    return _SQL_LEXEMES.sub(lambda m: m.group() if m.group()[0] in "'\"" else " ", sql)


def _strip_sql_strings(sql: str) -> str:
    return _SQL_LEXEMES.sub(lambda m: "''" if m.group()[0] in "'\"" else " ", sql)
