"""Publishing a report whole, in one step: `--out DIR` is a link to a folder beside it, in
``.<DIR's name>.reports/`` (report_folders.py). The report is written into a new folder there
and, once every file is in it, a new link to it is renamed over DIR: one rename, atomic on
every POSIX file system. At every instant, SIGKILL included, DIR shows the previous complete
report or the new complete one, and a reader that resolved DIR once (a web server does, per
request) reads files of one report. The previous report's folder stays until the next run, for
a reader that resolved DIR just before the swap; everything else beside DIR (a killed run's
folder, older reports) is removed by the next run, except the folder of a report another
process on this host is writing right now.

Why a link: moving the files into DIR one by one (the earlier way) let a SIGKILL leave new CSVs
beside the old index.html. Exchanging a complete folder with DIR (renameat2 RENAME_EXCHANGE)
would keep DIR a folder, but it exists only on Linux and not on every file system (NFS, older
ZFS), with no atomic way back; a link renamed over a link is atomic everywhere. The exchange
is used once, where DIR is still a folder (a report of an earlier version): the same step that
publishes the new report turns DIR into the link and the old folder into the previous report.
Where the exchange is missing, that first time takes two renames: DIR is missing for an
instant, never mixed.

What this asks of DIR: its parent folder must be writable (the link and the reports folder
live there); DIR may not be a mount point (refused, naming it: give a folder inside it). Files
in DIR that the report does not write (a robots.txt) are carried into each new report (hard
links, a copy where refused); a folder where the report writes a file stops the report before
anything is published. A DIR that is a link made by someone else is followed, and its target
is published this way. Each new report folder takes the mode and group of the one it replaces.
"""

from __future__ import annotations

import logging
import os
import shutil
import stat
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from tracker.errors import TrackerError
from tracker.report.report_folders import (
    NO_EXCHANGE,
    PREVIOUS,
    WRITING,
    exchange,
    link_name,
    new_name,
    point,
    published,
    reports_folder,
    tidy,
)

STAGE_PREFIX = ".report-staging-"  # inside DIR, by earlier versions: not carried over
log = logging.getLogger("tracker.report")


@contextmanager
def staged(out_dir: Path) -> Iterator[Path]:
    """A fresh folder beside `out_dir` to write the report into. When the block ends normally
    it becomes what `out_dir` shows, in one step; otherwise it is removed and `out_dir` shows
    the previous report."""
    out_dir = _followed(Path(os.path.abspath(out_dir)))
    current = _showing(out_dir)
    reports = _reports(out_dir, current)
    tidy(out_dir)  # a killed run's leftovers
    stage = reports / new_name()
    try:
        stage.mkdir()
    except OSError as exc:
        raise _cannot(out_dir, f"cannot make {stage}: {exc.strerror or exc}") from exc
    WRITING.add(stage.name)
    try:
        yield stage
        _prepare(out_dir, stage, current)
        _swap(out_dir, stage, current)
    except BaseException:
        if published(out_dir) != stage:  # an interruption may land just after the swap
            shutil.rmtree(stage, ignore_errors=True)
        raise
    finally:
        WRITING.discard(stage.name)
    tidy(out_dir)


def _followed(out_dir: Path) -> Path:
    """`out_dir`, or where a link someone else made there leads."""
    for _ in range(40):  # as the kernel's bound on links followed
        if not out_dir.is_symlink() or published(out_dir) is not None:
            break
        out_dir = Path(os.path.normpath(out_dir.parent / os.readlink(out_dir)))
    return out_dir


def _showing(out_dir: Path) -> Path | None:
    """The folder whose report DIR shows now: DIR itself while it is still a folder."""
    try:
        mode = os.lstat(out_dir).st_mode
    except FileNotFoundError:
        return None
    if stat.S_ISLNK(mode):
        target = published(out_dir)
        return target if target is not None and target.is_dir() else None
    if not stat.S_ISDIR(mode):
        raise _cannot(out_dir, "it is a file, where the report writes a folder")
    if os.path.ismount(out_dir):
        raise _cannot(
            out_dir,
            "it is a mount point, and the report is published by renaming a link over the "
            "folder; give --out a folder inside it",
        )
    return out_dir


def _reports(out_dir: Path, current: Path | None) -> Path:
    reports = reports_folder(out_dir)
    try:
        reports.mkdir(parents=True, exist_ok=True)
        if current is not None:
            _same_access(current, reports)
    except OSError as exc:
        raise _cannot(
            out_dir,
            f"cannot make {reports}: {exc.strerror or exc} (the report is published by "
            f"renaming a link over the folder, so {out_dir.parent} must be writable)",
        ) from exc
    return reports


def _prepare(out_dir: Path, stage: Path, current: Path | None) -> None:
    """Check the targets, carry the files the report does not write into the new folder and
    give it the old one's access: a TrackerError naming the target, nothing published."""
    if current is None:
        return
    written = {p.name for p in stage.iterdir()}
    for name in sorted(written):
        if (current / name).is_dir() and not (current / name).is_symlink():
            raise _cannot(out_dir / name, "it is a folder, where the report writes a file")
    for entry in sorted(current.iterdir()):
        if entry.name in written or entry.name.startswith(STAGE_PREFIX):
            continue
        try:
            if entry.is_dir() and not entry.is_symlink():
                shutil.copytree(entry, stage / entry.name, symlinks=True, copy_function=_carry)
            else:
                _carry(entry, stage / entry.name)
        except (OSError, shutil.Error) as exc:
            raise _cannot(out_dir / entry.name, f"cannot carry it over: {exc}") from exc
    try:
        _same_access(current, stage)
    except OSError as exc:
        raise _cannot(out_dir, f"cannot give {stage} its mode: {exc.strerror or exc}") from exc


def _carry(source: str | Path, target: str | Path) -> None:
    """A second name for a file of the old report folder (a copy where links are refused)."""
    try:
        os.link(source, target, follow_symlinks=False)
    except OSError:
        shutil.copy2(source, target, follow_symlinks=False)


def _same_access(model: Path, folder: Path) -> None:
    """`folder` readable by whoever could read `model` (a web server's group, say)."""
    info = model.stat()
    try:
        os.chown(folder, -1, info.st_gid)
    except PermissionError:
        pass  # not a group of this user: the mode alone
    os.chmod(folder, stat.S_IMODE(info.st_mode))


def _swap(out_dir: Path, stage: Path, current: Path | None) -> None:
    """Make DIR show `stage`, in one rename (or exchange, where DIR is still a folder)."""
    reports = stage.parent
    link = reports / new_name()
    try:
        os.symlink(link_name(out_dir, stage), link)
        if current == out_dir:
            _into_link(out_dir, link)
        else:
            if current is not None:
                point(reports / PREVIOUS, current.name)
            os.replace(link, out_dir)
    except OSError as exc:
        if os.path.islink(link):
            link.unlink()
        raise _cannot(out_dir, exc.strerror or str(exc)) from exc


def _into_link(out_dir: Path, link: Path) -> None:
    """DIR, still a folder, becomes `link` in one exchange; the old folder stays beside, as
    the previous report."""
    kept = link.parent / new_name(pid=0)
    try:
        exchange(link, out_dir)
    except OSError as exc:
        if exc.errno not in NO_EXCHANGE:
            raise
        log.warning("report: %s: no atomic exchange here (%s): two renames", out_dir, exc)
        os.rename(out_dir, kept)  # from here DIR is missing ...
        try:
            os.replace(link, out_dir)  # ... to here
        except OSError:
            os.rename(kept, out_dir)
            raise
    else:
        try:
            os.rename(link, kept)  # the old folder, now under the link's name
        except OSError:
            return  # published all the same; the next run removes the old folder
    try:
        point(link.parent / PREVIOUS, kept.name)
    except OSError:
        pass  # published all the same: no previous report kept


def _cannot(target: Path, why: str) -> TrackerError:
    return TrackerError(
        f"report: cannot publish {target}: {why}; nothing was published, the previous report "
        "is in place"
    )
