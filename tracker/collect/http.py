"""The one HTTP session: User-Agent, timeouts, retries, rate limits, conditional GET, pagination.

Collectors call `HttpClient.get / get_json / get_pages` and never sleep, retry or set headers.
Retries (connection errors, 429 and 5xx, GitHub's 403 secondary rate limit when it carries
Retry-After) are urllib3's `Retry`, which honours `Retry-After`. GitHub's primary rate limit
(`X-RateLimit-Remaining` / `X-RateLimit-Reset`) is handled here: a short wait is slept, a long one
stops the source with `RateLimited`; a request refused for it is retried once at most. Conditional
requests use the ETag / Last-Modified stored per URL; a 304 returns None ("nothing new") and costs
no rate limit.

Bounds (tracker/collect/limits.py, tracker/collect/transport.py): every request has a total
deadline (retries and body included) and a body cap, read streamed; the source has a wall-clock
budget (``OutOfTime`` before the next request once it is spent); every listing has a page cap and
stops on a page URL or body seen before (``ListingStopped``).

Tokens are read from the environment, sent only as a header, never logged, and only to the
origin (scheme, host, port) of the API they belong to (``auth_origin``, from the source's
``api_url``). A redirect elsewhere is followed without the token; a ``Link: rel="next"`` to
another origin is refused (``ListingStopped``): no API tracker reads pages across origins.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Generator, Mapping
from dataclasses import dataclass
from typing import Any

import requests

from tracker import __version__
from tracker.collect.auth import AUTH_ORIGINS as AUTH_ORIGINS
from tracker.collect.auth import AUTH_SCHEMES, token_for
from tracker.collect.limits import Caps, Limits, PageGuard, origin, show_origin
from tracker.collect.ratelimit import RateLimits, RequestStats, utc_text
from tracker.collect.transport import (
    MAX_RATE_WAIT,
    BodyTooLarge,
    Deadline,
    DeadlineExceeded,
    GiveUpRetry,
    Session,
    WatchedAdapter,
    is_full,
    last_page,
    network_error,
    next_link,
    parse_json,
    read_body,
    status_hint,
)
from tracker.errors import FatalHTTPError, OutOfTime, RateLimited, SourceError

log = logging.getLogger("tracker.http")

USER_AGENT = (
    f"tracker/{__version__} (ecosystem-maturity tracker; +https://github.com/tracker-dev/tracker)"
)
TIMEOUT = (10.0, 60.0)  # (connect, read) seconds
MIN_RATE_WAIT = 5.0  # back-off when a refusal's reset time is already past (clock skew)

__all__ = ["MAX_RATE_WAIT", "HttpClient", "Page", "RequestStats", "parse_json", "token_for"]


@dataclass(frozen=True)
class Page:
    """One page of a paged JSON listing: its parsed body, the full URL asked, and what its Link
    header says of the pages after it (rel="next" as an absolute URL, the page number of
    rel="last"; None when absent)."""

    data: Any
    url: str
    next_url: str | None
    last_page: int | None


def full_url_of(url: str, params: Mapping[str, Any] | None) -> str:
    """The URL a GET of `url` with `params` asks for: the key of its validators."""
    return requests.Request("GET", url, params=params).prepare().url or url


class HttpClient(RateLimits):
    """One source's view of the web.

    `validators` maps a full URL to {"etag": ..., "last_modified": ...}; it is loaded from the
    store before collection and the runner saves `changed_validators` with the events.
    """

    def __init__(
        self,
        *,
        auth: str | None = None,
        validators: Mapping[str, dict] | None = None,
        retries: int = 4,
        backoff: float = 1.0,
        timeout: tuple[float, float] = TIMEOUT,
        max_rate_wait: float = MAX_RATE_WAIT,
        sleep: Callable[[float], None] = time.sleep,
        replaying: bool = False,
        auth_origin: str | None = None,
        limits: Limits | None = None,
        caps: Caps | None = None,
    ) -> None:
        self.session = Session()
        self.session.headers["User-Agent"] = USER_AGENT
        token = token_for(auth)
        # A replay answers from cassettes recorded with a token (filtered out of them), so the
        # source behaves as authenticated without one.
        self.authenticated = token is not None or replaying
        # Not a session header: added per request, and only for the API's own origin.
        self._authorization: str | None = None
        self.auth_origin = origin(auth_origin or AUTH_ORIGINS.get(auth or "", ""))
        if token and auth:  # token_for gives a token only for a named scheme
            self._authorization = AUTH_SCHEMES[auth][1].format(token=token)
        self.limits = limits or Limits()
        self.caps = caps  # the bounds hit, said once per source (limits.Caps)
        self._budget_ends = time.monotonic() + self.limits.time_budget
        retry = GiveUpRetry(
            total=retries,
            connect=retries,
            read=retries,
            status=retries,
            backoff_factor=backoff,
            backoff_max=30,
            status_forcelist=(429, 500, 502, 503, 504),
            allowed_methods=("GET", "HEAD"),
            respect_retry_after_header=True,
            raise_on_status=False,
        )
        adapter = WatchedAdapter(max_retries=retry)
        self.session.mount("http://", adapter)
        self.session.mount("https://", adapter)
        self.timeout = timeout
        self.max_rate_wait = max_rate_wait
        self.sleep = sleep
        self.validators: dict[str, dict] = dict(validators or {})
        self.changed_validators: dict[str, dict] = {}
        self.stats = RequestStats()
        self._resume_at: float | None = None
        self._one_at_a_time = threading.Lock()

    def get(
        self,
        url: str,
        params: Mapping[str, Any] | None = None,
        *,
        conditional: bool = True,
        accept: str | None = None,
    ) -> requests.Response | None:
        """GET `url`; None when the server says 304 Not Modified.

        Raises FatalHTTPError on 4xx, SourceError on 5xx or network failure after retries,
        RateLimited when the rate limit is spent for longer than we are willing to wait.
        """
        full_url, response = self._fetch(url, params, conditional, accept)
        if response is not None and conditional:
            self._remember(full_url, response)
        return response

    def head(self, url: str) -> Mapping[str, str]:
        """The response headers of a HEAD of `url` (never conditional): a file's Last-Modified
        where a listing carries no dates. Same retries, limits and errors as `get`."""
        _, response = self._fetch(url, None, False, None, method="HEAD")
        return response.headers if response is not None else {}

    def _fetch(
        self,
        url: str,
        params: Mapping[str, Any] | None,
        conditional: bool,
        accept: str | None,
        method: str = "GET",
    ) -> tuple[str, requests.Response | None]:
        """`get` without keeping the validators: (full URL, response or None on 304). One at a
        time: a paged walk may ask for its next page from a thread of its own."""
        with self._one_at_a_time:
            return self._fetch_now(url, params, conditional, accept, method)

    def _fetch_now(
        self,
        url: str,
        params: Mapping[str, Any] | None,
        conditional: bool,
        accept: str | None,
        method: str = "GET",
    ) -> tuple[str, requests.Response | None]:
        full_url = full_url_of(url, params)
        headers = {"Accept": accept} if accept else {}
        known = self.validators.get(full_url) if conditional else None
        if known:
            if known.get("etag"):
                headers["If-None-Match"] = known["etag"]
            if known.get("last_modified"):
                headers["If-Modified-Since"] = known["last_modified"]
        if self._authorization and origin(full_url) == self.auth_origin:
            headers["Authorization"] = self._authorization
        refused = False
        while True:
            self._wait_for_rate_limit(full_url)
            response = self._request(full_url, headers, method)
            self._note_rate_limit(response)
            if not (
                response.status_code in (403, 429)
                and self._rate_limit_spent(response)
                and self._resume_at is not None
            ):
                break
            # Refused for a spent rate limit: retry once, after _wait_for_rate_limit has slept
            # until the reset (or raised when that is too far off). A reset already past means
            # clock skew or a replayed refusal: back off briefly instead, and never loop.
            if refused:
                raise RateLimited(
                    f"{full_url}: HTTP {response.status_code}: API rate limit still spent after "
                    f"a retry (reset time {utc_text(self._resume_at)}; a past one means clock skew "
                    "or a replayed rate-limited response): the source stops here and resumes "
                    "from its cursor on the next run"
                )
            refused = True
            if self._resume_at <= time.time():
                log.info(
                    "rate limit spent but its reset time is past; retrying in %.0fs", MIN_RATE_WAIT
                )
                self.sleep(MIN_RATE_WAIT)
                self._resume_at = None
        if response.status_code == 304:
            self.stats.not_modified += 1
            return full_url, None
        if response.status_code == 429 or (
            response.status_code == 403
            and ("Retry-After" in response.headers or self._rate_limit_spent(response))
        ):
            raise RateLimited(
                f"{full_url}: HTTP {response.status_code} rate limited "
                f"(Retry-After {response.headers.get('Retry-After', 'not given')}s,"
                f" we wait at most {self.max_rate_wait:.0f}s): try again later"
            )
        if 400 <= response.status_code < 500:
            raise FatalHTTPError(
                f"{full_url}: HTTP {response.status_code} {response.reason}"
                f"{status_hint(response.status_code)}",
                status=response.status_code,
            )
        if response.status_code >= 500:
            raise SourceError(
                f"{full_url}: HTTP {response.status_code} {response.reason} "
                "after retries (server error): try again later"
            )
        return full_url, response

    def _request(self, url: str, headers: dict[str, str], method: str = "GET") -> requests.Response:
        """One GET with urllib3's retries, under the request deadline (cut short by the source's
        budget), its body read streamed up to the body cap."""
        left = self._budget_ends - time.monotonic()
        if left <= 0:
            raise OutOfTime(
                f"{url}: out of time: the source's budget of {self.limits.time_budget:g}s "
                f"(time_budget_seconds) is spent after {self.stats.requests} requests; it "
                "stops before this request and the next run goes on from its cursor"
            )
        seconds = min(self.limits.request_deadline, left)
        self.stats.requests += 1
        response = None
        with Deadline(seconds) as deadline:
            try:
                response = self.session.request(
                    method, url, headers=headers, timeout=self.timeout, stream=True
                )
                read_body(response, self.limits.max_body_bytes)
            except BodyTooLarge as exc:
                if self.caps is not None:
                    self.caps.hit("max_body_mb", str(exc))
                raise
            except (DeadlineExceeded, requests.RequestException) as exc:
                if not deadline.fired:
                    assert isinstance(exc, requests.RequestException)
                    raise network_error(url, exc, self.timeout) from None
        # A fired deadline shut the socket: whatever was read (even a "complete" response whose
        # headers were cut short) is not the answer.
        if response is not None and not deadline.fired:
            return response
        if response is not None:
            response.close()
        if seconds < self.limits.request_deadline:
            raise OutOfTime(
                f"{url}: out of time: the source's budget of {self.limits.time_budget:g}s "
                "(time_budget_seconds) ran out during this request; the next run goes on "
                "from its cursor"
            )
        raise SourceError(
            f"{url}: no complete answer within the request deadline of {seconds:g}s "
            "(the server is too slow or drips its answer): try again later"
        )

    def get_json(
        self, url: str, params: Mapping[str, Any] | None = None, *, conditional: bool = True
    ) -> Any | None:
        """GET and parse JSON; None on 304 and only then.

        A body that is not JSON, or is JSON `null` (which would read as "not modified"), raises
        FatalHTTPError.
        """
        response = self.get(url, params, conditional=conditional, accept="application/json")
        if response is None:
            return None
        document = parse_json(response)
        if document is None:
            raise FatalHTTPError(f"{response.url}: expected a JSON document, got null")
        return document

    def get_page(
        self,
        url: str,
        params: Mapping[str, Any] | None = None,
        *,
        conditional: bool = True,
        guard: PageGuard | None = None,
    ) -> Page | None:
        """One page of a paged listing; None on 304 (only when `conditional`).

        Its validators are kept only when it ends the listing with room to spare (no rel="next",
        fewer items than per_page): an ascending listing adds at its end, so a full page, or one
        with pages after it, stays byte-identical while the listing grows, and a 304 there would
        hide what was added."""
        full_url, response = self._fetch(url, params, conditional, "application/json")
        if response is None:
            return None
        if guard is not None:
            guard.read(response.content)
        data = parse_json(response)
        page = Page(data, full_url, next_link(response), last_page(response))
        if conditional and not page.next_url and not is_full(data, params):
            self._remember(full_url, response)
        return page

    def knows(self, url: str, params: Mapping[str, Any] | None = None) -> bool:
        """Whether validators are kept for this URL: asking it can be answered 304."""
        return full_url_of(url, params) in self.validators

    def get_pages(
        self, url: str, params: Mapping[str, Any] | None = None, *, conditional: bool = True
    ) -> Generator[Any, None, None]:
        """Yield the JSON of each page, following Link rel="next".

        Only the first page is conditional (``get_page``: its validators are kept only when it
        was the whole listing), so a 304 means nothing changed, and nothing is yielded. Later
        pages are plain requests (their URLs carry page cursors).
        """
        guard = self.listing(url)
        guard.visit(full_url_of(url, params))
        page = self.get_page(url, params, conditional=conditional, guard=guard)
        if page is None:
            return
        full_url, next_url, data = page.url, page.next_url, page.data
        while True:
            yield data
            if not next_url:
                return
            if origin(next_url) != origin(full_url):
                guard.stop(
                    f"the next-page link leads to another origin ({show_origin(next_url)}, "
                    f"not {show_origin(full_url)}): refused, so no token goes there"
                )
            guard.visit(next_url)
            page = self.get_page(next_url, conditional=False, guard=guard)
            if page is None:  # an unasked-for 304: nothing to read
                return
            data, next_url = page.data, page.next_url

    def listing(self, what: str) -> PageGuard:
        """The bounds of one paged listing (page cap, loops) for a collector that pages itself."""
        return PageGuard(what, self.limits.max_pages, self.caps)

    def _remember(self, full_url: str, response: requests.Response) -> None:
        """Keep the response's validators for the next run's conditional request."""
        etag = response.headers.get("ETag")
        modified = response.headers.get("Last-Modified")
        if etag or modified:
            entry = {"etag": etag, "last_modified": modified}
            self.validators[full_url] = entry
            self.changed_validators[full_url] = entry

    def close(self) -> None:
        self.session.close()
