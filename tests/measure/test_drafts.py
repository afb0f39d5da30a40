"""Draft releases never set day 0 and never count as releases (issue 20, item 5).

Real shape: GitHub lists a draft release (only to a token with push access) with ``"draft":
true``, ``"published_at": null`` and ``created_at`` = the date of the tag's commit. Real facts:
vLLM v0.15.1 was published 2026-02-04T20:48:08Z and v0.16.0 2026-02-13T00:35:21Z; the draft's
creation time below (before the 0.16.0 publication) is illustrative.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime

from tracker.collect.sources import CollectContext, github_releases
from tracker.config import SourceSpec
from tracker.config.coverage import parse_coverage
from tracker.events import Event
from tracker.measure.facts import load_facts
from tracker.measure.lag.samples import ReleaseFact, day0_by_series, is_final

V0160 = "https://github.com/vllm-project/vllm/releases/tag/v0.16.0"


def release(tag: str, created: str, published: str | None, *, draft: bool) -> dict:
    """One object of GET /repos/{repo}/releases, in GitHub's shape."""
    return {
        "tag_name": tag,
        "name": f"vLLM {tag}",
        "body": "## Highlights\n* a change",
        "draft": draft,
        "prerelease": False,
        "created_at": created,
        "published_at": published,
        "html_url": f"https://github.com/vllm-project/vllm/releases/tag/{tag}",
        "assets": [],
    }


def ctx() -> CollectContext:
    spec = SourceSpec(id="vllm-releases", kind="github_releases", project="vllm", regime="cuda")
    return CollectContext(spec=spec, state={}, now=datetime(2026, 2, 20, tzinfo=UTC))


def test_the_collector_passes_drafts_over():
    page = [
        release("v0.16.0", "2026-02-10T08:00:00Z", None, draft=True),
        release("v0.15.1", "2026-02-04T18:00:00Z", "2026-02-04T20:48:08Z", draft=False),
    ]
    context = ctx()
    events = list(github_releases.parse(json.dumps(page).encode(), context))
    assert {e.attrs["tag"] for e in events} == {"v0.15.1"}
    assert context.skipped == 0  # a draft is not a malformed item


RULE = parse_coverage(
    [
        {
            "project": "vllm",
            "series": "minor",
            "regimes": {
                "rocm": [
                    {
                        "definition": "d",
                        "primary": True,
                        "evidence": {"project": "rocm-vllm", "kind": "release"},
                    }
                ]
            },
        }
    ]
)[0]


def test_a_draft_never_sets_day_0():
    draft = ReleaseFact("vllm", "0.16.0", datetime(2026, 2, 10, 8, tzinfo=UTC), "d", draft=True)
    final = ReleaseFact("vllm", "0.16.0", datetime(2026, 2, 13, 0, 35, 21, tzinfo=UTC), V0160)
    assert not is_final(draft) and is_final(final)
    assert day0_by_series(RULE, [draft, final])["0.16"] == (final.occurred_at, V0160)
    assert day0_by_series(RULE, [draft]) == {}


def test_stored_drafts_are_no_release_facts(sqlite_store):
    # An imported draft (import-events takes any JSON) is still no release.
    items = [
        Event(
            "vllm-releases",
            "vllm",
            "release",
            "release:v0.16.0",
            datetime(2026, 2, 10, 8, tzinfo=UTC),
            "vLLM v0.16.0",
            version="0.16.0",
            attrs={"tag": "v0.16.0", "draft": True, "prerelease": False},
        ),
        Event(
            "vllm-releases",
            "vllm",
            "release",
            "release:v0.15.1",
            datetime(2026, 2, 4, 20, 48, 8, tzinfo=UTC),
            "vLLM v0.15.1",
            version="0.15.1",
            attrs={"tag": "v0.15.1", "draft": False, "prerelease": False},
        ),
    ]
    with sqlite_store.transaction() as conn:
        sqlite_store.upsert_events(conn, items)
    releases, _ = load_facts(sqlite_store, ["vllm"])
    assert [r.version for r in releases] == ["0.15.1"]
