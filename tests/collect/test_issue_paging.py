"""Paging of the GitHub issues listing (tracker/collect/keyset.py) against a local server that
answers like api.github.com: ``sort=updated&direction=asc``, inclusive ``since``, ``per_page``,
``page``, page-numbered Link headers (rel="next" and rel="last" while pages remain), an ETag that
is a hash of the body alone and 304 when it matches. Request counts, the order pages are asked
in, the 304 re-run after a backfill, and no issue lost when the listing moves between requests.
"""

from __future__ import annotations

import hashlib
import json
import math
import threading
from datetime import UTC, datetime, timedelta
from pathlib import Path
from urllib.parse import urlencode

import pytest
from sqlalchemy import select
from werkzeug import Request, Response

from tracker.collect.http import HttpClient
from tracker.collect.keyset import AHEAD, KeysetListing
from tracker.collect.runner import run_sources
from tracker.config import Config, SourceSpec
from tracker.events import parse_time
from tracker.store.tables import events

START = datetime(2025, 3, 1, tzinfo=UTC)


@pytest.fixture(autouse=True)
def token(monkeypatch):
    monkeypatch.setenv("TRACKER_GITHUB_TOKEN", "dummy-test-token")


def stamp(minutes: int) -> str:
    return (START + timedelta(minutes=minutes)).strftime("%Y-%m-%dT%H:%M:%SZ")


class Listing:
    """The issues of one repository as GitHub lists them; `hooks` run before an answer (one
    that returns a Response answers instead)."""

    def __init__(self, count: int) -> None:
        self.updated = {n: stamp(n) for n in range(1, count + 1)}
        self.asked: list[tuple[str | None, int]] = []  # (since, page) of every request
        self.hooks: list = []

    def handler(self, request: Request) -> Response:
        for hook in self.hooks:
            answer = hook(len(self.asked), request)
            if answer is not None:
                return answer
        since, page = request.args.get("since"), int(request.args.get("page", 1))
        per_page = int(request.args["per_page"])
        self.asked.append((since, page))
        rows = sorted((t, n) for n, t in self.updated.items() if since is None or t >= since)
        body = json.dumps([issue(n, t) for t, n in rows[(page - 1) * per_page : page * per_page]])
        etag = '"' + hashlib.sha1(body.encode()).hexdigest() + '"'  # the body alone
        if request.headers.get("If-None-Match") == etag:
            return Response(status=304, headers={"ETag": etag})
        headers = {"ETag": etag}
        last = max(1, math.ceil(len(rows) / per_page))
        if page < last:
            query = {k: v for k, v in request.args.items() if k != "page"}
            base = request.base_url + "?" + urlencode(query)
            headers["Link"] = (
                f'<{base}&page={page + 1}>; rel="next", <{base}&page={last}>; rel="last"'
            )
        return Response(body, content_type="application/json", headers=headers)


def issue(number: int, updated: str) -> dict:
    return {
        "number": number,
        "title": f"Issue {number}",
        "body": "text",
        "html_url": f"https://github.com/o/r/issues/{number}",
        "state": "open",
        "created_at": "2025-01-01T00:00:00Z",
        "updated_at": updated,
        "closed_at": None,
        "labels": [],
    }


def serve(httpserver, listing: Listing, lookback_days: float = 0) -> Config:
    httpserver.expect_request("/repos/o/r/issues").respond_with_handler(listing.handler)
    spec = SourceSpec(
        id="iss",
        kind="github_issues",
        project="pytorch",
        options={"repo": "o/r", "api_url": httpserver.url_for(""), "per_page": 10},
        lookback_days=lookback_days,
    )
    return Config(Path("sources.yaml"), (), (spec,))


def stored(store) -> dict[str, datetime]:
    with store.engine.connect() as conn:
        found = conn.execute(select(events.c.external_id, events.c.updated_at))
        return {row.external_id: row.updated_at for row in found}


def one(summary):
    assert len(summary.results) == 1
    return summary.results[0]


def test_backfill_ends_on_a_page_with_room_and_the_rerun_is_one_304(store, httpserver):
    # 100 issues at per_page 10 (GitHub's 10,000 at 100): keyset pages read 10 + 9 per request,
    # so plain keyset paging needs 12 requests (11 full pages, the 12th holding only the
    # boundary issue). Page 2 of a listing known to hold two more full pages is asked before
    # its page 1 and needs no boundary issue: 11 requests, the last with room to spare, and
    # the next run asks that page again and gets a 304.
    listing = Listing(100)
    config = serve(httpserver, listing)
    first = one(run_sources(config, store))
    assert (first.status, first.events_new, first.requests) == ("ok", 100, 11)
    assert len(stored(store)) == 100
    assert listing.asked[:3] == [(None, 1), (stamp(10), 2), (stamp(10), 1)]  # 2 before 1
    last_since = listing.asked[-1][0]
    assert listing.asked[-1] == (last_since, 1)

    listing.asked.clear()
    again = one(run_sources(config, store))
    assert (again.requests, again.not_modified, again.events_new) == (1, 1, 0)
    assert listing.asked == [(last_since, 1)]  # that page, not since=<cursor>
    assert store.load_source("iss").cursor == START + timedelta(minutes=100)
    listing.asked.clear()
    assert one(run_sources(config, store)).not_modified == 1  # and so on, night after night


def test_an_issue_updated_after_the_backfill_is_read_by_the_resumed_run(store, httpserver):
    # The resumed page held 9 of per_page 10: the update lands on it, so it is no 304.
    listing = Listing(100)
    config = serve(httpserver, listing)
    one(run_sources(config, store))
    listing.updated[5] = stamp(500)  # an old issue edited upstream: it moves to the end
    listing.updated[101] = stamp(501)  # and a new one
    listing.asked.clear()
    result = one(run_sources(config, store))
    assert (result.status, result.not_modified, result.events_new) == ("ok", 0, 1)
    saved = stored(store)
    assert saved["issue:5"] == START + timedelta(minutes=500) and "issue:101" in saved
    # The walk went on from that page; the run after it starts at its own window again.
    listing.asked.clear()
    one(run_sources(config, store))
    assert listing.asked == [(stamp(501), 1)]


def test_a_full_last_page_is_never_trusted_with_a_304(store, httpserver):
    # The idea of asking the last page of a walk again fails when that page is full: an issue
    # added at the end goes to the next page and leaves this one byte-identical, so its ETag
    # still matches. A walk that ends on a full page keeps no validators for it and asks on.
    listing = Listing(10)  # exactly one full page
    config = serve(httpserver, listing)
    first = one(run_sources(config, store))
    assert (first.requests, first.events_new) == (2, 10)  # the full page, then the boundary
    listing.updated[11] = stamp(11)
    second = one(run_sources(config, store))
    assert (second.not_modified, second.events_new) == (0, 1)
    assert "issue:11" in stored(store)


def test_the_pair_loses_nothing_when_the_listing_moves_between_its_two_pages(store, httpserver):
    # Between the pair's page 2 and page 1, issue 12 (on page 1) is deleted and issue 13 is
    # edited (moves to the end): items slide towards the front, onto page 1, which is asked
    # second. Read forwards (page 1, then page 2), issue 20 would slide onto the page already
    # read and never be seen.
    listing = Listing(60)

    def move(count: int, request: Request) -> None:
        if count == 2:  # after page 2 of since=<10th issue>, before its page 1
            del listing.updated[12]
            listing.updated[13] = stamp(900)

    listing.hooks.append(move)
    config = serve(httpserver, listing)
    result = one(run_sources(config, store))
    assert listing.asked[1:3] == [(stamp(10), 2), (stamp(10), 1)]
    assert result.status == "ok"
    saved = stored(store)
    assert set(saved) == {f"issue:{n}" for n in range(1, 61)} - {"issue:12"}
    assert saved["issue:13"] == START + timedelta(minutes=900)


def test_a_run_that_resumed_never_moves_its_start_behind_its_window(store, httpserver):
    # With a look-back, the window is the cursor less a day: a resume point from before it is
    # used only while its page is unchanged.
    listing = Listing(5)
    config = serve(httpserver, listing, lookback_days=1)
    one(run_sources(config, store))  # one short page: resume point "from the start"
    listing.asked.clear()
    assert one(run_sources(config, store)).not_modified == 1
    assert listing.asked == [(None, 1)]
    listing.updated[6] = stamp(6)
    listing.asked.clear()
    assert one(run_sources(config, store)).events_new == 1
    assert listing.asked == [(None, 1)]  # resumed, changed: read from there
    listing.asked.clear()
    one(run_sources(config, store))
    window = (START + timedelta(minutes=6) - timedelta(days=1)).strftime("%Y-%m-%dT%H:%M:%SZ")
    assert listing.asked == [(window, 1)]  # its window again, not the old start


def test_a_run_stopped_part_way_keeps_no_resume_point(store, httpserver):
    # The resumed page has changed and is full now; the request after it is refused. What was
    # read is saved, and no resume point is kept: the next run starts at its window.
    listing = Listing(100)
    config = serve(httpserver, listing)
    one(run_sources(config, store))
    assert store.load_source("iss").state["resume"] == {"": listing.asked[-1][0]}
    listing.updated.update({n: stamp(n) for n in range(101, 106)})  # 6 + 5: a full page

    def refuse_the_second(count: int, request: Request) -> Response | None:
        if count >= 1:
            return Response("secondary rate limit", status=403, headers={"Retry-After": "3600"})
        return None

    listing.asked.clear()
    listing.hooks.append(refuse_the_second)
    result = one(run_sources(config, store))
    assert result.status == "partial" and result.events_new == 4  # 101-104 of 101-105
    assert "resume" not in store.load_source("iss").state


def test_each_label_listing_resumes_from_its_own_last_page(store, httpserver):
    listing = Listing(25)  # both labels list the same 25 issues here
    httpserver.expect_request("/repos/o/r/issues").respond_with_handler(listing.handler)
    spec = SourceSpec(
        id="iss",
        kind="github_issues",
        project="vllm",
        options={
            "repo": "o/r",
            "api_url": httpserver.url_for(""),
            "per_page": 10,
            "labels": ["rocm", "tpu"],
        },
    )
    config = Config(Path("sources.yaml"), (), (spec,))
    first = one(run_sources(config, store))
    assert (first.requests, first.events_new) == (6, 25)  # 10 + 9 + 6 per label
    assert store.load_source("iss").state["resume"] == {"rocm": stamp(19), "tpu": stamp(19)}
    again = one(run_sources(config, store))
    assert (again.requests, again.not_modified) == (2, 2)


def test_a_reader_that_stops_early_stops_the_walk(httpserver):
    # The walk reads ahead on its own thread (keyset.AHEAD pages at most); once its reader
    # stops, it sends no further request and its thread ends.
    listing = Listing(400)  # 40 pages at per_page 10
    httpserver.expect_request("/repos/o/r/issues").respond_with_handler(listing.handler)
    client = HttpClient(auth="github", auth_origin=httpserver.url_for(""))
    walk = KeysetListing(
        client,
        httpserver.url_for("/repos/o/r/issues"),
        {"state": "all", "sort": "updated", "direction": "asc", "per_page": 10},
        key=lambda item: parse_time(item["updated_at"]),
        number=lambda item: item["number"],
        skip=lambda item, reason: None,
        what="o/r issues",
    )
    items = iter(walk)
    assert next(items)[1]["number"] == 1
    items.close()
    walkers = [t for t in threading.enumerate() if t.name == "keyset o/r issues"]
    assert len(walkers) == 1
    walkers[0].join(timeout=10)
    assert not walkers[0].is_alive()
    # the first page, then at most AHEAD steps of a pair of pages each, and one in flight
    assert len(listing.asked) <= 1 + 2 * (AHEAD + 1)  # of 40 pages and more
    client.close()
