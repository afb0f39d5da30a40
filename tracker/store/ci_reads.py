"""Reads and writes behind CI job health and parity (tracker.measure.ci.health, ci_parity):
every concluded CI job with its build, and the two derived tables each report rewrites
(``ci_job_health``, ``ci_parity``: what the views ``v_ci_job_health`` and ``v_ci_parity`` read).

A mixin of `tracker.store.Store`.
"""

from __future__ import annotations

from contextlib import AbstractContextManager
from datetime import datetime
from typing import TYPE_CHECKING, Any

from sqlalchemy import Connection, and_, func, select

from tracker.store.tables import ci_job_health, ci_parity, dated, events, known_time
from tracker.store.time_order import in_order

# Buildkite jobs name their build by number, Actions jobs their run by id; the agent queue
# (Buildkite) or the first runner label (Actions) is where a job without a GPU tag ran.
_BUILD = func.coalesce(
    events.c.attrs["build_number"].as_string(), events.c.attrs["run_id"].as_string()
)
_QUEUE = func.coalesce(
    events.c.attrs["queue"].as_string(), events.c.attrs[("runner_labels", 0)].as_string()
)


class CiReads:
    if TYPE_CHECKING:
        dialect: str

        def _connect(self) -> AbstractContextManager[Connection]: ...
        def transaction(self) -> AbstractContextManager[Connection]: ...

    def ci_job_runs(self, as_of: datetime) -> list[dict[str, Any]]:
        """Every CI job judged passed or failed that concluded by `as_of`: source_id, project,
        job (its name), regime, outcome, build, built_at (the build's creation time), occurred_at,
        url, queue, trigger. Canceled and superseded jobs have no outcome: not read; nor are
        far-dated jobs (tables.dated), and a far build time is read as none (the job's own)."""
        query = select(
            events.c.source_id,
            events.c.project,
            events.c.title.label("job"),
            events.c.regime,
            events.c.outcome,
            _BUILD.label("build"),
            known_time(self.dialect, events.c.updated_at).label("built_at"),
            events.c.occurred_at,
            events.c.url,
            _QUEUE.label("queue"),
            events.c.attrs["trigger"].as_string().label("trigger"),
        ).where(
            and_(
                events.c.kind == "ci_job",
                events.c.outcome.in_(("passed", "failed")),
                events.c.occurred_at <= as_of,
                dated(self.dialect),
                in_order(),  # a job ended before it started (store.time_order)
            )
        )
        with self._connect() as conn:
            result = conn.execute(query)
            keys = tuple(result.keys())
            # tuples, not mappings: a mapping per row costs more than the row (a store holds
            # hundreds of jobs per nightly build)
            return [dict(zip(keys, values, strict=True)) for values in result]

    def replace_ci_health(self, jobs: list[dict], parity: list[dict]) -> None:
        """Swap in one report's job health and parity rows (one transaction)."""
        with self.transaction() as conn:
            conn.execute(ci_job_health.delete())
            conn.execute(ci_parity.delete())
            if jobs:
                conn.execute(ci_job_health.insert(), jobs)
            if parity:
                conn.execute(ci_parity.insert(), parity)
