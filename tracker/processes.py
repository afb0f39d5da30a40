"""Whether a process of this host still runs: the store's locks and the report's folders name
the process that holds or writes them, and a later run takes over or removes what a process
that is gone left behind."""

from __future__ import annotations

import os


def running_here(pid: int) -> bool:
    """Whether process `pid` runs on this host (one of another user counts: it cannot be
    signalled, but it runs)."""
    if pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # alive, owned by another user
        return True
    return True
