"""Store.build_texts: the records whose title, body or attrs hold a channel's plain text, of
every kind that can name a build, on SQLite and PostgreSQL alike (LIKE wildcards in the text
are taken literally; case is ignored)."""

from __future__ import annotations

from datetime import UTC, datetime

from tracker.events import Event


def _event(external: str, kind: str, title: str, body: str = "", attrs=None) -> Event:
    return Event(
        source_id="s",
        project="p",
        kind=kind,
        external_id=external,
        occurred_at=datetime(2026, 7, 21, 0, 21, 11, tzinfo=UTC),
        title=title,
        body=body,
        url=f"https://example.org/{external}",
        attrs=attrs or {},
    )


def test_build_texts_picks_every_kind_by_plain_text(store):
    events = [
        _event("issue", "issue", "MI300X crash", "Docker Image: VLLM/vllm-openai-rocm:v0.14.0"),
        _event("comment", "comment", "", "pip install vllm_neuron-0.21.0.1.0.0"),
        _event("lookalike", "comment", "", "vllmXneuron-0.21.0.1.0.0"),  # "_" is no wildcard
        _event(
            "revision",
            "commit",
            "index.rst at 993f75b6",
            "0.16.0.*",
            {"revision": {"path": "index.rst", "removed": "0.21.0.1.0.0 (supports vLLM version"}},
        ),
        _event("run", "ci_run", "vllm/vllm-openai-rocm:v0.14.0 nightly"),  # not a text record
        _event("other", "note", "nothing here"),
    ]
    with store.transaction() as conn:
        store.upsert_events(conn, events)
    rows = store.build_texts(["vllm-openai-rocm:", "vllm_neuron-", "(supports vLLM version"])
    assert sorted(r["url"].rsplit("/", 1)[1] for r in rows) == ["comment", "issue", "revision"]
    revision = next(r for r in rows if r["url"].endswith("revision"))
    assert revision["attrs"]["revision"]["path"] == "index.rst"
    assert revision["occurred_at"] == datetime(2026, 7, 21, 0, 21, 11, tzinfo=UTC)
    assert store.build_texts([]) == []


def _picked(store, anchors) -> list[str]:
    return sorted(r["url"].rsplit("/", 1)[1] for r in store.build_texts(anchors))


def test_a_record_is_matched_when_it_is_written_not_at_each_read(store):
    """Once an anchor is derived, a record written later is matched as it is written (the read
    runs no pass over the stored texts again), and a record written again without the text is
    no longer picked."""
    anchor = "vllm-openai-rocm:"
    with store.transaction() as conn:
        store.upsert_events(conn, [_event("old", "issue", "image vllm/vllm-openai-rocm:v0.14.0")])
    assert store.derive_anchors([anchor]) == [anchor]  # the one pass over what is stored
    with store.transaction() as conn:
        store.upsert_events(
            conn,
            [
                _event("new", "comment", "", "vLLM/vllm-openai-rocm:v0.15.0 crashes"),
                _event("other", "release", "v0.15.0"),
            ],
        )
    assert store.derive_anchors([anchor]) == []  # nothing to derive again
    assert _picked(store, [anchor]) == ["new", "old"]
    with store.transaction() as conn:
        store.upsert_events(conn, [_event("new", "comment", "", "fixed")])  # edited upstream
    assert _picked(store, [anchor]) == ["old"]


def test_a_new_anchor_is_derived_over_every_stored_record_at_its_first_read(store):
    """A changed pattern's plain text is an anchor the store has not matched yet: the first read
    asking for it matches every stored record once; the other anchors keep their rows."""
    with store.transaction() as conn:
        store.upsert_events(
            conn,
            [
                _event("image", "issue", "vllm/vllm-openai-rocm:v0.14.0"),
                _event("dev", "comment", "", "docker pull rocm/vllm-dev:v0.16.0"),
            ],
        )
    assert _picked(store, ["vllm-openai-rocm:"]) == ["image"]
    assert _picked(store, ["rocm/vllm-dev:"]) == ["dev"]
    assert _picked(store, ["vllm-openai-rocm:", "rocm/vllm-dev:"]) == ["dev", "image"]


def test_a_long_plain_text_picks_by_its_start(store):
    """A pattern's plain text longer than the store keeps (ANCHOR_CHARS) picks the records
    holding its start: more records to match, never fewer; no key too long for PostgreSQL."""
    from tracker.store.build_reads import ANCHOR_CHARS

    long = "vllm-openai-rocm:" + "é" * 3000
    with store.transaction() as conn:
        store.upsert_events(
            conn,
            [
                _event("whole", "issue", "x " + long),
                _event("start", "issue", "x " + long[:ANCHOR_CHARS] + " and then"),
                _event("none", "issue", "x " + long[: ANCHOR_CHARS - 1]),
            ],
        )
    assert _picked(store, [long]) == ["start", "whole"]
