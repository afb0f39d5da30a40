"""Events in and out as JSONL / CSV: `tracker import-events` and `tracker export events`."""

from __future__ import annotations

import csv
import json
from collections import defaultdict
from collections.abc import Iterable, Iterator
from datetime import datetime
from typing import IO, Any

from tracker.errors import TrackerError
from tracker.events import (
    EVENT_KINDS,
    OUT_OF_RANGE,
    Event,
    InvalidEvent,
    clean_event,
    computable,
    now_utc,
    utc,
)
from tracker.store import Store

EXPORT_FIELDS = [
    "source_id",
    "project",
    "kind",
    "external_id",
    "occurred_at",
    "title",
    "body",
    "url",
    "version",
    "regime",
    "labels",
    "state",
    "outcome",
    "ended_at",
    "updated_at",
    "attrs",
    "vanished_at",
]
REQUIRED = ("source_id", "project", "kind", "external_id", "occurred_at", "title")


class EventFileError(TrackerError):
    """A line of an import file is not a valid event."""


def event_json(item: Event | dict) -> dict[str, Any]:
    """The JSONL form of an event (stored row or Event)."""
    get = item.get if isinstance(item, dict) else lambda k: getattr(item, k, None)
    out = {}
    for key in EXPORT_FIELDS:
        value = get(key)
        if isinstance(value, datetime):
            value = value.isoformat()
        elif key == "labels":
            value = list(value or [])
        elif key == "attrs":
            value = dict(value or {})
        out[key] = value
    return out


def write_events(rows: Iterable[dict], stream: IO[str], fmt: str) -> int:
    """Write stored events as `jsonl` or `csv`; return how many."""
    count = 0
    if fmt == "csv":
        writer = csv.DictWriter(stream, fieldnames=EXPORT_FIELDS)
        writer.writeheader()
        for row in rows:
            record = event_json(row)
            record["labels"] = json.dumps(record["labels"], ensure_ascii=False)
            record["attrs"] = json.dumps(record["attrs"], ensure_ascii=False, default=str)
            writer.writerow(record)
            count += 1
    else:
        for row in rows:
            stream.write(json.dumps(event_json(row), ensure_ascii=False, default=str) + "\n")
            count += 1
    return count


def parse_event_line(line: str, lineno: int) -> tuple[Event, datetime | None]:
    """One JSONL line -> (Event, when it vanished upstream or None); EventFileError names the
    line and the problem."""
    try:
        data = json.loads(line)
    except ValueError as exc:
        raise EventFileError(f"line {lineno}: not valid JSON ({exc})") from None
    except RecursionError:  # nested past Python's stack: refused like any other bad line
        raise EventFileError(f"line {lineno}: not valid JSON (nested too deeply)") from None
    if not isinstance(data, dict):
        raise EventFileError(f"line {lineno}: expected a JSON object")
    missing = [k for k in REQUIRED if not data.get(k)]
    if missing:
        raise EventFileError(f"line {lineno}: missing {', '.join(missing)}")
    if data["kind"] not in EVENT_KINDS:
        raise EventFileError(
            f"line {lineno}: kind {data['kind']!r} is not one of {', '.join(EVENT_KINDS)}"
        )
    try:
        times = {
            k: datetime.fromisoformat(data[k]) if data.get(k) else None
            for k in ("occurred_at", "ended_at", "updated_at", "vanished_at")
        }
        vanished = utc(times["vanished_at"]) if times["vanished_at"] else None
    except (TypeError, ValueError, OverflowError) as exc:
        raise EventFileError(f"line {lineno}: bad ISO 8601 timestamp ({exc})") from None
    if vanished is not None and not computable(vanished):  # the Event's own are clean_event's
        raise EventFileError(f"line {lineno}: vanished_at {vanished.isoformat()} {OUT_OF_RANGE}")
    if not isinstance(data.get("attrs") or {}, dict) or not isinstance(
        data.get("labels") or [], list
    ):
        raise EventFileError(f"line {lineno}: attrs must be a JSON object and labels a list")
    occurred = times["occurred_at"]
    assert occurred is not None  # a REQUIRED key, checked above
    try:
        # The same cleaning as collected events (text, lengths, NUL, surrogates): a line the
        # store could not keep is refused here, naming the line, before anything is written.
        event = clean_event(
            Event(
                source_id=str(data["source_id"]),
                project=str(data["project"]),
                kind=data["kind"],
                external_id=str(data["external_id"]),
                occurred_at=occurred,
                title=data["title"],
                body=data.get("body") or "",
                url=data.get("url") or "",
                version=data.get("version"),
                regime=data.get("regime"),
                labels=tuple(data.get("labels") or ()),
                state=data.get("state"),
                outcome=data.get("outcome"),
                ended_at=times["ended_at"],
                updated_at=times["updated_at"],
                attrs=dict(data.get("attrs") or {}),
            )
        )
    except InvalidEvent as exc:
        raise EventFileError(f"line {lineno}: {exc}") from None
    except OverflowError:  # "0001-01-01T00:00:00+01:00" is before year 1 in UTC
        raise EventFileError(f"line {lineno}: a timestamp is out of range in UTC") from None
    return event, vanished


CHUNK = 5_000  # lines parsed and written at a time: memory stays flat whatever the file's size


def import_jsonl(store: Store, stream: IO[bytes], known_sources: set[str]) -> tuple[int, int, int]:
    """Read, check and save the file in one transaction: a bad line (EventFileError naming it)
    rolls back everything before it, so nothing is half-written. The file is streamed in chunks
    of CHUNK lines, never held whole.

    Returns (events written, new events, events marked as manual evidence). Each count counts
    an event once however often the file repeats it (the last line for an id wins).
    """
    seen_at = now_utc()
    # What vanished upstream stays vanished (the friction series leaves it out): marked after
    # every upsert, which treats each line as seen now. Only vanished lines are kept here.
    vanished: dict[tuple[datetime, str], list[str]] = defaultdict(list)
    with store.transaction() as conn:
        before = store.count_events(conn)
        for chunk in _chunks(stream):
            manual: list[Event] = []
            known: list[Event] = []
            for event, when in chunk:
                (known if event.source_id in known_sources else manual).append(event)
                if when is not None:
                    vanished[(when, event.source_id)].append(event.external_id)
            store.write_events(conn, manual, imported=True, seen_at=seen_at)
            store.write_events(conn, known, seen_at=seen_at)
        for (when, source_id), external_ids in vanished.items():
            store.mark_vanished(conn, source_id, external_ids, when)
        written = store.count_events(conn, last_seen_at=seen_at)
        # Counted in the store, not by line: a file may repeat an id (the last line wins).
        manual_count = store.count_events(conn, last_seen_at=seen_at, other_than=known_sources)
        new = store.count_events(conn) - before
    return written, new, manual_count


def _chunks(stream: IO[bytes]) -> Iterator[list[tuple[Event, datetime | None]]]:
    chunk: list[tuple[Event, datetime | None]] = []
    for lineno, raw in enumerate(stream, 1):
        # Decoded here, a line at a time, so a byte that is not UTF-8 names its line (a text
        # stream would fail somewhere in a read-ahead block, naming no line).
        try:
            line = raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise EventFileError(
                f"line {lineno}: not UTF-8 text (byte {exc.start + 1} of the line is "
                f"{raw[exc.start : exc.start + 1]!r})"
            ) from None
        if not line.strip():
            continue
        chunk.append(parse_event_line(line, lineno))
        if len(chunk) >= CHUNK:
            yield chunk
            chunk = []
    if chunk:
        yield chunk
