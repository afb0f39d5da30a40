"""Cassette snapshot dates: the day a recorded replay's facts were true.

Every cassette states its snapshot in a comment line near the top that vcrpy ignores:
``# snapshot: YYYY-MM-DD`` (the date its facts were true). ``tracker collect --record`` writes
it (``stamp``); hand-written cassettes say ``hand-written`` on that line. The runner records
each replayed run's snapshot on its ``runs`` row (tracker.store.asof reads it back).
"""

from __future__ import annotations

import logging
import re
from collections.abc import Sequence
from datetime import date
from pathlib import Path

from tracker.errors import SourceError

log = logging.getLogger("tracker.snapshot")

SNAPSHOT_LINE = re.compile(r"^#\s*snapshot:\s*(\d{4}-\d{2}-\d{2})\b", re.IGNORECASE)
HEADER_LINES = 40  # the snapshot line sits in the leading comment block


def cassette_path(directory: str | Path, source_id: str) -> Path:
    """``DIR/<source id>.yaml``; SourceError unless that file sits in DIR itself. Config
    checking already refuses ids with a path in them (config.value_types.SOURCE_ID): this is the
    second guard, so that no id ever records or reads a cassette outside its folder."""
    folder = Path(directory)
    path = folder / f"{source_id}.yaml"
    if path.parent.resolve() != folder.resolve() or path.name != f"{source_id}.yaml":
        raise SourceError(f"source id {source_id[:100]!r} would put its cassette outside {folder}")
    return path


def read_snapshot(path: str | Path) -> date | None:
    """The ``# snapshot: YYYY-MM-DD`` date of a cassette file, or None when it states none."""
    try:
        with Path(path).open(encoding="utf-8") as handle:
            for number, line in enumerate(handle):
                if number >= HEADER_LINES or not line.startswith("#"):
                    break
                match = SNAPSHOT_LINE.match(line)
                if match:
                    return date.fromisoformat(match.group(1))
    except (OSError, ValueError) as exc:
        log.warning("%s: cannot read its snapshot date: %s", path, exc)
    return None


def stamp(path: str | Path, day: date, how: str = "recorded by tracker collect --record") -> None:
    """Put ``# snapshot: DAY (how)`` on the first line of a freshly written cassette (an old
    snapshot line, if any, is replaced)."""
    file = Path(path)
    lines = file.read_text(encoding="utf-8").splitlines(keepends=True)
    lines = [line for line in lines if not SNAPSHOT_LINE.match(line)]
    file.write_text(f"# snapshot: {day.isoformat()} ({how})\n" + "".join(lines), encoding="utf-8")


def replay_snapshot(directory: str | Path, source_id: str) -> date | None:
    """The snapshot date of the source's cassette in `directory`; None when it states none or
    the id names no cassette there (that run already failed on it)."""
    try:
        return read_snapshot(cassette_path(directory, source_id))
    except SourceError:
        return None


def newest_snapshot(directory: str | Path, source_ids: Sequence[str] | None = None) -> date | None:
    """The newest snapshot date of the cassettes in `directory` (only `source_ids` when given)."""
    folder = Path(directory)
    paths = (
        [cassette_path(folder, s) for s in source_ids]
        if source_ids is not None
        else sorted(folder.glob("*.yaml"))
    )
    days = [d for d in (read_snapshot(p) for p in paths if p.exists()) if d is not None]
    return max(days, default=None)
