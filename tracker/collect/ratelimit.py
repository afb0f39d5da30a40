"""GitHub's primary rate limit as one HttpClient sees it: the X-RateLimit-* headers of each
answer noted (``RequestStats``), a short wait for the reset slept, a long one refused with
``RateLimited``. ``RateLimits`` is a mixin of tracker.collect.http.HttpClient, which sets
``stats``, ``max_rate_wait``, ``sleep`` and ``_resume_at``; nothing else uses it.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from tracker.errors import RateLimited

if TYPE_CHECKING:
    import requests

log = logging.getLogger("tracker.http")


@dataclass
class RequestStats:
    """What one source's collection cost: reported in the run row and `tracker status`."""

    requests: int = 0
    not_modified: int = 0
    rate_remaining: int | None = None


class RateLimits:
    """The rate-limit half of HttpClient."""

    stats: RequestStats
    max_rate_wait: float
    sleep: Callable[[float], None]
    _resume_at: float | None

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
                f"{utc_text(self._resume_at)}: the source stops here and resumes from its cursor "
                "on the next run"
            )
        if wait > 0:
            log.info("rate limit spent; sleeping %.0fs until reset", wait)
            self.sleep(wait + 1)
        self._resume_at = None


def utc_text(timestamp: float) -> str:
    """A POSIX timestamp as "YYYY-MM-DD HH:MM:SS UTC", for messages."""
    return time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime(timestamp))
