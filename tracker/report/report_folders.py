"""The folders beside `--out DIR` that publish.py swaps between: one per report, in the hidden
sibling ``.<DIR's name>.reports/``, named ``<UTC time>.<pid>.<random>.<host>`` by the process
that writes it, so the next run can tell a killed run's leftovers (its process is gone from this
host) from the folder of a report another process is writing right now.

``previous`` in that folder links to the report published before the current one: it is kept
for a reader (a web server, a copy) that resolved DIR just before a swap. ``kept-<UTC time>-...``
folders hold the files of a report an earlier version wrote, set aside on upgrading
(folder_owner.set_aside); they are the user's to remove: their names are no version's, so they
are never tidied.

The reports folder is the tracker's only when it is a folder of this user (never a link, whose
target is someone else's: it is not followed), and only entries of that folder named and made
as ours are removed: a leftover version is a folder of this user, never a link's target.
"""

from __future__ import annotations

import ctypes
import errno
import os
import secrets
import shutil
import socket
import stat
import sys
import time
from collections.abc import Callable
from pathlib import Path

from tracker.processes import running_here

PREVIOUS = "previous"
# The folders this process is writing now. Its other folders are finished, though its pid
# runs: `tracker schedule` publishes night after night from one process.
WRITING: set[str] = set()
_LEFTOVER_AGE = 24 * 3600  # older than any report takes: its pid may have been reused since
_AT_FDCWD = -100
_RENAME_EXCHANGE = 2  # linux/fs.h
# What renameat2 answers where the exchange cannot be done: an old kernel or libc, a file
# system without it (NFS, old ZFS), another system.
NO_EXCHANGE = (errno.ENOSYS, errno.EINVAL, errno.EOPNOTSUPP)
# What it answers where these two names cannot be exchanged though the system has the call:
# DIR on another file system than its reports folder, or a folder of an overlay's lower layer
# (baked into a container image), which an overlay never renames.
NOT_HERE = (errno.EXDEV,)


def reports_folder(out_dir: Path) -> Path:
    return out_dir.parent / f".{out_dir.name}.reports"


def reports_problem(out_dir: Path) -> str | None:
    """Why the reports folder beside DIR is not one the tracker made (None: it is, or it is
    missing): a link (never followed), not a folder, another user's folder."""
    try:
        info = os.lstat(reports_folder(out_dir))
    except FileNotFoundError:
        return None
    except OSError as exc:
        return f"it cannot be read ({exc.strerror or exc})"
    if stat.S_ISLNK(info.st_mode):
        return "it is a link, and the report never follows one there"
    if not stat.S_ISDIR(info.st_mode):
        return "it is not a folder"
    if info.st_uid != os.geteuid():
        return f"it is a folder of another user (uid {info.st_uid})"
    return None


def new_name(pid: int | None = None) -> str:
    """A unique name saying which process on which host writes the entry (pid 0: none)."""
    stamp = time.strftime("%Y%m%dT%H%M%S", time.gmtime())
    pid = os.getpid() if pid is None else pid
    return f"{stamp}.{pid}.{secrets.token_hex(4)}.{_host()}"


def kept_name() -> str:
    """A new name for a folder of set-aside files: dated, unique, and without the dots of a
    version's name, so `tidy` never takes it for one."""
    return f"kept-{time.strftime('%Y%m%dT%H%M%SZ', time.gmtime())}-{secrets.token_hex(4)}"


def _host() -> str:
    return socket.gethostname().replace(os.sep, "_") or "localhost"


def link_name(out_dir: Path, folder: Path) -> str:
    """What DIR's link says: relative, so the pair can move or be mounted elsewhere whole."""
    return f"{reports_folder(out_dir).name}/{folder.name}"


def published(out_dir: Path) -> Path | None:
    """The report folder DIR's link points to (None: DIR is no link of ours or is missing)."""
    try:
        target = os.readlink(out_dir)
    except OSError:
        return None
    head, _, name = target.partition("/")
    if head != reports_folder(out_dir).name or not name or "/" in name:
        return None
    return reports_folder(out_dir) / name


def previous(reports: Path) -> str | None:
    try:
        return os.readlink(reports / PREVIOUS)
    except OSError:
        return None


def point(link: Path, target: str) -> None:
    """Make `link` say `target` in one step: a new link renamed over the old one."""
    fresh = link.parent / new_name()
    os.symlink(target, fresh)
    try:
        os.replace(fresh, link)
    except OSError:
        fresh.unlink()
        raise


def tidy(out_dir: Path) -> None:
    """Remove what killed or finished runs left beside DIR: every entry of the reports folder
    but the published report, the previous one and those of processes still running on this
    host (another host's are left a day: its processes cannot be seen from here)."""
    reports = reports_folder(out_dir)
    if reports_problem(out_dir) is not None:
        return  # not ours: nothing in it is removed
    current = published(out_dir)
    keep = {PREVIOUS, previous(reports), current.name if current else None}
    try:
        entries = list(reports.iterdir())
    except OSError:
        return
    for entry in entries:
        if entry.name not in keep and _left_over(entry):
            _remove(entry)


def _left_over(entry: Path) -> bool:
    parts = entry.name.split(".", 3)
    if len(parts) != 4 or not parts[1].isdigit():
        return False  # not one of ours: left alone
    pid, host = int(parts[1]), parts[3]
    try:
        info = entry.lstat()
    except OSError:
        return False
    if not (stat.S_ISDIR(info.st_mode) or stat.S_ISLNK(info.st_mode)):
        return False  # the tracker makes only folders and links here
    if stat.S_ISDIR(info.st_mode) and info.st_uid != os.geteuid():
        return False  # a folder of another user: not made by this tracker
    age = time.time() - info.st_mtime
    if age > _LEFTOVER_AGE:
        return True
    if host != _host():
        return False
    if pid == os.getpid():
        return entry.name not in WRITING
    return not running_here(pid)


def _remove(entry: Path) -> None:
    try:
        if entry.is_dir() and not entry.is_symlink():
            shutil.rmtree(entry, ignore_errors=True)
        else:
            entry.unlink()
    except OSError:
        pass  # gone meanwhile, or not ours to remove: the next run tries again


def exchange(a: Path, b: Path) -> None:
    """Swap what the names `a` and `b` hold, in one step (Linux renameat2 RENAME_EXCHANGE).
    Raises OSError with an errno of NO_EXCHANGE where that cannot be done."""
    renameat2 = _renameat2()
    if renameat2 is None:
        raise OSError(errno.ENOSYS, os.strerror(errno.ENOSYS), str(b))
    if renameat2(_AT_FDCWD, os.fsencode(a), _AT_FDCWD, os.fsencode(b), _RENAME_EXCHANGE) != 0:
        code = ctypes.get_errno()
        raise OSError(code, os.strerror(code), str(b))


def _renameat2() -> Callable[..., int] | None:
    if sys.platform != "linux":
        return None
    try:
        function = ctypes.CDLL(None, use_errno=True).renameat2
    except (OSError, AttributeError):  # a libc older than glibc 2.28
        return None
    text, number = ctypes.c_char_p, ctypes.c_int
    function.argtypes = [number, text, number, text, ctypes.c_uint]
    function.restype = ctypes.c_int
    return function
