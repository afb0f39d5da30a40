"""The wire under tracker.collect.http: a total deadline per request, capped streamed bodies,
credentials kept to their origin on redirects, JSON decoded without failing on one bad byte.

Deadline: urllib3's timeouts bound each socket read, so a server that sends one byte every few
seconds never trips them. Each request therefore runs under a ``Deadline``: every connection the
request takes from the pool is registered with it, and when the deadline passes the watchdog thread
shuts those sockets down, which ends the blocked read at once. The request then fails with
``DeadlineExceeded`` (retries included: a fired deadline refuses further connections). One
watchdog thread serves every deadline of the process.
"""

from __future__ import annotations

import heapq
import json
import logging
import socket
import threading
import time
from collections.abc import Mapping
from typing import Any
from urllib.parse import parse_qs, urljoin, urlsplit

import requests
from requests.adapters import HTTPAdapter
from urllib3.connectionpool import HTTPConnectionPool, HTTPSConnectionPool
from urllib3.exceptions import MaxRetryError, ResponseError
from urllib3.util.retry import Retry

from tracker.collect.limits import origin
from tracker.errors import FatalHTTPError, SourceError

log = logging.getLogger("tracker.http")

MAX_RATE_WAIT = 90.0  # seconds we are willing to sleep for a rate-limit reset
CHUNK = 64 * 1024
_current = threading.local()  # .deadline: the Deadline of the request this thread is making


class DeadlineExceeded(Exception):
    """A request ran past its deadline (raised through urllib3, which does not retry it)."""


class Deadline:
    """A total time limit for one request: see the module docstring. Use as a context manager
    around the request and the reading of its body."""

    def __init__(self, seconds: float) -> None:
        self.seconds = max(seconds, 0.0)
        self.fired = False
        self.done = False
        self._connections: list[Any] = []
        self._lock = threading.Lock()

    def __enter__(self) -> Deadline:
        _current.deadline = self
        _WATCHDOG.watch(self, time.monotonic() + self.seconds)
        return self

    def __exit__(self, *exc: object) -> None:
        with self._lock:
            self.done = True  # the watchdog drops it when its time comes
            self._connections.clear()
        _current.deadline = None

    def watch(self, connection: Any) -> None:
        with self._lock:
            if self.fired:
                raise DeadlineExceeded(f"deadline of {self.seconds:.0f}s passed")
            self._connections.append(connection)

    def fire(self) -> None:
        with self._lock:
            if self.done:
                return
            self.fired = True
            connections = list(self._connections)
        for connection in connections:
            sock = getattr(connection, "sock", None)
            if isinstance(sock, socket.socket):
                try:
                    # The plain socket's shutdown (not SSLSocket's, which drops its TLS state
                    # under the reading thread): the blocked read returns at once.
                    socket.socket.shutdown(sock, socket.SHUT_RDWR)
                except OSError:
                    pass


class _Watchdog:
    """One daemon thread for every Deadline of the process: it sleeps until the earliest one is
    due and fires it. (A timer thread per request cost more than the request itself on a busy
    machine: each start waits for the new thread to be scheduled.) A finished Deadline stays in
    the heap, marked done, until its time comes; only one due sooner than every other wakes
    the thread."""

    def __init__(self) -> None:
        self._due: list[tuple[float, int, Deadline]] = []
        self._wake = threading.Condition()
        self._thread: threading.Thread | None = None
        self._count = 0

    def watch(self, deadline: Deadline, at: float) -> None:
        with self._wake:
            self._count += 1
            sooner = not self._due or at < self._due[0][0]
            heapq.heappush(self._due, (at, self._count, deadline))
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name="tracker-deadlines")
                self._thread.daemon = True
                self._thread.start()
            elif sooner:
                self._wake.notify()

    def _run(self) -> None:
        while True:
            with self._wake:
                while True:
                    while self._due and self._due[0][2].done:
                        heapq.heappop(self._due)
                    wait = self._due[0][0] - time.monotonic() if self._due else None
                    if wait is not None and wait <= 0:
                        due = heapq.heappop(self._due)[2]
                        break
                    self._wake.wait(wait)
            due.fire()


_WATCHDOG = _Watchdog()


class GiveUpRetry(Retry):
    """urllib3 Retry that also retries GitHub's secondary rate limit (403 + Retry-After)
    and gives up, instead of sleeping, when Retry-After asks for longer than MAX_RATE_WAIT."""

    RETRY_AFTER_STATUS_CODES = frozenset({403, 413, 429, 503})

    def is_retry(self, method: str, status_code: int, has_retry_after: bool = False) -> bool:
        if status_code == 403 and has_retry_after:
            return self.total is None or self.total > 0
        return super().is_retry(method, status_code, has_retry_after)

    def increment(
        self, method=None, url=None, response=None, error=None, _pool=None, _stacktrace=None
    ):
        retry_after = self.get_retry_after(response) if response is not None else None
        if retry_after is not None and retry_after > MAX_RATE_WAIT:
            # Give up now: with raise_on_status=False urllib3 hands the 403/429 back to us.
            raise MaxRetryError(_pool, url, ResponseError(f"Retry-After {retry_after:.0f}s"))
        return super().increment(method, url, response, error, _pool, _stacktrace)


def _watched(pool_class: type) -> type:
    class Watched(pool_class):
        def _get_conn(self, timeout: float | None = None) -> Any:
            connection = super()._get_conn(timeout)
            deadline = getattr(_current, "deadline", None)
            if deadline is not None:
                try:
                    deadline.watch(connection)
                except DeadlineExceeded:
                    self._put_conn(connection)
                    raise
            return connection

    Watched.__name__ = f"Watched{pool_class.__name__}"
    return Watched


_POOLS = {"http": _watched(HTTPConnectionPool), "https": _watched(HTTPSConnectionPool)}


class WatchedAdapter(HTTPAdapter):
    """HTTPAdapter whose connection pools register each connection with the current Deadline.
    (The pools' connection classes stay urllib3's own, which vcrpy replaces for cassettes.)"""

    def init_poolmanager(self, *args: Any, **kwargs: Any) -> None:
        super().init_poolmanager(*args, **kwargs)
        self.poolmanager.pool_classes_by_scheme = dict(_POOLS)


class Session(requests.Session):
    """requests.Session that drops Authorization on any redirect that leaves the origin
    (scheme, host and port): requests itself keeps it on an http -> https upgrade."""

    def should_strip_auth(self, old_url: str, new_url: str) -> bool:
        return origin(old_url) != origin(new_url)


class BodyTooLarge(FatalHTTPError):
    """A response body over the source's body cap (max_body_mb): a bound, said as one."""


def read_body(response: requests.Response, cap: int) -> bytes:
    """Read a streamed response's body whole, decompressed, refusing more than `cap` bytes:
    BodyTooLarge naming the size and the URL. The body is then `response.content` as usual."""
    declared = response.headers.get("Content-Length", "")
    if declared.isdigit() and int(declared) > cap:
        response.close()
        raise BodyTooLarge(_too_big(response.url, f"{int(declared):,} bytes declared", cap))
    chunks, size = [], 0
    for chunk in response.iter_content(CHUNK):
        size += len(chunk)
        if size > cap:
            response.close()
            raise BodyTooLarge(_too_big(response.url, f"more than {cap:,} bytes read", cap))
        chunks.append(chunk)
    body = b"".join(chunks)
    response._content = body  # what requests itself does when it reads a body
    return body


def _too_big(url: str, what: str, cap: int) -> str:
    return (
        f"{url}: response body too large ({what}; the cap is {cap:,} bytes, "
        "max_body_mb in sources.yaml): this page is not read"
    )


class TooDeep(ValueError):
    """A JSON document nested deeper than Python's stack can decode."""


def loads(text: str) -> Any:
    """json.loads, except that an integer too long for Python to read (over 4,300 digits) stays
    the text it was: one odd value in one item, not a page that fails to parse. A document
    nested past the interpreter's recursion limit (``[[[[...``, about a thousand levels) is a
    ValueError (TooDeep) like any other malformed document, not a RecursionError."""
    try:
        try:
            return json.loads(text)  # C all the way: no Python call per integer
        except ValueError as exc:
            if isinstance(exc, json.JSONDecodeError):
                raise
            # int() refused a number over the digit limit: read the document again, numbers
            # through _int.
            return json.loads(text, parse_int=_int)
    except RecursionError:
        raise TooDeep("JSON nested too deeply to read") from None


def _int(digits: str) -> int | str:
    return int(digits) if len(digits) <= 4300 else digits


def json_text(content: bytes, where: str) -> str:
    """`content` (a JSON document in UTF-8, -16 or -32) as text. Invalid bytes inside it are an
    encoding problem, not truncation: they become U+FFFD and a warning names `where` and the
    first bad byte, so the rest of the document (and each item's other fields) is kept."""
    encoding = json.detect_encoding(content)
    try:
        return content.decode(encoding)
    except UnicodeDecodeError as exc:
        log.warning(
            "%s: encoding problem: invalid %s at byte %d of %d (%r); decoded with replacement "
            "characters, the rest of the document is kept",
            where,
            encoding,
            exc.start,
            len(content),
            content[exc.start : exc.start + 4],
        )
        return content.decode(encoding, "replace")


def parse_json(response: requests.Response) -> Any:
    """The JSON body of `response`, or FatalHTTPError saying what came instead. Invalid UTF-8
    inside it is replaced and logged (``json_text``), never reported as truncation."""
    content = response.content
    try:
        return loads(json_text(content, response.url))
    except ValueError as exc:
        content_type = response.headers.get("Content-Type", "no content type")
        text = content[:80].decode("utf-8", "replace")
        what = (
            str(exc)
            if isinstance(exc, TooDeep)
            else "truncated or malformed JSON"
            if text.lstrip()[:1] in ("{", "[")
            else f"a {content_type} body"
        )
        raise FatalHTTPError(
            f"{response.url}: expected JSON, got {what} ({len(content)} bytes, starts {text!r})"
        ) from None


def network_error(url: str, exc: Exception, timeout: tuple[float, float]) -> SourceError:
    """A SourceError for a request that failed on the network (after retries)."""
    reason = getattr(exc.args[0], "reason", None) if exc.args else None
    if (
        isinstance(exc, requests.Timeout)
        or isinstance(reason, TimeoutError)
        or type(reason).__name__ in ("ReadTimeoutError", "ConnectTimeoutError")
    ):
        return SourceError(
            f"{url}: timed out after retries "
            f"(connect {timeout[0]}s, read {timeout[1]}s): try again later"
        )
    return SourceError(
        f"{url}: request failed after retries: {type(exc).__name__}: {_short(str(reason or exc))}"
    )


def _short(text: str, limit: int = 160) -> str:
    return text if len(text) <= limit else text[:limit] + "..."


def status_hint(status: int) -> str:
    """What to do about an HTTP error status, for the error message."""
    return {
        401: " (bad or expired token: check TRACKER_GITHUB_TOKEN / TRACKER_BUILDKITE_TOKEN)",
        404: " (moved or deleted upstream: check the source's URL / repo in sources.yaml)",
        410: " (gone upstream: remove or update the source in sources.yaml)",
    }.get(status, "")


def next_link(response: requests.Response) -> str | None:
    """The absolute URL of the response's Link rel="next", or None."""
    link = response.links.get("next", {}).get("url")
    return urljoin(response.url, link) if link else None


def last_page(response: requests.Response) -> int | None:
    """The page number of the response's Link rel="last" (GitHub's page-numbered listings send
    it while pages remain), or None when there is none or it names no page number."""
    link = response.links.get("last", {}).get("url")
    pages = parse_qs(urlsplit(link).query).get("page") if link else None
    return int(pages[0]) if pages and pages[0].isdigit() else None


def is_full(page: Any, params: Mapping[str, Any] | None) -> bool:
    """Whether a page holds as many items as per_page: the next item to arrive would start a
    page after it and leave this one unchanged."""
    per_page = (params or {}).get("per_page")
    return isinstance(page, list) and per_page is not None and len(page) >= int(per_page)
