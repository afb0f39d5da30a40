"""The one HTTP layer against a real local server (pytest-httpserver)."""

from __future__ import annotations

import logging
import time

import pytest
from werkzeug import Response

from tracker.collect.http import MIN_RATE_WAIT, HttpClient
from tracker.errors import FatalHTTPError, RateLimited, SourceError


def client(**kwargs) -> HttpClient:
    kwargs.setdefault("backoff", 0.01)
    return HttpClient(**kwargs)


def test_retry_on_503_then_success(httpserver):
    httpserver.expect_ordered_request("/r").respond_with_data("busy", status=503)
    httpserver.expect_ordered_request("/r").respond_with_data("busy", status=502)
    httpserver.expect_ordered_request("/r").respond_with_json({"ok": True})
    http = client()
    assert http.get_json(httpserver.url_for("/r")) == {"ok": True}
    assert len(httpserver.log) == 3
    assert http.stats.requests == 1  # one logical request; urllib3 retried under it


def test_retry_after_is_honoured(httpserver):
    httpserver.expect_ordered_request("/r").respond_with_response(
        Response("slow down", status=429, headers={"Retry-After": "1"})
    )
    httpserver.expect_ordered_request("/r").respond_with_json([1])
    started = time.monotonic()
    assert client().get_json(httpserver.url_for("/r")) == [1]
    assert time.monotonic() - started >= 0.9


def test_secondary_rate_limit_403_with_retry_after_is_retried(httpserver):
    httpserver.expect_ordered_request("/r").respond_with_response(
        Response("secondary rate limit", status=403, headers={"Retry-After": "1"})
    )
    httpserver.expect_ordered_request("/r").respond_with_json({"n": 1})
    assert client().get_json(httpserver.url_for("/r")) == {"n": 1}


def test_long_retry_after_stops_the_source(httpserver):
    httpserver.expect_request("/r").respond_with_response(
        Response("secondary rate limit", status=403, headers={"Retry-After": "3600"})
    )
    with pytest.raises(RateLimited, match="Retry-After 3600s"):
        client().get_json(httpserver.url_for("/r"))
    assert len(httpserver.log) == 1


def test_plain_403_is_fatal_without_retry(httpserver):
    httpserver.expect_request("/r").respond_with_data("forbidden", status=403)
    with pytest.raises(FatalHTTPError, match="HTTP 403"):
        client().get(httpserver.url_for("/r"))
    assert len(httpserver.log) == 1


def test_conditional_get_304_yields_nothing(httpserver):
    url = httpserver.url_for("/releases")
    httpserver.expect_ordered_request("/releases").respond_with_response(
        Response('[{"id": 1}]', headers={"ETag": 'W/"v1"', "Content-Type": "application/json"})
    )
    httpserver.expect_ordered_request(
        "/releases", headers={"If-None-Match": 'W/"v1"'}
    ).respond_with_data("", status=304)
    first = client()
    assert list(first.get_pages(url)) == [[{"id": 1}]]
    assert first.changed_validators == {url: {"etag": 'W/"v1"', "last_modified": None}}
    second = client(validators=first.changed_validators)
    assert list(second.get_pages(url)) == []
    assert (second.stats.requests, second.stats.not_modified) == (1, 1)
    assert second.changed_validators == {}


def test_last_modified_is_sent_back(httpserver):
    stamp = "Wed, 04 Dec 2024 23:09:23 GMT"
    url = httpserver.url_for("/doc")
    httpserver.expect_ordered_request("/doc").respond_with_response(
        Response("v1", headers={"Last-Modified": stamp})
    )
    httpserver.expect_ordered_request(
        "/doc", headers={"If-Modified-Since": stamp}
    ).respond_with_data("", status=304)
    first = client()
    assert first.get(url).text == "v1"
    assert client(validators=first.changed_validators).get(url) is None


def test_link_pagination(httpserver):
    base = httpserver.url_for("/items")
    httpserver.expect_request("/items", query_string="per_page=2").respond_with_response(
        Response(
            "[1, 2]",
            headers={
                "Link": f'<{base}?per_page=2&page=2>; rel="next", '
                f'<{base}?per_page=2&page=3>; rel="last"'
            },
        )
    )
    httpserver.expect_request("/items", query_string="per_page=2&page=2").respond_with_response(
        Response("[3, 4]", headers={"Link": f'<{base}?per_page=2&page=3>; rel="next"'})
    )
    httpserver.expect_request("/items", query_string="per_page=2&page=3").respond_with_json([5])
    http = client()
    assert list(http.get_pages(base, {"per_page": 2})) == [[1, 2], [3, 4], [5]]
    assert http.stats.requests == 3


def test_primary_rate_limit_short_wait_sleeps(httpserver):
    reset = int(time.time()) + 5
    httpserver.expect_ordered_request("/a").respond_with_response(
        Response("[1]", headers={"X-RateLimit-Remaining": "0", "X-RateLimit-Reset": str(reset)})
    )
    httpserver.expect_ordered_request("/b").respond_with_json([2])
    slept = []
    http = client(sleep=slept.append)
    assert http.get_json(httpserver.url_for("/a")) == [1]
    assert http.stats.rate_remaining == 0
    assert http.get_json(httpserver.url_for("/b")) == [2]
    assert len(slept) == 1 and 0 < slept[0] <= 7


def test_primary_rate_limit_long_wait_raises(httpserver):
    reset = int(time.time()) + 3000
    httpserver.expect_request("/a").respond_with_response(
        Response(
            "limit",
            status=403,
            headers={"X-RateLimit-Remaining": "0", "X-RateLimit-Reset": str(reset)},
        )
    )
    http = client(sleep=lambda s: pytest.fail("must not sleep for 50 minutes"))
    with pytest.raises(RateLimited, match="resets in 50 min"):
        http.get_json(httpserver.url_for("/a"))


def test_timeout_is_a_source_error(httpserver):
    def slow(_request):
        time.sleep(1.0)
        return Response("late")

    httpserver.expect_request("/slow").respond_with_handler(slow)
    http = client(retries=1, timeout=(1.0, 0.2))
    with pytest.raises(SourceError, match="timed out"):
        http.get(httpserver.url_for("/slow"))


@pytest.mark.parametrize(
    "body,ctype,match",
    [
        ('[{"id": 1}, {"id"', "application/json", "truncated or malformed JSON"),
        ("<html><body>Unicorn! 502</body></html>", "text/html", "text/html body"),
    ],
)
def test_bad_json_bodies_name_the_url(httpserver, body, ctype, match):
    httpserver.expect_request("/api").respond_with_data(body, content_type=ctype)
    with pytest.raises(FatalHTTPError, match=match) as info:
        client().get_json(httpserver.url_for("/api"))
    assert "/api" in str(info.value)


def test_404_names_url_and_what_to_do(httpserver):
    httpserver.expect_request("/gone").respond_with_data("Not Found", status=404)
    with pytest.raises(FatalHTTPError, match="404.*moved or deleted upstream"):
        client().get(httpserver.url_for("/gone"))


def test_token_is_sent_but_never_logged(httpserver, monkeypatch, caplog):
    monkeypatch.setenv("TRACKER_GITHUB_TOKEN", "ghp_secret_value_123")
    httpserver.expect_request(
        "/r", headers={"Authorization": "Bearer ghp_secret_value_123"}
    ).respond_with_json([])
    caplog.set_level(logging.DEBUG)
    http = client(auth="github", auth_origin=httpserver.url_for("/"))
    assert http.authenticated
    assert http.get_json(httpserver.url_for("/r")) == []
    assert "ghp_secret_value_123" not in caplog.text
    assert http.session.headers["User-Agent"].startswith("tracker/")


def test_no_token_means_unauthenticated(monkeypatch):
    monkeypatch.delenv("TRACKER_GITHUB_TOKEN", raising=False)
    monkeypatch.delenv("GITHUB_TOKEN", raising=False)
    assert not HttpClient(auth="github").authenticated


def spent(reset: float, status: int = 403) -> Response:
    return Response(
        '{"message": "API rate limit exceeded"}',
        status=status,
        headers={
            "X-RateLimit-Remaining": "0",
            "X-RateLimit-Reset": str(int(reset)),
            "Content-Type": "application/json",
        },
    )


def test_spent_rate_limit_with_past_reset_backs_off_once_then_stops(httpserver):
    # The reset is already past (clock skew, or a cassette recorded while rate limited): one
    # retry after a short back-off, then RateLimited. The server gives in after 5 rejections
    # so that a client that loops without limit fails this test instead of hanging it.
    answers = []

    def handler(_request):
        answers.append(1)
        return spent(time.time() - 10) if len(answers) <= 5 else Response("[]")

    httpserver.expect_request("/r").respond_with_handler(handler)
    slept = []
    with pytest.raises(RateLimited, match="still spent after a retry"):
        client(sleep=slept.append).get_json(httpserver.url_for("/r"))
    assert len(answers) == 2
    assert slept == [MIN_RATE_WAIT]


def test_spent_rate_limit_with_past_reset_retry_can_succeed(httpserver):
    httpserver.expect_ordered_request("/r").respond_with_response(spent(time.time() - 10))
    httpserver.expect_ordered_request("/r").respond_with_json([1])
    slept = []
    http = client(sleep=slept.append)
    assert http.get_json(httpserver.url_for("/r")) == [1]
    assert slept == [MIN_RATE_WAIT]  # backed off before the retry, did not hammer the server
    assert http.stats.requests == 2


def test_json_null_body_is_an_error_not_a_304(httpserver):
    httpserver.expect_request("/doc").respond_with_data("null", content_type="application/json")
    with pytest.raises(FatalHTTPError, match="expected a JSON document, got null") as info:
        client().get_json(httpserver.url_for("/doc"))
    assert "/doc" in str(info.value)


def etag_listing(httpserver, items: list, per_page: int):
    """A GitHub-like ascending listing: Link rel="next" pages, ETag = hash of the page body."""
    import hashlib
    import json

    def handler(request):
        page = int(request.args.get("page", 1))
        chunk = items[(page - 1) * per_page : page * per_page]
        body = json.dumps(chunk)
        etag = f'"{hashlib.md5(body.encode()).hexdigest()}"'
        if request.headers.get("If-None-Match") == etag:
            return Response("", status=304, headers={"ETag": etag})
        headers = {"ETag": etag, "Content-Type": "application/json"}
        if page * per_page < len(items):
            headers["Link"] = (
                f'<{httpserver.url_for("/items")}?per_page={per_page}&page={page + 1}>; rel="next"'
            )
        return Response(body, headers=headers)

    httpserver.expect_request("/items").respond_with_handler(handler)
    return httpserver.url_for("/items")


def test_multi_page_listing_is_read_whole_every_time(httpserver):
    # New items of an ascending listing land on its last page; page 1 stays byte-identical,
    # so a 304 on page 1 must not stand for the whole listing.
    items = [1, 2, 3]
    url = etag_listing(httpserver, items, per_page=2)
    first = client()
    assert list(first.get_pages(url, {"per_page": 2})) == [[1, 2], [3]]
    assert first.changed_validators == {}  # page 1 was not the whole listing: not remembered
    items.append(4)
    second = client(validators=first.changed_validators)
    assert list(second.get_pages(url, {"per_page": 2})) == [[1, 2], [3, 4]]
    assert second.stats.not_modified == 0


def test_full_single_page_is_not_remembered(httpserver):
    # A full page without rel="next" may grow a second page while page 1 stays the same.
    items = [1, 2]
    url = etag_listing(httpserver, items, per_page=2)
    first = client()
    assert list(first.get_pages(url, {"per_page": 2})) == [[1, 2]]
    assert first.changed_validators == {}
    items.append(3)
    second = client(validators=first.changed_validators)
    assert list(second.get_pages(url, {"per_page": 2})) == [[1, 2], [3]]


def test_short_single_page_listing_stays_conditional(httpserver):
    items = [1]
    url = etag_listing(httpserver, items, per_page=2)
    first = client()
    assert list(first.get_pages(url, {"per_page": 2})) == [[1]]
    second = client(validators=first.changed_validators)
    assert list(second.get_pages(url, {"per_page": 2})) == []
    assert (second.stats.requests, second.stats.not_modified) == (1, 1)
