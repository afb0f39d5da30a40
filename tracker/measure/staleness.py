"""Staleness: a source whose newest stored event is more than ``stale_after_days`` (the
sources.yaml key ``report: {stale_after_days: N}``, default 45) before as-of is stale: its open
rows are then as old as the stream, not as the artifact, and the report says so."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from pathlib import Path
from typing import Any

from tracker.errors import ConfigError

DEFAULT_STALE_AFTER_DAYS = 45
# Kinds whose source is one fixed document (an MLPerf round): its newest fact is as old as the
# document by nature, never a sign that collection stopped.
FIXED_DOCUMENT_KINDS = ("mlperf_inference",)
REPORT_KEYS = {"stale_after_days"}


def validate_report_settings(raw: Any, file: str | Path) -> dict[str, Any]:
    """The ``report:`` mapping of sources.yaml, checked like the rest (ConfigError names the
    file and the key)."""
    if raw is None:
        return {}
    if not isinstance(raw, dict):
        raise ConfigError(f"{file}: 'report' must be a mapping, e.g. {{stale_after_days: 45}}")
    unknown = set(raw) - REPORT_KEYS
    if unknown:
        raise ConfigError(
            f"{file}: report: unknown key {sorted(unknown)[0]!r} "
            f"(allowed: {', '.join(sorted(REPORT_KEYS))})"
        )
    days = raw.get("stale_after_days", DEFAULT_STALE_AFTER_DAYS)
    if isinstance(days, bool) or not isinstance(days, int) or days < 0:
        raise ConfigError(
            f"{file}: report: stale_after_days must be a whole number of days >= 0, got {days!r}"
        )
    return dict(raw)


def stale_after_days(settings: Mapping[str, Any] | None) -> int:
    return int((settings or {}).get("stale_after_days", DEFAULT_STALE_AFTER_DAYS))


def stale_sources(store, config, as_of: datetime) -> list[dict[str, Any]]:
    """Sources whose newest stored event is more than stale_after_days before `as_of`, oldest
    stream first: source, project, regime, last evidence date, days behind as-of."""
    limit = stale_after_days(getattr(config, "report", None))
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
    settings: Mapping[str, Any] | None,
) -> set[tuple[str, str, str]]:
    """(project, regime, definition) whose evidence stream ends stale_after_days before as-of:
    their open rows age with the stream's silence, not with upstream's."""
    limit = stale_after_days(settings)
    return {
        key for key, span in spans.items() if span and (as_of.date() - span[1].date()).days > limit
    }
