"""The nightly job: upgrade the schema, collect, tag, report. Each stage reports lines."""

from __future__ import annotations

import logging
from dataclasses import dataclass
from pathlib import Path

from tracker.config import Config
from tracker.errors import StoreError, TrackerError, first_line
from tracker.store import Store
from tracker.tagger.batch import tag_store

log = logging.getLogger("tracker.pipeline")
PARTIAL = 3  # exit code: some stage failed, what the others did is saved
LOCKED_ELSEWHERE = 4  # exit code: not run, a run on another host holds the nightly lock


def _until(lock) -> str:
    return f"{lock.until:%Y-%m-%d %H:%M}" if lock.until else "?"


def run_nightly(
    config: Config,
    store: Store,
    out_dir: Path,
    *,
    echo=print,
    only: list[str] | None = None,
    since=None,
    replay=None,
    record=None,
    as_of=None,
    carry_foreign: bool = False,
) -> int:
    """The nightly job, for cron (`tracker nightly`) and the scheduler alike: upgrade the
    schema, collect, tag, report. Returns the exit code: 0 ok; 3 partial: some sources
    failed (the report counts what was saved), or tagging failed (the report is not published,
    the last complete one stays: built on the tags stored before it would be wrong). A run
    that fails as a whole (collect or report, e.g. the database lost) raises a TrackerError
    (exit 1) naming the stage; the report then stays as it was too.

    A `nightly` lock in the store keeps two of these (cron plus scheduler, or two hosts on one
    PostgreSQL) from running at once. The second does nothing: it exits 0 when the holder is
    a live run on this host, and LOCKED_ELSEWHERE (4) naming the holder when it ran on another
    host, which may have died there (a silent 0 hid such a lock for up to its 6 hours).
    """
    _init_db_once(store)
    code: int | None = None
    try:
        with store.lock("nightly") as acquired:
            if not acquired:
                return _not_run(acquired, echo)
            code = _stages(
                config, store, out_dir, echo, only, since, replay, record, as_of, carry_foreign
            )
    except StoreError as exc:
        if code is None:
            raise
        # The work is done and said; only the lock's release failed (the server went away):
        # the next run on this host takes a dead run's lock over.
        echo(
            f"nightly: the nightly lock was not released ({exc}); the next run on this host "
            "takes it over, one on another host waits for `tracker unlock nightly`"
        )
    return code


def _not_run(acquired, echo) -> int:
    if acquired.elsewhere:
        echo(
            f"nightly: not run: the nightly lock is {acquired.describe()}, by a run on "
            f"another host; {acquired.advice()}"
        )
        return LOCKED_ELSEWHERE
    echo(
        f"nightly: another nightly run on this host holds the lock "
        f"({acquired.holder}, until {_until(acquired)} UTC); nothing to do"
    )
    return 0


def _stages(config, store, out_dir, echo, only, since, replay, record, as_of, carry_foreign) -> int:
    """Collect, tag, report, under the nightly lock; returns the exit code."""
    from tracker.collect.runner import run_sources
    from tracker.jobs.report import publish_report

    try:
        summary = run_sources(config, store, only=only, since=since, replay=replay, record=record)
    except TrackerError as exc:  # the run itself, not one source: nothing to tag or report
        raise StageFailed(f"nightly: collect failed: {exc}; {_kept(out_dir)}") from None
    for line in summary.lines():
        echo(line)
    failed = []
    if summary.failed:
        failed.append(f"{len(summary.failed)} of {len(summary.results)} sources failed")
    tagged = _tag(store)
    echo(tagged.line)
    if not tagged.ok:
        # Figures from the tags stored before would be wrong, not just stale (a report with 0
        # friction weeks): the last complete report stays until a run tags everything.
        echo(f"nightly: partial: {', '.join([*failed, 'tag failed'])}; {_kept(out_dir)}")
        return PARTIAL
    # a replay's report says so at its top (tracker.jobs.report: from the store's runs)
    lines = publish_report(config, store, out_dir, as_of=as_of, carry_foreign=carry_foreign)
    for line in lines:
        echo(line)
    if failed:
        echo(f"nightly: partial: {failed[0]} (named above); the report counts what was saved")
    return summary.exit_code


class StageFailed(TrackerError):
    """A stage of the nightly failed as a whole; the message names it."""


@dataclass(frozen=True)
class _Tagged:
    line: str
    ok: bool


def _tag(store: Store) -> _Tagged:
    """Tag what is untagged; a failure (the database lost mid-way, the tagger broken) is one
    line naming it, not a traceback: the tags of the batches saved before it stay."""
    try:
        return _Tagged(tag_store(store), ok=True)
    except TrackerError as exc:  # StoreError names the database
        return _Tagged(f"tag: FAILED: {exc}", ok=False)
    except Exception as exc:
        log.debug("tagging failed", exc_info=True)  # the traceback, for -vv
        return _Tagged(f"tag: FAILED: {type(exc).__name__}: {first_line(exc)}", ok=False)


def _kept(out_dir: Path) -> str:
    if (out_dir / "index.html").exists():
        return f"the report is not published, {out_dir} keeps the last complete run's report"
    return f"the report is not published (there is none in {out_dir} yet)"


def _init_db_once(store: Store) -> None:
    """Migrate to head. Two runs started together on a fresh database (cron and a scheduler)
    need nothing more: init_db holds SQLite's write lock or a PostgreSQL advisory lock while it
    migrates, so the second waits for the first and finds the schema current. (A retry here
    asked an unreachable server a second time, doubling its connect timeout.)"""
    store.init_db()
