"""Where matplotlib keeps its configuration and font cache when tracker draws: a folder tracker
owns and reuses, set (``MPLCONFIGDIR``) before matplotlib is first imported.

matplotlib's own choice is ``$HOME/.config/matplotlib``. Under cron a service user's HOME is
often missing or read-only (``HOME=/nonexistent``): matplotlib then prints two warnings per
process, rebuilds its font cache each time and leaves a ``matplotlib-*`` folder in the temp
folder that nobody removes (two per report: one per chart process). Instead tracker uses, in
order:

1. ``$XDG_CACHE_HOME/tracker/matplotlib`` (``$HOME/.cache/...`` without XDG_CACHE_HOME), where
   it can be made and written;
2. ``<temp folder>/tracker-<uid>/matplotlib``: one per user, made once with mode 0700 and used
   only while it is a real folder owned by this user that no one else may write.

A ``MPLCONFIGDIR`` set by the user wins. Where neither can be used, matplotlib is left to its
own choice (and its warnings). matplotlib's INFO lines ("generated new fontManager") are not
the operator's business and are held back.
"""

from __future__ import annotations

import logging
import os
import stat
import tempfile
from pathlib import Path

VARIABLE = "MPLCONFIGDIR"


def settle() -> None:
    """Set MPLCONFIGDIR (unless set) to the folder tracker owns; call before importing
    matplotlib. Quick and idempotent: every chart package calls it when imported."""
    logging.getLogger("matplotlib").setLevel(logging.WARNING)
    if os.environ.get(VARIABLE):
        return
    folder = chosen()
    if folder is not None:
        os.environ[VARIABLE] = str(folder)


def chosen() -> Path | None:
    """The first usable folder of the module docstring's list, made if missing; None if none."""
    xdg = os.environ.get("XDG_CACHE_HOME")
    home = os.environ.get("HOME")
    if xdg and os.path.isabs(xdg):
        cache: Path | None = Path(xdg)
    elif home and os.path.isabs(home):
        cache = Path(home) / ".cache"
    else:
        cache = None
    if cache is not None:
        folder = cache / "tracker" / "matplotlib"
        try:
            folder.mkdir(parents=True, exist_ok=True)
            if os.access(folder, os.W_OK | os.X_OK):
                return folder
        except OSError:
            pass  # a read-only or missing HOME: the temp folder's
    return _in_temp()


def _in_temp() -> Path | None:
    """``<temp>/tracker-<uid>/matplotlib``, where ``tracker-<uid>`` is this user's alone."""
    uid = os.getuid() if hasattr(os, "getuid") else None
    own = Path(tempfile.gettempdir()) / f"tracker-{uid if uid is not None else 'user'}"
    try:
        own.mkdir(mode=0o700, exist_ok=True)
        info = os.lstat(own)
    except OSError:
        return None
    if not stat.S_ISDIR(info.st_mode) or stat.S_IMODE(info.st_mode) & 0o022:
        return None  # a link, a file, or a folder others can write: not ours to trust
    if uid is not None and info.st_uid != uid:
        return None  # made by another user first (a shared temp folder)
    folder = own / "matplotlib"
    try:
        folder.mkdir(mode=0o700, exist_ok=True)
    except OSError:
        return None
    return folder if os.access(folder, os.W_OK | os.X_OK) else None
