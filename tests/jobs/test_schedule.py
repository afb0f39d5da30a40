"""The scheduler and cron run the same nightly job; the store's lock keeps them apart."""

from __future__ import annotations

from pathlib import Path

import pytest

from tracker.config import Config
from tracker.errors import ConfigError
from tracker.jobs.nightly import run_nightly
from tracker.jobs.schedule import build_scheduler, nightly_job

EMPTY = "regimes: [{id: cuda, reference: true}]\nsources: []\n"


def test_scheduler_runs_the_nightly_job_on_a_cron_trigger(tmp_path):
    sources = tmp_path / "sources.yaml"
    sources.write_text(EMPTY)
    db = f"sqlite:///{tmp_path / 't.db'}"
    scheduler = build_scheduler("30 1 * * *", db, sources, tmp_path / "out")
    job = scheduler.get_job("nightly")
    assert str(job.trigger) == "cron[month='*', day='*', day_of_week='*', hour='1', minute='30']"
    assert job.func is nightly_job and job.max_instances == 1 and job.coalesce
    assert nightly_job(db, sources, tmp_path / "out") == 0
    assert (tmp_path / "out" / "index.html").exists()


def test_bad_crontab_is_a_config_error(tmp_path):
    with pytest.raises(ConfigError, match="expected 5 fields"):
        build_scheduler("every night", "sqlite://", tmp_path / "s.yaml", tmp_path)


def test_a_second_nightly_run_waits_for_nobody(sqlite_store, tmp_path):
    said = []
    config = Config(Path("sources.yaml"), (), ())
    with sqlite_store.lock("nightly") as held:
        assert held
        assert run_nightly(config, sqlite_store, tmp_path / "out", echo=said.append) == 0
    [line] = said
    assert line.startswith("nightly: another nightly run on this host holds the lock (")
    assert "until" in line
    assert line.endswith("UTC); nothing to do")  # who holds it and until when
    assert not (tmp_path / "out").exists()
    assert run_nightly(config, sqlite_store, tmp_path / "out", echo=said.append) == 0
    assert (tmp_path / "out" / "index.html").exists()


def test_a_nightly_lock_held_on_another_host_is_reported_not_skipped(sqlite_store, tmp_path):
    # A run killed on another host leaves its lock: later runs must say so and fail (exit 4),
    # naming the holder, since when and until when, and how to clear it; not exit 0 silently.
    from datetime import UTC, datetime, timedelta

    from tracker.store.tables import locks

    since = datetime(2026, 3, 1, 2, 0, tzinfo=UTC)
    with sqlite_store.transaction() as conn:
        conn.execute(
            locks.insert().values(
                name="nightly",
                holder="db-host-2.example:4242:ab12cd34",
                acquired_at=since,
                expires_at=datetime.now(UTC) + timedelta(hours=5),
            )
        )
    said = []
    config = Config(Path("sources.yaml"), (), ())
    assert run_nightly(config, sqlite_store, tmp_path / "out", echo=said.append) == 4
    [line] = said
    assert "held by db-host-2.example:4242:ab12cd34 since 2026-03-01 02:00 until " in line
    assert "`tracker unlock nightly`" in line
    assert not (tmp_path / "out").exists()
    sqlite_store.unlock("nightly")
    assert run_nightly(config, sqlite_store, tmp_path / "out", echo=said.append) == 0
    assert (tmp_path / "out" / "index.html").exists()


def test_a_scheduled_nightly_that_did_not_finish_says_so_at_warning_level(
    sqlite_store, tmp_path, caplog
):
    # Under `tracker -q schedule` only warnings show, and the scheduler drops the exit code:
    # a run that was partial or not run must say so above info level.
    from datetime import UTC, datetime, timedelta

    from tracker.store.tables import locks

    sources = tmp_path / "sources.yaml"
    sources.write_text(EMPTY)
    sqlite_store.init_db()
    with sqlite_store.transaction() as conn:
        conn.execute(
            locks.insert().values(
                name="nightly",
                holder="db-host-2.example:4242:ab12cd34",
                acquired_at=datetime.now(UTC),
                expires_at=datetime.now(UTC) + timedelta(hours=5),
            )
        )
    with caplog.at_level("WARNING", logger="tracker.schedule"):
        assert nightly_job(sqlite_store.url, sources, tmp_path / "out") == 4
    [record] = [r for r in caplog.records if r.name == "tracker.schedule"]
    assert record.levelname == "WARNING"
    assert record.getMessage().startswith("nightly run ended with exit code 4: nightly: not run")


def test_two_nightlies_started_together_on_a_new_database_both_end_well(tmp_path):
    # Cron and a scheduler start together on a fresh SQLite file: both migrate at once. The
    # store serialises migrations (init_db holds the write lock), so the second finds the
    # schema current and then the nightly lock taken or free: exit 0 both, one schema.
    import subprocess
    import sys

    from tracker.store import Store

    sources = tmp_path / "sources.yaml"
    sources.write_text(EMPTY)
    url = f"sqlite:///{tmp_path / 'race.db'}"
    runs = [
        subprocess.Popen(
            [sys.executable, "-m", "tracker", "--db", url, "--sources", str(sources)]
            + ["nightly", "--out", str(tmp_path / f"out{n}")],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for n in range(2)
    ]
    for run in runs:
        out, err = run.communicate(timeout=120)
        assert run.returncode == 0, err
        assert "Traceback" not in err and "locked" not in err, err
    store = Store(url)
    assert store.current_revision() == store.head_revision()
    store.close()
