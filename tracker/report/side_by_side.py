"""The report's charts drawn by other processes while this one computes and writes.

Drawing is CPU-bound matplotlib work that holds the GIL, so threads would only take turns, and
importing matplotlib alone takes over half a second. A report therefore starts its chart
processes first (:class:`ChartDrawers`, a multiprocessing pool forked from this process, one per
core up to two): each imports matplotlib at once, while this process reads the store and
computes the lag; the charts are then handed over by name with their data and drawn at the same
time as the CSV and JSON files are written. Where fork is missing or unsafe for libraries
(Windows, macOS) the same charts are drawn one after another here. Same files either way
(tests/report/test_side_by_side.py).
"""

from __future__ import annotations

import importlib
import multiprocessing
import os
import sys
from multiprocessing import TimeoutError as NoAnswer
from multiprocessing.pool import AsyncResult
from typing import Any

from tracker.errors import TrackerError

PROCESSES = 2  # the report's five charts: the lag chart takes about as long as the other four
# A chart whose process died (killed, out of memory) never answers: the wait for it is bounded
# (a chart takes seconds even at millions of events).
TIMEOUT = 600.0


def can_fork() -> bool:
    return hasattr(os, "fork") and sys.platform.startswith("linux")


def _warm_up() -> None:
    """A drawing process's first act: import the chart modules (matplotlib with them)."""
    importlib.import_module("tracker.report.charts")
    importlib.import_module("tracker.report.model_charts")


def _draw(module: str, function: str, args: tuple) -> bool:
    # the function is looked up here, in the drawing process, by name: what this process's
    # module holds is what the parent's held when the pool was forked
    return getattr(importlib.import_module(module), function)(*args)


class ChartDrawers:
    """Start the drawing processes (a context manager; they end with it). `draw` hands one
    chart over: a function of a tracker.report module, named, with its arguments (picklable);
    `drawn` waits for all and says which drew a picture. Without fork, `draw` draws here."""

    def __init__(self, fork: bool = True) -> None:
        self._pool = (
            multiprocessing.get_context("fork").Pool(PROCESSES, initializer=_warm_up)
            if fork and can_fork()
            else None
        )
        self._pending: dict[str, AsyncResult | bool] = {}

    def __enter__(self) -> ChartDrawers:
        return self

    def __exit__(self, *exc: Any) -> None:
        if self._pool is not None:
            self._pool.terminate()  # done, or failed: nothing more to draw
            self._pool.join()

    def draw(self, name: str, module: str, function: str, *args: Any) -> None:
        if self._pool is None:
            self._pending[name] = _draw(module, function, args)
        else:
            self._pending[name] = self._pool.apply_async(_draw, (module, function, args))

    def drawn(self) -> dict[str, bool]:
        """{chart: whether it drew one}, once every chart is drawn; a chart that failed raises
        its exception here (multiprocessing passes it back, its traceback as the cause)."""
        drew = {}
        for name, result in self._pending.items():
            try:
                drew[name] = bool(result if isinstance(result, bool) else result.get(TIMEOUT))
            except NoAnswer:
                raise TrackerError(
                    f"report: the {name} chart was not drawn within {TIMEOUT:g} s (its process "
                    "may have died); nothing was published, the previous report is in place"
                ) from None
        return drew
