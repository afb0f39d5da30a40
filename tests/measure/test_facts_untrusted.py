"""load_facts reads stored values as untrusted (`import-events` takes any JSON, and raw SQL
anything): what it must ignore, and what it keeps, on SQLite and PostgreSQL alike."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from tracker.measure.facts import load_facts
from tracker.measure.lag.samples import NoteFact, ReleaseFact
from tracker.store import Store
from tracker.store.tables import events, tags

T0 = datetime(2025, 5, 1, tzinfo=UTC)
TORCH = {"framework": "pytorch", "version": "2.7", "status": "supported"}


def event(n: int, kind: str, **values) -> dict:
    return {
        "id": f"e{n}",
        "source_id": "s",
        "project": "rocm",
        "kind": kind,
        "external_id": f"x{n}",
        "occurred_at": T0 + timedelta(days=n),
        "title": "t",
        "body": "",
        "url": f"https://example.com/{n}",
        "version": None,
        "regime": "rocm",
        "labels": [],
        "attrs": {},
        "first_seen_at": T0,
        "last_seen_at": T0,
        "imported": True,
    } | values


def tagged(n: int, mentions, regime: str = "rocm") -> dict:
    return {
        "event_id": f"e{n}",
        "tag": "neutral",
        "score": 0.0,
        "regime": regime,
        "mentions": mentions,
        "tagger_version": "t",
        "tagged_at": T0,
    }


def fill(store: Store, rows: list[dict], tag_rows: list[dict]) -> None:
    with store.transaction() as conn:
        conn.execute(events.insert(), rows)
        if tag_rows:
            conn.execute(tags.insert(), tag_rows)


def test_releases_keep_what_is_a_published_version(store: Store):
    fill(
        store,
        [
            event(1, "release", version="7.0.0", attrs={"draft": True}),  # a draft: left out
            event(2, "release", version="7.0.1", attrs={"draft": "true"}),  # not the JSON true
            event(3, "release", version=None),  # no version: no release fact
            event(4, "release", version="", url=""),
            event(5, "release", version="7.1.0rc1", attrs={"prerelease": 1}),
            event(6, "release", version="7.1.0", attrs=["draft", True], url=""),
        ],
        [],
    )
    releases, notes = load_facts(store, ["rocm"])
    assert notes == []
    assert releases == [
        # each keeps the source that stored it (its observation window: measure.windows)
        ReleaseFact(
            "rocm", "7.0.1", T0 + timedelta(days=2), "https://example.com/2", source_id="s"
        ),
        ReleaseFact(
            "rocm", "7.1.0rc1", T0 + timedelta(days=5), "https://example.com/5", True, source_id="s"
        ),
        ReleaseFact("rocm", "7.1.0", T0 + timedelta(days=6), "event:e6", source_id="s"),
    ]


def test_note_mentions_whose_fields_are_not_strings_are_ignored(store: Store):
    junk = [
        {"framework": "pytorch", "version": "", "status": "supported"},
        {"framework": None, "version": "2.6", "status": "supported"},
        {"framework": "jax", "version": "0.6", "status": ["supported"]},
        {"model": "", "status": "supported"},
        {"model": 7, "status": "supported"},
        {"model": "llama4", "status": None},
        "pytorch 2.5",
        None,
    ]
    fill(
        store,
        [
            event(1, "note", attrs=["a list", TORCH]),  # attrs not a mapping: read as empty
            event(2, "note", attrs={"mentions": {"not": "a list"}}),
            event(3, "note", attrs={"mentions": junk + [TORCH]}, regime=None),
            event(4, "note", attrs={"section": 5, "topic": "t"}),
        ],
        [
            tagged(1, [TORCH]),
            tagged(2, "not a list", regime="xla"),
            tagged(4, junk + [{"model": "qwen3", "status": ""}]),
        ],
    )
    _, notes = load_facts(store, ["rocm"])
    torch = (("pytorch", "2.7", "supported"),)
    qwen = (("qwen3", "", "5 |  | t"),)  # an empty status is still a string (no support)
    assert notes == [
        NoteFact("rocm", T0 + timedelta(days=1), "https://example.com/1", torch, (), "rocm", "s"),
        NoteFact("rocm", T0 + timedelta(days=2), "https://example.com/2", (), (), "xla", "s"),
        NoteFact("rocm", T0 + timedelta(days=3), "https://example.com/3", torch, (), None, "s"),
        NoteFact("rocm", T0 + timedelta(days=4), "https://example.com/4", (), qwen, "rocm", "s"),
    ]


def test_model_mentions_of_a_collector_win_and_candidates_name_none(store: Store):
    structured = {"mentions": [{"model": "llama4", "status": "supported"}, TORCH]}
    fill(
        store,
        [
            event(1, "note", attrs=structured),
            event(2, "note", attrs=structured, version="7.1.0rc1"),  # a release candidate's
            event(3, "note", attrs={"mentions": [TORCH]}, version="7.1.0"),
        ],
        [tagged(n, [{"model": "qwen3", "status": "supported"}]) for n in (1, 2, 3)],
    )
    _, notes = load_facts(store, ["rocm"])
    assert [n.models for n in notes] == [
        (("llama4", "supported", " |  | "),),  # the tagger's qwen3 reading of it is not used
        (),
        (("qwen3", "supported", " |  | "),),  # no structured model mention: the tagger's
    ]
    assert [n.mentions for n in notes] == [(("pytorch", "2.7", "supported"),)] * 3
