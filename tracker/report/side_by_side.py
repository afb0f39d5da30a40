"""The report's charts drawn at the same time, each in a forked process where the platform forks.

Drawing is CPU-bound matplotlib work that holds the GIL, so threads would only take turns. A
forked child starts with this process's memory (copy on write): no data is pickled and nothing
is imported again. It writes its PNG and exits with whether it drew one. Where fork is missing or
unsafe for libraries (Windows, macOS), or for a single chart, they are drawn one after another
here. Same files either way (tests/report/test_side_by_side.py).
"""

from __future__ import annotations

import os
import sys
import traceback
from collections.abc import Callable, Mapping

from tracker.errors import TrackerError

DREW, DREW_NOTHING = 0, 1  # a child's exit code; anything else: it failed (traceback on stderr)


def can_fork() -> bool:
    return hasattr(os, "fork") and sys.platform.startswith("linux")


def draw_side_by_side(jobs: Mapping[str, Callable[[], bool]], fork: bool = True) -> dict[str, bool]:
    """Run every job (each draws one chart, True when it drew one) and return {name: drew}. The
    first runs here while forked children run the others (at most one per job: a report has
    five charts); a child that fails makes this raise, after every child has ended."""
    names = list(jobs)
    if not (fork and can_fork()) or len(names) < 2:
        return {name: jobs[name]() for name in names}
    sys.stdout.flush()
    sys.stderr.flush()  # a child must not write out the parent's buffered output again
    children: dict[str, int] = {}
    drew: dict[str, bool] = {}
    failed: list[str] = []
    try:
        for name in names[1:]:
            pid = os.fork()
            if pid == 0:  # the child: draw, then leave at once (no atexit, no cleanup of the
                code = 2  # parent's connections and files, which are the parent's to close)
                try:
                    code = DREW if jobs[name]() else DREW_NOTHING
                except BaseException:
                    traceback.print_exc()
                finally:
                    sys.stdout.flush()
                    sys.stderr.flush()
                    os._exit(code)
            children[name] = pid
        drew[names[0]] = jobs[names[0]]()
    finally:
        for name, pid in children.items():
            code = os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1])
            drew[name] = code == DREW
            if code not in (DREW, DREW_NOTHING):
                failed.append(name)
    if failed:
        raise TrackerError(
            f"report: drawing the {', '.join(failed)} chart(s) failed (traceback above); "
            "nothing was published, the previous report is still in place"
        )
    return {name: drew[name] for name in names}
