"""The nightly's search for untagged events (Store.events_to_tag) on a store that is already
tagged, the common case: every night asks it of every stored event and finds a handful.

    python benchmarks/untagged.py [--rows 500000] [--pg postgresql+psycopg://postgres@127.0.0.1/test]

Fills a store by SQL with ROWS events (issues, notes, CI jobs in turn) and a tag row for every
issue and note but the last 10, then prints the wall time of `events_to_tag()` next to its
baseline measured in the same run on the same store: a LEFT JOIN ... IS NULL count of the same
events, an anti-join written by hand. Target: within 3x the baseline. (The NOT IN subquery it
replaced ran past 150 s at 500k events on PostgreSQL, where this takes 0.13 s: past work_mem,
PostgreSQL reads the tags once per event; at 200k it still fit and took 0.08 s.)
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from ingest import pg_database  # noqa: E402
from sqlalchemy import text  # noqa: E402

from tracker.store import Store  # noqa: E402

UNTAGGED = 10
KINDS = "CASE n % 3 WHEN 0 THEN 'issue' WHEN 1 THEN 'note' ELSE 'ci_job' END"
BASELINE = """
SELECT count(*) FROM events e LEFT JOIN tags t ON t.event_id = e.id
 WHERE e.kind IN ('release', 'note', 'issue') AND t.event_id IS NULL
"""


def fill(store: Store, rows: int) -> None:
    numbers = (
        f"SELECT generate_series AS n FROM generate_series(1, {rows})"
        if store.dialect == "postgresql"
        else f"WITH RECURSIVE s(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM s WHERE n < {rows}) "
        "SELECT n FROM s"
    )
    now = "CURRENT_TIMESTAMP"
    false = "false" if store.dialect == "postgresql" else "0"
    with store.transaction() as conn:
        conn.execute(
            text(
                "INSERT INTO events (id, source_id, project, kind, external_id, occurred_at, "
                "title, body, url, labels, attrs, first_seen_at, last_seen_at, imported) "
                f"SELECT 'e' || n, 'bench', 'vllm', {KINDS}, 'x' || n, {now}, 't', '', '', "
                f"'[]', '{{}}', {now}, {now}, {false} FROM ({numbers}) AS s"
            )
        )
        conn.execute(
            text(
                "INSERT INTO tags (event_id, tag, score, regime, mentions, tagger_version, "
                f"tagged_at) SELECT id, 'neutral', 0.5, 'none', '[]', 'bench', {now} FROM events "
                f"WHERE kind IN ('issue', 'note') ORDER BY id LIMIT "
                f"(SELECT count(*) - {UNTAGGED} FROM events WHERE kind IN ('issue', 'note'))"
            )
        )
        if store.dialect == "postgresql":
            conn.execute(text("ANALYZE"))


def measure(label: str, store: Store, rows: int) -> None:
    store.init_db()
    fill(store, rows)
    started = time.perf_counter()
    with store.engine.connect() as conn:
        expected = conn.execute(text(BASELINE)).scalar_one()
    baseline = time.perf_counter() - started
    started = time.perf_counter()
    found = sum(1 for _ in store.events_to_tag())
    took = time.perf_counter() - started
    assert found == expected == UNTAGGED, (found, expected)
    ratio = took / baseline
    print(
        f"{label}: events_to_tag on {rows:,} events finds {found} in {took:.3f} s; baseline "
        f"(hand-written anti-join) {baseline:.3f} s; ratio {ratio:.1f}x; target <= 3x: "
        f"{'met' if ratio <= 3 else 'NOT met'}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=500_000)
    parser.add_argument("--pg", default=None)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        store = Store(f"sqlite:///{Path(tmp) / 'untagged.db'}")
        measure("sqlite", store, args.rows)
        store.close()
    if args.pg:
        url, drop = pg_database(args.pg)
        try:
            store = Store(url)
            measure("postgresql", store, args.rows)
            store.close()
        finally:
            drop()


if __name__ == "__main__":
    main()
