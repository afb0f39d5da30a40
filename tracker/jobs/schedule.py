"""APScheduler entry point: the same nightly job as `tracker nightly`, and the same weekly
digest as `tracker digest`, each on its own cron schedule."""

from __future__ import annotations

import logging
import signal
import time
from datetime import UTC
from pathlib import Path

from tracker.errors import ConfigError, TrackerError

log = logging.getLogger("tracker.schedule")


def nightly_job(db_url: str, sources: Path, out_dir: Path, carry_foreign: bool = False) -> int:
    """One nightly run; configuration is re-read each time so edits apply without a restart.
    Errors are logged, never raised into the scheduler (the next night tries again)."""
    from tracker.jobs.config import load_config
    from tracker.jobs.nightly import run_nightly

    said: list[str] = []

    def echo(line: str) -> None:
        said.append(line)
        log.info("%s", line)

    try:
        config = load_config(sources)
        code = run_nightly(
            config, _store(db_url, config), out_dir, echo=echo, carry_foreign=carry_foreign
        )
        if code:  # partial (3) or not run (4): said at warning level, seen under -q too
            log.warning("nightly run ended with exit code %d: %s", code, said[-1] if said else "")
        return code
    except TrackerError as exc:
        log.error("nightly run failed: %s", exc)
        return exc.exit_code


# Mondays 07:00 UTC, cron numbering (see cron_day_names): the last ISO week ended at midnight
DIGEST_CRON = "0 7 * * 1"


def digest_job(db_url: str, sources: Path) -> int:
    """One weekly digest, the code `tracker digest` runs (last complete ISO week, SMTP settings
    and recipients from the environment, read each time). Errors are logged, never raised."""
    from tracker.digest.mail import run_digest
    from tracker.digest.settings import smtp_settings
    from tracker.digest.week import default_clock, resolve_week
    from tracker.jobs.config import load_config

    try:
        config = load_config(sources)
        store = _store(db_url, config)
        week = resolve_week(None, None, default_clock(config, store))
        run_digest(config, store, week, smtp_settings(), echo=log.info)
        return 0
    except TrackerError as exc:
        log.error("digest failed: %s", exc)
        return exc.exit_code


def _store(db_url: str, config):
    """The store, waiting as TRACKER_DB_* over the `database:` section of sources.yaml say."""
    from tracker.config.database import database_waits
    from tracker.store import open_store

    return open_store(db_url, database_waits(config.database))


_CRON_DAYS = ("sun", "mon", "tue", "wed", "thu", "fri", "sat", "sun")  # cron: 0 and 7 = Sunday


def cron_day_names(crontab: str) -> str:
    """`crontab` with the day-of-week numbers written as names. APScheduler 3 reads a number
    there as Monday = 0, so cron's "0 7 * * 1" (Mondays) would fire on Tuesdays; names mean
    the same to both. Numbers, ranges and steps over them become lists of names."""
    fields = crontab.split()
    if len(fields) != 5:
        return crontab  # CronTrigger reports the wrong field count

    def name(token: str) -> str:
        return _CRON_DAYS[int(token)] if token.isdigit() and int(token) < 8 else token

    parts = []
    for part in fields[4].split(","):
        days, slash, step = part.partition("/")
        if part == "*":
            parts.append(part)
            continue
        bounds = ["0", "6"] if days == "*" else days.split("-")
        every = int(step) if step.isdigit() and int(step) > 0 else None if slash else 1
        if every and all(b.isdigit() for b in bounds):
            # Spelled out day by day: APScheduler steps from its own Monday, drops a step on a
            # range and refuses a range through its week's end ("sun-wed" is 6-2 to it).
            first, last = int(bounds[0]), int(bounds[-1])
            parts.extend(name(str(d)) for d in range(first, last + 1, every))
        else:
            parts.append("-".join(name(d) for d in days.split("-")) + slash + step)
    return " ".join(fields[:4] + [",".join(parts)])


def _trigger(option: str, crontab: str, example: str):
    from apscheduler.triggers.cron import CronTrigger

    try:
        return CronTrigger.from_crontab(cron_day_names(crontab), timezone="UTC")
    except ValueError as exc:
        raise ConfigError(
            f"{option} {crontab!r}: {exc} (expected 5 fields, e.g. '{example}')"
        ) from None


def build_scheduler(
    crontab: str,
    db_url: str,
    sources: Path,
    out_dir: Path,
    digest_crontab: str | None = None,
    carry_foreign: bool = False,
):
    """A scheduler with the nightly job on `crontab` and, when `digest_crontab` is given, the
    weekly digest on it (5 fields each, UTC). It runs in threads of its own once started:
    the caller's thread stays free to wait for a signal (run_forever)."""
    from apscheduler.schedulers.background import BackgroundScheduler

    trigger = _trigger("--cron", crontab, "0 2 * * *")
    digest_trigger = (
        _trigger("--digest-cron", digest_crontab, DIGEST_CRON) if digest_crontab else None
    )
    scheduler = BackgroundScheduler(timezone="UTC")
    # coalesce + one instance: a missed night (host asleep) runs once, never twice at a time
    scheduler.add_job(
        nightly_job,
        trigger,
        args=(db_url, sources, out_dir, carry_foreign),
        id="nightly",
        coalesce=True,
        max_instances=1,
        misfire_grace_time=3600,
    )
    if digest_trigger is not None:
        scheduler.add_job(
            digest_job,
            digest_trigger,
            args=(db_url, sources),
            id="digest",
            coalesce=True,
            max_instances=1,
            misfire_grace_time=6 * 3600,
        )
    return scheduler


def run_forever(
    crontab: str,
    db_url: str,
    sources: Path,
    out_dir: Path,
    digest_crontab: str | None = None,
    carry_foreign: bool = False,
) -> None:
    scheduler = build_scheduler(
        crontab,
        db_url,
        sources,
        out_dir,
        digest_crontab=digest_crontab,
        carry_foreign=carry_foreign,
    )
    for job_id in ("nightly", "digest"):
        job = scheduler.get_job(job_id)
        if job is not None:
            log.info(
                "%s job scheduled: %s UTC; next run %s",
                job_id,
                crontab if job_id == "nightly" else digest_crontab,
                job.trigger.get_next_fire_time(None, _now()),
            )
    stop_signals = {signal.SIGTERM, signal.SIGINT}
    try:
        # SIGTERM's exit must not be raised inside the scheduler's own locks: sent just after
        # "Scheduler started", while start() takes an Event's lock, it once left a process
        # that never ended (a full test run; a lock left taken is the likely cause). So signals
        # wait while it starts (the threads it starts keep them blocked: only this thread takes
        # them), and are raised after, or in time.sleep, holding nothing.
        signal.pthread_sigmask(signal.SIG_BLOCK, stop_signals)
        try:
            scheduler.start()
        finally:
            signal.pthread_sigmask(signal.SIG_UNBLOCK, stop_signals)
        while scheduler.running:
            time.sleep(3600)
    except (KeyboardInterrupt, SystemExit):
        # the exit code stays the signal's (143, 130); a job running now finds its database
        # statements refused (tracker.store.stopping) and ends at its next one
        log.info("scheduler stopped")
        if scheduler.running:
            scheduler.shutdown(wait=False)
        raise


def _now():
    from datetime import datetime

    return datetime.now(UTC)
