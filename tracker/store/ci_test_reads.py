"""Reads behind the test-level CI figures (tracker.measure.ci.tests): every stored job test
report (``ci_tests`` events) with its counts and failing test names.

A mixin of `tracker.store.Store`.
"""

from __future__ import annotations

from contextlib import AbstractContextManager
from datetime import datetime
from typing import TYPE_CHECKING, Any

from sqlalchemy import Connection, and_, select

from tracker.store.tables import dated, events

TEST_REPORT_VIEW = "v_ci_test_pass_rate_weekly"


class CiTestReads:
    if TYPE_CHECKING:
        dialect: str

        def _connect(self) -> AbstractContextManager[Connection]: ...

    def ci_test_reports(self, as_of: datetime) -> list[dict[str, Any]]:
        """Every job test report filed under a date up to `as_of`: source_id, project, regime,
        job (its name), occurred_at (the nightly date), url and attrs (pipeline, build_number,
        counts, failing names, job_level). Far-dated reports are not read (tables.dated)."""
        query = select(
            events.c.source_id,
            events.c.project,
            events.c.regime,
            events.c.title.label("job"),
            events.c.occurred_at,
            events.c.url,
            events.c.attrs,
        ).where(
            and_(
                events.c.kind == "ci_tests",
                events.c.occurred_at <= as_of,
                dated(self.dialect),
            )
        )
        with self._connect() as conn:
            result = conn.execute(query)
            keys = tuple(result.keys())
            return [dict(zip(keys, values, strict=True)) for values in result]
