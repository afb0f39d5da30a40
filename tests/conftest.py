"""Shared fixtures: real SQLite files, a real PostgreSQL database, the corpus folder.

PostgreSQL tests need TRACKER_TEST_PG_URL (CI always sets it, e.g.
postgresql+psycopg://postgres@127.0.0.1:5432/test). Without it they are skipped, loudly: the
reason shows in the summary and in the header.
"""

from __future__ import annotations

import os
import uuid
from contextlib import contextmanager
from pathlib import Path

import pytest
from sqlalchemy import create_engine, text
from sqlalchemy.engine import make_url

from tracker.store import Store
from tracker.store.tables import metadata

REPO = Path(__file__).resolve().parents[1]
CORPUS = Path(os.environ.get("TRACKER_CORPUS", REPO.parent / "shared" / "corpus"))
PG_URL = os.environ.get("TRACKER_TEST_PG_URL")
PG_SKIP = "PostgreSQL tests SKIPPED: set TRACKER_TEST_PG_URL (CI does) to run them"


def pytest_report_header(config):
    lines = [f"corpus: {CORPUS} ({'present' if CORPUS.is_dir() else 'ABSENT: corpus tests skip'})"]
    lines.append(f"postgresql: {PG_URL or 'NOT SET: ' + PG_SKIP}")
    return lines


@pytest.fixture
def corpus() -> Path:
    if not CORPUS.is_dir():
        pytest.skip(f"corpus folder {CORPUS} is absent (set TRACKER_CORPUS)")
    return CORPUS


def _admin_url():
    return make_url(PG_URL)


def create_pg_database() -> str:
    """A fresh throwaway database on the test server; returns its URL."""
    admin = _admin_url()
    name = f"tracker_test_{uuid.uuid4().hex[:10]}"
    engine = create_engine(admin, isolation_level="AUTOCOMMIT")
    with engine.connect() as conn:
        conn.execute(text(f'CREATE DATABASE "{name}"'))
    engine.dispose()
    return admin.set(database=name).render_as_string(hide_password=False)


def drop_pg_database(url: str) -> None:
    admin = _admin_url()
    name = make_url(url).database
    engine = create_engine(admin, isolation_level="AUTOCOMMIT")
    with engine.connect() as conn:
        conn.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
    engine.dispose()


@pytest.fixture
def pg_url():
    """A fresh, empty PostgreSQL database for one test (dropped afterwards)."""
    if not PG_URL:
        pytest.skip(PG_SKIP)
    url = create_pg_database()
    yield url
    drop_pg_database(url)


@pytest.fixture(scope="session")
def _pg_migrated():
    if not PG_URL:
        yield None
        return
    url = create_pg_database()
    Store(url).init_db()
    yield url
    drop_pg_database(url)


@pytest.fixture
def sqlite_store(tmp_path) -> Store:
    store = Store(f"sqlite:///{tmp_path / 'tracker.db'}")
    store.init_db()
    return store


@pytest.fixture
def pg_store(_pg_migrated) -> Store:
    if not _pg_migrated:
        pytest.skip(PG_SKIP)
    store = Store(_pg_migrated)
    with store.engine.begin() as conn:  # a clean slate, schema kept (migrating is slow)
        names = ", ".join(t.name for t in metadata.sorted_tables)
        conn.execute(text(f"TRUNCATE {names} CASCADE"))
    yield store
    store.engine.dispose()


@pytest.fixture(params=["sqlite", "postgresql"])
def store(request) -> Store:
    """The same test on a real SQLite file and on real PostgreSQL."""
    return request.getfixturevalue("sqlite_store" if request.param == "sqlite" else "pg_store")


# CLI tables fit the terminal's COLUMNS when it is set (tracker.cli.common.terminal_width): the
# tests read them whole, whatever the shell exported, unless a test sets it
os.environ.pop("COLUMNS", None)


@pytest.fixture(scope="session", autouse=True)
def pg_reader_role():
    """The read-only role `tracker query` switches to on the test server (named in
    TRACKER_QUERY_ROLE). Roles belong to the server, not to one database, so the name is unique
    to this session and the role is dropped at its end."""
    if not PG_URL:
        yield None
        return
    name = f"tracker_reader_{uuid.uuid4().hex[:8]}"
    with pg_admin() as conn:
        conn.execute(text(f'CREATE ROLE "{name}" NOLOGIN IN ROLE pg_read_all_data'))
    previous = os.environ.get("TRACKER_QUERY_ROLE")
    os.environ["TRACKER_QUERY_ROLE"] = name
    try:
        yield name
    finally:
        if previous is None:
            os.environ.pop("TRACKER_QUERY_ROLE", None)
        else:
            os.environ["TRACKER_QUERY_ROLE"] = previous
        with pg_admin() as conn:
            conn.execute(text(f'DROP ROLE IF EXISTS "{name}"'))


@contextmanager
def pg_admin(database: str | None = None):
    """An autocommit connection to the test server as its (super)user (to `database`, default
    the one TRACKER_TEST_PG_URL names), for roles and grants."""
    url = _admin_url() if database is None else _admin_url().set(database=database)
    engine = create_engine(url, isolation_level="AUTOCOMMIT")
    try:
        with engine.connect() as conn:
            yield conn
    finally:
        engine.dispose()


@pytest.fixture(scope="session")
def demo(tmp_path_factory):
    """The offline demo, run once per session as a user runs it: `tracker nightly --replay
    cassettes/` into a fresh SQLite file, as of DEMO_DAY (a Sunday, the end of ISO week
    DEMO_WEEK). Returns a `run(*args) -> stdout` for more commands on that store, the report
    folder and the nightly's stdout."""
    from click.testing import CliRunner

    from tracker.cli.main import cli

    folder = tmp_path_factory.mktemp("demo")
    runner = CliRunner()
    env = {"TRACKER_SOURCES": str(REPO / "sources.yaml")}
    base = ["--db", f"sqlite:///{folder / 'tracker.db'}"]

    def run(*args: str) -> str:
        result = runner.invoke(cli, [*base, *args], env=env, catch_exceptions=False)
        assert result.exit_code == 0, result.output
        return result.stdout

    out = folder / "report"
    nightly = run(
        "nightly", "--replay", str(REPO / "cassettes"), "--as-of", DEMO_DAY, "--out", str(out)
    )
    return {"run": run, "report": out, "folder": folder, "nightly": nightly}


DEMO_DAY, DEMO_WEEK = "2026-08-16", "2026-W33"
