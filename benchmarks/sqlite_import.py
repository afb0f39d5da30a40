"""Baseline for `tracker import-events`: plain sqlite3, same JSONL in, same `events` rows out.

    python benchmarks/sqlite_import.py DB.sqlite EVENTS.jsonl [--sources sources.yaml]

DB must already hold the schema (`tracker init-db` on a fresh file), so the table, its indexes
and its constraints are tracker's own. Streams the file, parses each line (JSON, ISO timestamps
to UTC), computes the same event id (sha256 of source_id NUL external_id, 32 hex digits) and
writes the same column values tracker's SQLite store writes (timestamps as
"YYYY-MM-DD HH:MM:SS.ffffff" UTC, labels / attrs as JSON text, imported = source not in
sources.yaml) with executemany in batches of 10,000, in one transaction. No validation beyond
what parsing needs: this is the floor, not a replacement.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sqlite3
import sys
from datetime import UTC, datetime
from pathlib import Path

BATCH = 10_000
COLUMNS = (
    "id, source_id, project, kind, external_id, occurred_at, title, body, url, version, regime, "
    "labels, state, outcome, ended_at, updated_at, attrs, first_seen_at, last_seen_at, "
    "vanished_at, imported"
)


def _ts(value: str | None) -> str | None:
    if not value:
        return None
    moment = datetime.fromisoformat(value)
    moment = moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment.astimezone(UTC)
    return moment.strftime("%Y-%m-%d %H:%M:%S.%f")


def known_sources(path: Path | None) -> set[str]:
    if path is None or not path.exists():
        return set()
    import yaml

    data = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    return {str(s["id"]) for s in data.get("sources") or [] if isinstance(s, dict)}


def load(db: Path, jsonl: Path, known: set[str]) -> int:
    seen = datetime.now(UTC).strftime("%Y-%m-%d %H:%M:%S.%f")
    conn = sqlite3.connect(db, isolation_level=None)
    conn.execute("PRAGMA journal_mode=WAL")
    sql = f"INSERT INTO events ({COLUMNS}) VALUES ({', '.join('?' * 21)})"
    count = 0
    conn.execute("BEGIN")
    batch: list[tuple] = []
    with jsonl.open(encoding="utf-8") as stream:
        for line in stream:
            if not line.strip():
                continue
            d = json.loads(line)
            source, external = str(d["source_id"]), str(d["external_id"])
            key = hashlib.sha256(f"{source}\x00{external}".encode()).hexdigest()[:32]
            batch.append(
                (
                    key,
                    source,
                    str(d["project"]),
                    d["kind"],
                    external,
                    _ts(d["occurred_at"]),
                    d["title"],
                    d.get("body") or "",
                    d.get("url") or "",
                    d.get("version"),
                    d.get("regime"),
                    json.dumps(d.get("labels") or []),
                    d.get("state"),
                    d.get("outcome"),
                    _ts(d.get("ended_at")),
                    _ts(d.get("updated_at")),
                    json.dumps(d.get("attrs") or {}),
                    seen,
                    seen,
                    _ts(d.get("vanished_at")),
                    source not in known,
                )
            )
            if len(batch) >= BATCH:
                conn.executemany(sql, batch)
                count += len(batch)
                batch = []
    if batch:
        conn.executemany(sql, batch)
        count += len(batch)
    conn.execute("COMMIT")
    conn.close()
    return count


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("db", type=Path)
    parser.add_argument("jsonl", type=Path)
    parser.add_argument("--sources", type=Path, default=None)
    args = parser.parse_args()
    count = load(args.db, args.jsonl, known_sources(args.sources))
    print(f"inserted {count} events", file=sys.stderr)


if __name__ == "__main__":
    main()
