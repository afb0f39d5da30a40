"""Publishing a report folder whole: the report is written into a hidden staging folder inside
the output folder, and only once every file is there do they replace the old ones.

A failure half-way (a chart that cannot be drawn, a full disk, SIGTERM) leaves the previous
report as it was, with no new CSVs beside an old index.html. The files are moved with
os.replace, each move atomic and index.html last; the folder itself is never renamed, so a web
root, a mount point or a folder holding other files keeps working and keeps those files.
Before the first move every target is checked (a folder where a file goes stops the report);
a move that fails all the same (a file mounted over, a sticky folder) puts back the files
already moved, from hard links to the old ones made beforehand.
"""

from __future__ import annotations

import os
import shutil
import stat
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from tracker.errors import TrackerError

STAGE_PREFIX = ".report-staging-"
_LEFTOVER_AGE = 24 * 3600  # a staging folder this old was left by a killed run
_PREVIOUS = ".previous"  # in the staging folder: links to the files being replaced


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
        _publish(stage, out_dir)
    finally:
        shutil.rmtree(stage, ignore_errors=True)


def _publish(stage: Path, out_dir: Path) -> None:
    """Move the staged files over those of `out_dir`, index.html last: all of them, or (a
    TrackerError naming the target) none."""
    names = sorted((p.name for p in stage.iterdir()), key=lambda n: (n == "index.html", n))
    previous = stage / _PREVIOUS
    previous.mkdir()
    for name in names:
        target = out_dir / name
        try:
            mode = target.lstat().st_mode
        except FileNotFoundError:
            continue
        if stat.S_ISDIR(mode):
            raise _cannot(target, "it is a folder, where the report writes a file")
        try:
            _keep(target, previous / name)
        except OSError as exc:
            raise _cannot(target, exc.strerror or str(exc)) from exc
    moved: list[str] = []
    for name in names:
        try:
            os.replace(stage / name, out_dir / name)
        except OSError as exc:
            _put_back(out_dir, previous, moved)
            raise _cannot(out_dir / name, exc.strerror or str(exc)) from exc
        moved.append(name)


def _keep(target: Path, link: Path) -> None:
    """A second name for the file about to be replaced (a copy where links are refused)."""
    try:
        os.link(target, link, follow_symlinks=False)
    except OSError:
        shutil.copy2(target, link, follow_symlinks=False)


def _put_back(out_dir: Path, previous: Path, moved: list[str]) -> None:
    for name in reversed(moved):
        if os.path.lexists(previous / name):
            os.replace(previous / name, out_dir / name)
        else:  # new in this report
            (out_dir / name).unlink()


def _cannot(target: Path, why: str) -> TrackerError:
    return TrackerError(
        f"report: cannot publish {target}: {why}; nothing was published, the previous report "
        "is in place"
    )


def _remove_leftovers(out_dir: Path) -> None:
    now = time.time()
    for path in out_dir.glob(STAGE_PREFIX + "*"):
        try:
            if path.is_dir() and now - path.stat().st_mtime > _LEFTOVER_AGE:
                shutil.rmtree(path, ignore_errors=True)
        except OSError:
            continue
