"""Whole-process measurements: wall time and peak RSS of one command run as a subprocess.

Wall time is perf_counter around the subprocess (start-up included). Peak memory is the maximum
resident set size of the command as GNU time reports it (`/usr/bin/time -f %M`, kilobytes);
without /usr/bin/time, a tiny Python wrapper runs the command and reports
resource.getrusage(RUSAGE_CHILDREN).ru_maxrss (the largest single descendant, in kilobytes on
Linux). Either way it is the peak of the largest process, not a sum.
"""

from __future__ import annotations

import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

GNU_TIME = shutil.which("time", path="/usr/bin:/bin")
_WRAPPER = (
    "import resource, subprocess, sys\n"
    "rc = subprocess.call(sys.argv[2:])\n"
    "open(sys.argv[1], 'w').write(str(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss))\n"
    "sys.exit(rc)\n"
)
MEMORY_METHOD = "GNU time %M" if GNU_TIME else "getrusage(RUSAGE_CHILDREN) wrapper"


class CommandFailed(RuntimeError):
    """A measured command exited with an unexpected code."""


@dataclass
class Run:
    wall: float  # seconds
    peak_mb: float  # MiB
    returncode: int
    stdout: str
    stderr: str


def run(
    cmd: Sequence[str | os.PathLike],
    *,
    cwd: Path | None = None,
    env: dict[str, str] | None = None,
    ok: Sequence[int] = (0,),
) -> Run:
    """Run `cmd` once; CommandFailed (with its stderr tail) unless its exit code is in `ok`."""
    args = [str(a) for a in cmd]
    with tempfile.NamedTemporaryFile("r", suffix=".rss", delete=False) as rss:
        rss_path = rss.name
    try:
        if GNU_TIME:
            wrapped = [GNU_TIME, "-f", "%M", "-o", rss_path, *args]
        else:
            wrapped = [sys.executable, "-c", _WRAPPER, rss_path, *args]
        started = time.perf_counter()
        proc = subprocess.run(wrapped, cwd=cwd, env=env, capture_output=True, text=True)
        wall = time.perf_counter() - started
        text = Path(rss_path).read_text().strip().splitlines()
        peak_kb = float(text[-1]) if text and text[-1].strip().isdigit() else float("nan")
    finally:
        os.unlink(rss_path)
    if proc.returncode not in ok:
        tail = (proc.stderr or proc.stdout)[-2000:]
        raise CommandFailed(f"{' '.join(args)} exited {proc.returncode}:\n{tail}")
    return Run(wall, peak_kb / 1024, proc.returncode, proc.stdout, proc.stderr)


@dataclass
class Sample:
    """Median of repeated runs (wall and peak memory), with the individual walls."""

    walls: list[float]
    peaks: list[float]
    last: Run

    @property
    def wall(self) -> float:
        return statistics.median(self.walls)

    @property
    def peak_mb(self) -> float:
        return statistics.median(self.peaks)


def repeat(
    times: int,
    once: Callable[[], Run],
    before: Callable[[], None] | None = None,
) -> Sample:
    """Call `before` (untimed set-up, e.g. a fresh database) then `once`, `times` times."""
    walls, peaks = [], []
    result = None
    for _ in range(times):
        if before is not None:
            before()
        result = once()
        walls.append(result.wall)
        peaks.append(result.peak_mb)
    assert result is not None
    return Sample(walls, peaks, result)
