"""Publishing a report folder whole: the report is written into a hidden staging folder inside
the output folder, and only once every file is there do they replace the old ones.

A failure half-way (a chart that cannot be drawn, a full disk, SIGTERM) leaves the previous
report as it was, with no new CSVs beside an old index.html. The files are moved with
os.replace, each move atomic and index.html last; the folder itself is never renamed, so a web
root, a mount point or a folder holding other files keeps working and keeps those files.
"""

from __future__ import annotations

import os
import shutil
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

STAGE_PREFIX = ".report-staging-"
_LEFTOVER_AGE = 24 * 3600  # a staging folder this old was left by a killed run


@contextmanager
def staged(out_dir: Path) -> Iterator[Path]:
    """A fresh staging folder inside `out_dir` to write the report into. When the block ends
    normally its files replace those of `out_dir` (index.html last); either way the staging
    folder is removed."""
    out_dir.mkdir(parents=True, exist_ok=True)
    _remove_leftovers(out_dir)
    stage = Path(tempfile.mkdtemp(prefix=STAGE_PREFIX, dir=out_dir))
    try:
        yield stage
        names = sorted(p.name for p in stage.iterdir())
        for name in sorted(names, key=lambda n: n == "index.html"):
            os.replace(stage / name, out_dir / name)
    finally:
        shutil.rmtree(stage, ignore_errors=True)


def _remove_leftovers(out_dir: Path) -> None:
    now = time.time()
    for path in out_dir.glob(STAGE_PREFIX + "*"):
        try:
            if path.is_dir() and now - path.stat().st_mtime > _LEFTOVER_AGE:
                shutil.rmtree(path, ignore_errors=True)
        except OSError:
            continue
