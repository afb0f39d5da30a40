"""Hostile input files and options end in one `tracker: error:` line (or a usage error) naming
the file, line or option, never a traceback, and write nothing: real SQLite files and, where
the store is involved, real PostgreSQL."""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from click.testing import CliRunner
from sqlalchemy import func, select

from tests.cli.test_cli import MANUAL
from tests.conftest import PG_SKIP, PG_URL, create_pg_database, drop_pg_database
from tracker.cli.main import cli
from tracker.events import MAX_ATTRS_DEPTH
from tracker.store import Store
from tracker.store.tables import events

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture
def run(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("TRACKER_DATABASE_URL", raising=False)
    for name in ("TRACKER_DIGEST_FROM", "TRACKER_DIGEST_TO"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("TRACKER_SOURCES", str(REPO / "sources.yaml"))
    runner = CliRunner()

    def invoke(*args, input=None, env=None):
        return runner.invoke(cli, list(args), input=input, env=env, catch_exceptions=False)

    return invoke


def one_error_line(result, *names: str) -> str:
    """The single `tracker: error:` line of a failed command, checked to name `names`."""
    assert result.exit_code == 1, result.output
    assert "Traceback" not in result.output
    (line,) = result.output.splitlines()
    assert line.startswith("tracker: error: ")
    for name in names:
        assert name in line, line
    return line


def count(store: Store) -> int:
    with store.engine.connect() as conn:
        return conn.execute(select(func.count()).select_from(events)).scalar_one()


# -- 1. coverage rules: values of the wrong type -------------------------------------------


@pytest.mark.parametrize(
    "old, new, names",
    [
        ("project: pytorch\n", "project: [a, b]\n", ("coverage[0]", "key 'project'", "list")),
        ("series: minor\n", "series: {a: 1}\n", ("'pytorch'", "key 'series'")),
        (
            "{definition: earliest_build, primary: true, channels: [upstream_wheels,",
            "{definition: earliest_build, primary: 'yes', channels: [upstream_wheels,",
            ("'pytorch'", "regime 'rocm': entry 1", "key 'primary'"),
        ),
        (
            "{definition: earliest_build, primary: true, channels: [upstream_wheels,",
            "{definition: earliest_build, primary: true, channels: [[upstream_wheels],",
            ("'pytorch'", "regime 'rocm': entry 1", "key 'channels'", "a list of strings"),
        ),
        (
            "evidence: {project: pytorch-rocm-wheels, kind: release}",
            "evidence: {project: [pytorch-rocm-wheels], kind: release}",
            ("'pytorch'", "regime 'rocm': entry 2: evidence", "key 'project'"),
        ),
        ("day0: [engine_cuda,", "day0: [[engine_cuda],", ("key 'day0'",)),
    ],
)
def test_a_coverage_value_of_the_wrong_type_is_one_line(run, tmp_path, old, new, names):
    head, rules = (REPO / "sources.yaml").read_text().split("\ncoverage:\n")
    assert old in rules
    bad = tmp_path / "bad.yaml"
    bad.write_text(head + "\ncoverage:\n" + rules.replace(old, new, 1))
    run("init-db")
    for args in (("sources", "check"), ("lag",)):
        one_error_line(run("--sources", str(bad), *args), str(bad), *names)


# -- 2. JSON nested past the stack -----------------------------------------------------------


def test_parse_of_json_nested_100000_levels_is_one_line(run, tmp_path):
    path = tmp_path / "deep.json"
    path.write_text("[" * 100_000 + "]" * 100_000)
    line = one_error_line(run("parse", str(path), "--kind", "github_releases"), "deep.json")
    assert "nested too deeply" in line


def test_parse_skips_an_item_whose_attrs_nest_too_deep(run, tmp_path, caplog):
    # What a collect run would not store is skipped by `tracker parse` too (and printing it
    # would have recursed as deep).
    path = tmp_path / "builds.json"
    builds = [
        {"id": f"b-{n}", "number": n, "state": "passed", "created_at": "2025-11-20T00:00:00Z"}
        for n in (1, 2)
    ]
    builds[0]["commit"] = json.loads("[" * 200 + "]" * 200)
    path.write_text(json.dumps(builds))
    result = run(
        "parse", str(path), "--kind", "buildkite", "--option", "pipeline=ci", "--option", "org=vllm"
    )
    assert result.exit_code == 0 and "Traceback" not in result.output
    printed = [json.loads(x) for x in result.output.splitlines() if x.startswith("{")]
    assert [e["external_id"] for e in printed] == ["build:2"]
    assert "1 items skipped" in result.output
    assert f"build:1': attrs nest deeper than {MAX_ATTRS_DEPTH} levels" in caplog.text


# -- 3, 4, duplicates: import-events -----------------------------------------------------------


@pytest.fixture
def db(request, tmp_path):
    """--db for a real SQLite file, migrated, and for real PostgreSQL (emptied)."""
    if request.param == "sqlite":
        store = Store(f"sqlite:///{tmp_path / 'hostile.db'}")
        store.init_db()
    else:
        store = request.getfixturevalue("pg_store")
    return store


GOOD = json.dumps(MANUAL[0]).encode() + b"\n"


def deep_attrs(levels: int) -> bytes:
    inner = "[" * (levels - 1) + "]" * (levels - 1)  # attrs itself is level 1
    line = json.dumps({**MANUAL[1], "attrs": {"deep": "X"}})
    return line.replace('"X"', inner).encode() + b"\n"


@pytest.mark.parametrize("db", ["sqlite", "postgresql"], indirect=True)
@pytest.mark.parametrize(
    "second, expected",
    [
        (b'{"title": "caf\xe9"}\n', "line 2: not UTF-8 text (byte 15 of the line is b'\\xe9')"),
        (GOOD[:20] + b"\xff\xfe" + GOOD[20:], "line 2: not UTF-8 text (byte 21"),
        (deep_attrs(MAX_ATTRS_DEPTH + 1), f"line 2: attrs nest deeper than {MAX_ATTRS_DEPTH}"),
        (deep_attrs(900), "line 2: "),
        (b"[" * 100_000 + b"]" * 100_000 + b"\n", "line 2: not valid JSON (nested too deeply)"),
    ],
    ids=["latin-1", "invalid-bytes", "attrs-33", "attrs-900", "json-100000"],
)
def test_a_hostile_import_line_is_one_line_naming_it_and_writes_nothing(run, db, second, expected):
    result = run("--db", db.url, "import-events", "-", input=GOOD + second + GOOD)
    one_error_line(result, expected)
    assert count(db) == 0


@pytest.mark.parametrize("db", ["sqlite", "postgresql"], indirect=True)
def test_import_attrs_at_the_depth_limit_are_kept(run, db):
    result = run("--db", db.url, "import-events", "-", input=deep_attrs(MAX_ATTRS_DEPTH))
    assert result.exit_code == 0, result.output
    assert count(db) == 1


@pytest.mark.parametrize("db", ["sqlite", "postgresql"], indirect=True)
def test_repeated_ids_in_one_import_are_counted_once(run, db):
    # The same manual event three times, another twice, one event of a configured source: the
    # last line for an id wins and each count counts events, not lines.
    known = json.dumps({**MANUAL[1], "source_id": "jax-releases"}).encode() + b"\n"
    other = json.dumps(MANUAL[1]).encode() + b"\n"
    lines = GOOD * 3 + other * 2 + known
    result = run("--db", db.url, "import-events", "-", input=lines)
    assert result.exit_code == 0, result.output
    assert result.output == "imported 3 events (3 new, 2 marked as manual evidence)\n"
    assert count(db) == 3
    again = run("--db", db.url, "import-events", "-", input=lines)
    assert again.output == "imported 3 events (0 new, 2 marked as manual evidence)\n"
    assert count(db) == 3


# -- 5. digest addresses ---------------------------------------------------------------------


@pytest.mark.parametrize("option", ["--from", "--to"])
@pytest.mark.parametrize("value", ["a@example.org\r\nBcc: x@evil.example", "a@example.org\n"])
def test_a_line_break_in_a_digest_address_option_is_a_usage_error(run, tmp_path, option, value):
    run("init-db")
    out = tmp_path / "digest.eml"
    result = run("digest", "--dry-run", str(out), option, value)
    assert result.exit_code == 2 and "Traceback" not in result.output
    assert f"Invalid value for '{option}'" in result.output
    assert "control character" in result.output
    assert not out.exists()


@pytest.mark.parametrize("name", ["TRACKER_DIGEST_FROM", "TRACKER_DIGEST_TO"])
def test_a_control_character_in_a_digest_address_setting_is_one_line(run, tmp_path, name):
    run("init-db")
    out = tmp_path / "digest.eml"
    value = "a@example.org\rBcc:x@evil.example" if name.endswith("FROM") else "a@b\x7fc"
    result = run("digest", "--dry-run", str(out), env={name: value})
    one_error_line(result, name, "control character")
    assert not out.exists()
    fine = run("digest", "--dry-run", str(out), "--from", "Tracker <t@example.org>")
    assert fine.exit_code == 0, fine.output


# -- 7. init-db twice at once ----------------------------------------------------------------


def _init_db_at_once(url: str, times: int = 3) -> list[subprocess.CompletedProcess]:
    """`tracker init-db` started `times` times at once, as separate processes."""
    command = [sys.executable, "-m", "tracker", "--db", url, "init-db"]
    results: list[subprocess.CompletedProcess] = []

    def one() -> None:
        results.append(subprocess.run(command, capture_output=True, text=True, timeout=120))

    threads = [threading.Thread(target=one) for _ in range(times)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return results


def _all_migrated(results: list[subprocess.CompletedProcess], url: str) -> None:
    for result in results:
        assert result.returncode == 0, result.stderr
        assert "Traceback" not in result.stderr and "newer tracker" not in result.stderr
    store = Store(url)
    assert store.current_revision() == store.head_revision()
    store.engine.dispose()


def test_init_db_three_at_once_on_a_new_sqlite_file(tmp_path):
    for attempt in range(3):  # the race was lost about one time in two
        url = f"sqlite:///{tmp_path / f'new{attempt}.db'}"
        _all_migrated(_init_db_at_once(url), url)


def test_init_db_waits_for_a_write_lock_on_a_new_sqlite_file(tmp_path):
    """What the first of two `init-db` at once does while the second connects, held open: a
    write lock on a new file that is not WAL yet (the first turning it to WAL, then migrating).
    The second's connection turns the file to WAL too, and SQLite fails that at once, without
    waiting (about one round in ten of two `init-db` at once ended in "database is locked");
    it waits now, as docs/operations.md says, and migrates once the lock is let go."""
    db = tmp_path / "new.db"
    holder = sqlite3.connect(db, isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")
    holder.execute("CREATE TABLE held_by_another_process (x)")
    command = [sys.executable, "-m", "tracker", "--db", f"sqlite:///{db}", "init-db"]
    second = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        # long enough for it to start and connect (it failed within a second of that)
        second.wait(timeout=6)
    except subprocess.TimeoutExpired:
        pass  # waiting, as it should
    holder.execute("COMMIT")
    holder.close()
    out, err = second.communicate(timeout=120)
    assert second.returncode == 0, err
    assert "is at revision" in out and "Traceback" not in err
    _all_migrated([], f"sqlite:///{db}")


def test_init_db_three_at_once_on_a_new_postgresql_database():
    if not PG_URL:
        pytest.skip(PG_SKIP)
    for _ in range(2):
        url = create_pg_database()
        try:
            _all_migrated(_init_db_at_once(url), url)
        finally:
            drop_pg_database(url)


@pytest.mark.parametrize(
    "args",
    [
        ("digest", "--as-of", "0001-01-01"),
        ("digest", "--as-of", "9999-12-31"),
        ("digest", "--week", "0001-W01"),
        ("digest", "--week", "9999-W52"),
        ("lag", "--as-of", "1900-01-01"),
        ("report", "--as-of", "2300-01-01"),
        ("ci-health", "--as-of", "9999-12-31"),
    ],
)
def test_a_date_outside_the_computable_range_is_a_usage_error(run, tmp_path, args):
    """Week and year arithmetic on year 1 or 9999 left Python's calendar: an OverflowError
    traceback. The as-of dates take the range the events do (1970 to 2200)."""
    run("init-db")
    extra = {"digest": ("--dry-run",), "report": ("--out", str(tmp_path / "r"))}
    result = run(*args, *extra.get(args[0], ()))
    assert result.exit_code == 2 and "Traceback" not in result.output, result.output
    assert "outside the dates tracker computes with" in result.output


@pytest.mark.parametrize("option", ["--regime", "--project"])
def test_an_unknown_filter_value_is_shown_bounded(run, option):
    """A 100,000-character --project was echoed whole in its usage error."""
    run("init-db")
    result = run("lag", option, "x" * 100_000)
    assert result.exit_code == 2 and "Traceback" not in result.output
    assert f"Invalid value for {option}" in result.output and len(result.output) < 2000
