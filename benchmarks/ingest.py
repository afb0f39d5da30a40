"""Ingest benchmark: upsert 100,000 events through the store, next to the raw-driver limit.

    python benchmarks/ingest.py [--rows N] [--pg postgresql+psycopg://postgres@127.0.0.1/test]

Prints events/s of the store's upsert path (first insert and a re-upsert of the same rows) and
of the raw driver in the same run (sqlite3 executemany in one transaction; psycopg COPY), and
their ratio. Targets: store >= 0.4 of raw on SQLite, >= 0.3 on PostgreSQL; re-upsert <= 2x
the first insert. Without --pg (or TRACKER_TEST_PG_URL) only SQLite is measured.
"""

from __future__ import annotations

import argparse
import json
import os
import sqlite3
import sys
import tempfile
import time
import uuid
from datetime import UTC, datetime, timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tracker.events import Event  # noqa: E402
from tracker.store import Store, event_row  # noqa: E402

T0 = datetime(2025, 1, 1, tzinfo=UTC)


def make_events(n: int) -> list[Event]:
    return [
        Event(
            source_id="bench",
            project="pytorch",
            kind="issue",
            external_id=f"issue:{i}",
            occurred_at=T0 + timedelta(minutes=i),
            title=f"[ROCm] test_ops failure #{i}",
            body="RuntimeError: HIP error: invalid device function " * 4,
            url=f"https://github.com/pytorch/pytorch/issues/{i}",
            labels=("module: rocm", "triaged"),
            state="open",
            attrs={"number": i, "comments": i % 7},
        )
        for i in range(n)
    ]


def timed(func) -> float:
    started = time.perf_counter()
    func()
    return time.perf_counter() - started


def store_upsert(store: Store, items: list[Event]) -> tuple[float, float]:
    def once():
        with store.transaction() as conn:
            store.upsert_events(conn, items)

    return timed(once), timed(once)


def raw_rows(items: list[Event]) -> list[tuple]:
    seen = datetime.now(UTC)
    rows = []
    for item in items:
        row = event_row(item, seen)
        row["labels"] = json.dumps(row["labels"])
        row["attrs"] = json.dumps(row["attrs"])
        rows.append(tuple(row.values()))
    return rows


def raw_sqlite(path: Path, items: list[Event]) -> float:
    store = Store(f"sqlite:///{path}")
    store.init_db()
    store.engine.dispose()
    rows = raw_rows(items)
    conn = sqlite3.connect(path)
    marks = ", ".join("?" * len(rows[0]))

    def insert():
        with conn:
            conn.executemany(f"INSERT INTO events VALUES ({marks})", rows)

    elapsed = timed(insert)
    conn.close()
    return elapsed


def raw_copy(url: str, items: list[Event]) -> float:
    import psycopg
    from sqlalchemy.engine import make_url

    rows = raw_rows(items)
    dsn = make_url(url).set(drivername="postgresql").render_as_string(hide_password=False)
    with psycopg.connect(dsn) as conn:
        conn.execute("CREATE TEMP TABLE copy_bench (LIKE events INCLUDING ALL)")

        def copy():
            with conn.cursor().copy("COPY copy_bench FROM STDIN") as cp:
                for row in rows:
                    cp.write_row(row)

        elapsed = timed(copy)
        conn.rollback()
    return elapsed


def pg_database(admin_url: str) -> tuple[str, object]:
    from sqlalchemy import create_engine, text
    from sqlalchemy.engine import make_url

    name = f"tracker_bench_{uuid.uuid4().hex[:8]}"
    admin = create_engine(admin_url, isolation_level="AUTOCOMMIT")
    with admin.connect() as conn:
        conn.execute(text(f'CREATE DATABASE "{name}"'))

    def drop():
        with admin.connect() as conn:
            conn.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))

    return make_url(admin_url).set(database=name).render_as_string(hide_password=False), drop


def report(
    label: str,
    n: int,
    store_first: float,
    store_again: float,
    raw: float,
    raw_label: str,
    target: float,
) -> None:
    rate, raw_rate = n / store_first, n / raw
    print(
        f"{label}: store upsert {rate:,.0f} ev/s; {raw_label} {raw_rate:,.0f} rows/s; "
        f"ratio {rate / raw_rate:.2f} (target >= {target}); "
        f"re-upsert {store_again / store_first:.2f}x the first insert (target <= 2)"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=100_000)
    parser.add_argument("--pg", default=os.environ.get("TRACKER_TEST_PG_URL"))
    args = parser.parse_args()
    items = make_events(args.rows)
    with tempfile.TemporaryDirectory() as tmp:
        raw = raw_sqlite(Path(tmp) / "raw.db", items)
        store = Store(f"sqlite:///{Path(tmp) / 'store.db'}")
        store.init_db()
        first, again = store_upsert(store, items)
        report("sqlite", args.rows, first, again, raw, "raw sqlite3 executemany", 0.4)
    if args.pg:
        url, drop = pg_database(args.pg)
        try:
            store = Store(url)
            store.init_db()
            raw = raw_copy(url, items)
            first, again = store_upsert(store, items)
            store.engine.dispose()
            report("postgresql", args.rows, first, again, raw, "raw psycopg COPY", 0.3)
        finally:
            drop()
    else:
        print("postgresql: skipped (pass --pg URL or set TRACKER_TEST_PG_URL)")


if __name__ == "__main__":
    main()
