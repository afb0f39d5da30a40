"""APScheduler entry point: the same nightly job as `tracker nightly`, on a cron schedule."""

from __future__ import annotations

import logging
from datetime import UTC
from pathlib import Path

from tracker.errors import ConfigError, TrackerError

log = logging.getLogger("tracker.schedule")


def nightly_job(db_url: str, sources: Path, out_dir: Path) -> int:
    """One nightly run; configuration is re-read each time so edits apply without a restart.
    Errors are logged, never raised into the scheduler (the next night tries again)."""
    from tracker.config import load_config
    from tracker.pipeline import run_nightly
    from tracker.store import open_store

    try:
        return run_nightly(load_config(sources), open_store(db_url), out_dir, echo=log.info)
    except TrackerError as exc:
        log.error("nightly run failed: %s", exc)
        return exc.exit_code


def build_scheduler(crontab: str, db_url: str, sources: Path, out_dir: Path, blocking=True):
    """A scheduler with the nightly job on `crontab` (5 fields, UTC)."""
    from apscheduler.schedulers.background import BackgroundScheduler
    from apscheduler.schedulers.blocking import BlockingScheduler
    from apscheduler.triggers.cron import CronTrigger

    try:
        trigger = CronTrigger.from_crontab(crontab, timezone="UTC")
    except ValueError as exc:
        raise ConfigError(
            f"--cron {crontab!r}: {exc} (expected 5 fields, e.g. '0 2 * * *')"
        ) from None
    scheduler = (BlockingScheduler if blocking else BackgroundScheduler)(timezone="UTC")
    # coalesce + one instance: a missed night (host asleep) runs once, never twice at a time
    scheduler.add_job(
        nightly_job,
        trigger,
        args=(db_url, sources, out_dir),
        id="nightly",
        coalesce=True,
        max_instances=1,
        misfire_grace_time=3600,
    )
    return scheduler


def run_forever(crontab: str, db_url: str, sources: Path, out_dir: Path) -> None:
    scheduler = build_scheduler(crontab, db_url, sources, out_dir)
    log.info(
        "nightly job scheduled: %s UTC; next run %s",
        crontab,
        scheduler.get_job("nightly").trigger.get_next_fire_time(None, _now()),
    )
    try:
        scheduler.start()
    except (KeyboardInterrupt, SystemExit):
        log.info("scheduler stopped")


def _now():
    from datetime import datetime

    return datetime.now(UTC)
