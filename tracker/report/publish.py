"""Publishing a report whole, in one step, into `--out DIR`, a plain folder a user can copy.

The report is written into a new folder in ``.<DIR's name>.reports/`` beside DIR
(report_folders.py) and, once every file is in it, that folder and DIR are exchanged in one
step (Linux renameat2 RENAME_EXCHANGE): DIR is the new folder, and the old one sits under the
new folder's former name, kept as ``previous`` for a reader that opened DIR just before (a web
server, a copy in progress) and removed by the next run. At every instant, SIGKILL included,
DIR is the previous complete report or the new complete one; a killed run's folder is removed
by the next run, except the folder of a report another process on this host is writing now.
`cp -r DIR copy`, `tar czf r.tgz DIR` and rsync copy the files themselves.

Where the exchange is missing (another system, a file system without it: NFS, older ZFS) or
cannot be done for these two names (EXDEV: DIR on another file system than its parent's new
folder, a folder of an overlay's lower layer) DIR becomes a link to the new folder, renamed over
the old link: one rename, atomic everywhere (the layout of earlier versions; copy it with
`cp -rL`), said once in a warning. A DIR of that layout is turned back into a plain folder by
the first exchange.

Which files are the tracker's: each report folder lists them in a manifest (folder_owner.py). A
DIR holding anything else (a folder the user made, their notes) is refused, naming one such
file, before the report is computed, unless ``--out-carry-foreign``: then such files are carried
into each new report (hard links, a copy where refused). The files a manifest of the format
before the hashes lists are kept whole, the same way, in ``.DIR.reports/kept-<time>-...`` before
the new report replaces DIR, said in one warning (folder_owner.set_aside). A folder where the
report writes a file stops the report before anything is published. `--out` inside a report
folder is DIR itself or refused (folder_owner.resolve_out). A DIR that is a link made by someone
else is followed, and its target is published this way. Each new report folder takes the mode
and group of the one it replaces. DIR's parent folder must be writable (the reports folder lives
there); DIR may not be a mount point. A reports folder the tracker did not make (a link, which
is never followed, a file, another user's folder) is refused in one line before anything is
computed. Names in messages have their controls written out (present.formats.printable).
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
from tracker.present.formats import printable
from tracker.report.folder_owner import (
    MANIFEST,
    STAGE_PREFIX,
    carried,
    foreign,
    refuse_foreign,
    resolve_out,
    set_aside,
    write_manifest,
)
from tracker.report.report_folders import (
    NO_EXCHANGE,
    NOT_HERE,
    PREVIOUS,
    WRITING,
    exchange,
    kept_name,
    link_name,
    new_name,
    point,
    published,
    reports_folder,
    reports_problem,
    tidy,
)

__all__ = ["STAGE_PREFIX", "refuse_strangers", "staged"]
log = logging.getLogger("tracker.report")


def refuse_strangers(out_dir: Path, *, carry_foreign: bool = False) -> Path:
    """`out_dir` resolved (a link followed, a path inside a report version made DIR), after
    refusing it when it holds files the tracker did not write and `carry_foreign` is off (see
    the module docstring). The report job asks this before it computes or saves anything, so
    a refused run changes nothing; `staged` asks again before it publishes."""
    out_dir = resolve_out(_followed(resolve_out(out_dir)))
    problem = reports_problem(out_dir)
    if problem is not None:
        raise _cannot(out_dir, f"{printable(str(reports_folder(out_dir)))}: {problem}")
    current = _showing(out_dir)
    if current is not None and not carry_foreign:
        strangers = foreign(current, ours=current != out_dir)
        if strangers:
            raise refuse_foreign(out_dir, strangers)
    return out_dir


@contextmanager
def staged(out_dir: Path, *, carry_foreign: bool = False) -> Iterator[Path]:
    """A fresh folder beside `out_dir` to write the report into. When the block ends normally
    it becomes `out_dir`, in one step; otherwise it is removed and `out_dir` is the previous
    report. `carry_foreign`: files in `out_dir` the tracker did not write are carried into the
    new report instead of refused (see the module docstring)."""
    out_dir = refuse_strangers(out_dir, carry_foreign=carry_foreign)
    current = _showing(out_dir)
    reports = _reports(out_dir, current)
    tidy(out_dir)  # a killed run's leftovers
    stage = reports / new_name()
    _make(out_dir, stage)
    WRITING.add(stage.name)
    swapped = False
    try:
        yield stage
        _prepare(out_dir, stage, current, carry_foreign)
        kept = _keep_earlier(out_dir, current, reports) if current is not None else None
        swapped = _swap(out_dir, stage, current)
    except BaseException:
        if not swapped and published(out_dir) != stage:  # a signal may land just after
            shutil.rmtree(stage, ignore_errors=True)
        raise
    finally:
        WRITING.discard(stage.name)
    if kept is not None:
        log.warning(
            "report: %s: its %d files listed by an earlier version's manifest, which records no "
            "content, cannot be proven the tracker's: kept whole in %s, and the report is "
            "published in their place",
            printable(str(out_dir)),
            kept[1],
            printable(str(kept[0])),
        )
    tidy(out_dir)


def _followed(out_dir: Path) -> Path:
    """`out_dir`, or where a link someone else made there leads."""
    for _ in range(40):  # as the kernel's bound on links followed
        if not out_dir.is_symlink() or published(out_dir) is not None:
            break
        out_dir = Path(os.path.normpath(out_dir.parent / os.readlink(out_dir)))
    return out_dir


def _showing(out_dir: Path) -> Path | None:
    """The folder whose report DIR shows now: DIR itself, or its link's target (the layout
    where there is no exchange)."""
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
            "it is a mount point, and the report is published by exchanging the folder with "
            "a new one beside it; give --out a folder inside it",
        )
    return out_dir


def _reports(out_dir: Path, current: Path | None) -> Path:
    reports = reports_folder(out_dir)
    try:
        reports.mkdir(parents=True, exist_ok=True)
        problem = reports_problem(out_dir)  # made meanwhile by someone else
        if problem is not None:
            raise _cannot(out_dir, f"{printable(str(reports))}: {problem}")
        if current is not None:
            _same_access(current, reports)
    except OSError as exc:
        raise _cannot(
            out_dir,
            f"cannot make {printable(str(reports))}: {exc.strerror or exc} (the report is "
            f"written beside the folder and exchanged with it, so "
            f"{printable(str(out_dir.parent))} must be writable)",
        ) from exc
    return reports


def _prepare(out_dir: Path, stage: Path, current: Path | None, carry_foreign: bool) -> None:
    """Check the targets, carry the files the user keeps in DIR into the new folder, write its
    manifest and give it the old one's access: a TrackerError naming the target, nothing
    published."""
    written = {p.name for p in stage.iterdir()} - {MANIFEST}
    kept: list[str] = []
    if current is not None:
        for name in sorted(written):
            if (current / name).is_dir() and not (current / name).is_symlink():
                raise _cannot(out_dir / name, "it is a folder, where the report writes a file")
        kept = carried(current, written, carry_foreign, ours=current != out_dir)
        for name in kept:
            _carry_entry(out_dir, current / name, stage / name, "carry it over")
    try:
        write_manifest(stage, written, kept)
        if current is not None:
            _same_access(current, stage)
    except OSError as exc:
        raise _cannot(
            out_dir, f"cannot finish {printable(str(stage))}: {exc.strerror or exc}"
        ) from exc


def _keep_earlier(out_dir: Path, current: Path, reports: Path) -> tuple[Path, int] | None:
    """The files a manifest of the format before the hashes lists (and that manifest), kept
    whole in a new folder beside the versions before the new report replaces them: they may be
    the user's (folder_owner.set_aside). (That folder, how many files) or None: no such
    manifest. Never removed by the tracker, even when publishing fails after this: the
    originals are then still in DIR, and the next run keeps them again."""
    names = set_aside(current)
    if not names:
        return None
    kept = reports / kept_name()
    _make(out_dir, kept)
    for name in [*names, MANIFEST]:
        _carry_entry(out_dir, current / name, kept / name, f"keep it in {printable(str(kept))}")
    return kept, len(names)


def _carry_entry(out_dir: Path, entry: Path, target: Path, doing: str) -> None:
    """`entry` of the old report folder into `target` (a folder: its files each), by `_carry`;
    a TrackerError naming it where that fails, nothing published."""
    try:
        if entry.is_dir() and not entry.is_symlink():
            shutil.copytree(entry, target, symlinks=True, copy_function=_carry)
        else:
            _carry(entry, target)
    except (OSError, shutil.Error) as exc:
        raise _cannot(out_dir / entry.name, f"cannot {doing}: {printable(str(exc))}") from exc


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


def _swap(out_dir: Path, stage: Path, current: Path | None) -> bool:
    """Make DIR the folder `stage` in one step; True once it is. An exchange where the system
    has one, else the link layout (a new link renamed over DIR)."""
    try:
        if not os.path.lexists(out_dir):
            os.rename(stage, out_dir)  # the first report: nothing to exchange with
            return True
        try:
            exchange(stage, out_dir)
        except OSError as exc:
            if exc.errno not in NO_EXCHANGE + NOT_HERE:
                raise
            log.warning(
                "report: %s: no atomic exchange of the folder here (%s): published as a link to %s",
                printable(str(out_dir)),
                exc.strerror or exc,
                link_name(out_dir, stage),
            )
            _as_link(out_dir, stage, current)
            return True
    except OSError as exc:
        why = exc.strerror or str(exc)
        if exc.errno in NOT_HERE:
            why += (
                " (the folder cannot be renamed where it is: on another file system than its "
                "parent, or baked into an overlay's lower layer such as a container image; "
                "give --out a folder made at run time, or remove this one)"
            )
        raise _cannot(out_dir, why) from exc
    # `stage` now names what DIR was: the old folder (kept as the previous report) or the
    # link of the link layout (removed; its folders go at the tidying that follows)
    if stage.is_symlink():
        _quietly(stage.unlink)
    else:
        _quietly(point, stage.parent / PREVIOUS, stage.name)
    return True


def _quietly(action, *args) -> None:
    try:
        action(*args)
    except OSError:
        pass  # published all the same; the next run tidies what is left


def _as_link(out_dir: Path, stage: Path, current: Path | None) -> None:
    """The layout without an exchange: DIR a link to `stage`, renamed over DIR."""
    reports = stage.parent
    link = reports / new_name()
    os.symlink(link_name(out_dir, stage), link)
    try:
        if current == out_dir:
            _into_link(out_dir, link)
        else:
            if current is not None:
                point(reports / PREVIOUS, current.name)
            os.replace(link, out_dir)
    except OSError:
        if os.path.islink(link):
            link.unlink()
        raise


def _into_link(out_dir: Path, link: Path) -> None:
    """DIR, still a folder, becomes `link` in two renames (DIR is missing for an instant, never
    mixed); the old folder stays beside, as the previous report."""
    kept = link.parent / new_name(pid=0)
    os.rename(out_dir, kept)  # from here DIR is missing ...
    try:
        os.replace(link, out_dir)  # ... to here
    except OSError:
        os.rename(kept, out_dir)
        raise
    _quietly(point, link.parent / PREVIOUS, kept.name)


def _make(out_dir: Path, folder: Path) -> None:
    """Make `folder` (new, beside DIR's versions), or refuse the publish of `out_dir` saying why."""
    try:
        folder.mkdir()
    except OSError as exc:
        raise _cannot(
            out_dir, f"cannot make {printable(str(folder))}: {exc.strerror or exc}"
        ) from exc


def _cannot(target: Path, why: str) -> TrackerError:
    return TrackerError(
        f"report: cannot publish {printable(str(target))}: {why}; nothing was published, the "
        "previous report is in place"
    )
