"""The HTTP session's bounds against hostile or broken servers on 127.0.0.1: where the token
may go, paging loops and the page cap, the request deadline, the source's time budget, the body
cap and invalid UTF-8. Request counts and wall times of each case are printed (-s shows them)."""

from __future__ import annotations

import json
import logging
import time

import pytest
from pytest_httpserver import HTTPServer
from werkzeug import Request, Response

from tests.collect.hostile import DripServer, http_reply
from tracker.collect.http import HttpClient
from tracker.collect.limits import Limits, origin
from tracker.collect.transport import Deadline, Session
from tracker.errors import FatalHTTPError, ListingStopped, OutOfTime, SourceError

SENTINEL = "ghp_SENTINEL_token_never_elsewhere"


def client(**kwargs) -> HttpClient:
    kwargs.setdefault("backoff", 0.01)
    return HttpClient(**kwargs)


@pytest.fixture
def other():
    """A second server: another origin (host 127.0.0.1 and another port)."""
    server = HTTPServer(host="127.0.0.1", port=0)
    server.start()
    yield server
    server.clear()
    server.stop()


def authed(httpserver, monkeypatch, **kwargs) -> HttpClient:
    monkeypatch.setenv("TRACKER_GITHUB_TOKEN", SENTINEL)
    return client(auth="github", auth_origin=httpserver.url_for("/"), **kwargs)


def read_all(pages) -> list:
    got = []
    for page in pages:
        got.append(page)
    return got


def test_next_link_to_another_origin_is_refused_and_gets_no_token(httpserver, other, monkeypatch):
    httpserver.expect_request("/list").respond_with_json(
        [1], headers={"Link": f'<{other.url_for("/steal")}>; rel="next"'}
    )
    other.expect_request("/steal").respond_with_json([2])
    http = authed(httpserver, monkeypatch)
    got: list = []
    with pytest.raises(ListingStopped, match="another origin .*refused"):
        for page in http.get_pages(httpserver.url_for("/list")):
            got.append(page)
    assert got == [[1]]  # what came before the refused link is handed over
    assert httpserver.log[0][0].headers["Authorization"] == f"Bearer {SENTINEL}"
    assert other.log == []  # never asked at all


def test_redirect_elsewhere_is_followed_without_the_token(httpserver, other, monkeypatch):
    httpserver.expect_request("/moved").respond_with_response(
        Response(status=302, headers={"Location": other.url_for("/blob")})
    )
    other.expect_request("/blob").respond_with_json({"ok": 1})
    assert authed(httpserver, monkeypatch).get_json(httpserver.url_for("/moved")) == {"ok": 1}
    assert httpserver.log[0][0].headers["Authorization"] == f"Bearer {SENTINEL}"
    assert "Authorization" not in other.log[0][0].headers


def test_same_origin_redirect_keeps_the_token_and_other_urls_never_get_it(
    httpserver, other, monkeypatch
):
    httpserver.expect_request("/old").respond_with_response(
        Response(status=301, headers={"Location": httpserver.url_for("/new")})
    )
    httpserver.expect_request("/new").respond_with_json([])
    other.expect_request("/plain").respond_with_json([])
    http = authed(httpserver, monkeypatch)
    assert http.get_json(httpserver.url_for("/old")) == []
    assert httpserver.log[1][0].headers["Authorization"] == f"Bearer {SENTINEL}"
    # A URL a collector builds from a body (another origin) is fetched without the token.
    assert http.get_json(other.url_for("/plain")) == []
    assert "Authorization" not in other.log[0][0].headers


def test_origin_is_scheme_host_and_port():
    assert origin("https://api.github.com/x") == origin("https://API.github.com:443/y")
    assert origin("http://h/x") != origin("https://h/x")
    assert origin("http://h:8080/") != origin("http://h/")
    # requests keeps Authorization on an http -> https upgrade; this session does not.
    assert Session().should_strip_auth("http://h/a", "https://h/b")
    assert not Session().should_strip_auth("https://h/a", "https://h:443/b")


def test_next_link_to_the_same_url_ends_the_listing(httpserver, caplog):
    url = httpserver.url_for("/releases")
    httpserver.expect_request("/releases").respond_with_json(
        [{"id": 1}], headers={"Link": f'<{url}>; rel="next"'}
    )
    started = time.monotonic()
    with pytest.raises(ListingStopped, match="again \\(a paging loop\\)"):
        read_all(client().get_pages(url))
    took = time.monotonic() - started
    print(f"\nnext link to itself: {len(httpserver.log)} request(s) in {took:.3f}s")
    assert len(httpserver.log) == 1
    assert "listing stopped after 1 pages" in caplog.text


def test_fresh_urls_with_the_same_page_end_the_listing(httpserver):
    def handler(request: Request) -> Response:
        page = int(request.args.get("page", 1))
        link = f'<{httpserver.url_for("/tags")}?page={page + 1}>; rel="next"'
        return Response(json.dumps([{"name": "v1.0"}]), headers={"Link": link})

    httpserver.expect_request("/tags").respond_with_handler(handler)
    started = time.monotonic()
    with pytest.raises(ListingStopped, match="repeats an earlier page"):
        read_all(client().get_pages(httpserver.url_for("/tags")))
    took = time.monotonic() - started
    print(f"\nsame page under fresh URLs: {len(httpserver.log)} requests in {took:.3f}s")
    assert len(httpserver.log) == 2


def test_endless_fresh_pages_stop_at_the_page_cap(httpserver):
    def handler(request: Request) -> Response:
        page = int(request.args.get("page", 1))
        link = f'<{httpserver.url_for("/l")}?page={page + 1}>; rel="next"'
        return Response(json.dumps([{"page": page}]), headers={"Link": link})

    httpserver.expect_request("/l").respond_with_handler(handler)
    got: list = []
    started = time.monotonic()
    with pytest.raises(ListingStopped, match="page cap of 7 pages reached \\(max_pages"):
        for page in client(limits=Limits(max_pages=7)).get_pages(httpserver.url_for("/l")):
            got.append(page)
    took = time.monotonic() - started
    print(f"\nendless fresh pages, cap 7: {len(httpserver.log)} requests in {took:.3f}s")
    assert len(httpserver.log) == 7 and [p[0]["page"] for p in got] == list(range(1, 8))


def test_a_dripping_server_is_cut_at_the_request_deadline():
    reply = http_reply(json.dumps([{"n": i} for i in range(20)]).encode())
    with DripServer(reply, interval=0.05) as server:  # the whole answer would take ~17 s
        http = client(limits=Limits(request_deadline=1.0))
        started = time.monotonic()
        with pytest.raises(SourceError, match="request deadline of 1s") as caught:
            http.get_json(server.url)
        took = time.monotonic() - started
        print(f"\ndrip, deadline 1s: {server.connections} connection(s), {took:.2f}s")
    assert not isinstance(caught.value, OutOfTime)
    assert took < 3 and server.connections == 1  # no retry after the deadline


def test_a_deadline_due_before_the_pending_ones_still_fires():
    # One watchdog thread serves every deadline and sleeps until the earliest is due: a new one
    # due sooner must wake it, or it would fire only when the 300 s one is due.
    pending = Deadline(300).__enter__()
    time.sleep(0.2)  # the watchdog settles into its sleep until the pending one is due
    try:
        with Deadline(0.05) as soon:
            for _ in range(400):  # polls up to 20 s; fires after about 0.05 s
                if soon.fired:
                    break
                time.sleep(0.05)
            assert soon.fired
    finally:
        pending.__exit__(None, None, None)
    assert not pending.fired


def test_the_time_budget_cuts_a_request_and_refuses_the_next(httpserver):
    reply = http_reply(b"[" + b"1," * 200 + b"1]")
    with DripServer(reply, interval=0.05) as server:
        http = client(limits=Limits(time_budget=1.0))
        started = time.monotonic()
        with pytest.raises(OutOfTime, match="budget of 1s .*ran out during this request"):
            http.get_json(server.url)
        took = time.monotonic() - started
        print(f"\ndrip, budget 1s: {took:.2f}s")
        assert took < 3
    httpserver.expect_request("/next").respond_with_json([])
    with pytest.raises(OutOfTime, match="is spent after 1 requests"):
        http.get_json(httpserver.url_for("/next"))
    assert httpserver.log == []  # not even asked


def test_declared_body_over_the_cap_fails_naming_size_and_url(httpserver):
    httpserver.expect_request("/big").respond_with_data(
        "[" + "0," * 1500 + "0]", content_type="application/json"
    )
    expected = "/big: response body too large \\(3,003 bytes declared; the cap is 1,000 bytes"
    with pytest.raises(FatalHTTPError, match=expected):
        client(limits=Limits(max_body_bytes=1000)).get_json(httpserver.url_for("/big"))


def test_streamed_body_over_the_cap_is_not_read_whole(httpserver):
    sent = []

    def chunks():
        for _ in range(100):  # 100 x 64 KiB, no Content-Length
            sent.append(1)
            yield b" " * 65536

    httpserver.expect_request("/stream").respond_with_response(
        Response(chunks(), content_type="application/json")
    )
    url = httpserver.url_for("/stream")
    with pytest.raises(FatalHTTPError, match="/stream: .*more than 1,048,576 bytes read"):
        client(limits=Limits(max_body_bytes=1024 * 1024)).get_json(url)


def test_invalid_utf8_is_an_encoding_problem_not_truncation(httpserver, caplog):
    body = b'[{"number": 7, "title": "ok", "body": "caf\xe9 \xff"}, {"number": 8}]'
    httpserver.expect_request("/issues").respond_with_data(body, content_type="application/json")
    caplog.set_level(logging.WARNING)
    page = client().get_json(httpserver.url_for("/issues"))
    assert page[0]["body"] == "caf\ufffd \ufffd" and page[0]["title"] == "ok"
    assert page[1] == {"number": 8}
    assert "encoding problem: invalid utf-8 at byte 42 of 63" in caplog.text
    assert "truncated" not in caplog.text
