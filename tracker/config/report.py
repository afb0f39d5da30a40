"""The ``report:`` section of sources.yaml, checked once (by read_config) into ReportSettings."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tracker.config.preview import preview, unknown_key
from tracker.errors import ConfigError

DEFAULT_STALE_AFTER_DAYS = 45
DEFAULT_SILENT_AFTER_SERIES = 3
REPORT_KEYS = {"stale_after_days", "silent_after_series", "ignore_responders"}


@dataclass(frozen=True)
class ReportSettings:
    """How the report judges its evidence (docs/methodology.md, staleness)."""

    # a source whose newest stored event is more than this many days before as-of is stale
    stale_after_days: int = DEFAULT_STALE_AFTER_DAYS
    # a definition with no new evidence while upstream released this many series is a
    # silent channel (tracker.measure.lag.silent)
    silent_after_series: int = DEFAULT_SILENT_AFTER_SERIES
    # logins whose comments are never a first response (bots GitHub types as users), lower case
    # (docs/methodology.md, "Time to first response")
    ignore_responders: frozenset[str] = frozenset()


def parse_report_settings(raw: Any, file: str | Path) -> ReportSettings:
    """The ``report:`` mapping of sources.yaml (ConfigError names the file and the key)."""
    if raw is None:
        return ReportSettings()
    if not isinstance(raw, dict):
        raise ConfigError(f"{file}: 'report' must be a mapping, e.g. {{stale_after_days: 45}}")
    unknown = unknown_key(raw, REPORT_KEYS)
    if unknown:
        raise ConfigError(
            f"{file}: report: unknown key {unknown} (allowed: {', '.join(sorted(REPORT_KEYS))})"
        )
    days = raw.get("stale_after_days", DEFAULT_STALE_AFTER_DAYS)
    if isinstance(days, bool) or not isinstance(days, int) or days < 0:
        raise ConfigError(
            f"{file}: report: stale_after_days must be a whole number of days >= 0, "
            f"got {preview(days)}"
        )
    series = raw.get("silent_after_series", DEFAULT_SILENT_AFTER_SERIES)
    if isinstance(series, bool) or not isinstance(series, int) or series < 1:
        raise ConfigError(
            f"{file}: report: silent_after_series must be a whole number of series >= 1, "
            f"got {preview(series)}"
        )
    ignored = raw.get("ignore_responders", [])
    if not isinstance(ignored, list) or not all(isinstance(v, str) and v for v in ignored):
        raise ConfigError(
            f"{file}: report: ignore_responders must be a list of GitHub logins, "
            f"got {preview(ignored)}"
        )
    return ReportSettings(
        stale_after_days=days,
        silent_after_series=series,
        ignore_responders=frozenset(v.lower() for v in ignored),
    )
