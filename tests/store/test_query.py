"""`tracker query` on real SQLite files and the real PostgreSQL server: the time limit, signals
that stop a running statement, the functions that never run, and the read-only role.

Roles belong to the whole PostgreSQL server: every role made here has a unique name and is
dropped at the end of its test. Every test is bounded in time (subprocesses have timeouts, and
a statement that ignored its limit would still end by itself)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
import uuid

import pytest
from sqlalchemy import text
from sqlalchemy.engine import make_url

from tests.conftest import PG_SKIP, PG_URL, pg_admin
from tracker.errors import StoreError
from tracker.store import Store

# ~10^8 rows: minutes if nothing stops it, so a broken limit fails the test instead of hanging
LONG_SQLITE = (
    "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 100000000) "
    "SELECT count(*) FROM c"
)
ENDLESS_SQLITE = (
    "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT count(*) FROM c"
)


def test_a_statement_past_its_time_limit_is_stopped(store: Store):
    sql = LONG_SQLITE if store.dialect == "sqlite" else "SELECT pg_sleep(60)"
    started = time.monotonic()
    with pytest.raises(StoreError, match=r"time limit of 0.5 s .*nothing was changed"):
        store.read_only_query(sql, timeout=0.5)
    assert time.monotonic() - started < 30
    # the connection goes back to the pool clean: the next query runs, without a limit too
    assert store.read_only_query("SELECT 1", timeout=0)[1] == [(1,)]


@pytest.mark.parametrize(
    "sql",
    [
        "SELECT pg_read_file('/etc/hostname')",
        "SELECT * FROM pg_ls_dir('.')",
        "SELECT pg_stat_file('postgresql.conf')",
        "SELECT lo_export(1, '/tmp/x')",
        "SELECT lo_import('/etc/hostname')",
        "SELECT pg_terminate_backend(pid) FROM pg_stat_activity",
        "SELECT pg_cancel_backend(1)",
        "SELECT set_config('role', 'postgres', true)",
        "SELECT query_to_xml('select 1', true, false, '')",
        "SELECT dblink_exec('dbname=x', 'drop table events')",
        "SELECT \"pg_read_file\"('/etc/hostname')",
        "SELECT pg_catalog . PG_READ_FILE('/etc/hostname')",
        "SELECT U&\"pg\\005fread\\005ffile\"('/etc/hostname')",
        # an E'' string ends where a plain-string reading does not: the name is still found
        "SELECT E'\\'', pg_read_file('/etc/passwd')",
        "SELECT 1 /* pg_sleep */, pg_ls_waldir()",
    ],
)
def test_server_files_backends_and_settings_never_run(store: Store, sql):
    with pytest.raises(StoreError, match="refused: .*nothing was executed"):
        store.read_only_query(sql)


@pytest.mark.parametrize(
    ("sql", "said"),
    [
        (
            "SELEC * FROM events",
            "not a statement `tracker query` runs: it starts with 'SELEC' (did you mean SELECT?)",
        ),
        ("frobnicate", "not a statement `tracker query` runs: it starts with 'FROBNICATE';"),
        ("DELETE FROM events", "refused: DELETE writes or changes the database"),
        ("  -- a comment\n drop table events", "refused: DROP writes or changes the database"),
    ],
)
def test_a_typo_is_told_apart_from_a_write(sqlite_store: Store, sql, said):
    with pytest.raises(StoreError) as raised:
        sqlite_store.read_only_query(sql)
    assert said in str(raised.value) and "nothing was executed" in str(raised.value)


def _role(prefix: str) -> str:
    return f"{prefix}_{uuid.uuid4().hex[:8]}"


@pytest.fixture
def roles(pg_store):
    """Make roles on the test server for one test; drop them (and their grants) after."""
    made: list[str] = []
    database = make_url(pg_store.url).database

    def make(prefix: str, options: str = "NOLOGIN", grants: tuple[str, ...] = ()) -> str:
        name = _role(prefix)
        with pg_admin(database) as conn:
            conn.execute(text(f'CREATE ROLE "{name}" {options}'))
            made.append(name)
            for grant in grants:
                conn.execute(text(grant.format(role=f'"{name}"')))
        return name

    yield make
    with pg_admin(database) as conn:
        for name in reversed(made):
            conn.execute(text(f'DROP OWNED BY "{name}"'))
            conn.execute(text(f'DROP ROLE IF EXISTS "{name}"'))


def test_a_superuser_runs_queries_as_the_read_only_role(pg_store, pg_reader_role):
    columns, rows = pg_store.read_only_query("SELECT current_user, session_user")
    assert rows[0][0] == pg_reader_role  # the URL's superuser stays only the session user
    # what the role lacks is refused by the server too, not only by the name check
    with pytest.raises(StoreError, match="permission denied"):
        pg_store.read_only_query("SELECT pg_current_logfile()")


def test_a_superuser_without_the_read_only_role_is_refused(pg_store):
    with pytest.raises(StoreError, match=r"is a superuser, and there is no role tracker_no_"):
        pg_store.read_only_query("SELECT 1", role=_role("tracker_no"))


def test_a_role_that_can_write_must_switch_and_the_switch_must_read_only(pg_store, roles):
    writer = roles(
        "tracker_w",
        "LOGIN",
        ("GRANT SELECT, INSERT ON ALL TABLES IN SCHEMA public TO {role}",),
    )
    reader = roles(
        "tracker_r", "NOLOGIN", ("GRANT SELECT ON ALL TABLES IN SCHEMA public TO {role}",)
    )
    as_writer = Store(make_url(pg_store.url).set(username=writer).render_as_string(False))
    try:
        with pytest.raises(StoreError, match=f"{writer} can write tables .*not a member of"):
            as_writer.read_only_query("SELECT count(*) FROM events", role=reader)
        with pg_admin(make_url(pg_store.url).database) as conn:
            conn.execute(text(f'GRANT "{reader}" TO "{writer}"'))
        columns, rows = as_writer.read_only_query(
            "SELECT current_user, count(*) FROM events", role=reader
        )
        assert rows == [(reader, 0)]
        # a "reader" that can write is no reader: refused
        writing = roles("tracker_rw", "NOLOGIN", ("GRANT SELECT, UPDATE ON events TO {role}",))
        with pg_admin(make_url(pg_store.url).database) as conn:
            conn.execute(text(f'GRANT "{writing}" TO "{writer}"'))
        with pytest.raises(StoreError, match=f"query role {writing} can write tables"):
            as_writer.read_only_query("SELECT 1", role=writing)
        # a login that only reads runs as itself
        login = roles(
            "tracker_q", "LOGIN", ("GRANT SELECT ON ALL TABLES IN SCHEMA public TO {role}",)
        )
        as_reader = Store(make_url(pg_store.url).set(username=login).render_as_string(False))
        assert as_reader.read_only_query("SELECT session_user, current_user")[1] == [(login, login)]
        as_reader.engine.dispose()
    finally:
        as_writer.engine.dispose()


def _tracker(db: str, *args: str) -> list[str]:
    return [sys.executable, "-m", "tracker", "--db", db, *args]


def _stop_running_query(command: list[str], running, env=None) -> tuple[int, float, bytes]:
    """Start `command`, wait until `running()` says its statement runs, SIGTERM it; return its
    exit code, the seconds it took to exit after the signal, and its stderr."""
    proc = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    try:
        deadline = time.monotonic() + 60
        while not running(proc) and time.monotonic() < deadline and proc.poll() is None:
            time.sleep(0.2)
        assert proc.poll() is None, proc.communicate()
        sent = time.monotonic()
        proc.send_signal(signal.SIGTERM)
        _, err = proc.communicate(timeout=20)
        return proc.returncode, time.monotonic() - sent, err
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def _cpu_seconds(pid: int) -> float:
    fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


@pytest.mark.skipif(not os.path.exists("/proc/self/stat"), reason="needs /proc")
def test_sigterm_stops_a_running_sqlite_statement_at_once(tmp_path):
    db = f"sqlite:///{tmp_path / 'q.db'}"
    subprocess.run(_tracker(db, "init-db"), check=True, capture_output=True, timeout=120)
    # how much CPU starting tracker takes, so the signal is sent once the statement runs
    probe = subprocess.Popen(_tracker(db, "query", "SELECT 1"), stdout=subprocess.PIPE)
    startup = 0.0
    while probe.poll() is None:
        try:
            startup = max(startup, _cpu_seconds(probe.pid))
        except (FileNotFoundError, ProcessLookupError, IndexError):
            break
        time.sleep(0.05)
    probe.wait(timeout=120)
    code, took, err = _stop_running_query(
        _tracker(db, "query", "--timeout", "0", ENDLESS_SQLITE),
        lambda proc: _cpu_seconds(proc.pid) > startup + 2.0,
    )
    assert code == 128 + signal.SIGTERM, err
    assert took < 10, took
    assert b"Traceback" not in err, err


def test_sigterm_cancels_a_running_postgres_statement(pg_store):
    marker = f"q{uuid.uuid4().hex[:8]}"

    def backends() -> int:
        with pg_admin(make_url(pg_store.url).database) as conn:
            return conn.execute(
                text(
                    "SELECT count(*) FROM pg_stat_activity WHERE state = 'active' "
                    "AND query LIKE :m AND pid <> pg_backend_pid()"
                ),
                {"m": f"%{marker}%"},
            ).scalar_one()

    code, took, err = _stop_running_query(
        _tracker(pg_store.url, "query", "--timeout", "0", f"SELECT pg_sleep(120) /* {marker} */"),
        lambda proc: backends() > 0,
    )
    assert code == 128 + signal.SIGTERM, err
    assert took < 10, took
    deadline = time.monotonic() + 10
    while backends() and time.monotonic() < deadline:  # the server stopped it too
        time.sleep(0.2)
    assert backends() == 0


def test_query_url_is_apart_from_the_writers(pg_store, roles, tmp_path):
    if not PG_URL:
        pytest.skip(PG_SKIP)
    login = roles("tracker_q", "LOGIN", ("GRANT SELECT ON ALL TABLES IN SCHEMA public TO {role}",))
    query_url = make_url(pg_store.url).set(username=login).render_as_string(False)
    env = {**os.environ, "TRACKER_DATABASE_URL": pg_store.url}
    env["TRACKER_QUERY_DATABASE_URL"] = query_url
    command = [sys.executable, "-m", "tracker", "query", "SELECT session_user", "--format", "csv"]
    out = subprocess.run(command, env=env, capture_output=True, timeout=120, check=True)
    assert out.stdout.decode().split() == ["session_user", login]
    # --db on the command line still says which database
    local = f"sqlite:///{tmp_path / 'l.db'}"
    subprocess.run(_tracker(local, "init-db"), env=env, check=True, capture_output=True)
    out = subprocess.run(
        _tracker(local, "query", "SELECT count(*) AS n FROM events", "--format", "csv"),
        env=env,
        capture_output=True,
        timeout=120,
    )
    assert out.returncode == 0 and out.stdout.decode().split() == ["n", "0"], out.stderr
    env["TRACKER_QUERY_DATABASE_URL"] = "not-a-url"
    out = subprocess.run(command, env=env, capture_output=True, timeout=120)
    assert out.returncode == 1
    assert out.stderr.decode().startswith("tracker: error: TRACKER_QUERY_DATABASE_URL: 'not-a-url'")
