"""Real collectors through the runner against hostile or broken servers on 127.0.0.1, the token
set to a sentinel: where the token goes, paging that would never end, a source out of time while
the others run, a body over the cap, invalid UTF-8, malformed items. Each stop keeps what was read
before. Request counts and wall times are printed (-s shows them).

Release tags and dates are jax-ml/jax's real ones (jax-v0.4.30 .. jax-v0.4.35, tag dates in UTC).
"""

from __future__ import annotations

import json
import logging
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from pytest_httpserver import HTTPServer
from sqlalchemy import select
from werkzeug import Request, Response

from tests.collect.hostile import DripServer, http_reply
from tracker.collect.runner import run_sources
from tracker.config import Config, SourceSpec
from tracker.store.tables import events

SENTINEL = "SENTINEL-token-must-not-leave-its-origin"
JAX = [  # (tag, tag date in UTC): github.com/jax-ml/jax
    ("jax-v0.4.35", "2024-10-22T20:48:54Z"),
    ("jax-v0.4.34", "2024-10-04T14:23:24Z"),
    ("jax-v0.4.33", "2024-09-16T18:12:35Z"),
    ("jax-v0.4.31", "2024-07-30T00:02:13Z"),
    ("jax-v0.4.30", "2024-06-18T14:18:46Z"),
]
JAX_SHA = {  # the commit each tag points at
    "jax-v0.4.35": "81991d87c8608d07f9752940375092aa4fb9610e",
    "jax-v0.4.34": "affba367c5533df8900e32cbc3d31ca92dd1c1ea",
}


def release(tag: str, when: str) -> dict:
    return {
        "tag_name": tag,
        "name": f"JAX v{tag.removeprefix('jax-v')}",
        "published_at": when,
        "created_at": when,
        "prerelease": False,
        "draft": False,
        "body": "- Bug fixes.",
        "html_url": f"https://github.com/jax-ml/jax/releases/tag/{tag}",
    }


def cfg(*specs: SourceSpec) -> Config:
    return Config(Path("sources.yaml"), (), specs)


def one(summary):
    (result,) = summary.results
    return result


def stored(store, source_id: str) -> dict[str, dict]:
    with store.engine.connect() as conn:
        rows = conn.execute(select(events).where(events.c.source_id == source_id)).mappings()
        return {r["external_id"]: dict(r) for r in rows}


def releases_spec(api: str, **limits) -> SourceSpec:
    return SourceSpec(
        id="jax-releases",
        kind="github_releases",
        project="jax",
        regime="cuda",
        options={"repo": "jax-ml/jax", "api_url": api},
        **limits,
    )


def tags_spec(api: str, **limits) -> SourceSpec:
    return SourceSpec(
        id="jax-tags",
        kind="github_tags",
        project="jax",
        regime="cuda",
        options={"repo": "jax-ml/jax", "api_url": api},
        **limits,
    )


@pytest.fixture
def other():
    """Another origin: host 127.0.0.1 on another port."""
    server = HTTPServer(host="127.0.0.1", port=0)
    server.start()
    yield server
    server.clear()
    server.stop()


@pytest.fixture
def token(monkeypatch):
    monkeypatch.setenv("TRACKER_GITHUB_TOKEN", SENTINEL)
    monkeypatch.setenv("TRACKER_BUILDKITE_TOKEN", SENTINEL)


def yesterday() -> str:
    """A creation time inside every CI backfill window, whatever day the test runs."""
    return (datetime.now(UTC) - timedelta(days=1)).strftime("%Y-%m-%dT%H:%M:%SZ")


def no_token_reached(server) -> bool:
    return all("Authorization" not in request.headers for request, _ in server.log)


# -- 1. the token stays with its origin -----------------------------------------------------


def test_releases_next_link_elsewhere_is_refused_page_one_saved(store, httpserver, other, token):
    httpserver.expect_request("/repos/jax-ml/jax/releases").respond_with_json(
        [release(*JAX[0]), release(*JAX[1])],
        headers={"Link": f'<{other.url_for("/repos/jax-ml/jax/releases")}?page=2>; rel="next"'},
    )
    other.expect_request("/repos/jax-ml/jax/releases").respond_with_json([release(*JAX[2])])
    result = one(run_sources(cfg(releases_spec(httpserver.url_for(""))), store))
    assert result.status == "partial" and "another origin" in result.error
    assert httpserver.log[0][0].headers["Authorization"] == f"Bearer {SENTINEL}"
    assert other.log == []
    assert {"release:jax-v0.4.35", "release:jax-v0.4.34"} <= set(stored(store, "jax-releases"))
    assert store.load_source("jax-releases").cursor is None  # not ascending: the cursor stays


def test_tags_next_link_elsewhere_is_refused(store, httpserver, other, token):
    tags = [
        {"ref": f"refs/tags/{t}", "object": {"sha": JAX_SHA[t], "type": "commit"}} for t in JAX_SHA
    ]
    refs = "/repos/jax-ml/jax/git/matching-refs/tags"
    httpserver.expect_request(refs).respond_with_json(
        tags, headers={"Link": f'<{other.url_for(refs)}?page=2>; rel="next"'}
    )
    for tag, when in JAX[:2]:
        httpserver.expect_request(
            f"/repos/jax-ml/jax/git/commits/{JAX_SHA[tag]}"
        ).respond_with_json({"sha": JAX_SHA[tag], "committer": {"date": when}})
    result = one(run_sources(cfg(tags_spec(httpserver.url_for(""))), store))
    assert result.status == "partial" and "another origin" in result.error
    assert other.log == [] and no_token_reached(other)
    assert set(stored(store, "jax-tags")) == {"release:jax-v0.4.35", "release:jax-v0.4.34"}


def test_buildkite_window_next_link_elsewhere_is_refused(store, httpserver, other, token):
    path = "/v2/organizations/vllm/pipelines/ci/builds"
    build = {
        "id": "b-1",
        "number": 1,
        "state": "passed",
        "created_at": yesterday(),
        "finished_at": yesterday(),
        "jobs": [],
    }
    httpserver.expect_request(path).respond_with_json(
        [build], headers={"Link": f'<{other.url_for(path)}?page=2>; rel="next"'}
    )
    spec = SourceSpec(
        id="bk",
        kind="buildkite",
        project="vllm",
        regime="cuda",
        options={"org": "vllm", "pipeline": "ci", "api_url": httpserver.url_for("")},
    )
    result = one(run_sources(cfg(spec), store))
    assert result.status == "failed" and "another origin" in result.error
    assert other.log == []


def test_actions_next_link_elsewhere_is_refused(store, httpserver, other, token):
    runs = "/repos/pytorch/pytorch/actions/workflows/rocm.yml/runs"
    run = {
        "id": 11,
        "run_number": 1,
        "run_attempt": 1,
        "name": "rocm",
        "event": "push",
        "status": "completed",
        "conclusion": "success",
        "created_at": yesterday(),
        "updated_at": yesterday(),
        "run_started_at": yesterday(),
        "html_url": "https://github.com/pytorch/pytorch/actions/runs/11",
        "head_branch": "main",
    }
    httpserver.expect_request(runs).respond_with_json(
        {"total_count": 2, "workflow_runs": [run]},
        headers={"Link": f'<{other.url_for(runs)}?page=2>; rel="next"'},
    )
    httpserver.expect_request("/repos/pytorch/pytorch/actions/runs/11/jobs").respond_with_json(
        {"total_count": 0, "jobs": []}
    )
    spec = SourceSpec(
        id="gha",
        kind="github_actions",
        project="pytorch",
        regime="rocm",
        options={
            "repo": "pytorch/pytorch",
            "api_url": httpserver.url_for(""),
            "workflows": [{"file": "rocm.yml", "regime": "rocm"}],
        },
    )
    result = one(run_sources(cfg(spec), store))
    assert result.status in ("failed", "partial") and "another origin" in result.error
    assert other.log == []


# -- 2. paging cannot loop ------------------------------------------------------------------


def test_releases_next_link_to_itself_ends_after_one_request(store, httpserver):
    url = httpserver.url_for("/repos/jax-ml/jax/releases")
    httpserver.expect_request("/repos/jax-ml/jax/releases").respond_with_json(
        [release(*JAX[0])], headers={"Link": f'<{url}?per_page=100>; rel="next"'}
    )
    started = time.monotonic()
    result = one(run_sources(cfg(releases_spec(httpserver.url_for(""))), store))
    took = time.monotonic() - started
    print(f"\nreleases, next link to itself: {result.requests} requests in {took:.2f}s")
    assert result.status == "partial" and "paging loop" in result.error
    assert result.requests == 1 and "release:jax-v0.4.35" in stored(store, "jax-releases")


def test_tags_same_page_under_fresh_urls_ends_after_two_requests(store, httpserver):
    def listing(request: Request) -> Response:
        page = int(request.args.get("page", 1))
        link = f'<{httpserver.url_for(request.path)}?per_page=100&page={page + 1}>; rel="next"'
        body = [
            {
                "ref": "refs/tags/jax-v0.4.35",
                "object": {"sha": JAX_SHA["jax-v0.4.35"], "type": "commit"},
            }
        ]
        return Response(json.dumps(body), headers={"Link": link})

    httpserver.expect_request("/repos/jax-ml/jax/git/matching-refs/tags").respond_with_handler(
        listing
    )
    httpserver.expect_request(
        f"/repos/jax-ml/jax/git/commits/{JAX_SHA['jax-v0.4.35']}"
    ).respond_with_json({"committer": {"date": JAX[0][1]}})
    started = time.monotonic()
    result = one(run_sources(cfg(tags_spec(httpserver.url_for(""))), store))
    took = time.monotonic() - started
    print(f"\ntags, same page under fresh URLs: {result.requests} requests in {took:.2f}s")
    assert result.status == "partial" and "repeats an earlier page" in result.error
    assert result.requests == 3  # two listing pages and one commit look-up
    assert set(stored(store, "jax-tags")) == {"release:jax-v0.4.35"}


def issue(number: int, updated: str) -> dict:
    return {
        "number": number,
        "title": f"issue {number}",
        "created_at": "2025-10-01T00:00:00Z",
        "updated_at": updated,
        "state": "open",
        "labels": [],
        "body": None,
        "html_url": f"https://github.com/vllm-project/vllm/issues/{number}",
    }


def issues_spec(api: str, per_page: int = 100, **limits) -> SourceSpec:
    return SourceSpec(
        id="vllm-issues",
        kind="github_issues",
        project="vllm",
        options={"repo": "vllm-project/vllm", "api_url": api, "per_page": per_page},
        **limits,
    )


def test_issues_full_pages_of_one_timestamp_end_when_nothing_is_new(store, httpserver):
    same = "2025-10-02T00:00:00Z"
    httpserver.expect_request("/repos/vllm-project/vllm/issues").respond_with_json(
        [issue(1, same), issue(2, same)]
    )
    started = time.monotonic()
    result = one(run_sources(cfg(issues_spec(httpserver.url_for(""), per_page=2)), store))
    took = time.monotonic() - started
    print(f"\nissues, every page the same full page: {result.requests} requests in {took:.2f}s")
    assert result.status == "partial" and "holds no issue not read before" in result.error
    assert result.requests == 2
    assert set(stored(store, "vllm-issues")) == {"issue:1", "issue:2"}
    assert store.load_source("vllm-issues").cursor is not None  # ascending: resumes there


def test_issues_endless_fresh_pages_stop_at_the_configured_page_cap(store, httpserver):
    served = []

    def listing(request: Request) -> Response:  # two new issues per page, one timestamp, forever
        served.append(1)
        n = 2 * len(served)
        same = "2025-10-02T00:00:00Z"
        return Response(
            json.dumps([issue(n - 1, same), issue(n, same)]), content_type="application/json"
        )

    httpserver.expect_request("/repos/vllm-project/vllm/issues").respond_with_handler(listing)
    started = time.monotonic()
    spec = issues_spec(httpserver.url_for(""), per_page=2, max_pages=5)
    result = one(run_sources(cfg(spec), store))
    took = time.monotonic() - started
    print(f"\nissues, endless fresh pages, max_pages 5: {result.requests} requests in {took:.2f}s")
    assert result.status == "partial" and "page cap of 5 pages" in result.error
    assert result.requests == 5 and len(stored(store, "vllm-issues")) == 10


def test_docker_next_url_to_itself_and_the_page_cap(store, httpserver):
    path = "/v2/repositories/rocm/vllm/tags"
    url = httpserver.url_for(path)
    tag = {"name": "rocm6.4.1_vllm_0.9.1_20250715", "tag_last_pushed": "2025-07-15T20:00:00Z"}
    httpserver.expect_request(path).respond_with_json({"results": [tag], "next": url})
    spec = SourceSpec(
        id="vllm-rocm-docker",
        kind="docker_tags",
        project="vllm-rocm-docker",
        regime="rocm",
        options={"repository": "rocm/vllm", "url": url},
    )
    result = one(run_sources(cfg(spec), store))
    assert result.status == "partial" and "paging loop" in result.error and result.requests == 1
    assert set(stored(store, "vllm-rocm-docker")) == {"tag:rocm6.4.1_vllm_0.9.1_20250715"}


# -- 3. time budget, 4. body cap, 5. invalid UTF-8 ------------------------------------------


def test_a_source_out_of_time_is_named_and_the_others_still_run(store, httpserver):
    pypi_doc = {
        "info": {"name": "jax"},
        "releases": {"0.4.35": [{"upload_time_iso_8601": "2024-10-22T21:03:00.000000Z"}]},
    }
    httpserver.expect_request("/pypi/jax/json").respond_with_json(pypi_doc)
    reply = http_reply(json.dumps([release(*JAX[0])]).encode())
    with DripServer(reply, interval=0.05) as slow:  # ~25 s for the whole answer
        spec = releases_spec(slow.url.rsplit("/", 1)[0], time_budget_seconds=1)
        fast = SourceSpec(
            id="pypi-jax",
            kind="pypi",
            project="jax",
            regime="cuda",
            options={"package": "jax", "url": httpserver.url_for("/pypi/jax/json")},
        )
        started = time.monotonic()
        summary = run_sources(cfg(spec, fast), store)
        took = time.monotonic() - started
    print(f"\nsource on a dripping server, budget 1s: whole run {took:.2f}s")
    by_id = {r.source_id: r for r in summary.results}
    assert by_id["jax-releases"].status == "failed" and by_id["jax-releases"].out_of_time
    assert "out of time" in by_id["jax-releases"].error
    assert by_id["pypi-jax"].status == "ok" and by_id["pypi-jax"].events_new == 1
    assert any(line.startswith("out of time: jax-releases") for line in summary.lines())
    assert took < 5


def test_a_body_over_max_body_mb_fails_naming_size_and_url(store, httpserver):
    versions = {f"0.{n}.0": [] for n in range(40_000)}  # about 0.5 MB of JSON
    httpserver.expect_request("/pypi/jax/json").respond_with_json(
        {"info": {"name": "jax"}, "releases": versions}
    )
    spec = SourceSpec(
        id="pypi-jax",
        kind="pypi",
        project="jax",
        options={"package": "jax", "url": httpserver.url_for("/pypi/jax/json")},
        max_body_mb=0.25,
    )
    result = one(run_sources(cfg(spec), store))
    assert result.status == "failed"
    assert "/pypi/jax/json: response body too large" in result.error
    assert "the cap is 262,144 bytes" in result.error


def test_invalid_utf8_in_one_issue_body_keeps_the_issue(store, httpserver, caplog):
    first = json.dumps(issue(41, "2025-10-02T00:00:00Z")).encode()
    first = first.replace(b'"body": null', b'"body": "crash on gfx942 \xff\xfe"')
    body = b"[" + first + b"," + json.dumps(issue(42, "2025-10-03T00:00:00Z")).encode() + b"]"
    httpserver.expect_request("/repos/vllm-project/vllm/issues").respond_with_data(
        body, content_type="application/json"
    )
    caplog.set_level(logging.WARNING)
    result = one(run_sources(cfg(issues_spec(httpserver.url_for(""))), store))
    assert result.status == "ok", result.error
    rows = stored(store, "vllm-issues")
    assert rows["issue:41"]["body"] == "crash on gfx942 \ufffd\ufffd"
    assert rows["issue:41"]["title"] == "issue 41" and "issue:42" in rows
    assert "encoding problem" in caplog.text and "truncated" not in caplog.text


# -- 7/8. malformed items are skips ---------------------------------------------------------


def test_null_release_in_the_listing_is_a_skip(store, httpserver):
    httpserver.expect_request("/repos/jax-ml/jax/releases").respond_with_json(
        [None, release(*JAX[0]), {"tag_name": JAX[1][0], "published_at": 7, "body": {}}]
    )
    result = one(run_sources(cfg(releases_spec(httpserver.url_for(""))), store))
    assert result.status == "ok", result.error
    assert result.items_skipped == 2  # the null, and the release without a readable date
    assert "release:jax-v0.4.35" in stored(store, "jax-releases")


def test_an_issue_dated_before_year_one_in_utc_is_a_skip(store, httpserver):
    bad = issue(7, "0001-01-01T00:00:00+01:00")
    bad["created_at"] = "0001-01-01T00:00:00+01:00"
    listing = [bad, issue(8, "2025-10-03T00:00:00Z")]
    httpserver.expect_request("/repos/vllm-project/vllm/issues").respond_with_json(listing)
    result = one(run_sources(cfg(issues_spec(httpserver.url_for(""))), store))
    assert result.status == "ok", result.error
    assert result.items_skipped == 1 and set(stored(store, "vllm-issues")) == {"issue:8"}


# -- issue 20.6: a failure on a later page keeps the pages before it -------------------------

CASSETTES = Path(__file__).parent / "cassettes"


def replayed(store, name: str):
    """One live-mode run (cursor, state and validators used) answered by a cassette."""
    import vcr

    recorder = vcr.VCR(record_mode="none", match_on=("method", "uri"))
    path = CASSETTES / f"jax-releases-page3-{name}.yaml"
    with recorder.use_cassette(str(path), allow_playback_repeats=True):
        return one(run_sources(cfg(releases_spec("https://api.github.com")), store))


def test_page_three_failing_keeps_pages_one_and_two_and_the_next_run_resumes(store, monkeypatch):
    from tracker.collect.transport import GiveUpRetry

    monkeypatch.setattr(GiveUpRetry, "get_backoff_time", lambda self: 0)  # 500s retried at once
    page3 = "https://api.github.com/repos/jax-ml/jax/releases?per_page=100&page=3"
    first_four = {f"release:jax-v0.4.3{n}" for n in (5, 4, 3, 2)}
    for name, status in (("404", "HTTP 404"), ("500", "HTTP 500")):
        result = replayed(store, name)
        assert result.status == "partial", result.error
        assert result.error.startswith(f"{page3}: {status}")  # the failing page's URL
        releases = {k for k in stored(store, "jax-releases") if k.startswith("release:")}
        assert releases == first_four
        source = store.load_source("jax-releases")
        # Newest first, so the cursor (and the state and validators) stay where they were:
        # the next run reads the listing again rather than stopping at what it has.
        assert source.cursor is None and source.state == {} and source.validators == {}
    done = replayed(store, "ok")
    assert done.status == "ok", done.error
    releases = {k for k in stored(store, "jax-releases") if k.startswith("release:")}
    assert releases == first_four | {"release:jax-v0.4.31", "release:jax-v0.4.30"}
    assert store.load_source("jax-releases").cursor is not None


def test_issues_page_three_failing_saves_what_came_before_and_resumes_there(store, httpserver):
    """The ascending counterpart: the cursor moves to what was saved, and no further."""
    listing = [issue(n, f"2025-10-0{n}T00:00:00Z") for n in range(1, 7)]
    broken = {"status": 404}

    def answer(request: Request) -> Response:
        since = request.args.get("since")
        rest = [i for i in listing if since is None or i["updated_at"] >= since]
        if since == "2025-10-04T00:00:00Z" and broken["status"]:
            return Response('{"message": "Not Found"}', status=broken["status"])
        return Response(json.dumps(rest[:2]), content_type="application/json")

    httpserver.expect_request("/repos/vllm-project/vllm/issues").respond_with_handler(answer)
    spec = issues_spec(httpserver.url_for(""), per_page=2)
    first = one(run_sources(cfg(spec), store))
    assert first.status == "partial" and "since=2025-10-04" in first.error and "404" in first.error
    assert set(stored(store, "vllm-issues")) == {f"issue:{n}" for n in range(1, 5)}
    assert store.load_source("vllm-issues").cursor == datetime(2025, 10, 4, tzinfo=UTC)
    broken["status"] = 0
    httpserver.clear_log()
    second = one(run_sources(cfg(spec), store))
    assert second.status == "ok", second.error
    assert httpserver.log[0][0].args["since"] == "2025-10-04T00:00:00Z"  # resumes there
    assert set(stored(store, "vllm-issues")) == {f"issue:{n}" for n in range(1, 7)}
