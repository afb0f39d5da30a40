"""Store.coverage_rows reads the lag's facts lean (on SQLite it decodes the stored timestamp and
JSON texts itself): it must give what SQLAlchemy's column types give for the same query, for
every value a row can hold, including values written by raw SQL rather than by the store."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from sqlalchemy import func, select, text

from tracker.store import Store
from tracker.store.reads import COVERAGE_COLUMNS
from tracker.store.tables import computable, events, tags

WHEN = datetime(2025, 3, 4, 5, 6, 7, 890123, tzinfo=UTC)


def typed_rows(store: Store, projects: list[str]) -> list[tuple]:
    """The coverage query read through the tables' types (what coverage_events used to do)."""
    query = (
        select(
            events.c.id,
            events.c.project,
            events.c.kind,
            events.c.version,
            events.c.occurred_at,
            events.c.url,
            events.c.attrs,
            tags.c.mentions,
            func.coalesce(tags.c.regime, events.c.regime).label("regime"),
            events.c.source_id,
        )
        .select_from(events.outerjoin(tags, tags.c.event_id == events.c.id))
        .where(
            events.c.project.in_(projects),
            events.c.kind.in_(("release", "note")),
            text(computable(store.dialect, "events.occurred_at")),
        )
        .order_by(events.c.occurred_at, events.c.id)
    )
    with store.engine.connect() as conn:
        return [tuple(row) for row in conn.execute(query)]


def event_row(id_: str, kind: str = "note", **values) -> dict:
    row = {
        "id": id_,
        "source_id": "s",
        "project": "rocm",
        "kind": kind,
        "external_id": id_,
        "occurred_at": WHEN,
        "title": "t",
        "body": "",
        "url": f"https://example.com/{id_}",
        "version": None,
        "regime": "rocm",
        "labels": [],
        "attrs": {},
        "first_seen_at": WHEN,
        "last_seen_at": WHEN,
        "imported": True,
    }
    return row | values


def tag_row(event_id: str, mentions, regime: str = "rocm") -> dict:
    return {
        "event_id": event_id,
        "tag": "neutral",
        "score": 0.0,
        "regime": regime,
        "mentions": mentions,
        "tagger_version": "t",
        "tagged_at": WHEN,
    }


def test_rows_are_the_typed_read_on_every_database(store: Store):
    mention = {"framework": "pytorch", "version": "2.7", "status": "supported"}
    rows = [
        event_row("a", attrs={"mentions": [mention], "section": "Highlights"}),
        event_row("b", "release", version="2.7.0", attrs={"prerelease": False, "draft": True}),
        event_row("c", attrs=["not", "a", "mapping"], url=""),
        event_row("d", attrs={"x": [1.5, None, {"y": "é"}]}, regime=None),
        event_row("e", occurred_at=WHEN.replace(microsecond=0)),
        event_row("f", project="pytorch", kind="release", version="2.7.0"),
        event_row("g", kind="issue"),  # neither a release nor a note: not read
    ]
    with store.transaction() as conn:
        conn.execute(events.insert(), rows)
        conn.execute(
            tags.insert(),
            [tag_row("a", [mention, "junk"], "xla"), tag_row("c", {"not": "a list"})],
        )
    got = list(store.coverage_rows(["rocm", "pytorch"]))
    assert got == typed_rows(store, ["rocm", "pytorch"])
    assert [row[0] for row in got] == ["e", "a", "b", "c", "d", "f"]
    assert all(row[4].tzinfo is UTC for row in got)
    assert [dict(zip(COVERAGE_COLUMNS, row, strict=True)) for row in got] == list(
        store.coverage_events(["rocm", "pytorch"])
    )


@pytest.mark.parametrize(
    "attrs_text",
    ['{"a": 1}', ' {"a": 1} ', "null", "[]", '"text"', "NaN", "1e400", "{}", '{"a": 1}\n'],
)
def test_stored_json_texts_decode_as_the_json_type_decodes_them(sqlite_store: Store, attrs_text):
    with sqlite_store.transaction() as conn:
        conn.execute(events.insert(), [event_row("a"), event_row("b")])
        conn.exec_driver_sql("UPDATE events SET attrs = ?", (attrs_text,))
        conn.execute(tags.insert(), [tag_row("a", [])])
        conn.exec_driver_sql("UPDATE tags SET mentions = ?", (attrs_text,))
    got = list(sqlite_store.coverage_rows(["rocm"]))
    want = typed_rows(sqlite_store, ["rocm"])
    # NaN is not equal to itself: compare the texts Python prints
    assert repr(got) == repr(want)


def test_numbers_and_invalid_json_stored_by_raw_sql(sqlite_store: Store):
    with sqlite_store.transaction() as conn:
        conn.execute(events.insert(), [event_row("a")])
        conn.exec_driver_sql("UPDATE events SET attrs = 5")  # an INTEGER, not a text
    assert list(sqlite_store.coverage_rows(["rocm"])) == typed_rows(sqlite_store, ["rocm"])
    assert next(iter(sqlite_store.coverage_rows(["rocm"])))[6] == 5
    with sqlite_store.transaction() as conn:
        conn.exec_driver_sql("UPDATE events SET attrs = '{\"a\": 1} x'")
    with pytest.raises(ValueError, match="Extra data"):
        typed_rows(sqlite_store, ["rocm"])
    with pytest.raises(ValueError, match="Extra data"):
        list(sqlite_store.coverage_rows(["rocm"]))


@pytest.mark.parametrize(
    "stored",
    [
        "2025-03-04 05:06:07.890123",
        "2025-03-04 05:06:07",
        "2025-03-04T05:06:07",
        "2025-03-04 05:06",
        "2025-03-04",
        # NUMERIC affinity stores it as an integer: no timestamp, and (sorting before any
        # text) outside the dates tracker computes with: left out, as a far date is
        "20250304",
        "2025-03-04 05:06:07+02:00",
        "2025-03-04 05:06:07Z",
        "2025-03-04 05:06:07.5-01:30",
    ],
)
def test_stored_timestamps_read_as_the_utc_type_reads_them(sqlite_store: Store, stored):
    with sqlite_store.transaction() as conn:
        conn.execute(events.insert(), [event_row("a")])
        conn.exec_driver_sql("UPDATE events SET occurred_at = ?", (stored,))
    want = typed_rows(sqlite_store, ["rocm"])
    got = list(sqlite_store.coverage_rows(["rocm"]))
    assert got == want
    if stored.isdigit():
        assert got == []
    else:
        assert got[0][4].tzinfo is UTC
