"""How far one source's HTTP may go: page cap, body cap, request deadline, time budget, origin.

Defaults are generous: they only stop what is broken or hostile (a next link that loops, a body
of gigabytes, a server that drips one byte every few seconds). sources.yaml sets them per source
(``max_pages``, ``max_body_mb``, ``time_budget_seconds``; tracker.config checks them).

A listing that hits a bound raises ``ListingStopped``; the runner keeps what was read before
and reports the source as partial (tracker/collect/runner.py).

Every bound that cuts a source's work short (a page cap, a body cap, files per index page,
entries per document, runs per listing window) is recorded in the source's ``Caps``, the one
place that says so: one warning line per source and bound (however many pages hit it), and the
runner makes the source partial, naming the bound in the run summary and `tracker status`.
"""

from __future__ import annotations

import hashlib
import logging
from dataclasses import dataclass
from urllib.parse import urlsplit

from tracker.errors import ListingStopped

log = logging.getLogger("tracker.http")

DEFAULT_MAX_PAGES = 1000  # pages per listing: 100,000 items at per_page=100
DEFAULT_MAX_BODY_MB = 64.0
DEFAULT_REQUEST_DEADLINE = 300.0  # seconds for one request, retries and body included
DEFAULT_TIME_BUDGET = 1800.0  # seconds of wall clock for one source's collection
_DEFAULT_PORTS = {"http": 80, "https": 443}


@dataclass(frozen=True)
class Limits:
    """The bounds of one HttpClient (one source's collection)."""

    max_pages: int = DEFAULT_MAX_PAGES
    max_body_bytes: int = int(DEFAULT_MAX_BODY_MB * 1024 * 1024)
    request_deadline: float = DEFAULT_REQUEST_DEADLINE
    time_budget: float = DEFAULT_TIME_BUDGET

    @classmethod
    def of(
        cls,
        max_pages: int | None = None,
        max_body_mb: float | None = None,
        time_budget_seconds: float | None = None,
        default_max_pages: int = DEFAULT_MAX_PAGES,
    ) -> Limits:
        """Limits from sources.yaml values; None takes the default."""
        return cls(
            max_pages=max_pages or default_max_pages,
            max_body_bytes=int((max_body_mb or DEFAULT_MAX_BODY_MB) * 1024 * 1024),
            time_budget=time_budget_seconds or DEFAULT_TIME_BUDGET,
        )


def origin(url: str) -> tuple[str, str, int | None]:
    """(scheme, host, port) of `url`, the port made explicit for http and https."""
    parts = urlsplit(url)
    scheme = parts.scheme.lower()
    try:
        port = parts.port
    except ValueError:  # a port that is not a number: an origin of its own
        port = None
    return scheme, (parts.hostname or "").lower(), port or _DEFAULT_PORTS.get(scheme)


def show_origin(url: str) -> str:
    scheme, host, port = origin(url)
    return f"{scheme}://{host}:{port}"


class Caps:
    """The bounds one source's collection stopped at: ``hit(bound, detail)`` for each; the
    first hit of a bound is logged (naming the source), later ones only counted."""

    def __init__(self, source_id: str) -> None:
        self.source_id = source_id
        self._hits: dict[str, list] = {}  # bound -> [times hit, the first hit's detail]

    def hit(self, bound: str, detail: str) -> None:
        seen = self._hits.get(bound)
        if seen is not None:
            seen[0] += 1
            return
        self._hits[bound] = [1, detail]
        log.warning("%s: cut short by %s: %s", self.source_id, bound, detail)

    def __bool__(self) -> bool:
        return bool(self._hits)

    def summary(self) -> str:
        """One sentence naming each bound hit (for the run summary and the source's status)."""
        parts = [
            f"cut short by {bound}: {detail}"
            + (f" (and {times - 1} more times)" if times > 1 else "")
            for bound, (times, detail) in self._hits.items()
        ]
        return "; ".join(parts)


class PageGuard:
    """The bounds of one paged listing: at most `max_pages` pages, no page URL or cursor read
    twice, no page whose body repeats an earlier one.

    A collector calls ``visit(key)`` before requesting each page (key: the page URL or the
    cursor it asks for) and ``read(content)`` with each page's body; either raises
    ``ListingStopped`` (logged) when the listing must end. ``stop(reason)`` ends it for a reason
    the collector sees itself (a page that adds no item not read before).
    """

    def __init__(self, what: str, max_pages: int, caps: Caps | None = None) -> None:
        self.what = what
        self.max_pages = max_pages
        self.caps = caps
        self.pages = 0
        self._keys: set[str] = set()
        self._bodies: set[bytes] = set()

    def visit(self, key: str) -> None:
        if key in self._keys:
            self.stop(f"page {self.pages + 1} asks for {_short(key)} again (a paging loop)")
        if self.pages >= self.max_pages:
            self.stop(
                f"page cap of {self.max_pages} pages reached (max_pages in sources.yaml); "
                "the rest is read on the next run where the source resumes from its cursor",
                bound="max_pages",
            )
        self._keys.add(key)
        self.pages += 1

    def read(self, content: bytes) -> None:
        digest = hashlib.sha256(content).digest()
        if digest in self._bodies:
            self.stop(f"page {self.pages} repeats an earlier page word for word (adds nothing)")
        self._bodies.add(digest)

    def stop(self, reason: str, bound: str = "a listing guard") -> None:
        message = f"{self.what}: listing stopped after {self.pages} pages: {reason}"
        if self.caps is not None:
            self.caps.hit(bound, message)
        else:
            log.warning(message)
        raise ListingStopped(message)


def _short(text: str, limit: int = 200) -> str:
    return text if len(text) <= limit else text[:limit] + "..."
