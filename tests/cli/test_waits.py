"""Every wait on the database is bounded, and SIGTERM / SIGINT end every command within seconds
(docs/operations.md, "Waits and signals"): `python -m tracker` in a subprocess against a local
socket that never answers, a real PostgreSQL database whose `events` table another session
locks, and a real SQLite file whose write lock another connection holds.

Subprocess timeouts here only keep a hanging command from hanging the suite; nothing asserts a
duration."""

from __future__ import annotations

import hashlib
import os
import selectors
import signal
import socket
import sqlite3
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import pytest
import yaml
from sqlalchemy import create_engine, text

from tests.conftest import PG_SKIP, PG_URL, REPO, create_pg_database, drop_pg_database

HANG = 60  # seconds after which a command that should have ended is a hung one
FEW_SOURCES = ("pytorch-releases", "rocm-releases", "pytorch-issues-rocm")


def tracker(db: str, *args: str, env: dict[str, str], **popen) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-m", "tracker", "--db", db, *args],
        env=env,
        cwd=REPO,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        **popen,
    )


def finished(proc: subprocess.Popen) -> tuple[int, str]:
    """(exit code, stderr) of `proc`, killed (and the test failed) if it hangs."""
    try:
        _, err = proc.communicate(timeout=HANG)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.communicate()
        pytest.fail(f"{proc.args[4:]} still running after {HANG} s")
    return proc.returncode, err


def environment(sources: Path, **waits: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("TRACKER_DB_")}
    env.pop("TRACKER_DATABASE_URL", None)
    env["TRACKER_SOURCES"] = str(sources)
    env.update({f"TRACKER_DB_{name.upper()}": value for name, value in waits.items()})
    return env


@pytest.fixture(scope="module")
def few_sources(tmp_path_factory) -> Path:
    """The demo's sources.yaml with three of its sources: a report in seconds."""
    raw = yaml.safe_load((REPO / "sources.yaml").read_text(encoding="utf-8"))
    raw["sources"] = [s for s in raw["sources"] if s["id"] in FEW_SOURCES]
    raw["coverage"] = []
    path = tmp_path_factory.mktemp("few") / "sources.yaml"
    path.write_text(yaml.safe_dump(raw), encoding="utf-8")
    return path


def one_error_line(err: str, *expected: str) -> None:
    lines = [line for line in err.splitlines() if line.startswith("tracker: error:")]
    assert len(lines) == 1 and "Traceback" not in err, err
    for part in expected:
        assert part in lines[0], err


# -- a server that accepts the connection and never answers ------------------------------------


@dataclass
class Silent:
    port: int
    accepted: list[socket.socket]


@pytest.fixture
def silent_server() -> Iterator[Silent]:
    """A local port that accepts connections and never sends a byte, and what it accepted."""
    listener = socket.create_server(("127.0.0.1", 0))
    server = Silent(listener.getsockname()[1], [])

    def accept() -> None:
        while True:
            try:
                server.accepted.append(listener.accept()[0])
            except OSError:  # closed: the test is over
                return

    threading.Thread(target=accept, daemon=True).start()
    yield server
    listener.close()
    for conn in server.accepted:
        conn.close()


@pytest.mark.parametrize("command", [("report",), ("nightly", "--replay", "cassettes")])
def test_a_silent_server_ends_the_command_at_the_connect_timeout(
    silent_server, few_sources, tmp_path, command
):
    db = f"postgresql+psycopg://postgres@127.0.0.1:{silent_server.port}/x"
    args = [*command, "--out", str(tmp_path / "report")]
    code, err = finished(tracker(db, *args, env=environment(few_sources, connect_timeout="2")))
    assert code == 1
    one_error_line(
        err,
        f"127.0.0.1:{silent_server.port}/x",
        "waited 2 s for the server to answer the connection",
    )
    # one wait, not one per step: the nightly asked again after its init-db failed (2 waits)
    assert len(silent_server.accepted) == 1


# -- a PostgreSQL table locked by another session ----------------------------------------------


@pytest.fixture(scope="module")
def filled_pg(few_sources, tmp_path_factory) -> Iterator[tuple[str, Path]]:
    """A throwaway PostgreSQL database filled by the demo nightly of FEW_SOURCES, and the
    report folder it wrote."""
    if not PG_URL:
        pytest.skip(PG_SKIP)
    url = create_pg_database()
    out = tmp_path_factory.mktemp("pg") / "report"
    env = environment(few_sources)
    try:
        for args in (("init-db",), ("nightly", "--replay", "cassettes", "--out", str(out))):
            code, err = finished(tracker(url, *args, env=env))
            assert code == 0, err
        yield url, out
    finally:
        drop_pg_database(url)


@contextmanager
def events_locked(url: str) -> Iterator[object]:
    """`LOCK TABLE events` held by another session for the block; yields its connection."""
    engine = create_engine(url)
    try:
        with engine.connect() as conn:
            conn.execute(text("LOCK TABLE events IN ACCESS EXCLUSIVE MODE"))
            yield conn
            conn.rollback()
    finally:
        engine.dispose()


def wait_until_blocked(url: str, proc: subprocess.Popen) -> None:
    """Return once a session of the database waits for a lock (the command under test)."""
    engine = create_engine(url, isolation_level="AUTOCOMMIT")
    deadline = time.monotonic() + HANG
    try:
        with engine.connect() as conn:
            while time.monotonic() < deadline and proc.poll() is None:
                waiting = conn.execute(
                    text(
                        "SELECT count(*) FROM pg_stat_activity "
                        "WHERE datname = current_database() AND wait_event_type = 'Lock'"
                    )
                ).scalar_one()
                if waiting:
                    return
                time.sleep(0.1)
    finally:
        engine.dispose()
    proc.kill()
    pytest.fail(f"{proc.args[4:]} never waited for the lock: {proc.communicate()[1]}")


def folder_state(folder: Path) -> dict[str, str]:
    return {
        str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    }


@pytest.mark.parametrize("command", [("report",), ("collect", "--replay", "cassettes")])
def test_a_locked_table_ends_the_command_at_the_lock_timeout(
    filled_pg, few_sources, tmp_path, command
):
    url, _ = filled_pg
    args = [*command, "--out", str(tmp_path / "report")] if command[0] == "report" else command
    with events_locked(url):
        code, err = finished(tracker(url, *args, env=environment(few_sources, lock_timeout="2")))
    assert code == 1
    one_error_line(
        err, url.split("@")[-1], "waited 2 s for a lock held by another session on table events"
    )


@pytest.mark.parametrize(
    "command, signum",
    [
        (("report",), signal.SIGTERM),
        (("digest", "--dry-run"), signal.SIGTERM),
        (("report",), signal.SIGINT),
        (("nightly", "--replay", "cassettes"), signal.SIGINT),
    ],
    ids=["report-SIGTERM", "digest-SIGTERM", "report-SIGINT", "nightly-SIGINT"],
)
def test_a_signal_ends_a_command_waiting_for_a_lock(
    filled_pg, few_sources, tmp_path, command, signum
):
    url, report = filled_pg
    before = folder_state(report)
    target = {"report": ["--out", str(report)], "nightly": ["--out", str(report)]}
    args = [*command, *target.get(command[0], [str(tmp_path / "digest.eml")])]
    with events_locked(url):
        proc = tracker(url, *args, env=environment(few_sources, lock_timeout="600"))
        wait_until_blocked(url, proc)
        held = lock_rows(url)
        proc.send_signal(signum)
        code, err = finished(proc)
    assert code == 128 + signum, err
    assert "Traceback" not in err, err
    assert folder_state(report) == before  # the previous report is in place
    if command[0] == "nightly":  # blocked while it held the nightly and a source's lock
        assert "nightly" in held, held
    assert lock_rows(url) == []  # the run's locks are released


def lock_rows(url: str) -> list[str]:
    engine = create_engine(url)
    try:
        with engine.connect() as conn:
            return list(conn.execute(text("SELECT name FROM locks ORDER BY name")).scalars())
    finally:
        engine.dispose()


# -- SQLite's write lock held by another connection --------------------------------------------


@pytest.fixture
def sqlite_locked(tmp_path, few_sources) -> Iterator[str]:
    """An initialised SQLite store whose write lock another connection holds (BEGIN
    IMMEDIATE) for the test; yields its URL."""
    path = tmp_path / "tracker.db"
    db = f"sqlite:///{path}"
    code, err = finished(tracker(db, "init-db", env=environment(few_sources)))
    assert code == 0, err
    holder = sqlite3.connect(path, timeout=0, isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")
    yield db
    holder.rollback()
    holder.close()


COLLECT = ("collect", "--replay", "cassettes", "--source", "pytorch-releases")


def test_a_sqlite_write_lock_ends_the_command_at_the_lock_timeout(sqlite_locked, few_sources):
    code, err = finished(
        tracker(sqlite_locked, *COLLECT, env=environment(few_sources, lock_timeout="3"))
    )
    assert code == 1
    one_error_line(err, "is locked: another process held SQLite's write lock for over 3 s")


def test_the_database_section_of_sources_yaml_sets_the_waits_and_the_environment_wins(
    sqlite_locked, few_sources, tmp_path
):
    configured = tmp_path / "sources.yaml"
    raw = yaml.safe_load(few_sources.read_text(encoding="utf-8"))
    configured.write_text(yaml.safe_dump({**raw, "database": {"lock_timeout": 2}}))
    code, err = finished(tracker(sqlite_locked, *COLLECT, env=environment(configured)))
    assert code == 1 and "write lock for over 2 s" in err, err
    env = environment(configured, lock_timeout="3")
    code, err = finished(tracker(sqlite_locked, *COLLECT, env=env))
    assert code == 1 and "write lock for over 3 s" in err, err


def test_a_signal_ends_a_command_waiting_for_sqlites_write_lock(sqlite_locked, few_sources):
    proc = tracker(sqlite_locked, *COLLECT, env=environment(few_sources, lock_timeout="600"))
    said = wait_for_line(proc, "another process is writing to it")
    proc.send_signal(signal.SIGTERM)
    code, err = finished(proc)
    assert code == 143 and "Traceback" not in said + err, said + err


def wait_for_line(proc: subprocess.Popen, text: str) -> str:
    """stderr of `proc` up to the line holding `text` (the test fails if none comes). Read from
    the descriptor itself: a buffered readline() would hold lines the selector cannot see."""
    assert proc.stderr is not None
    selector = selectors.DefaultSelector()
    selector.register(proc.stderr, selectors.EVENT_READ)
    seen, deadline = b"", time.monotonic() + HANG
    while text.encode() not in seen and time.monotonic() < deadline:
        if selector.select(timeout=1):
            chunk = os.read(proc.stderr.fileno(), 65536)
            if not chunk:
                break
            seen += chunk
    if text.encode() not in seen:
        proc.kill()
        pytest.fail(f"no {text!r} from {proc.args[4:]}: {seen.decode(errors='replace')}")
    return seen.decode(errors="replace")


@pytest.mark.parametrize(
    "variable, value",
    [("CONNECT", "soon"), ("LOCK", "0"), ("STATEMENT", "-5"), ("LOCK", "nan")],
)
def test_a_bad_wait_setting_is_one_line_naming_it(tmp_path, few_sources, variable, value):
    env = {**environment(few_sources), f"TRACKER_DB_{variable}_TIMEOUT": value}
    code, err = finished(tracker(f"sqlite:///{tmp_path / 't.db'}", "init-db", env=env))
    assert code == 1
    one_error_line(err, f"TRACKER_DB_{variable}_TIMEOUT", "expected a number of seconds")


def test_a_statement_past_its_deadline_ends_the_command(filled_pg, few_sources, tmp_path):
    # a deadline of 1 ms: the report's reads take tens of ms on the filled database
    url, _ = filled_pg
    env = environment(few_sources, statement_timeout="0.001")
    code, err = finished(tracker(url, "report", "--out", str(tmp_path / "r"), env=env))
    assert code == 1
    one_error_line(err, url.split("@")[-1], "a statement ran past its 0.001 s deadline")


def test_a_signal_ends_the_scheduler_with_its_exit_code(tmp_path, few_sources):
    db = f"sqlite:///{tmp_path / 't.db'}"
    env = environment(few_sources)
    proc = tracker(db, "schedule", "--cron", "0 2 * * *", "--out", str(tmp_path / "r"), env=env)
    wait_for_line(proc, "Scheduler started")
    proc.send_signal(signal.SIGTERM)
    code, err = finished(proc)
    assert code == 143 and "scheduler stopped" in err and "Traceback" not in err, err
