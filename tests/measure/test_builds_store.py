"""Builds named in any record read through the store (tracker.measure.facts.load_named_builds
over Store.build_texts): a channel's changed ``builds:`` pattern takes effect at the next read,
though which record holds which pattern's text is derived once (tracker.store.derived)."""

from __future__ import annotations

from datetime import UTC, datetime

from tests.measure.test_builds import _config
from tracker.events import Event
from tracker.measure.facts import load_named_builds

IMAGE = {
    "contains": "vllm-openai-rocm:",
    "pattern": r"vllm/vllm-openai-rocm:v(?P<version>\d+\.\d+\.\d+)\b",
}
DEV_IMAGE = {
    "contains": "rocm/vllm-dev:",
    "pattern": r"rocm/vllm-dev:v(?P<version>\d+\.\d+\.\d+)\b",
}


def _event(external: str, kind: str, body: str, day: int) -> Event:
    return Event(
        "vllm-issues", "vllm", kind, external, datetime(2026, 3, day, 12, tzinfo=UTC),
        f"{kind} {external}", body=body, url=f"https://github.com/vllm-project/vllm/{external}",
    )  # fmt: skip


def _image_builds(config, store) -> list[str]:
    (releases, _notes), _labels = load_named_builds(config.coverage, store)
    return sorted(f.version for f in releases if f.project == "vllm-rocm-image")


def test_a_changed_builds_pattern_takes_effect_at_the_next_read(store):
    with store.transaction() as conn:
        store.upsert_events(
            conn,
            [
                _event("issue:1", "issue", "Docker image: vllm/vllm-openai-rocm:v0.14.0", 2),
                _event("comment:2", "comment", "docker pull rocm/vllm-dev:v0.16.0", 5),
            ],
        )
    assert _image_builds(_config([IMAGE]), store) == ["0.14.0"]
    assert _image_builds(_config([DEV_IMAGE]), store) == ["0.16.0"]  # re-derived
    assert _image_builds(_config([IMAGE, DEV_IMAGE]), store) == ["0.14.0", "0.16.0"]
    with store.transaction() as conn:  # written after: matched as it is written
        store.upsert_events(conn, [_event("comment:3", "comment", "rocm/vllm-dev:v0.17.0", 9)])
    assert _image_builds(_config([DEV_IMAGE]), store) == ["0.16.0", "0.17.0"]
