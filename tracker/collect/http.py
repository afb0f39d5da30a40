"""The one HTTP session: User-Agent, timeouts, retries, rate limits, conditional GET, pagination.

Collectors call `HttpClient.get / get_json / get_pages` and never sleep, retry or set headers.
Retries (connection errors, 429 and 5xx, GitHub's 403 secondary rate limit when it carries
Retry-After) are urllib3's `Retry`, which honours `Retry-After`. GitHub's primary rate limit
(`X-RateLimit-Remaining` / `X-RateLimit-Reset`) is handled here: a short wait is slept, a long one
stops the source with `RateLimited`; a request refused for it is retried once at most. Conditional
requests use the ETag / Last-Modified stored per URL; a 304 returns None ("nothing new") and costs
no rate limit.

Tokens are read from the environment, sent only as a header and never logged.
"""

from __future__ import annotations

import json
import logging
import os
import time
from collections.abc import Callable, Generator, Mapping
from dataclasses import dataclass
from typing import Any

import requests
from requests.adapters import HTTPAdapter
from urllib3.exceptions import MaxRetryError, ResponseError
from urllib3.util.retry import Retry

from tracker import __version__
from tracker.errors import FatalHTTPError, RateLimited, SourceError

log = logging.getLogger("tracker.http")

USER_AGENT = (
    f"tracker/{__version__} (ecosystem-maturity tracker; +https://github.com/tracker-dev/tracker)"
)
TIMEOUT = (10.0, 60.0)  # (connect, read) seconds
MAX_RATE_WAIT = 90.0  # seconds we are willing to sleep for a rate-limit reset
MIN_RATE_WAIT = 5.0  # back-off when a refusal's reset time is already past (clock skew)

# Which environment variables hold the token of each API, and how it is sent.
AUTH_SCHEMES: dict[str, tuple[tuple[str, ...], str]] = {
    "github": (("TRACKER_GITHUB_TOKEN", "GITHUB_TOKEN"), "Bearer {token}"),
    "buildkite": (("TRACKER_BUILDKITE_TOKEN",), "Bearer {token}"),
}


class _Retry(Retry):
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


@dataclass
class RequestStats:
    """What one source's collection cost: reported in the run row and `tracker status`."""

    requests: int = 0
    not_modified: int = 0
    rate_remaining: int | None = None


def token_for(auth: str | None) -> str | None:
    """The API token for an auth scheme from the environment, or None."""
    if not auth:
        return None
    names, _ = AUTH_SCHEMES[auth]
    for name in names:
        if os.environ.get(name):
            return os.environ[name]
    return None


class HttpClient:
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
    ) -> None:
        self.session = requests.Session()
        self.session.headers["User-Agent"] = USER_AGENT
        token = token_for(auth)
        # A replay answers from cassettes recorded with a token (filtered out of them), so the
        # source behaves as authenticated without one.
        self.authenticated = token is not None or replaying
        if token and auth:  # token_for gives a token only for a named scheme
            self.session.headers["Authorization"] = AUTH_SCHEMES[auth][1].format(token=token)
        retry = _Retry(
            total=retries,
            connect=retries,
            read=retries,
            status=retries,
            backoff_factor=backoff,
            backoff_max=30,
            status_forcelist=(429, 500, 502, 503, 504),
            allowed_methods=("GET",),
            respect_retry_after_header=True,
            raise_on_status=False,
        )
        adapter = HTTPAdapter(max_retries=retry)
        self.session.mount("http://", adapter)
        self.session.mount("https://", adapter)
        self.timeout = timeout
        self.max_rate_wait = max_rate_wait
        self.sleep = sleep
        self.validators: dict[str, dict] = dict(validators or {})
        self.changed_validators: dict[str, dict] = {}
        self.stats = RequestStats()
        self._resume_at: float | None = None

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

    def _fetch(
        self, url: str, params: Mapping[str, Any] | None, conditional: bool, accept: str | None
    ) -> tuple[str, requests.Response | None]:
        """`get` without keeping the validators: (full URL, response or None on 304)."""
        full_url = requests.Request("GET", url, params=params).prepare().url or url
        headers = {"Accept": accept} if accept else {}
        known = self.validators.get(full_url) if conditional else None
        if known:
            if known.get("etag"):
                headers["If-None-Match"] = known["etag"]
            if known.get("last_modified"):
                headers["If-Modified-Since"] = known["last_modified"]
        refused = False
        while True:
            self._wait_for_rate_limit(full_url)
            try:
                response = self.session.get(full_url, headers=headers, timeout=self.timeout)
            except requests.RequestException as exc:
                raise _network_error(full_url, exc, self.timeout) from None
            self.stats.requests += 1
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
                    f"a retry (reset time {_utc(self._resume_at)}; a past one means clock skew "
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
                f"{_hint(response.status_code)}",
                status=response.status_code,
            )
        if response.status_code >= 500:
            raise SourceError(
                f"{full_url}: HTTP {response.status_code} {response.reason} "
                "after retries (server error): try again later"
            )
        return full_url, response

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

    def get_pages(
        self, url: str, params: Mapping[str, Any] | None = None, *, conditional: bool = True
    ) -> Generator[Any, None, None]:
        """Yield the JSON of each page, following Link rel="next".

        Only the first page is conditional, and its validators are kept only when it was the
        whole listing (no rel="next", fewer items than per_page): an ascending listing's new
        items land on its last page while page 1 stays byte-identical, so a 304 on page 1 of a
        longer listing would hide them. A 304 therefore means nothing changed, and nothing is
        yielded. Later pages are plain requests (their URLs carry page cursors).
        """
        full_url, response = self._fetch(url, params, conditional, "application/json")
        if response is None:
            return
        page = parse_json(response)
        next_url = response.links.get("next", {}).get("url")
        if conditional and not next_url and not _may_continue(page, params):
            self._remember(full_url, response)
        while True:
            yield page
            if not next_url:
                return
            response = self.get(next_url, conditional=False, accept="application/json")
            if response is None:  # an unasked-for 304: nothing to read
                return
            page = parse_json(response)
            next_url = response.links.get("next", {}).get("url")

    def _remember(self, full_url: str, response: requests.Response) -> None:
        """Keep the response's validators for the next run's conditional request."""
        etag = response.headers.get("ETag")
        modified = response.headers.get("Last-Modified")
        if etag or modified:
            entry = {"etag": etag, "last_modified": modified}
            self.validators[full_url] = entry
            self.changed_validators[full_url] = entry

    # -- rate limits -----------------------------------------------------------------------
    def _note_rate_limit(self, response: requests.Response) -> None:
        remaining = response.headers.get("X-RateLimit-Remaining")
        reset = response.headers.get("X-RateLimit-Reset")
        if remaining is None:
            return
        try:
            self.stats.rate_remaining = int(remaining)
            if int(remaining) <= 0 and reset is not None:
                self._resume_at = float(reset)
        except ValueError:
            log.warning("ignoring malformed rate-limit headers %r / %r", remaining, reset)

    @staticmethod
    def _rate_limit_spent(response: requests.Response) -> bool:
        return response.headers.get("X-RateLimit-Remaining") == "0"

    def _wait_for_rate_limit(self, url: str) -> None:
        if self._resume_at is None:
            return
        wait = self._resume_at - time.time()
        if wait > self.max_rate_wait:
            raise RateLimited(
                f"{url}: API rate limit spent; it resets in {wait / 60:.0f} min at "
                f"{_utc(self._resume_at)}: the source stops here and resumes from its cursor "
                "on the next run"
            )
        if wait > 0:
            log.info("rate limit spent; sleeping %.0fs until reset", wait)
            self.sleep(wait + 1)
        self._resume_at = None

    def close(self) -> None:
        self.session.close()


def _may_continue(page: Any, params: Mapping[str, Any] | None) -> bool:
    """Whether a last page is full (as many items as per_page): the next item to arrive would
    start a second page and leave this one unchanged."""
    per_page = (params or {}).get("per_page")
    return isinstance(page, list) and per_page is not None and len(page) >= int(per_page)


def _utc(timestamp: float) -> str:
    return time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime(timestamp))


def parse_json(response: requests.Response) -> Any:
    """The JSON body of `response`, or FatalHTTPError saying what came instead."""
    try:
        return json.loads(response.content)
    except ValueError:
        content_type = response.headers.get("Content-Type", "no content type")
        text = response.content[:80].decode("utf-8", "replace")
        what = (
            "truncated or malformed JSON"
            if text.lstrip()[:1] in ("{", "[")
            else f"a {content_type} body"
        )
        raise FatalHTTPError(
            f"{response.url}: expected JSON, got {what} "
            f"({len(response.content)} bytes, starts {text!r})"
        ) from None


def _network_error(url: str, exc: Exception, timeout: tuple[float, float]) -> SourceError:
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


def _hint(status: int) -> str:
    return {
        401: " (bad or expired token: check TRACKER_GITHUB_TOKEN / TRACKER_BUILDKITE_TOKEN)",
        404: " (moved or deleted upstream: check the source's URL / repo in sources.yaml)",
        410: " (gone upstream: remove or update the source in sources.yaml)",
    }.get(status, "")
