"""Release collectors: github_releases, github_tags, atom_feed, pypi.

Pure `parse` functions are tested on JSON / XML written inline; `collect` runs against a real
local server (pytest-httpserver) through the real HttpClient, so pagination, ETag / 304 and
malformed bodies go through the same code as in production; the shipped cassettes are replayed
through the runner's vcrpy wrapper; and the tag parser runs over the corpus's real tag lists.
"""

from __future__ import annotations

import csv
import json
import os
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
import yaml

from tracker.collect.http import HttpClient
from tracker.collect.sources import (
    CollectContext,
    atom_feed,
    docker_tags,
    github_releases,
    github_tags,
    pypi,
)
from tracker.config import SourceSpec
from tracker.errors import FatalHTTPError

REPO = Path(__file__).resolve().parents[2]
CORPUS = Path(os.environ.get("TRACKER_CORPUS", REPO.parent / "shared" / "corpus"))
NOW = datetime(2026, 2, 1, 12, 0, tzinfo=UTC)
MY_KINDS = {"github_releases", "github_tags", "atom_feed", "pypi", "docker_tags"}


def make_ctx(kind="github_releases", http=None, since=None, state=None, now=NOW, **options):
    spec = SourceSpec(id="test-src", kind=kind, project="vllm", regime="cuda", options=options)
    return CollectContext(spec=spec, http=http, since=since, state=state or {}, now=now)


def iso(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")


def rel(tag, published, body="* a change", prerelease=False, name=None, repo="o/r"):
    """A release object in the shape of GitHub's REST API."""
    return {
        "tag_name": tag,
        "name": name,
        "body": body,
        "draft": False,
        "prerelease": prerelease,
        "created_at": published,
        "published_at": published,
        "html_url": f"https://github.com/{repo}/releases/tag/{tag}",
        "assets": [],
    }


def page_bytes(*releases) -> bytes:
    return json.dumps(list(releases)).encode()


# --- github_releases: parse --------------------------------------------------------------

BODY = """## Highlights
This release has 1 commit from 1 contributor (a paragraph, not a note).

* FlashInfer backend is now the default on Blackwell
* Model support:
  * Qwen3-Next
  * DeepSeek-V3.2

### Bug fixes
1. Fixed a hang in the ROCm AITER backend
2. Fixed the TPU compile cache

**Known issues:**

- Pipeline parallelism is not supported on Neuron

| col | other |
|-----|-------|
| * not a bullet | x |

```
* not a bullet either
```
"""


def test_notes_carry_heading_version_date_and_url():
    ctx = make_ctx()
    events = list(
        github_releases.parse(
            page_bytes(rel("v0.11.0", "2025-10-02T12:00:00Z", BODY, name="vLLM v0.11.0")), ctx
        )
    )
    release, notes = events[0], events[1:]
    assert release.kind == "release" and release.external_id == "release:v0.11.0"
    assert release.version == "0.11.0" and release.title == "vLLM v0.11.0"
    assert release.occurred_at == datetime(2025, 10, 2, 12, tzinfo=UTC)
    assert release.attrs["prerelease"] is False and release.attrs["tag"] == "v0.11.0"
    assert [n.title for n in notes] == [
        "FlashInfer backend is now the default on Blackwell",
        "Model support:",
        "Qwen3-Next",
        "DeepSeek-V3.2",
        "Fixed a hang in the ROCm AITER backend",
        "Fixed the TPU compile cache",
        "Pipeline parallelism is not supported on Neuron",
    ]
    assert [n.attrs["section"] for n in notes] == ["Highlights"] * 4 + ["Bug fixes"] * 2 + [
        "Known issues"
    ]
    assert [n.attrs["depth"] for n in notes] == [1, 1, 2, 2, 1, 1, 1]
    assert [n.external_id for n in notes] == [f"note:v0.11.0:{i}" for i in range(1, 8)]
    assert all(n.version == "0.11.0" and n.occurred_at == release.occurred_at for n in notes)
    assert all(n.url == "https://github.com/o/r/releases/tag/v0.11.0" for n in notes)
    assert all(n.kind == "note" and n.regime == "cuda" and n.project == "vllm" for n in notes)
    assert ctx.skipped == 0


def test_inline_markup_is_reduced_to_text():
    notes = github_releases.bullets(
        "* Add `torch.compile` support for **ROCm** ([#123](https://x/123))\n"
        "  continued on a second line\n"
    )
    assert notes[0].text == ("Add torch.compile support for ROCm (#123) continued on a second line")
    assert notes[0].section == ""


def test_prerelease_is_kept_and_marked():
    ctx = make_ctx()
    events = list(
        github_releases.parse(
            page_bytes(
                rel("v0.11.0rc1", "2025-09-20T00:00:00Z"),
                rel("v0.16.0", "2026-02-13T00:35:21Z", prerelease=True),  # flagged by GitHub only
                rel("v0.15.1", "2026-02-04T20:48:08Z"),
            ),
            ctx,
        )
    )
    releases = {e.attrs["tag"]: e for e in events if e.kind == "release"}
    assert releases["v0.11.0rc1"].attrs["prerelease"] is True
    assert releases["v0.11.0rc1"].version == "0.11.0rc1"
    assert releases["v0.16.0"].attrs["prerelease"] is True
    assert releases["v0.15.1"].attrs["prerelease"] is False
    notes = [e for e in events if e.kind == "note" and e.attrs["tag"] == "v0.16.0"]
    assert notes and notes[0].attrs["prerelease"] is True

    ctx = make_ctx(include_prereleases=False)
    kept = [
        e.attrs["tag"]
        for e in github_releases.parse(
            page_bytes(
                rel("v0.16.0", "2026-02-13T00:35:21Z", prerelease=True),
                rel("v0.15.1", "2026-02-04T20:48:08Z"),
            ),
            ctx,
        )
        if e.kind == "release"
    ]
    assert kept == ["v0.15.1"] and ctx.skipped == 0


def test_local_version_part_goes_to_attrs():
    events = list(
        github_releases.parse(page_bytes(rel("v2.9.0+rocm6.4", "2025-10-15T00:00:00Z")), make_ctx())
    )
    assert events[0].version == "2.9.0" and events[0].attrs["local"] == "rocm6.4"


def test_tag_that_is_not_a_version_is_skipped_and_counted(caplog):
    ctx = make_ctx()
    events = list(
        github_releases.parse(
            page_bytes(
                rel("nightly", "2026-01-01T00:00:00Z"),
                rel("rocm-jax-v0.8.2-alpha-sdk", "2026-03-05T21:49:58Z"),
                rel("v0.14.0", "2026-01-20T09:20:31Z"),
            ),
            ctx,
        )
    )
    assert [e.attrs["tag"] for e in events if e.kind == "release"] == ["v0.14.0"]
    assert ctx.skipped == 2
    assert "test-src: skipped release 'nightly': tag is not a version" in ctx.warnings
    assert any("rocm-jax-v0.8.2-alpha-sdk" in w for w in ctx.warnings)
    assert "tag is not a version" in caplog.text


@pytest.mark.parametrize("body", [None, "", "  \n"])
def test_empty_body_gives_the_release_alone(body):
    ctx = make_ctx()
    events = list(
        github_releases.parse(page_bytes(rel("v0.14.1", "2026-01-24T20:29:27Z", body)), ctx)
    )
    assert [e.kind for e in events] == ["release"]
    assert ctx.skipped == 0 and ctx.warnings == []  # a release without notes is no fault


def test_edited_body_keeps_note_ids():
    before = "## Highlights\n* Initial support for MI355X\n* Fix a crash\n"
    after = "## Highlights\n* Initial support for MI355X and MI350X\n* Fix a crash on gfx950\n"
    first = list(
        github_releases.parse(page_bytes(rel("v1.0.0", "2026-01-01T00:00:00Z", before)), make_ctx())
    )
    second = list(
        github_releases.parse(page_bytes(rel("v1.0.0", "2026-01-01T00:00:00Z", after)), make_ctx())
    )
    assert [e.id for e in first] == [e.id for e in second]
    assert [e.title for e in first[1:]] != [e.title for e in second[1:]]
    assert second[1].title == "Initial support for MI355X and MI350X"


def test_parse_rejects_non_json_page():
    with pytest.raises(FatalHTTPError, match="test-src"):
        list(github_releases.parse(b"<html>", make_ctx()))


# --- github_releases: collect against a local server ------------------------------------


def http() -> HttpClient:
    return HttpClient(retries=0)


def releases_ctx(server, **kw):
    return make_ctx(
        http=kw.pop("client", None) or http(),
        api_url=server.url_for("").rstrip("/"),
        repo="o/r",
        **kw,
    )


def test_pagination_follows_link_header(httpserver):
    page2 = httpserver.url_for("/repositories/1/releases") + "?per_page=100&page=2"
    httpserver.expect_request("/repos/o/r/releases", query_string="per_page=100").respond_with_json(
        [rel("v0.2.0", iso(NOW - timedelta(days=3)))],
        headers={"Link": f'<{page2}>; rel="next", <{page2}>; rel="last"'},
    )
    httpserver.expect_request(
        "/repositories/1/releases", query_string="per_page=100&page=2"
    ).respond_with_json([rel("v0.1.0", iso(NOW - timedelta(days=400)))])
    ctx = releases_ctx(httpserver)
    tags = [e.attrs["tag"] for e in github_releases.collect(ctx) if e.kind == "release"]
    assert tags == ["v0.2.0", "v0.1.0"]  # no since: a full backfill reads every page
    assert len(httpserver.log) == 2
    assert ctx.state["recent"] == {
        "v0.2.0": {"published": (NOW - timedelta(days=3)).isoformat(), "notes": 1}
    }


def test_paging_stops_past_since_and_window_but_rechecks_the_window(httpserver):
    page2 = httpserver.url_for("/page2")
    httpserver.expect_request("/repos/o/r/releases").respond_with_json(
        [
            rel("v0.3.0", iso(NOW - timedelta(hours=6))),
            rel("v0.2.0", iso(NOW - timedelta(days=10))),  # before since, inside the window
            rel("v0.1.0", iso(NOW - timedelta(days=60))),
        ],  # older than both
        headers={"Link": f'<{page2}>; rel="next"'},
    )
    httpserver.expect_request("/page2").respond_with_json([rel("v0.0.1", "2020-01-01T00:00:00Z")])
    ctx = releases_ctx(httpserver, since=NOW - timedelta(days=1))
    tags = [e.attrs["tag"] for e in github_releases.collect(ctx) if e.kind == "release"]
    assert tags == ["v0.3.0", "v0.2.0"]
    assert [entry[0].path for entry in httpserver.log] == ["/repos/o/r/releases"]


def test_vanished_release_and_removed_notes_are_marked(httpserver):
    state = {
        "recent": {
            "v0.2.0": {"published": (NOW - timedelta(days=5)).isoformat(), "notes": 2},
            "v0.1.9": {"published": (NOW - timedelta(days=20)).isoformat(), "notes": 3},
        }
    }
    httpserver.expect_request("/repos/o/r/releases").respond_with_json(
        [
            rel("v0.2.0", iso(NOW - timedelta(days=5)), "* the only bullet left"),
            rel("v0.1.0", iso(NOW - timedelta(days=90))),
        ]
    )
    ctx = releases_ctx(httpserver, since=NOW - timedelta(days=2), state=state)
    events = list(github_releases.collect(ctx))
    assert sorted(ctx.vanished) == [
        "note:v0.1.9:1",
        "note:v0.1.9:2",
        "note:v0.1.9:3",
        "note:v0.2.0:2",
        "release:v0.1.9",
    ]
    assert [e.external_id for e in events] == ["release:v0.2.0", "note:v0.2.0:1"]
    assert ctx.state["recent"] == {
        "v0.2.0": {"published": (NOW - timedelta(days=5)).isoformat(), "notes": 1}
    }


def test_not_modified_yields_nothing_and_keeps_state(httpserver):
    httpserver.expect_request(
        "/repos/o/r/releases", headers={"If-None-Match": '"abc"'}
    ).respond_with_data("", status=304)
    url = httpserver.url_for("/repos/o/r/releases") + "?per_page=100"
    client = HttpClient(retries=0, validators={url: {"etag": '"abc"'}})
    state = {"recent": {"v0.2.0": {"published": (NOW - timedelta(days=5)).isoformat(), "notes": 2}}}
    ctx = releases_ctx(httpserver, client=client, state=state)
    assert list(github_releases.collect(ctx)) == []
    assert ctx.vanished == [] and ctx.state == state
    assert client.stats.not_modified == 1


@pytest.mark.parametrize(
    "body, content_type",
    [
        ('[{"tag_name": "v1', "application/json"),
        ("<html><body>Unicorn!</body></html>", "text/html"),
    ],
)
def test_malformed_releases_body_fails_the_source(httpserver, body, content_type):
    httpserver.expect_request("/repos/o/r/releases").respond_with_data(
        body, content_type=content_type
    )
    with pytest.raises(FatalHTTPError, match="expected JSON"):
        list(github_releases.collect(releases_ctx(httpserver)))


# --- github_tags ----------------------------------------------------------------------------


REFS = "/repos/o/r/git/matching-refs/tags"


def tag(name, sha, kind="commit"):
    """One item of the matching-refs listing: a lightweight tag names its commit, an annotated
    one (kind "tag") its tag object."""
    return {"ref": f"refs/tags/{name}", "object": {"sha": sha, "type": kind}}


def tag_object(sha, date, commit_sha):
    return {"sha": sha, "tagger": {"date": date}, "object": {"sha": commit_sha, "type": "commit"}}


def commit(sha, date):
    return {"sha": sha, "committer": {"date": date}, "author": {"date": date}}


def test_tags_dated_by_commit_and_known_tags_not_looked_up_again(httpserver):
    listing = [
        tag("v0.2.0", "bbb"),
        tag("v0.1.0", "aaa"),
        tag("latest-build", "ccc"),
        tag("vnext", "ddd"),
    ]
    httpserver.expect_request(REFS).respond_with_json(listing)
    httpserver.expect_request("/repos/o/r/git/commits/bbb").respond_with_json(
        commit("bbb", "2025-11-14T12:24:41-08:00")
    )
    httpserver.expect_request("/repos/o/r/git/commits/aaa").respond_with_json(
        commit("aaa", "2025-09-30T18:02:12-07:00")
    )
    ctx = make_ctx(
        "github_tags",
        http=http(),
        api_url=httpserver.url_for("").rstrip("/"),
        repo="o/r",
        tag_pattern="v*",
    )
    events = list(github_tags.collect(ctx))
    assert [(e.version, e.occurred_at) for e in events] == [
        ("0.2.0", datetime(2025, 11, 14, 20, 24, 41, tzinfo=UTC)),
        ("0.1.0", datetime(2025, 10, 1, 1, 2, 12, tzinfo=UTC)),
    ]
    assert events[0].attrs["date_source"] == "commit" and events[0].attrs["sha"] == "bbb"
    assert events[0].url == "https://github.com/o/r/releases/tag/v0.2.0"
    assert ctx.skipped == 1 and "'vnext'" in ctx.warnings[0]  # matches "v*", not a version
    assert len(httpserver.log) == 3

    # Next run: one new tag; only its commit is looked up.
    httpserver.clear_log()
    httpserver.clear_all_handlers()
    httpserver.expect_request(REFS).respond_with_json([tag("v0.3.0", "eee")] + listing)
    httpserver.expect_request("/repos/o/r/git/commits/eee").respond_with_json(
        commit("eee", "2026-01-10T00:00:00Z")
    )
    again = make_ctx(
        "github_tags",
        http=http(),
        api_url=httpserver.url_for("").rstrip("/"),
        repo="o/r",
        tag_pattern="v*",
        state=ctx.state,
        since=datetime(2025, 12, 1, tzinfo=UTC),
    )
    events = list(github_tags.collect(again))
    assert [e.version for e in events] == ["0.3.0"]  # known tags older than since: not re-sent
    assert [entry[0].path for entry in httpserver.log] == [
        REFS,
        "/repos/o/r/git/commits/eee",
    ]


def test_a_bad_tag_or_commit_look_up_is_one_skip(httpserver):
    # A commit that answers 404 or null, and a listing item that is not a tag: each a skip
    # naming it; the other tags are stored and the failed look-ups are tried again next run.
    listing = [tag("v0.3.0", "ccc"), None, tag("v0.2.0", "bbb"), tag("v0.1.0", "aaa")]
    httpserver.expect_request(REFS).respond_with_json(listing)
    httpserver.expect_request("/repos/o/r/git/commits/ccc").respond_with_data("", status=404)
    httpserver.expect_request("/repos/o/r/git/commits/bbb").respond_with_json(None)
    httpserver.expect_request("/repos/o/r/git/commits/aaa").respond_with_json(
        commit("aaa", "2025-09-30T18:02:12-07:00")
    )
    ctx = make_ctx(
        "github_tags",
        http=http(),
        api_url=httpserver.url_for("").rstrip("/"),
        repo="o/r",
        tag_pattern="v*",
    )
    events = list(github_tags.collect(ctx))
    assert [e.version for e in events] == ["0.1.0"]
    assert ctx.skipped == 3 and "'v0.3.0'" in ctx.warnings[0] and "'v0.2.0'" in ctx.warnings[2]
    assert set(ctx.state["tags"]) == {"v0.1.0"}


def test_tag_lookup_budget_defers_the_rest(httpserver):
    httpserver.expect_request(REFS).respond_with_json([tag("v2.0.0", "b"), tag("v1.0.0", "a")])
    httpserver.expect_request("/repos/o/r/git/commits/b").respond_with_json(
        commit("b", "2025-02-01T00:00:00Z")
    )
    ctx = make_ctx(
        "github_tags",
        http=http(),
        api_url=httpserver.url_for("").rstrip("/"),
        repo="o/r",
        max_lookups=1,
    )
    assert [e.version for e in github_tags.collect(ctx)] == ["2.0.0"]
    assert ctx.state["pending"] is True and "v1.0.0" not in ctx.state["tags"]


HISTORY = """# Release history

| Version | Release date |
| ------- | ------------ |
| [6.2.0](https://example.test/6.2.0) | August 2, 2024 |
| [7.14](https://example.test/7.14) | July 20, 2026 |
"""


def test_an_annotated_tag_is_dated_by_its_tag_object_never_its_commit(httpserver):
    # TheRock 7.14's shape: the tag (2026-07-15) came six days after the commit it points at
    # (2026-07-09); a lightweight tag beside it has only its commit's date.
    httpserver.expect_request(REFS).respond_with_json(
        [tag("therock-7.14", "t714", "tag"), tag("therock-7.9.0", "c790")]
    )
    httpserver.expect_request("/repos/o/r/git/tags/t714").respond_with_json(
        tag_object("t714", "2026-07-15T13:57:38+00:00", "c714")
    )
    httpserver.expect_request("/repos/o/r/git/commits/c790").respond_with_json(
        commit("c790", "2025-10-15T22:14:36+00:00")
    )
    ctx = make_ctx(
        "github_tags", http=http(), api_url=httpserver.url_for("").rstrip("/"), repo="o/r"
    )
    events = {e.version: e for e in github_tags.collect(ctx)}
    assert events["7.14"].occurred_at == datetime(2026, 7, 15, 13, 57, 38, tzinfo=UTC)
    assert events["7.14"].attrs["date_source"] == "tag"
    assert events["7.14"].attrs["sha"] == "c714"  # the tagged commit, not the tag object
    assert events["7.9.0"].occurred_at == datetime(2025, 10, 15, 22, 14, 36, tzinfo=UTC)
    assert events["7.9.0"].attrs["date_source"] == "commit"
    # the commit the annotated tag points at is never looked up
    assert "/repos/o/r/git/commits/c714" not in [entry[0].path for entry in httpserver.log]


def test_the_release_history_dates_a_tag_when_it_is_the_earliest_record(httpserver):
    # ROCm 6.2.0's shape: a lightweight tag on a commit of 2024-08-20, a release history of
    # 2024-08-02: the history wins. An annotated tag older than its history row keeps its tag date.
    httpserver.expect_request(REFS).respond_with_json(
        [tag("rocm-6.2.0", "c620"), tag("rocm-7.14.0", "t714", "tag"), tag("rocm-6.1.0", "c610")]
    )
    httpserver.expect_request("/repos/o/r/git/commits/c620").respond_with_json(
        commit("c620", "2024-08-20T15:17:56-06:00")
    )
    httpserver.expect_request("/repos/o/r/git/tags/t714").respond_with_json(
        tag_object("t714", "2026-07-15T13:57:38+00:00", "c714")
    )
    httpserver.expect_request("/repos/o/r/git/commits/c610").respond_with_json(
        commit("c610", "2024-04-16T18:22:13-06:00")
    )
    httpserver.expect_request("/history.md").respond_with_data(HISTORY)
    ctx = make_ctx(
        "github_tags",
        http=http(),
        api_url=httpserver.url_for("").rstrip("/"),
        repo="o/r",
        history_url=httpserver.url_for("/history.md"),
    )
    events = {e.version: e for e in github_tags.collect(ctx)}
    assert events["6.2.0"].occurred_at == datetime(2024, 8, 2, tzinfo=UTC)
    assert events["6.2.0"].attrs["date_source"] == "release_history"
    # 7.14 and 7.14.0 are one release; the tag (07-15) is earlier than the history (07-20)
    assert events["7.14.0"].occurred_at == datetime(2026, 7, 15, 13, 57, 38, tzinfo=UTC)
    assert events["7.14.0"].attrs["date_source"] == "tag"
    # not in the history: its commit is the only date there is
    assert events["6.1.0"].attrs["date_source"] == "commit"


def test_a_release_is_dated_by_publication_never_by_created_at(httpserver):
    # created_at is the date of the tag's commit: it dates nothing. The history's day wins
    # where it is earlier than published_at.
    early = dict(rel("rocm-6.2.0", "2024-08-20T21:17:56Z"), created_at="2024-07-30T00:00:00Z")
    late = dict(rel("v1.0.0", "2025-01-10T00:00:00Z"), created_at="2024-12-01T00:00:00Z")
    unpublished = dict(rel("v0.9.0", None), created_at="2024-11-01T00:00:00Z")
    httpserver.expect_request("/history.md").respond_with_data(HISTORY)
    ctx = make_ctx(history_url=httpserver.url_for("/history.md"), http=http())
    parsed = list(github_releases.parse(page_bytes(early, late, unpublished), ctx))
    events = {e.version: e for e in parsed if e.kind == "release"}
    assert events["6.2.0"].occurred_at == datetime(2024, 8, 2, tzinfo=UTC)
    assert events["6.2.0"].attrs["date_source"] == "release_history"
    notes = [e for e in parsed if e.kind == "note" and e.version == "6.2.0"]
    assert notes and all(n.occurred_at == events["6.2.0"].occurred_at for n in notes)
    assert events["1.0.0"].occurred_at == datetime(2025, 1, 10, tzinfo=UTC)
    assert events["1.0.0"].attrs["date_source"] == "published"
    assert "0.9.0" not in events and ctx.skipped == 1 and "no published_at" in ctx.warnings[0]


@pytest.mark.parametrize(
    "pattern, name, matches",
    [
        ("v*", "v2.9.0", True),
        ("v*", "rocm-6.3.0", False),
        (r"^v\d+\.\d+\.\d+$", "v2.9.0", True),
        (r"^v\d+\.\d+\.\d+$", "v2.9.0-rc1", False),
        (None, "anything", True),
    ],
)
def test_tag_pattern(pattern, name, matches):
    assert github_tags.tag_matcher(pattern)(name) is matches


def _corpus_tags(name):
    path = CORPUS / "_derived" / name
    if not path.exists():
        pytest.skip(f"corpus file {path} absent (set TRACKER_CORPUS to the shared corpus)")
    with path.open(encoding="utf-8", newline="") as handle:
        rows = list(csv.DictReader(handle, delimiter="\t"))
    return json.dumps(
        [{"name": r["tag"], "commit": {"sha": r["commit"], "date": r["commit_date"]}} for r in rows]
    ).encode(), rows


def test_tag_parser_on_real_rocm_tags():
    content, rows = _corpus_tags("ROCm_ROCm_tags.tsv")
    ctx = make_ctx("github_tags", repo="ROCm/ROCm")
    events = {e.version: e for e in github_tags.parse(content, ctx)}
    assert len(events) == len(rows) == 14 and ctx.skipped == 0
    assert events["6.3.0"].occurred_at == datetime(2024, 12, 5, 0, 9, 23, tzinfo=UTC)
    assert events["6.3.0"].attrs["sha"] == "0d3eb1d7746ae5dbb61104341b6fb6934ed5cf1e"
    assert events["6.3.0"].url == "https://github.com/ROCm/ROCm/releases/tag/rocm-6.3.0"


def test_tag_parser_on_real_pytorch_xla_tags_with_final_only_pattern():
    content, rows = _corpus_tags("pytorch_xla_tags.tsv")
    ctx = make_ctx("github_tags", repo="pytorch/xla", tag_pattern=r"^v\d+\.\d+\.\d+$")
    events = list(github_tags.parse(content, ctx))
    finals = [r["tag"] for r in rows if "-rc" not in r["tag"]]
    assert [e.attrs["tag"] for e in events] == finals
    by_version = {e.version: e.occurred_at.date().isoformat() for e in events}
    # The same days as the torch_xla rows of _derived/regime_releases.csv.
    assert by_version["2.9.0"] == "2025-11-17" and by_version["2.8.0"] == "2025-08-08"
    assert not any(e.attrs["prerelease"] for e in events)


def test_tag_parser_on_real_rocm_jax_tags_skips_the_alpha_sdk_tag():
    content, rows = _corpus_tags("ROCm_rocm-jax_tags.tsv")
    ctx = make_ctx("github_tags", repo="ROCm/rocm-jax")
    events = list(github_tags.parse(content, ctx))
    assert len(events) == len(rows) - 1 and ctx.skipped == 1
    assert "rocm-jax-v0.8.2-alpha-sdk" in ctx.warnings[0]
    rcs = {e.version for e in events if e.attrs["prerelease"]}
    assert rcs == {"0.8.2rc0", "0.9.0rc0", "0.9.0rc2", "0.9.0rc3"}


# --- atom_feed -----------------------------------------------------------------------------

GITHUB_ATOM = b"""<?xml version="1.0" encoding="UTF-8"?>
<feed xmlns="http://www.w3.org/2005/Atom">
  <id>tag:github.com,2008:https://github.com/o/r/releases</id>
  <title>Release notes from r</title>
  <updated>2025-10-02T12:00:00Z</updated>
  <entry>
    <id>tag:github.com,2008:Repository/1/v0.11.0</id>
    <updated>2025-10-02T12:00:00Z</updated>
    <link rel="alternate" type="text/html" href="https://github.com/o/r/releases/tag/v0.11.0"/>
    <title>v0.11.0</title>
  </entry>
  <entry>
    <id>tag:github.com,2008:Repository/1/v0.11.0rc1</id>
    <updated>2025-09-20T08:30:00+02:00</updated>
    <link rel="alternate" type="text/html" href="https://github.com/o/r/releases/tag/v0.11.0rc1"/>
    <title>Release candidate</title>
  </entry>
  <entry>
    <id>tag:github.com,2008:Repository/1/undated</id>
    <link rel="alternate" type="text/html" href="https://github.com/o/r/releases/tag/undated"/>
    <title>No date at all</title>
  </entry>
</feed>
"""

PYPI_RSS = b"""<?xml version="1.0" encoding="UTF-8"?>
<rss version="2.0">
  <channel>
    <title>PyPI recent updates for vllm</title>
    <link>https://pypi.org/project/vllm/</link>
    <description>Recent updates to the Python Package Index for vllm</description>
    <item>
      <title>0.14.0</title>
      <link>https://pypi.org/project/vllm/0.14.0/</link>
      <description>
        A high-throughput and memory-efficient inference and serving engine for LLMs
      </description>
      <pubDate>Tue, 20 Jan 2026 09:20:31 GMT</pubDate>
    </item>
    <item>
      <title>0.13.0</title>
      <link>https://pypi.org/project/vllm/0.13.0/</link>
      <pubDate>Fri, 19 Dec 2025 03:02:22 GMT</pubDate>
    </item>
  </channel>
</rss>
"""


def test_github_atom_entries_become_releases():
    ctx = make_ctx("atom_feed", url="https://github.com/o/r/releases.atom")
    events = list(atom_feed.parse(GITHUB_ATOM, ctx))
    assert [(e.version, e.occurred_at) for e in events] == [
        ("0.11.0", datetime(2025, 10, 2, 12, tzinfo=UTC)),
        ("0.11.0rc1", datetime(2025, 9, 20, 6, 30, tzinfo=UTC)),
    ]  # from the link
    assert events[1].attrs == {"date_field": "updated", "prerelease": True}
    assert events[0].external_id == "entry:tag:github.com,2008:Repository/1/v0.11.0"
    assert events[0].url == "https://github.com/o/r/releases/tag/v0.11.0"
    assert ctx.skipped == 1 and "No date at all" in ctx.warnings[0]


def test_pypi_rss_entries_become_releases():
    ctx = make_ctx("atom_feed", url="https://pypi.org/rss/project/vllm/releases.xml")
    events = list(atom_feed.parse(PYPI_RSS, ctx))
    assert [(e.version, e.occurred_at.isoformat()) for e in events] == [
        ("0.14.0", "2026-01-20T09:20:31+00:00"),
        ("0.13.0", "2025-12-19T03:02:22+00:00"),
    ]
    assert events[0].attrs["date_field"] == "published"
    assert events[0].external_id == "entry:https://pypi.org/project/vllm/0.14.0/"


@pytest.mark.parametrize(
    "content", [b"", b"<html><body>Maintenance</body></html>", b'{"releases": []}']
)
def test_body_that_is_not_a_feed_fails_with_source_and_reason(content):
    with pytest.raises(FatalHTTPError, match=r"test-src: .*not a feed"):
        list(atom_feed.parse(content, make_ctx("atom_feed", url="https://x/feed")))


def test_feed_collect_conditional_get_and_html_error(httpserver):
    httpserver.expect_ordered_request("/feed").respond_with_data(
        PYPI_RSS, content_type="application/rss+xml", headers={"ETag": '"v1"'}
    )
    httpserver.expect_ordered_request("/feed", headers={"If-None-Match": '"v1"'}).respond_with_data(
        "", status=304
    )
    httpserver.expect_ordered_request("/feed").respond_with_data(
        "<html><body>Service unavailable page</body></html>", content_type="text/html"
    )
    client = http()
    ctx = make_ctx("atom_feed", http=client, url=httpserver.url_for("/feed"))
    assert [e.version for e in atom_feed.collect(ctx)] == ["0.14.0", "0.13.0"]
    assert list(atom_feed.collect(ctx)) == []  # 304: nothing new
    with pytest.raises(FatalHTTPError, match="test-src: .*/feed: not a feed: .*text/html"):
        list(atom_feed.collect(make_ctx("atom_feed", http=http(), url=httpserver.url_for("/feed"))))


# --- pypi ----------------------------------------------------------------------------------


def pyfile(name, when, yanked=False, reason=None):
    return {
        "filename": name,
        "packagetype": "bdist_wheel",
        "upload_time": when[:19],
        "upload_time_iso_8601": when,
        "yanked": yanked,
        "yanked_reason": reason,
    }


PYPI_DOC = {
    "info": {"name": "torch", "version": "2.9.0"},
    "releases": {
        "2.9.0": [
            pyfile(
                "torch-2.9.0-cp313-cp313-manylinux_2_28_aarch64.whl", "2025-10-15T18:40:02.123456Z"
            ),
            pyfile(
                "torch-2.9.0-cp310-cp310-manylinux_2_28_x86_64.whl", "2025-10-15T16:58:10.000001Z"
            ),
            pyfile("torch-2.9.0-cp312-cp312-win_amd64.whl", "2025-10-16T02:11:00.000000Z"),
        ],
        "2.9.0rc1": [
            pyfile("torch-2.9.0rc1-cp312-cp312-manylinux_2_28_x86_64.whl", "2025-09-20T10:00:00Z")
        ],
        "2.8.1": [
            pyfile("torch-2.8.1-py3-none-any.whl", "2025-09-01T00:00:00Z", True, "broken wheel"),
            pyfile("torch-2.8.1.tar.gz", "2025-09-01T01:00:00Z", True, "broken wheel"),
        ],
        "2.8.2": [],
        "not.a.version": [pyfile("x.whl", "2020-01-01T00:00:00Z")],
    },
}


def test_pypi_first_upload_yanked_and_skips():
    ctx = make_ctx("pypi", package="torch")
    events = {e.external_id: e for e in pypi.parse(json.dumps(PYPI_DOC).encode(), ctx)}
    assert set(events) == {"release:2.9.0", "release:2.9.0rc1", "release:2.8.1"}
    first = events["release:2.9.0"]
    assert first.occurred_at == datetime(2025, 10, 15, 16, 58, 10, 1, tzinfo=UTC)
    assert first.attrs == {"files": 3, "yanked": False, "prerelease": False}
    assert first.url == "https://pypi.org/project/torch/2.9.0/" and first.title == "torch 2.9.0"
    assert events["release:2.9.0rc1"].attrs["prerelease"] is True
    assert events["release:2.8.1"].attrs["yanked"] is True
    assert events["release:2.8.1"].attrs["yanked_reason"] == "broken wheel"
    # "2.8.2" has no files: silently absent; "not.a.version" is a counted skip.
    assert ctx.skipped == 1 and "'not.a.version'" in ctx.warnings[0]


def test_pypi_collect_uses_the_json_url_and_rejects_other_documents(httpserver):
    httpserver.expect_request("/pypi/torch/json").respond_with_json(PYPI_DOC)
    ctx = make_ctx(
        "pypi", http=http(), package="torch", url=httpserver.url_for("/pypi/{package}/json")
    )
    assert len(list(pypi.collect(ctx))) == 3
    httpserver.expect_request("/pypi/nope/json").respond_with_json({"message": "Not Found"})
    with pytest.raises(FatalHTTPError, match="not a PyPI project JSON"):
        list(
            pypi.collect(
                make_ctx(
                    "pypi",
                    http=http(),
                    package="nope",
                    url=httpserver.url_for("/pypi/{package}/json"),
                )
            )
        )


def test_pypi_null_document_is_an_error_not_a_304(httpserver):
    # get_json returns None only for 304 Not Modified; a `null` body must not read as "nothing new".
    httpserver.expect_request("/pypi/torch/json").respond_with_data(
        "null", content_type="application/json"
    )
    ctx = make_ctx(
        "pypi", http=http(), package="torch", url=httpserver.url_for("/pypi/{package}/json")
    )
    with pytest.raises(FatalHTTPError, match="pypi/torch/json: expected a JSON document, got null"):
        list(pypi.collect(ctx))


@pytest.mark.parametrize("document", [[], "torch", 3])
def test_pypi_non_object_document_names_the_source(httpserver, document):
    httpserver.expect_request("/pypi/torch/json").respond_with_json(document)
    ctx = make_ctx(
        "pypi", http=http(), package="torch", url=httpserver.url_for("/pypi/{package}/json")
    )
    with pytest.raises(FatalHTTPError, match="test-src: not a PyPI project JSON document"):
        list(pypi.collect(ctx))


# --- shipped sources and cassettes ---------------------------------------------------------


def my_sources() -> list[SourceSpec]:
    raw = yaml.safe_load((REPO / "sources.yaml").read_text(encoding="utf-8"))
    common = {"id", "kind", "project", "regime", "enabled", "description", "lookback_days"}
    return [
        SourceSpec(
            id=e["id"],
            kind=e["kind"],
            project=e["project"],
            regime=e.get("regime"),
            options={k: v for k, v in e.items() if k not in common},
        )
        for e in raw["sources"]
        if e["kind"] in MY_KINDS and e.get("enabled", True)  # a disabled source is not run
    ]


def replay(spec: SourceSpec):
    from tracker.collect.runner import cassette
    from tracker.collect.sources import collector_for

    client = HttpClient(retries=0)
    ctx = CollectContext(spec=spec, http=client, now=NOW)
    with cassette(spec.id, REPO / "cassettes", None):
        events = list(collector_for(spec.kind).collect(ctx))
    return events, ctx


def test_every_release_source_has_a_hand_written_cassette():
    specs = my_sources()
    assert len(specs) >= 17
    for spec in specs:
        path = REPO / "cassettes" / f"{spec.id}.yaml"
        assert path.exists(), path
        assert path.read_text(encoding="utf-8").startswith("# HAND-WRITTEN cassette")


@pytest.mark.parametrize("spec", my_sources(), ids=lambda s: s.id)
def test_cassette_replays(spec):
    events, ctx = replay(spec)
    assert events, spec.id
    assert all(e.source_id == spec.id and e.project == spec.project for e in events)
    assert all(e.regime == spec.regime for e in events)
    releases = [e for e in events if e.kind == "release"]
    assert releases and all(e.version for e in releases)
    # rocm-jax: one alpha SDK tag; rocm/vllm: three tags that name no vLLM version (counted)
    # lmsysorg/sglang: one Ascend (CANN) image that no pattern or ignore_pattern covers (counted)
    counted = {"rocm-jax-releases": 1, "vllm-rocm-docker": 3, "sglang-rocm-docker": 1}
    expected = counted.get(spec.id, 0)
    # a release with an empty body (a trimmed record) is kept, and is no skip
    assert ctx.skipped == expected, ctx.warnings


def test_cassette_facts():
    specs = {s.id: s for s in my_sources()}
    events, _ = replay(specs["vllm-releases"])
    v013 = next(e for e in events if e.external_id == "release:v0.13.0")
    assert v013.occurred_at == datetime(2025, 12, 19, 3, 2, 22, tzinfo=UTC)
    events, _ = replay(specs["rocm-releases"])
    note = next(e for e in events if e.kind == "note" and e.title == "PyTorch 2.4 support added")
    assert note.version == "6.3.0" and note.attrs["section"] == "Release highlights"
    # publication, never a commit before it: ROCm 6.2.0 by its release history (its tag's
    # commit is of 2024-08-20), TheRock 7.14 by its tag object (its commit is of 2026-07-09)
    for source, version, day in [
        ("rocm-releases", "6.2.0", "2024-08-02"),
        ("rocm-tags", "6.2.0", "2024-08-02"),
        ("rocm-tags", "6.3.0", "2024-12-03"),
        ("therock-tags", "7.14", "2026-07-15"),
        ("therock-tags", "7.11", "2026-02-11"),
    ]:
        events, _ = replay(specs[source])
        dated = {e.version: e.occurred_at.date().isoformat() for e in events if e.kind == "release"}
        assert dated[version] == day, (source, version)
    events, _ = replay(specs["tpu-inference-tags"])
    assert {e.version: e.occurred_at.isoformat() for e in events}["0.27.0"] == (
        "2026-08-20T06:44:37+00:00"
    )
    events, _ = replay(specs["pypi-vllm"])
    # PyPI's first upload of 0.14.0, 1.5 hours after the GitHub release (09:20:31Z)
    assert {e.version: e.occurred_at.isoformat() for e in events}["0.14.0"] == (
        "2026-01-20T10:50:00.177295+00:00"
    )
    events, _ = replay(specs["vllm-rocm-docker"])
    dated = {e.version: e.occurred_at.date().isoformat() for e in events}
    assert dated["0.10.2"] == "2025-10-06"
    # the older naming schemes: vLLM 0.6 to 0.8 on ROCm
    assert (dated["0.6.4"], dated["0.6.6"], dated["0.7.3"], dated["0.8.3"]) == (
        "2024-10-30",
        "2025-02-05",
        "2025-03-11",
        "2025-04-10",
    )
    events, _ = replay(specs["vllm-releases-atom"])
    atom = {e.version: e.occurred_at.date().isoformat() for e in events}
    numbered = sorted(atom, key=lambda v: tuple(int(p) for p in v.split(".")))
    assert len(atom) == 25 and numbered[0] == "0.13.0"
    assert numbered[-1] == "0.27.1"  # v0.28.0 came 2026-08-26, after as-of
    # from v0.22.0 on, the earlier of the first public record and PyPI's first upload
    assert (atom["0.23.0"], atom["0.27.1"]) == ("2026-06-13", "2026-08-11")


def test_vllm_releases_after_0_21_are_their_first_public_records():
    """Days after v0.21.0 are upper bounds from the first public record of each release (the
    cassette header names them); v0.28.0 was first recorded on 2026-08-26, after the snapshot.
    pypi-vllm.yaml holds PyPI's own first uploads: a day earlier than that record for 0.23.0,
    0.25.0, 0.26.0 and 0.27.0, two days for 0.27.1, a day later for 0.25.1, and no 0.28.0."""
    specs = {s.id: s for s in my_sources()}
    released = {
        e.version: e.occurred_at.date().isoformat()
        for e in replay(specs["vllm-releases"])[0]
        if e.kind == "release"
    }
    uploads: dict[str, str] = {}
    for e in replay(specs["pypi-vllm"])[0]:
        day = e.occurred_at.date().isoformat()
        uploads[e.version] = min(day, uploads.get(e.version, day))
    after = {v: d for v, d in released.items() if d > "2026-05-15"}
    assert after == {
        "0.22.0": "2026-05-29",
        "0.22.1": "2026-06-05",
        "0.23.0": "2026-06-14",
        "0.24.0": "2026-06-30",
        "0.25.0": "2026-07-12",
        "0.25.1": "2026-07-13",
        "0.26.0": "2026-07-26",
        "0.27.0": "2026-08-11",
        "0.27.1": "2026-08-13",
    }
    assert {v: d for v, d in uploads.items() if d > "2026-05-15"} == {
        "0.22.0": "2026-05-29",
        "0.22.1": "2026-06-05",
        "0.23.0": "2026-06-13",
        "0.24.0": "2026-06-30",
        "0.25.0": "2026-07-11",
        "0.25.1": "2026-07-14",
        "0.26.0": "2026-07-25",
        "0.27.0": "2026-08-10",
        "0.27.1": "2026-08-11",
    }


# --- docker_tags ---------------------------------------------------------------------------


def hub_tag(name, pushed="2025-10-07T08:00:00.000000Z"):
    return {"name": name, "last_updated": pushed, "tag_last_pushed": pushed}


def test_docker_tags_read_versions_and_build_date_from_names():
    page = {
        "count": 4,
        "next": None,
        "results": [
            hub_tag("rocm7.0.0_vllm_0.10.2_20251006"),
            hub_tag("latest"),
            hub_tag("rocm6.4.1_vllm_0.9.1_20250715", "2025-07-16T01:00:00Z"),
            hub_tag("rocm6.4.1_vllm_0.10.1.1_20250821"),
        ],
    }
    ctx = make_ctx("docker_tags", repository="rocm/vllm")
    events = list(docker_tags.parse(json.dumps(page).encode(), ctx))
    assert [(e.version, e.attrs["rocm"], e.occurred_at.date().isoformat()) for e in events] == [
        ("0.10.2", "7.0.0", "2025-10-06"),
        ("0.9.1", "6.4.1", "2025-07-15"),
        ("0.10.1.1", "6.4.1", "2025-08-21"),
    ]
    assert events[1].attrs["pushed_at"] == "2025-07-16T01:00:00+00:00"
    assert events[0].attrs["date_source"] == "name"
    assert (
        events[0].url
        == "https://hub.docker.com/r/rocm/vllm/tags?name=rocm7.0.0_vllm_0.10.2_20251006"
    )
    # "latest" is not evidence, but counted and kept for the report, never dropped silently
    assert ctx.skipped == 1 and "latest" in ctx.warnings[0]
    assert ctx.state["unmatched_tags"] == {"count": 1, "tags": ["latest"]}


def test_docker_tags_follow_next_in_the_body(httpserver):
    second = httpserver.url_for("/v2/repositories/rocm/vllm/tags") + "?page=2&page_size=100"
    httpserver.expect_request(
        "/v2/repositories/rocm/vllm/tags", query_string="page_size=100"
    ).respond_with_json({"next": second, "results": [hub_tag("rocm7.0.0_vllm_0.11.1_20251103")]})
    httpserver.expect_request(
        "/v2/repositories/rocm/vllm/tags", query_string="page=2&page_size=100"
    ).respond_with_json({"next": None, "results": [hub_tag("rocm6.4.1_vllm_0.10.0_20250812")]})
    ctx = make_ctx(
        "docker_tags",
        http=http(),
        repository="rocm/vllm",
        url=httpserver.url_for("/v2/repositories/{repository}/tags") + "?page_size=100",
    )
    assert [e.version for e in docker_tags.collect(ctx)] == ["0.11.1", "0.10.0"]
    assert len(httpserver.log) == 2


def test_docker_tags_custom_pattern_and_bad_version():
    page = {"results": [hub_tag("vllm-v0.10.x-2025"), hub_tag("vllm-v0.11.0-2025")]}
    ctx = make_ctx("docker_tags", repository="x/y", name_pattern=r"^vllm-v(?P<version>[^-]+)-")
    events = list(docker_tags.parse(json.dumps(page).encode(), ctx))
    assert [(e.version, e.attrs["date_source"]) for e in events] == [("0.11.0", "tag_last_pushed")]
    assert ctx.skipped == 1 and "vllm-v0.10.x-2025" in ctx.warnings[0]


def test_docker_tags_naming_schemes_and_unmatched_tags_are_reported():
    page = {"results": [
        {"name": n, "tag_last_pushed": "2025-09-11T00:00:00Z"}
        for n in ("v0.4.1.post4-rocm620-srt", "v0.5.2-rocm700-mi30x", "latest",
                  "v0.5.9-cu129-amd64", "main-cann9.0.0-a3", "v0.5.18-rocm7.15-mi45x")
    ]}  # fmt: skip
    ctx = make_ctx(
        "docker_tags",
        repository="lmsysorg/sglang",
        name_pattern=[
            r"^v(?P<version>\d+(?:\.\d+)+(?:\.post\d+)?)-rocm(?P<rocm>\d{3})(?P<srt>-srt)?$",
            r"^v(?P<version>\d+(?:\.\d+)+(?:\.post\d+)?)-rocm(?P<rocm>\d{3})-(?P<gpu>mi\d\dx)$",
        ],
        ignore_pattern=r"^latest|-cu\d+",
    )
    events = list(docker_tags.parse(json.dumps(page).encode(), ctx))
    assert [(e.version, e.attrs["scheme"], e.attrs.get("gpu")) for e in events] == [
        ("0.4.1.post4", "name_pattern[0]", None),
        ("0.5.2", "name_pattern[1]", "mi30x"),
    ]
    assert events[0].attrs["srt"] == "-srt"
    assert len(ctx.warnings) == 1
    assert "2 tag(s)" in ctx.warnings[0] and "main-cann9.0.0-a3" in ctx.warnings[0]
