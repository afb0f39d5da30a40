"""The newest migration, read from the revision files without importing alembic.

Commands that only check the schema (`tracker query`, `report`, ...) would otherwise spend a third
of their start-up importing alembic to learn one revision id. The files are read as text: each
declares ``revision = "NNNN"`` and ``down_revision = "MMMM"`` (or None) at the top level.
"""

from __future__ import annotations

import re
from pathlib import Path

_ASSIGN = re.compile(
    r"""^(revision|down_revision)\s*(?::[^=]*)?=\s*(?:["'](\w+)["']|None)\s*$""", re.M
)


def linear_head(versions: Path) -> str | None:
    """The one revision no other revision names as its parent; None when the history is not a
    plain line (several heads, a merge with a tuple of parents, a file this reading does not
    understand): the caller then asks alembic."""
    revisions: set[str] = set()
    parents: set[str] = set()
    for path in versions.glob("*.py"):
        found = dict((m.group(1), m.group(2)) for m in _ASSIGN.finditer(path.read_text("utf-8")))
        if "revision" not in found or "down_revision" not in found or not found["revision"]:
            return None
        revisions.add(found["revision"])
        if found["down_revision"]:
            parents.add(found["down_revision"])
    heads = revisions - parents
    return heads.pop() if len(heads) == 1 else None
