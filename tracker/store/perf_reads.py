"""Reads and writes behind "Delivered performance": the stored MLPerf results (events of kind
`result`, MLPerf Training result sets of kind `training_result`), the table perf_parity that the
view v_perf_parity reads and perf_training that v_perf_training reads.

A mixin of `tracker.store.Store`, like tracker.store.reads.
"""

from __future__ import annotations

from contextlib import AbstractContextManager
from datetime import datetime
from typing import TYPE_CHECKING, Any

from sqlalchemy import Connection, select

from tracker.events import utc
from tracker.store.perf_tables import perf_format_adoption, perf_training
from tracker.store.tables import dated, events, perf_parity


class PerfReads:
    if TYPE_CHECKING:
        dialect: str

        def _connect(self) -> AbstractContextManager[Connection]: ...
        def transaction(self) -> AbstractContextManager[Connection]: ...

    def perf_results(self, as_of: datetime, kind: str = "result") -> list[dict[str, Any]]:
        """Every stored benchmark result (events of `kind`: "result" for MLPerf Inference rows,
        "training_result" for MLPerf Training result sets) published at or before `as_of` (and
        not far-dated: tables.dated) and not vanished:
        attrs, occurred_at (the round's date), url, version (the round), first_seen_at."""
        query = (
            select(
                events.c.attrs,
                events.c.occurred_at,
                events.c.url,
                events.c.version,
                events.c.first_seen_at,
            )
            .where(
                events.c.kind == kind,
                events.c.occurred_at <= as_of,
                events.c.vanished_at.is_(None),
                dated(self.dialect),
            )
            .order_by(events.c.occurred_at, events.c.id)
        )
        with self._connect() as conn:
            rows = [dict(r) for r in conn.execute(query).mappings()]
        for row in rows:
            row["occurred_at"], row["first_seen_at"] = (
                utc(row["occurred_at"]),
                utc(row["first_seen_at"]),
            )
        return rows

    def replace_perf_parity(self, rows: list[dict]) -> None:
        """Swap in the parity rows of one report run (one transaction: readers see old or new)."""
        with self.transaction() as conn:
            conn.execute(perf_parity.delete())
            if rows:
                conn.execute(perf_parity.insert(), rows)

    def replace_perf_training(self, rows: list[dict], adoption: list[dict] | None = None) -> None:
        """Swap in the training rows and the format-adoption rows of one report run (one
        transaction)."""
        with self.transaction() as conn:
            conn.execute(perf_training.delete())
            if rows:
                conn.execute(perf_training.insert(), rows)
            conn.execute(perf_format_adoption.delete())
            if adoption:
                conn.execute(perf_format_adoption.insert(), adoption)
