"""Progress of long backfills: a tqdm bar on a terminal, a periodic log line otherwise.

Usage::

    with Progress("pytorch-rocm-ci: runs", unit="run") as progress:
        for run in runs:
            ...
            progress.update()

On a TTY (stderr) this draws a tqdm bar. Under cron / CI it logs one INFO line at most every
``every`` seconds (default 30) and, if it logged any, a final line, so a long backfill shows it
is alive without flooding the mail.
"""

from __future__ import annotations

import logging
import sys
import time
from collections.abc import Callable
from typing import TextIO

log = logging.getLogger("tracker.progress")


class Progress:
    """Counts items of one long step; see the module docstring."""

    def __init__(
        self,
        description: str,
        *,
        total: int | None = None,
        unit: str = "item",
        every: float = 30.0,
        stream: TextIO | None = None,
        clock: Callable[[], float] = time.monotonic,
        logger: logging.Logger | None = None,
    ) -> None:
        self.description = description
        self.total = total
        self.unit = unit
        self.every = every
        self.count = 0
        self._clock = clock
        self._log = logger or log
        self._started = clock()
        self._last_line = self._started
        stream = stream if stream is not None else sys.stderr
        self._bar = None
        if _is_tty(stream):
            from tqdm import tqdm  # imported lazily: only terminals need it

            self._bar = tqdm(
                total=total,
                desc=description,
                unit=unit,
                file=stream,
                leave=False,
                dynamic_ncols=True,
            )

    def update(self, n: int = 1) -> None:
        """Count `n` more items; maybe draw or log."""
        self.count += n
        if self._bar is not None:
            self._bar.update(n)
            return
        now = self._clock()
        if now - self._last_line >= self.every:
            self._last_line = now
            self._log.info("%s", self._line(now))

    def close(self) -> None:
        """Finish: close the bar, or log a last line when anything was counted."""
        if self._bar is not None:
            self._bar.close()
            self._bar = None
        elif self.count and self._last_line > self._started:
            # Only a step long enough to have logged progress gets a closing line: short ones are
            # summed up by their caller's own summary.
            self._log.info("%s (done)", self._line(self._clock()))

    def _line(self, now: float) -> str:
        of = f"/{self.total}" if self.total is not None else ""
        elapsed = max(now - self._started, 1e-9)
        return (
            f"{self.description}: {self.count}{of} {self.unit}s in {elapsed:.0f}s "
            f"({self.count / elapsed:.1f}/s)"
        )

    def __enter__(self) -> Progress:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _is_tty(stream: TextIO) -> bool:
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):
        return False
