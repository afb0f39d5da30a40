"""The report's charts drawn by other processes while this one computes and writes.

Drawing is CPU-bound matplotlib work that holds the GIL, so threads would only take turns, and
importing matplotlib alone takes over half a second. A report therefore starts its chart
processes first (:class:`ChartDrawers`, forked from this process, one per core up to two): each
imports matplotlib at once, while this process reads the store and computes the lag; the charts
are then handed over by name with their data and drawn at the same time as the CSV and JSON
files are written. Where fork is missing or unsafe for libraries (Windows, macOS) the same
charts are drawn one after another here. Same files either way (tests/report/test_side_by_side.py).

The processes are plain forked processes, each with a pipe of its own, and no helper threads
(multiprocessing.Pool's terminate() could wait for ever on its task thread, blocked writing to a
pipe nobody read). Every wait here ends: an answer, the process's end (its sentinel), or the
chart's deadline; and the processes are killed and reaped however the report ends.
"""

from __future__ import annotations

import importlib
import logging
import multiprocessing
import os
import signal
import sys
import time
import traceback
from multiprocessing.connection import Connection, wait
from typing import Any

from tracker.errors import TrackerError, first_line

log = logging.getLogger("tracker.report")
PROCESSES = 2  # the report's five charts: the lag chart takes about as long as the other four
# A chart that does not answer (a process stopped, a drawing gone wrong) fails the report once
# this long has passed since it was handed over (a chart takes seconds even at millions of
# events); so does a process that has not imported matplotlib by then.
TIMEOUT = 600.0
REAP = 5.0  # seconds to wait for a process to end once told (its pipe closed) or killed
_UNPUBLISHED = "nothing was published, the previous report is in place"
_STARTING = "\0starting"  # what a process is busy with before its first answer


def can_fork() -> bool:
    return hasattr(os, "fork") and sys.platform.startswith("linux")


def _warm_up() -> None:
    """A drawing process's first act: import the chart modules (matplotlib with them)."""
    importlib.import_module("tracker.report.charts")
    importlib.import_module("tracker.report.model_charts")


def _draw(module: str, function: str, args: tuple) -> bool:
    # the function is looked up here, in the drawing process, by name: what this process's
    # module holds is what the parent's held when the process was forked
    return bool(getattr(importlib.import_module(module), function)(*args))


def _serve(conn: Connection, inherited: list[Connection]) -> None:
    """A drawing process: import matplotlib, say so, then draw each chart sent until the pipe
    closes. Each answer is (True, whether it drew) or (False, the error, its traceback)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the report's to handle: it kills us
    # fork copied the report's ends of the pipes (this one's and the processes' before it):
    # closed here, so that each process sees its pipe end when the report closes its end
    for other in inherited:
        other.close()
    task: tuple | None = None  # the first job: importing matplotlib
    while True:
        try:
            if task is None:
                _warm_up()
            answer: tuple = (True, task is not None and _draw(*task))
        except Exception as exc:
            answer = (False, f"{type(exc).__name__}: {first_line(exc)}", traceback.format_exc())
        try:
            conn.send(answer)
            task = conn.recv()
        except (EOFError, OSError):  # the report is done with us (or gone)
            return


class _Drawer:
    """One drawing process, its end of the pipe and what it is drawing (None: nothing)."""

    def __init__(self, context: Any, inherited: list[Connection]) -> None:
        self.conn, theirs = context.Pipe()
        self.process = context.Process(
            target=_serve,
            args=(theirs, [*inherited, self.conn]),
            name="tracker-charts",
            daemon=True,
        )
        self.process.start()
        theirs.close()  # theirs alone: the pipe ends (EOF, EPIPE) when the process does
        self.chart: str | None = _STARTING
        self.since = time.monotonic()


class ChartDrawers:
    """Start the drawing processes (a context manager; they end with it). `draw` hands one
    chart over: a function of a tracker.report module, named, with its arguments (picklable);
    `drawn` waits for all and says which drew a picture. Without fork, `draw` draws here. A
    chart that fails, does not answer in TIMEOUT or whose process dies raises a TrackerError
    naming it."""

    def __init__(self, fork: bool = True) -> None:
        self._drawers: list[_Drawer] = []
        self._waiting: list[tuple[str, tuple]] = []  # handed over, not yet sent to a process
        self._drew: dict[str, bool | None] = {}  # in the order handed over; None: not yet
        if fork and can_fork():
            context = multiprocessing.get_context("fork")
            try:
                for _ in range(PROCESSES):
                    self._drawers.append(_Drawer(context, [d.conn for d in self._drawers]))
            except BaseException:
                self.close()
                raise

    def __enter__(self) -> ChartDrawers:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def draw(self, name: str, module: str, function: str, *args: Any) -> None:
        self._drew[name] = None
        if not self._drawers:
            try:
                self._drew[name] = _draw(module, function, args)
            except Exception as exc:
                error = f"{type(exc).__name__}: {first_line(exc)}"
                raise _error(name, f"failed: {error}", "") from exc
            return
        self._waiting.append((name, (module, function, args)))
        self._receive(block=False)

    def drawn(self) -> dict[str, bool]:
        """{chart: whether it drew one}, once every chart is drawn."""
        while any(drew is None for drew in self._drew.values()):
            self._receive(block=True)
        return {name: bool(drew) for name, drew in self._drew.items()}

    def close(self) -> None:
        """End the processes: an idle one on its closed pipe, a busy one (the report failed) by
        SIGKILL, one that does not end when told killed too; each reaped within REAP s."""
        for drawer in self._drawers:
            if drawer.chart is not None:
                drawer.process.kill()
            drawer.conn.close()
        for drawer in self._drawers:
            drawer.process.join(REAP)
            if drawer.process.exitcode is None:
                drawer.process.kill()
                drawer.process.join(REAP)
            if drawer.process.exitcode is None:  # not even SIGKILL (a process stuck in the kernel)
                log.warning("chart process %s did not end when killed", drawer.process.pid)
            else:
                drawer.process.close()
        self._drawers = []

    def _receive(self, block: bool) -> None:
        """Take the answers that are in (with `block`, wait for one, at most until the oldest
        busy process's deadline), then send waiting charts to the processes that are free."""
        self._send_waiting()
        busy = [d for d in self._drawers if d.chart is not None]
        if not busy:
            return
        oldest = min(busy, key=lambda d: d.since)
        timeout = max(0.0, oldest.since + TIMEOUT - time.monotonic()) if block else 0.0
        ready = wait([d.conn for d in busy] + [d.process.sentinel for d in busy], timeout)
        for drawer in busy:
            if drawer.conn in ready:  # an answer, or the end of the pipe
                self._answer(drawer)
            elif drawer.process.sentinel in ready:
                raise self._ended(drawer)
        if block and not ready:
            within = f"within {TIMEOUT:g} s"
            raise _error(
                oldest.chart,
                f"was not drawn {within}",
                f"the chart processes did not start {within}",
            )
        self._send_waiting()

    def _answer(self, drawer: _Drawer) -> None:
        try:
            answer = drawer.conn.recv()
        except (EOFError, OSError):
            raise self._ended(drawer) from None
        if not answer[0]:
            log.debug("chart process %s: %s", drawer.process.pid, answer[2])
            error = answer[1]
            raise _error(
                drawer.chart, f"failed: {error}", f"the chart processes failed to start: {error}"
            )
        if drawer.chart != _STARTING:
            self._drew[str(drawer.chart)] = answer[1]
        drawer.chart = None

    def _send_waiting(self) -> None:
        for drawer in self._drawers:
            if drawer.chart is None and self._waiting:
                name, task = self._waiting.pop(0)
                drawer.chart, drawer.since = name, time.monotonic()
                try:  # the process is waiting for it: the send lasts as long as its reading
                    drawer.conn.send(task)
                except OSError:
                    raise self._ended(drawer) from None

    def _ended(self, drawer: _Drawer) -> TrackerError:
        drawer.process.join(REAP)
        code = drawer.process.exitcode
        how = f"killed by signal {-code}" if code is not None and code < 0 else f"exit code {code}"
        return _error(
            drawer.chart,
            f"was not drawn: its process ended ({how})",
            f"a chart process ended while starting ({how})",
        )


def _error(chart: str | None, drawing: str, starting: str) -> TrackerError:
    """The report's one-line error: what happened to `chart` (or to a process's start)."""
    what = starting if chart == _STARTING else f"the {chart} chart {drawing}"
    return TrackerError(f"report: {what}; {_UNPUBLISHED}")
