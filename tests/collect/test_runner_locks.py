"""A source's lock held by another run: skipped when that run is alive on this host, failed
(named, exit 3) when it ran on another host, where it may have died holding it."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

from tracker.collect.runner import run_sources
from tracker.config import Config, SourceSpec
from tracker.store.tables import locks

# never fetched: the lock stops the source first
SPEC = SourceSpec(id="torch-pypi", kind="pypi", project="pytorch", options={"package": "torch"})
CONFIG = Config(Path("sources.yaml"), (), (SPEC,))


def test_a_source_locked_here_is_skipped_and_locked_elsewhere_fails_named(store):
    with store.lock("source:torch-pypi"):  # a live run in this process
        summary = run_sources(CONFIG, store)
    [result] = summary.results
    assert (result.status, summary.exit_code) == ("skipped", 0)
    assert "another run on this host" in result.error

    with store.transaction() as conn:
        conn.execute(
            locks.insert().values(
                name="source:torch-pypi",
                holder="collector-b.example:977:0f0f0f0f",
                acquired_at=datetime(2026, 3, 2, 1, 30, tzinfo=UTC),
                expires_at=datetime.now(UTC) + timedelta(hours=4),
            )
        )
    summary = run_sources(CONFIG, store)
    [result] = summary.results
    assert (result.status, summary.exit_code) == ("failed", 3)
    assert "held by collector-b.example:977:0f0f0f0f since 2026-03-02 01:30 until" in result.error
    assert "`tracker unlock source:torch-pypi`" in result.error
    assert any("torch-pypi" in line and "failed" in line for line in summary.lines())
