"""The nightly job: upgrade the schema, collect, tag, report. Each stage reports lines."""

from __future__ import annotations

import logging
from pathlib import Path

from tracker.config import Config
from tracker.errors import StoreError
from tracker.store import Store
from tracker.tagger.batch import tag_store

log = logging.getLogger("tracker.pipeline")
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
) -> int:
    """The nightly job, for cron (`tracker nightly`) and the scheduler alike: upgrade the
    schema, collect, tag, report. Returns the exit code (0 ok, 3 some sources failed).

    A `nightly` lock in the store keeps two of these (cron plus scheduler, or two hosts on one
    PostgreSQL) from running at once. The second does nothing: it exits 0 when the holder is
    a live run on this host, and LOCKED_ELSEWHERE (4) naming the holder when it ran on another
    host, which may have died there (a silent 0 hid such a lock for up to its 6 hours).
    """
    from tracker.collect.runner import run_sources

    _init_db_once(store)
    with store.lock("nightly") as acquired:
        if not acquired:
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
        summary = run_sources(config, store, only=only, since=since, replay=replay, record=record)
        for line in summary.lines():
            echo(line)
        banner = (
            f"Built from a replay of the cassettes in {replay}, not from live upstream "
            "data: hand-written cassettes say in their headers which facts are real."
            if replay
            else None
        )
        for line in after_collect(config, store, out_dir, banner=banner, as_of=as_of):
            echo(line)
    return summary.exit_code


def after_collect(
    config: Config, store: Store, out_dir: Path, banner: str | None = None, as_of=None
) -> list[str]:
    """Tag untagged events and write the report (as of `as_of`, default: the replayed
    snapshot or now, see tracker/store/asof.py); return summary lines for the console."""
    try:
        lines = [tag_store(store)]
    except Exception as exc:  # the report still runs on the tags already stored
        log.exception("tagging failed")
        lines = [f"tag: FAILED ({type(exc).__name__}: {exc}); report uses the tags stored before"]
    from tracker.jobs.report import publish_report

    lines.extend(publish_report(config, store, out_dir, as_of=as_of, banner=banner))
    return lines


def _init_db_once(store: Store, wait: float = 30.0) -> None:
    """Migrate to head. Two runs started together on a fresh database (cron and a scheduler)
    both try; the loser's CREATE fails: it waits for the winner's schema instead of failing."""
    import time

    try:
        store.init_db()
    except StoreError:
        head, deadline = store.head_revision(), time.monotonic() + wait
        while True:
            current = store.current_revision()
            if current == head:
                return
            newer = current is not None and not (current.isdigit() and int(current) < int(head))
            if newer or time.monotonic() > deadline:
                raise
            time.sleep(1)
