"""Re-tagging a store: 100,000 stored events through `tracker tag --retag`'s code path.

    python benchmarks/retag.py [--rows 100000] [--pg postgresql+psycopg://postgres@127.0.0.1/test]

Prints the wall time of the whole re-tag (read events, tag, upsert tag rows) next to the I/O
floor measured in the same run on the same store (read the same events and upsert the same
number of tag rows, no tagging), and their ratio. Target (issue 5): under a minute.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from datetime import UTC

from ingest import pg_database  # noqa: E402
from tagger import synthetic_texts  # noqa: E402

from tracker.events import Event  # noqa: E402
from tracker.store import Store  # noqa: E402
from tracker.tagger import load_tagger  # noqa: E402
from tracker.tagger.batch import tag_store  # noqa: E402


def fill(store: Store, rows: int) -> None:
    from datetime import datetime, timedelta

    t0 = datetime(2025, 1, 1, tzinfo=UTC)
    events = []
    for i, text in enumerate(synthetic_texts(rows, seed=11)):
        title, _, body = text.partition("\n\n")
        events.append(
            Event(
                "bench",
                "vllm",
                "issue",
                f"issue:{i}",
                t0 + timedelta(minutes=i),
                title,
                body=body,
                labels=("bug",) if i % 3 == 0 else (),
            )
        )
    with store.transaction() as conn:
        store.upsert_events(conn, events)


def io_floor(store: Store) -> float:
    started = time.perf_counter()
    batch: list[dict] = []
    for item in store.events_to_tag(retag=True):
        batch.append(
            {
                "event_id": item["id"],
                "tag": "neutral",
                "score": 0.5,
                "regime": "none",
                "mentions": [],
                "tagger_version": "io-floor",
            }
        )
        if len(batch) >= 2000:
            store.save_tags(batch)
            batch = []
    store.save_tags(batch)
    return time.perf_counter() - started


def measure(label: str, store: Store, rows: int) -> None:
    store.init_db()
    fill(store, rows)
    tagger = load_tagger()
    floor = io_floor(store)
    started = time.perf_counter()
    line = tag_store(store, retag=True, tagger=tagger)
    total = time.perf_counter() - started
    print(
        f"{label}: re-tag {rows:,} events {total:.1f} s ({rows / total:,.0f} ev/s; {line}); "
        f"I/O floor {floor:.1f} s; ratio floor/total {floor / total:.2f}; target < 60 s: "
        f"{'met' if total < 60 else 'NOT met'}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=100_000)
    parser.add_argument("--pg", default=None)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        measure("sqlite", Store(f"sqlite:///{Path(tmp) / 'retag.db'}"), args.rows)
    if args.pg:
        url, drop = pg_database(args.pg)
        try:
            store = Store(url)
            measure("postgresql", store, args.rows)
            store.engine.dispose()
        finally:
            drop()


if __name__ == "__main__":
    main()
