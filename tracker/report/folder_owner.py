"""What in `--out DIR` is the tracker's, and which folder `--out` names.

Each report folder holds a manifest, ``.tracker-report.json``, listing the files the report
wrote there (``written``) and the files the user allowed it to carry from one report to the next
(``carried``, ``--out-carry-foreign``). Anything else in DIR is the user's: it is never moved
or deleted; the report refuses to publish, naming one such file (``foreign``).

A folder of the earlier layout, where DIR was a link to ``.DIR.reports/<version>``, has no
manifest: that folder was the tracker's, and what the report did not write there the tracker
had carried itself, so it is carried on. A plain folder without a manifest (a folder the user
made, a report of a version before the link layout) is the user's unless empty.

`--out` that resolves inside a report folder is never published into (a report nested in a
report, never cleaned): a path of a report version (``.DIR.reports/<version>``: ``--out .`` run
in a shell whose current folder was a replaced report, or ``readlink -f DIR`` of the link
layout) means DIR; a path below a report folder or its reports folder is refused.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterable
from pathlib import Path

from tracker.errors import TrackerError

MANIFEST = ".tracker-report.json"
STAGE_PREFIX = ".report-staging-"  # inside DIR, by versions before the link layout: tracker's
CARRY_OPTION = "--out-carry-foreign"
_REPORTS = re.compile(r"\.(?P<name>.+)\.reports")


def manifest(folder: Path) -> dict[str, list[str]] | None:
    """The manifest of `folder` ({"written": [...], "carried": [...]}), None if it has none or
    it cannot be read as one."""
    try:
        data = json.loads((folder / MANIFEST).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(data, dict):
        return None
    lists = {key: data.get(key) for key in ("written", "carried")}
    if not all(isinstance(v, list) and all(isinstance(n, str) for n in v) for v in lists.values()):
        return None
    return {key: list(value) for key, value in lists.items() if isinstance(value, list)}


def write_manifest(folder: Path, written: Iterable[str], carried: Iterable[str]) -> None:
    document = {
        "about": "files tracker's report wrote here, and files it carries from report to report",
        "written": sorted(set(written)),
        "carried": sorted(set(carried)),
    }
    (folder / MANIFEST).write_text(json.dumps(document, indent=1) + "\n", encoding="utf-8")


def foreign(current: Path, ours: bool) -> list[str]:
    """Entries of `current` (the folder DIR shows) the tracker did not write and was not allowed
    to carry, sorted. `ours`: the folder is the tracker's own (the link layout's version)."""
    listed = manifest(current)
    if listed is None and ours:
        return []
    known = set() if listed is None else {*listed["written"], *listed["carried"]}
    try:
        names = sorted(entry.name for entry in current.iterdir())
    except OSError:
        return []
    return [
        name
        for name in names
        if name not in known and name != MANIFEST and not name.startswith(STAGE_PREFIX)
    ]


def carried(current: Path, written: set[str], allowed: bool) -> list[str]:
    """Entries of `current` to carry into the new report: what the manifest says was carried,
    everything the report does not write in a folder of the link layout (no manifest), and,
    when `allowed`, every foreign entry."""
    listed = manifest(current)
    names = sorted(entry.name for entry in current.iterdir())
    if listed is None:  # the link layout's folder, or a foreign one `foreign` let through
        keep = set(names)
    else:
        keep = set(listed["carried"])
        if allowed:
            keep |= set(names) - set(listed["written"])
    return [
        name
        for name in names
        if name in keep and name not in written and name != MANIFEST
        and not name.startswith(STAGE_PREFIX)
    ]  # fmt: skip


def refuse_foreign(out_dir: Path, names: list[str]) -> TrackerError:
    more = f" (and {len(names) - 1} more)" if len(names) > 1 else ""
    return TrackerError(
        f"report: will not publish into {out_dir}: {out_dir / names[0]}{more} was not written "
        f"by tracker's report, and publishing replaces the folder; give --out a new or empty "
        f"folder, or pass {CARRY_OPTION} to carry such files into each new report"
    )


def resolve_out(out_dir: Path) -> Path:
    """The report folder `out_dir` names (see the module docstring), as an absolute path."""
    try:
        path = Path(os.path.abspath(out_dir))
    except OSError as exc:  # `--out .` in a folder removed since (a replaced report's)
        raise TrackerError(
            f"report: cannot tell where {out_dir} is: the current folder is gone ({exc.strerror}); "
            "a replaced report's folder is removed: cd into the report folder again"
        ) from exc
    parts = path.parts
    for index, part in enumerate(parts):
        found = _REPORTS.fullmatch(part)
        if found is None:
            continue
        report = Path(*parts[:index], found.group("name"))
        if index == len(parts) - 2:
            return report  # a report version: the report folder it was published as
        raise _nested(out_dir, report)
    for parent in path.parents:
        if (parent / MANIFEST).is_file():
            raise _nested(out_dir, parent)
    return path


def _nested(out_dir: Path, report: Path) -> TrackerError:
    return TrackerError(
        f"report: will not publish into {out_dir}: it is inside the report folder {report} "
        f"(a report in a report is never cleaned); give --out {report} or a folder outside it"
    )
