"""The nightly's exit code says what its work did: output that cannot be written (a reader that
left, a full device) changes nothing, and a tagging failure keeps the last complete report and
ends in exit 3 with one line, not exit 0 and a report built on the tags stored before.

Real `python -m tracker` processes on real SQLite files (and PostgreSQL when configured)."""

from __future__ import annotations

import json
import os
import pwd
import re
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest
from sqlalchemy import create_engine, text

REPO = Path(__file__).resolve().parents[2]
CASSETTES = REPO / "cassettes"
TIMEOUT = 300  # a guard against a hang, not a measure
# A small source whose events are tagged (issues), and another for a later run.
ISSUES, RELEASES = "rocm-issues", "pytorch-releases"


def nightly(db: str, out: Path, source: str, **popen) -> subprocess.Popen:
    env = {**os.environ, "TRACKER_SOURCES": str(REPO / "sources.yaml")}
    env.pop("TRACKER_DATABASE_URL", None)
    command = [sys.executable, "-m", "tracker", "--db", db, "nightly", "--replay", str(CASSETTES)]
    command += ["--source", source, "--out", str(out)]
    return subprocess.Popen(command, env=env, cwd=out.parent, **popen)


def tag_rows(path: Path) -> int:
    with sqlite3.connect(path) as conn:
        return conn.execute("SELECT count(*) FROM tags").fetchone()[0]


@pytest.mark.parametrize("closed", [("stdout",), ("stdout", "stderr")], ids=["stdout", "both"])
def test_a_reader_that_left_does_not_stop_the_nightly(tmp_path, closed):
    # `tracker nightly | head -1` (or `2>&1 | head -1`), a cron wrapper keeping one line: the
    # reader is gone after its line. Here it is gone before the first, so that every write
    # fails, whatever the timing: the job still tags and reports, quietly, and exits 0.
    out = tmp_path / "r"
    reader, writer = os.pipe()
    os.close(reader)
    try:
        streams = {name: writer for name in closed}
        streams.setdefault("stderr", subprocess.PIPE)
        proc = nightly(f"sqlite:///{tmp_path / 't.db'}", out, ISSUES, **streams)
    finally:
        os.close(writer)
    _, err = proc.communicate(timeout=TIMEOUT)
    assert proc.returncode == 0, err
    assert err is None or not re.search(rb"Traceback|Logging error|tracker: error", err), err
    assert (out / "index.html").exists() and tag_rows(tmp_path / "t.db") > 0


@pytest.mark.parametrize("full", [("stdout",), ("stdout", "stderr")], ids=["stdout", "both"])
def test_a_full_device_under_the_output_does_not_stop_the_nightly(tmp_path, full):
    out = tmp_path / "r"
    with open("/dev/full", "wb") as device:
        streams = {name: device for name in full}
        streams.setdefault("stderr", subprocess.PIPE)
        proc = nightly(f"sqlite:///{tmp_path / 't.db'}", out, ISSUES, **streams)
        _, err = proc.communicate(timeout=TIMEOUT)
    assert proc.returncode == 0, err
    assert err is None or not re.search(rb"Traceback|Logging error|tracker: error", err), err
    assert (out / "index.html").exists() and tag_rows(tmp_path / "t.db") > 0


def run(db: str, out: Path, source: str) -> subprocess.CompletedProcess:
    proc = nightly(db, out, source, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    stdout, stderr = proc.communicate(timeout=TIMEOUT)
    return subprocess.CompletedProcess(proc.args, proc.returncode, stdout, stderr)


def check_tagging_failure_keeps_the_last_report(db: str, out: Path, fault: str, heal: str):
    first = run(db, out, RELEASES)
    assert first.returncode == 0, first.stdout + first.stderr
    before = {p.name: p.read_bytes() for p in out.iterdir()}

    engine = create_engine(db)
    with engine.begin() as conn:
        conn.execute(text(fault))
    failed = run(db, out, ISSUES)
    assert failed.returncode == 3, failed.stdout + failed.stderr
    assert "Traceback" not in failed.stderr
    said = (failed.stdout + failed.stderr).splitlines()
    named = [line for line in said if "tag: FAILED: database" in line]
    assert len(named) == 1 and engine.url.render_as_string(hide_password=True) in named[0]
    # the run's own lines end on stdout (stderr may end with a driver's warning about the
    # connection it lost, e.g. psycopg's "error ignored terminating <Pipeline>")
    assert failed.stdout.splitlines()[-1] == (
        f"nightly: partial: tag failed; the report is not published, {out} keeps the last "
        "complete run's report"
    )
    assert {p.name: p.read_bytes() for p in out.iterdir()} == before

    with engine.begin() as conn:
        conn.execute(text(heal))
    engine.dispose()
    healed = run(db, out, ISSUES)
    assert healed.returncode == 0, healed.stdout + healed.stderr
    assert (out / "index.html").read_bytes() != before["index.html"]


def test_a_tagging_failure_keeps_the_last_complete_report_and_exits_3(tmp_path):
    # A real database fault: every insert into tags fails, as when the server goes mid-way.
    check_tagging_failure_keeps_the_last_report(
        f"sqlite:///{tmp_path / 't.db'}",
        tmp_path / "r",
        "CREATE TRIGGER tags_fault BEFORE INSERT ON tags BEGIN INSERT INTO gone VALUES (1); END",
        "DROP TRIGGER tags_fault",
    )
    assert tag_rows(tmp_path / "t.db") > 0


def test_a_tagging_failure_on_postgresql_keeps_the_last_complete_report(tmp_path, pg_url):
    check_tagging_failure_keeps_the_last_report(
        pg_url,
        tmp_path / "r",
        "CREATE FUNCTION tags_fault() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN "
        "RAISE EXCEPTION 'terminating connection' USING ERRCODE = 'admin_shutdown'; END $$; "
        "CREATE TRIGGER tags_fault BEFORE INSERT ON tags "
        "FOR EACH ROW EXECUTE FUNCTION tags_fault()",
        "DROP TRIGGER tags_fault ON tags",
    )


@pytest.fixture
def own_server():
    """A throwaway PostgreSQL server on a socket in a temporary folder (never the shared one),
    as the user `postgres` when the tests run as root; yields (URL, pg_ctl command)."""
    found = sorted(Path("/usr/lib/postgresql").glob("*/bin/pg_ctl")) + [
        Path(p) for p in [shutil.which("pg_ctl")] if p
    ]
    if not found:
        pytest.skip("PostgreSQL server test SKIPPED: no initdb/pg_ctl on this machine")
    bin_dir = found[-1].parent
    as_user: list[str] = []
    folder = Path(tempfile.mkdtemp(prefix="tracker-pg-"))
    if os.geteuid() == 0:
        try:
            owner = pwd.getpwnam("postgres")
        except KeyError:
            pytest.skip("PostgreSQL server test SKIPPED: running as root without a postgres user")
        os.chown(folder, owner.pw_uid, owner.pw_gid)
        as_user = ["runuser", "-u", "postgres", "--"]
    data = folder / "data"
    subprocess.run(
        [*as_user, str(bin_dir / "initdb"), "-D", str(data), "-A", "trust", "-U", "postgres"],
        check=True, capture_output=True, timeout=TIMEOUT,
    )  # fmt: skip
    options = f"-c listen_addresses='' -k {folder} -p 5432"
    pg_ctl = [*as_user, str(bin_dir / "pg_ctl"), "-D", str(data), "-o", options, "-w"]
    subprocess.run([*pg_ctl, "-l", str(folder / "log"), "start"], check=True, capture_output=True)
    try:
        admin = create_engine(
            f"postgresql+psycopg://postgres@/postgres?host={folder}", isolation_level="AUTOCOMMIT"
        )
        with admin.connect() as conn:
            conn.execute(text("CREATE DATABASE tracker"))
        admin.dispose()
        yield f"postgresql+psycopg://postgres@/tracker?host={folder}", pg_ctl
    finally:
        subprocess.run([*pg_ctl, "-m", "immediate", "stop"], capture_output=True)
        shutil.rmtree(folder, ignore_errors=True)


def test_a_server_stop_during_tagging_keeps_the_last_report_without_a_traceback(
    tmp_path, own_server
):
    db, pg_ctl = own_server
    out = tmp_path / "r"
    assert run(db, out, RELEASES).returncode == 0
    before = {p.name: p.read_bytes() for p in out.iterdir()}
    engine = create_engine(db)
    with engine.begin() as conn:  # holds tagging's insert long enough to stop the server under it
        conn.execute(
            text(
                "CREATE FUNCTION slow() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN "
                "PERFORM pg_sleep(3); RETURN NULL; END $$; CREATE TRIGGER slow BEFORE INSERT "
                "ON tags FOR EACH STATEMENT EXECUTE FUNCTION slow()"
            )
        )
    proc = nightly(db, out, ISSUES, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    inserting = text("SELECT count(*) FROM pg_stat_activity WHERE query LIKE 'INSERT INTO tags%'")
    while proc.poll() is None:
        with engine.connect() as conn:
            if conn.execute(inserting).scalar():
                break
        time.sleep(0.1)
    engine.dispose()
    subprocess.run([*pg_ctl, "-m", "fast", "stop"], check=True, capture_output=True)
    stdout, stderr = proc.communicate(timeout=TIMEOUT)

    assert proc.returncode == 3, stdout + stderr
    assert "Traceback" not in stderr and "tag: FAILED: database postgresql" in stdout
    assert {p.name: p.read_bytes() for p in out.iterdir()} == before


def test_a_report_built_while_events_wait_for_their_tags_says_it_is_incomplete(tmp_path):
    # After a nightly whose tagging failed, `tracker report` by hand would build the figures
    # the nightly refused to publish, with exit 0. It publishes them marked incomplete (at the
    # top of the page and in summary.json), says so, and exits 3; once tagged, complete.
    db, out = tmp_path / "t.db", tmp_path / "r"
    first = nightly(f"sqlite:///{db}", out, ISSUES, stdout=subprocess.DEVNULL)
    assert first.wait(timeout=TIMEOUT) == 0
    with sqlite3.connect(db) as conn:
        conn.execute("DELETE FROM tags WHERE event_id IN (SELECT event_id FROM tags LIMIT 5)")
    env = {**os.environ, "TRACKER_SOURCES": str(REPO / "sources.yaml")}
    env.pop("TRACKER_DATABASE_URL", None)

    def tracker(*args: str) -> subprocess.CompletedProcess:
        command = [sys.executable, "-m", "tracker", "--db", f"sqlite:///{db}", *args]
        return subprocess.run(command, env=env, capture_output=True, text=True, timeout=TIMEOUT)

    partial = tracker("report", "--out", str(out))
    assert partial.returncode == 3, partial.stderr
    said = "Incomplete: 5 collected events are not tagged yet"
    assert f"report: {said}" in partial.stderr and "Traceback" not in partial.stderr
    assert f'<p class="banner">{said}' in (out / "index.html").read_text()
    assert json.loads((out / "summary.json").read_text())["data"].startswith(said)

    assert tracker("tag").returncode == 0
    complete = tracker("report", "--out", str(out))
    assert complete.returncode == 0, complete.stderr
    assert "Incomplete" not in (out / "index.html").read_text()
    assert "Incomplete" not in complete.stderr
