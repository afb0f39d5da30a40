"""What in `--out DIR` is the tracker's, and which folder `--out` names.

Each report folder holds a manifest, ``.tracker-report.json``, listing the files the report
wrote there (``written``, with each one's size and SHA-256 in ``files``) and the files the user
allowed it to carry from one report to the next (``carried``, ``--out-carry-foreign``). A file
is the tracker's only when its content is what the manifest records, never on its name alone:
anything else in DIR (a file the user added, a report file edited since, a name added to the
manifest by hand) is the user's; it is never replaced or deleted, the report refuses to
publish, naming one such file (``foreign``). The manifest is read only as a regular file of at
most MANIFEST_BYTES, opened without following a link; another (a FIFO, a link, a huge file) is
no manifest and is itself named as foreign.

A manifest of the format before the hashes (no ``files``: every folder a version before them
wrote) cannot prove a file the tracker's, nor show it the user's: the files it lists as written
are ``set_aside``, never deleted or replaced in place; publishing keeps them whole in a folder
of their own beside DIR and says where (publish.py). What it does not list is the user's, as
above.

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

import hashlib
import json
import os
import re
import stat
from collections.abc import Iterable
from pathlib import Path

from tracker.errors import TrackerError
from tracker.present.formats import printable

MANIFEST = ".tracker-report.json"
# Inside DIR, by versions before the link layout; today a name like any other (see above).
STAGE_PREFIX = ".report-staging-"
CARRY_OPTION = "--out-carry-foreign"
_REPORTS = re.compile(r"\.(?P<name>.+)\.reports")
# A manifest lists a report's few dozen files and what the user carries: far below this.
MANIFEST_BYTES = 4 * 1024 * 1024
_CHUNK = 1024 * 1024


class Manifest(dict):
    """A manifest as read: "written" and "carried" (lists of names), "files" ({name:
    {"bytes": size, "sha256": hex digest}}) and "earlier" (True: of the format before the
    hashes, which has no "files")."""


def _open_regular(path: Path) -> tuple[int, int] | None:
    """(descriptor, size) of `path` when it is a regular file, opened without following a link
    and without waiting on a FIFO or a device; None otherwise (the caller closes it)."""
    flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
    try:
        descriptor = os.open(path, flags | getattr(os, "O_CLOEXEC", 0))
    except OSError:
        return None
    info = os.fstat(descriptor)
    if not stat.S_ISREG(info.st_mode):
        os.close(descriptor)
        return None
    return descriptor, info.st_size


def manifest(folder: Path) -> Manifest | None:
    """The manifest of `folder`, None if it has none or it cannot be read as one (see the module
    docstring: a bounded regular file)."""
    opened = _open_regular(folder / MANIFEST)
    if opened is None:
        return None
    descriptor, size = opened
    try:
        if size > MANIFEST_BYTES:
            return None
        with os.fdopen(descriptor, "rb", closefd=False) as handle:
            content = handle.read(MANIFEST_BYTES + 1)
        data = json.loads(content) if len(content) <= MANIFEST_BYTES else None
    except (OSError, ValueError, RecursionError):
        return None
    finally:
        os.close(descriptor)
    if not isinstance(data, dict):
        return None
    lists = {key: data.get(key) for key in ("written", "carried")}
    if not all(isinstance(v, list) and all(isinstance(n, str) for n in v) for v in lists.values()):
        return None
    files = data.get("files")
    found = Manifest({key: list(value) for key, value in lists.items() if isinstance(value, list)})
    found["files"] = {
        name: facts
        for name, facts in (files.items() if isinstance(files, dict) else ())
        if isinstance(facts, dict)
        and isinstance(facts.get("bytes"), int)
        and isinstance(facts.get("sha256"), str)
    }
    found["earlier"] = "files" not in data
    return found


def _content(path: Path) -> dict[str, int | str] | None:
    """{"bytes", "sha256"} of a regular file (None: not one, or unreadable)."""
    opened = _open_regular(path)
    if opened is None:
        return None
    descriptor, size = opened
    digest = hashlib.sha256()
    try:
        with os.fdopen(descriptor, "rb", closefd=False) as handle:
            while chunk := handle.read(_CHUNK):
                digest.update(chunk)
    except OSError:
        return None
    finally:
        os.close(descriptor)
    return {"bytes": size, "sha256": digest.hexdigest()}


def _proven(folder: Path, name: str, listed: Manifest) -> bool:
    """Whether `name` in `folder` is a file the report wrote, unchanged: its size and content
    are what the manifest records (the size first, so a huge stranger is never read)."""
    facts = listed["files"].get(name)
    if name not in listed["written"] or facts is None:
        return False
    try:
        info = os.lstat(folder / name)
    except OSError:
        return False
    if not stat.S_ISREG(info.st_mode) or info.st_size != facts["bytes"]:
        return False
    return _content(folder / name) == facts


def write_manifest(folder: Path, written: Iterable[str], carried: Iterable[str]) -> None:
    names = sorted(set(written))
    files = {name: content for name in names if (content := _content(folder / name)) is not None}
    document = {
        "about": "files tracker's report wrote here, and files it carries from report to report",
        "written": names,
        "carried": sorted(set(carried)),
        "files": files,
    }
    (folder / MANIFEST).write_text(json.dumps(document, indent=1) + "\n", encoding="utf-8")


def _names(folder: Path) -> list[str]:
    try:
        return sorted(entry.name for entry in folder.iterdir())
    except OSError:
        return []


def foreign(current: Path, ours: bool) -> list[str]:
    """Entries of `current` (the folder DIR shows) that are not files the tracker wrote there
    unchanged and were not allowed to be carried, sorted. `ours`: the folder is the tracker's
    own (the link layout's version: what it holds is carried over)."""
    listed = manifest(current)
    if listed is None and ours:
        return []
    names = _names(current)
    if listed is None:
        return names  # the manifest too, when there is one that cannot be read as one
    known = set(listed["carried"])
    if listed["earlier"]:
        known |= set(listed["written"])  # set aside, never the report's to replace (set_aside)
    return [
        name
        for name in names
        if name != MANIFEST and name not in known and not _proven(current, name, listed)
    ]


def set_aside(current: Path) -> list[str]:
    """Entries of `current` that a manifest of the format before the hashes lists as written,
    sorted (none for any other manifest): see the module docstring. Only entries the folder
    holds, so a name in the manifest never reaches outside it."""
    listed = manifest(current)
    if listed is None or not listed["earlier"]:
        return []
    written = set(listed["written"])
    return [name for name in _names(current) if name in written and name != MANIFEST]


def carried(current: Path, written: set[str], allowed: bool, ours: bool) -> list[str]:
    """Entries of `current` to carry into the new report: what the manifest says was carried,
    everything the report does not write in a folder of the link layout (no manifest), and,
    when `allowed`, every foreign entry. `ours`: as for `foreign`. A file to carry that the new
    report writes too is a TrackerError naming it: replacing it would lose it."""
    listed = manifest(current)
    names = _names(current)
    if listed is None:  # the link layout's folder (the tracker's), or `allowed` foreign files
        keep = set(names) - {MANIFEST}
        clashes = set() if ours else keep & written
    else:
        keep = set(listed["carried"])
        if allowed:
            keep |= set(foreign(current, ours=False))
        clashes = keep & written
    if clashes:
        name = sorted(clashes)[0]
        raise TrackerError(
            f"report: will not publish into {printable(str(current))}: "
            f"{printable(str(current / name))} was not written by tracker's report (or was "
            "changed since) and the report writes a file of that name, which would replace it; "
            "move it out of the folder"
        )
    return [name for name in names if name in keep and name not in written]


def refuse_foreign(out_dir: Path, names: list[str]) -> TrackerError:
    """The one-line refusal naming the first of `names` (controls written out: a file name is
    anyone's text)."""
    more = f" (and {len(names) - 1} more)" if len(names) > 1 else ""
    return TrackerError(
        f"report: will not publish into {printable(str(out_dir))}: "
        f"{printable(str(out_dir / names[0]))}{more} was not written by tracker's report, and "
        f"publishing replaces the folder; give --out a new or empty folder, or pass "
        f"{CARRY_OPTION} to carry such files into each new report"
    )


def resolve_out(out_dir: Path) -> Path:
    """The report folder `out_dir` names (see the module docstring), as an absolute path."""
    try:
        path = Path(os.path.abspath(out_dir))
    except OSError as exc:  # `--out .` in a folder removed since (a replaced report's)
        raise TrackerError(
            f"report: cannot tell where {printable(str(out_dir))} is: the current folder is gone "
            f"({exc.strerror}); a replaced report's folder is removed: cd into the report folder "
            "again"
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
        f"report: will not publish into {printable(str(out_dir))}: it is inside the report "
        f"folder {printable(str(report))} (a report in a report is never cleaned); give --out "
        f"{printable(str(report))} or a folder outside it"
    )
