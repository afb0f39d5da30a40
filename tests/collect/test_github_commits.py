"""github_commits: commits of a repository touching given paths -> `commit` events.

Served by pytest-httpserver in the GitHub commits API's shape (real SHAs, dates and titles of
ROCm/aiter); the shipped cassette is replayed through the real HTTP client too."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import vcr

from tracker.collect.http import HttpClient
from tracker.collect.sources import CollectContext, github_commits
from tracker.config import SourceSpec

REPO = Path(__file__).resolve().parents[2]
MLA = (
    "ef6d4db6eaf61e9fd74cb065021cb01d780fc976",
    "2025-02-28T23:19:15+08:00",
    "add asm mla (#161)",
)
LATER = (
    "7c0e15cdb7202cb6bcb60eac9e81e70b4ddaa9c7",
    "2025-11-03T17:08:22+08:00",
    "Mla splitkv (#1233)",
)


def item(sha: str, date: str, title: str) -> dict:
    return {
        "sha": sha,
        "commit": {
            "committer": {"date": date},
            "author": {"date": date},
            "message": title + "\n\nbody",
        },
        "html_url": f"https://github.com/ROCm/aiter/commit/{sha}",
    }


def ctx_for(server, client: HttpClient, state: dict | None = None, **options) -> CollectContext:
    spec = SourceSpec(
        id="aiter-commits",
        kind="github_commits",
        project="aiter",
        regime="rocm",
        options={"repo": "ROCm/aiter", "api_url": server.url_for("").rstrip("/"), **options},
    )
    return CollectContext(spec=spec, http=client, state=state or {})


def test_pages_yield_commit_events_and_a_rerun_is_a_304(httpserver):
    page2 = httpserver.url_for("/repos/ROCm/aiter/commits") + "?path=aiter%2Fmla.py&page=2"
    httpserver.expect_request(
        "/repos/ROCm/aiter/commits",
        query_string="path=aiter%2Fmla.py&per_page=100&since=2024-11-01T00%3A00%3A00Z",
    ).respond_with_json(
        [item(*LATER), {"sha": "", "commit": {}}], headers={"Link": f'<{page2}>; rel="next"'}
    )
    httpserver.expect_request(
        "/repos/ROCm/aiter/commits", query_string="path=aiter%2Fmla.py&page=2"
    ).respond_with_json([item(*MLA)], headers={"ETag": '"p2"'})
    client = HttpClient(retries=0)
    ctx = ctx_for(httpserver, client, paths=["aiter/mla.py"], since="2024-11-01")
    events = list(github_commits.collect(ctx))
    assert [e.attrs["sha"] for e in events] == [LATER[0], MLA[0]]
    first = events[1]
    assert first.kind == "commit" and first.project == "aiter" and first.regime == "rocm"
    assert first.occurred_at.isoformat() == "2025-02-28T15:19:15+00:00"
    assert first.title == "add asm mla (#161)" and first.attrs["pr"] == 161
    assert first.attrs["path"] == "aiter/mla.py" and first.attrs["since"] == "2024-11-01"
    assert first.url == f"https://github.com/ROCm/aiter/commit/{MLA[0]}"
    assert first.external_id == f"commit:aiter/mla.py:{MLA[0]}"
    assert ctx.skipped == 1  # the item without a sha, not the page
    assert ctx.state["newest"] == {"aiter/mla.py": LATER[0]}

    # Next run: the listing's first page (now short and whole) answers 304 to its ETag.
    httpserver.clear()
    url = httpserver.url_for("/repos/ROCm/aiter/commits")
    full = url + "?path=aiter%2Fmla.py&per_page=100&since=2024-11-01T00%3A00%3A00Z"
    httpserver.expect_request(
        "/repos/ROCm/aiter/commits", headers={"If-None-Match": '"v1"'}
    ).respond_with_data("", status=304)
    again = HttpClient(retries=0, validators={full: {"etag": '"v1"'}})
    ctx2 = ctx_for(httpserver, again, ctx.state, paths=["aiter/mla.py"], since="2024-11-01")
    ctx2.since = datetime(2026, 1, 1, tzinfo=UTC)  # the run's cursor does not move the URL
    assert list(github_commits.collect(ctx2)) == []
    assert again.stats.not_modified == 1
    assert ctx2.state["newest"] == {"aiter/mla.py": LATER[0]}


def test_paging_stops_at_the_newest_commit_read_before(httpserver):
    newer = ("a" * 40, "2026-01-02T00:00:00Z", "[TRITON] a change (#2000)")
    httpserver.expect_request("/repos/ROCm/aiter/commits").respond_with_json(
        [item(*newer), item(*LATER), item(*MLA)]
    )
    ctx = ctx_for(
        httpserver, HttpClient(retries=0), {"newest": {"aiter/mla.py": LATER[0]}},
        paths=["aiter/mla.py"],
    )  # fmt: skip
    events = list(github_commits.collect(ctx))
    assert [e.attrs["sha"] for e in events] == [newer[0]]
    assert ctx.state["newest"]["aiter/mla.py"] == newer[0]
    assert "since" not in events[0].attrs  # the whole history was read


def test_shipped_cassette_replays_the_aiter_commits():
    from tracker.jobs.config import load_config

    spec = load_config(REPO / "sources.yaml").source("aiter-commits")
    ctx = CollectContext(spec, http=HttpClient())
    with vcr.use_cassette(str(REPO / "cassettes" / "aiter-commits.yaml"), record_mode="none"):
        events = list(github_commits.collect(ctx))
    got = {(e.attrs["path"], e.attrs.get("pr"), e.occurred_at.date().isoformat()) for e in events}
    assert ("aiter/mla.py", 161, "2025-02-28") in got
    assert ("op_tests/test_mla_sparse.py", 1233, "2025-11-03") in got
    assert ctx.skipped == 0
