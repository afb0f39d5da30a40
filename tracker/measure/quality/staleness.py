"""Staleness: a source whose newest stored event is more than ``stale_after_days`` (the
sources.yaml key ``report: {stale_after_days: N}``, default 45, read by tracker.config.report)
before as-of is stale: its open rows are then as old as the stream, not as the artifact, and
the report says so."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import Any

from tracker.config.report import ReportSettings

# Kinds whose source is one fixed document (an MLPerf round): its newest fact is as old as the
# document by nature, never a sign that collection stopped.
FIXED_DOCUMENT_KINDS = ("mlperf_inference",)


def stale_sources(store, config, as_of: datetime) -> list[dict[str, Any]]:
    """Sources whose newest stored event is more than stale_after_days before `as_of`, oldest
    stream first: source, project, regime, last evidence date, days behind as-of."""
    limit = config.report.stale_after_days
    specs = {s.id: s for s in config.sources}
    out = []
    for source_id, last in store.newest_evidence(as_of).items():
        if source_id not in specs or specs[source_id].kind in FIXED_DOCUMENT_KINDS:
            continue
        behind = (as_of.date() - last.date()).days
        if behind > limit:
            spec = specs[source_id]
            out.append(
                {
                    "source_id": source_id,
                    "project": spec.project,
                    "regime": spec.regime or "",
                    "last_evidence": last.date().isoformat(),
                    "days_behind": behind,
                    "stale_after_days": limit,
                }
            )
    return sorted(out, key=lambda r: (-r["days_behind"], r["source_id"]))


def stale_definitions(
    spans: Mapping[tuple[str, str, str], tuple[datetime, datetime] | None],
    as_of: datetime,
    settings: ReportSettings,
) -> set[tuple[str, str, str]]:
    """(project, regime, definition) whose evidence stream ends stale_after_days before as-of:
    their open rows age with the stream's silence, not with upstream's."""
    limit = settings.stale_after_days
    return {
        key for key, span in spans.items() if span and (as_of.date() - span[1].date()).days > limit
    }
