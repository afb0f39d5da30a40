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
