"""Store on real SQLite and PostgreSQL: upserts, first-seen, vanished, locks, read-only query."""

from __future__ import annotations

import time
from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy import select, update

from tracker.config.database import DatabaseWaits
from tracker.errors import StoreError
from tracker.events import Event
from tracker.store import Store
from tracker.store.tables import events, source_state

T0 = datetime(2025, 9, 10, 12, 0, tzinfo=UTC)


def release(tag: str, day: int = 0, body: str = "", source: str = "pytorch-releases") -> Event:
    return Event(
        source_id=source,
        project="pytorch",
        kind="release",
        external_id=f"release:{tag}",
        occurred_at=T0 + timedelta(days=day),
        title=f"PyTorch {tag}",
        body=body,
        url=f"https://github.com/pytorch/pytorch/releases/tag/{tag}",
        version=tag[1:],
        labels=("a", "b"),
        attrs={"prerelease": False},
    )


def test_upsert_is_idempotent_and_keeps_first_seen(store: Store):
    first = datetime(2026, 1, 1, tzinfo=UTC)
    later = datetime(2026, 2, 1, tzinfo=UTC)
    with store.transaction() as conn:
        assert store.upsert_events(
            conn, [release("v2.9.0"), release("v2.8.0", -50)], seen_at=first
        ) == (2, 2)
    with store.transaction() as conn:
        written, new = store.upsert_events(conn, [release("v2.9.0", body="edited")], seen_at=later)
    assert (written, new) == (1, 0)
    rows = {r["external_id"]: r for r in store.iter_events()}
    assert len(rows) == 2
    edited = rows["release:v2.9.0"]
    assert edited["body"] == "edited"
    assert edited["first_seen_at"] == first and edited["last_seen_at"] == later
    assert edited["occurred_at"] == T0
    assert edited["labels"] == ["a", "b"] and edited["attrs"] == {"prerelease": False}


def test_duplicate_ids_in_one_batch_last_wins(store: Store):
    with store.transaction() as conn:
        assert store.upsert_events(
            conn, [release("v2.9.0", body="one"), release("v2.9.0", body="two")]
        ) == (1, 1)
    assert [r["body"] for r in store.iter_events()] == ["two"]


def test_vanished_is_marked_not_deleted_and_cleared_on_return(store: Store):
    with store.transaction() as conn:
        store.upsert_events(conn, [release("v2.9.0"), release("v2.9.1", 20)])
        assert store.mark_vanished(conn, "pytorch-releases", ["release:v2.9.1"], T0) == 1
    rows = {r["external_id"]: r for r in store.iter_events()}
    assert rows["release:v2.9.1"]["vanished_at"] == T0
    assert rows["release:v2.9.0"]["vanished_at"] is None
    with store.transaction() as conn:
        store.upsert_events(conn, [release("v2.9.1", 20)])
    rows = {r["external_id"]: r for r in store.iter_events()}
    assert rows["release:v2.9.1"]["vanished_at"] is None


def test_failed_transaction_writes_nothing(store: Store):
    with pytest.raises(RuntimeError):
        with store.transaction() as conn:
            store.upsert_events(conn, [release("v2.9.0")])
            raise RuntimeError("collector blew up after the insert")
    assert list(store.iter_events()) == []


def test_source_state_and_validators_round_trip(store: Store):
    with store.transaction() as conn:
        store.save_source(
            conn,
            "s1",
            values={"cursor": T0, "state": {"pending": [1, 2]}, "last_status": "ok"},
            validators={"https://x/a?page=1": {"etag": 'W/"abc"', "last_modified": None}},
        )
    state = store.load_source("s1")
    assert state.cursor == T0 and state.state == {"pending": [1, 2]}
    assert state.validators == {"https://x/a?page=1": {"etag": 'W/"abc"', "last_modified": None}}
    with store.transaction() as conn:  # a second save updates, never duplicates
        store.save_source(conn, "s1", values={"last_status": "failed", "last_error": "boom"})
        assert conn.execute(select(source_state)).mappings().one()["cursor"] is not None
    assert store.load_source("s1").last_status == "failed"
    assert store.load_source("unknown").cursor is None
    # validators not renewed for a month go (listing URLs carry the cursor: one row per night)
    from tracker.store.tables import http_cache

    with store.transaction() as conn:
        conn.execute(http_cache.update().values(updated_at=datetime.now(UTC) - timedelta(days=31)))
        store.save_source(
            conn,
            "s1",
            values={"last_status": "ok"},
            validators={"https://x/a?since=today": {"etag": '"n"', "last_modified": None}},
        )
    assert list(store.load_source("s1").validators) == ["https://x/a?since=today"]


def test_lock_excludes_a_second_holder_and_expired_locks_are_taken_over(store: Store):
    with store.lock("nightly") as first:
        assert bool(first) is True
        with store.lock("nightly") as second:
            assert bool(second) is False and not second.elsewhere  # alive, on this host
            assert second.holder == first.holder and second.until > second.since
    with store.lock("nightly") as again:
        assert bool(again) is True
    with store.lock("stale", ttl=timedelta(seconds=-1)) as dead:  # holder "died": already expired
        assert bool(dead) is True
        with store.lock("stale") as taker:
            assert bool(taker) is True


def test_a_lock_whose_holder_died_on_this_host_is_taken_over_at_once(store: Store):
    # A killed run (its process gone) must not block the next one for the lock's six hours; a
    # holder on another host, or alive here, still excludes.
    import socket
    import subprocess
    import sys

    from tracker.store.tables import locks

    gone = subprocess.Popen([sys.executable, "-c", "pass"])
    gone.wait()
    now = datetime.now(UTC)
    for name, holder in (
        ("here", f"{socket.gethostname()}:{gone.pid}:dead"),
        ("there", f"other-host.example:{gone.pid}:far"),
    ):
        with store.transaction() as conn:
            conn.execute(
                locks.insert().values(
                    name=name, holder=holder, acquired_at=now, expires_at=now + timedelta(hours=6)
                )
            )
    assert [(r["name"], r["state"]) for r in store.locks_held()] == [
        ("here", "dead here"),
        ("there", "another host"),
    ]
    with store.lock("here") as taken:
        assert bool(taken) is True
    with store.lock("there") as taken:
        # alive or dead over there, nobody here can tell: held, named, with since and until
        assert bool(taken) is False and taken.elsewhere
        assert taken.describe().startswith(f"held by other-host.example:{gone.pid}:far since ")
        assert "`tracker unlock there`" in taken.advice()
    assert store.lock_holder("there")[0] == f"other-host.example:{gone.pid}:far"
    assert store.lock_holder("here") is None  # released on the way out
    assert store.unlock("there") == f"other-host.example:{gone.pid}:far"
    assert store.unlock("there") is None and store.locks_held() == []
    with store.lock("there") as taken:
        assert bool(taken) is True


def test_read_only_query_refuses_writes(store: Store):
    with store.transaction() as conn:
        store.upsert_events(conn, [release("v2.9.0")])
    columns, rows = store.read_only_query("SELECT kind, count(*) AS n FROM events GROUP BY kind")
    assert columns == ["kind", "n"] and rows == [("release", 1)]
    for sql in (
        "DELETE FROM events",
        "drop table events",
        "SELECT 1; DELETE FROM events",
        "/* hi */ update events set title = 'x'",
    ):
        with pytest.raises(StoreError, match="refused|one statement"):
            store.read_only_query(sql)
    # a write hidden behind WITH reaches the database, which refuses it (read-only session)
    with pytest.raises(StoreError):
        store.read_only_query("WITH x AS (SELECT 1) DELETE FROM events")
    # a comment marker inside a string must not hide a COMMIT and a write from the checks
    # (found by a review: on PostgreSQL this deleted rows and created tables)
    for sql in (
        "SELECT '--'; COMMIT; DELETE FROM events",
        "SELECT '/*'; COMMIT; DELETE FROM events; SELECT '*/'",
        "SELECT '--', 1; COMMIT; CREATE TABLE pwned(x int)",
    ):
        with pytest.raises(StoreError):
            store.read_only_query(sql)
    if (
        store.dialect == "postgresql"
    ):  # dollar quoting defeats any lexical check: the protocol holds
        with pytest.raises(StoreError):
            store.read_only_query("SELECT $$--$$; COMMIT; DELETE FROM events")
    assert len(list(store.iter_events())) == 1
    _, tables = store.read_only_query("SELECT count(*) FROM events WHERE title = '--;'")
    assert tables == [(0,)]


def test_tags_and_overrides(store: Store):
    with store.transaction() as conn:
        store.upsert_events(conn, [release("v2.9.0"), release("v2.8.0", -50)])
    todo = list(store.events_to_tag())
    assert {t["title"] for t in todo} == {"PyTorch v2.9.0", "PyTorch v2.8.0"}
    store.save_tags(
        [
            {
                "event_id": todo[0]["id"],
                "tag": "neutral",
                "score": 0.9,
                "regime": "none",
                "mentions": [],
                "tagger_version": "t1",
            }
        ]
    )
    assert [t["id"] for t in store.events_to_tag()] == [todo[1]["id"]]
    assert len(list(store.events_to_tag(retag=True))) == 2
    store.set_override(todo[0]["id"], "friction", "rocm")
    with pytest.raises(StoreError, match="no event"):
        store.set_override("nope", "friction")
    job = Event(
        "ci",
        "vllm",
        "ci_job",
        "job:1",
        datetime(2025, 1, 2, tzinfo=UTC),
        "mi300 job",
        regime="rocm",
        outcome="failed",
    )
    with store.transaction() as conn:
        store.upsert_events(conn, [job])
    with pytest.raises(StoreError, match="ci_job: CI runs and jobs are not tagged"):
        store.set_override(job.id, "friction")  # it would show nowhere (review finding)


def test_unreachable_database_is_one_clear_error(tmp_path):
    store = Store("postgresql+psycopg://postgres@127.0.0.1:1/none?connect_timeout=2")
    with pytest.raises(StoreError, match="database .*127.0.0.1"):
        store.ensure_current()


def test_empty_database_asks_for_init_db(tmp_path):
    store = Store(f"sqlite:///{tmp_path / 'fresh.db'}")
    with pytest.raises(StoreError, match="tracker init-db"):
        store.ensure_current()
    store.init_db()
    store.ensure_current()


def test_locked_sqlite_database_fails_cleanly_after_its_busy_timeout(tmp_path):
    import sqlite3

    path = tmp_path / "locked.db"
    store = Store(f"sqlite:///{path}")
    store.init_db()
    blocker = sqlite3.connect(path, timeout=0)
    blocker.execute("BEGIN EXCLUSIVE")
    try:
        store.engine.dispose()
        quick = Store(f"sqlite:///{path}", DatabaseWaits(lock_timeout=2))
        started = time.monotonic()
        with pytest.raises(StoreError, match="held SQLite's write lock for over 2 s"):
            with quick.transaction() as conn:
                quick.upsert_events(conn, [release("v2.9.0")])
        assert 1.5 < time.monotonic() - started < 30  # it did wait, then gave up
    finally:
        blocker.rollback()
        blocker.close()
    assert list(store.iter_events()) == []


def test_a_sqlite_writer_waits_for_another_and_says_so(tmp_path, caplog):
    # A nightly's long transaction must not make a concurrent collect fail with "database is
    # locked" after 10 s: the second writer waits (up to its busy timeout) and logs that.
    import sqlite3
    import threading

    path = tmp_path / "busy.db"
    store = Store(f"sqlite:///{path}", DatabaseWaits(lock_timeout=60))
    store.init_db()
    holder = sqlite3.connect(path, timeout=0, check_same_thread=False)
    holder.execute("BEGIN IMMEDIATE")
    holder.execute("INSERT INTO locks VALUES ('x', 'h:1:n', '2026-01-01', '2026-01-02')")
    release_after = threading.Timer(3.0, holder.commit)
    release_after.start()
    started = time.monotonic()
    try:
        with caplog.at_level("INFO", logger="tracker.store"):
            with store.transaction() as conn:
                store.upsert_events(conn, [release("v2.9.0")])
    finally:
        release_after.join()
        holder.close()
    assert time.monotonic() - started >= 2.5
    assert len(list(store.iter_events())) == 1 and store.lock_holder("x")[0] == "h:1:n"
    said = [r.getMessage() for r in caplog.records]
    assert any("another process is writing to it; waiting up to 60 s" in m for m in said), said
    assert any("got the write lock after waiting" in m for m in said), said


def test_coverage_events_come_in_one_order_on_every_database(store: Store):
    # Two pieces of evidence with the same time: the first read wins, so the order must not be
    # the database's choice (SQLite and PostgreSQL picked different evidence URLs).
    when = datetime(2025, 1, 29, tzinfo=UTC)
    items = [
        Event(source, "pytorch", "release", "v2.6.0", when, "2.6.0", version="2.6.0", url=source)
        for source in ("pypi-torch", "pytorch-releases", "a-mirror")
    ]
    with store.transaction() as conn:
        store.upsert_events(conn, items)
    got = [row["id"] for row in store.coverage_events(["pytorch"])]
    assert got == sorted(item.id for item in items)


def test_events_to_tag_finds_every_untagged_kind_it_tags(store: Store):
    # issues and notes come from one index, releases by kind: together every tagged kind, once
    def item(kind: str, key: str, **extra) -> Event:
        return Event("s", "vllm", kind, key, T0, f"{kind} {key}", **extra)

    stored = [
        item("issue", "1"),
        item("issue", "2"),
        item("note", "3"),
        release("v2.9.0"),
        item("ci_job", "4", outcome="failed"),  # never tagged: measured by its outcome
    ]
    with store.transaction() as conn:
        store.upsert_events(conn, stored)
        # gone upstream: still tagged (it was collected), so it is found too
        conn.execute(update(events).where(events.c.id == stored[1].id).values(vanished_at=T0))
    by_title = {t["title"]: t["id"] for t in store.events_to_tag()}
    assert sorted(by_title) == ["PyTorch v2.9.0", "issue 1", "issue 2", "note 3"]
    tag = {"tag": "neutral", "score": 1.0, "regime": "none", "mentions": [], "tagger_version": "t"}
    store.save_tags(
        [{**tag, "event_id": by_title["issue 1"]}, {**tag, "event_id": by_title["PyTorch v2.9.0"]}]
    )
    assert sorted(t["title"] for t in store.events_to_tag()) == ["issue 2", "note 3"]
    assert len(list(store.events_to_tag(retag=True))) == 4
