"""The `digest:` section of sources.yaml, checked once (by read_config) into Thresholds: an
unknown key or a value of the wrong type is a ConfigError naming the file and the key."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, fields
from typing import Any

from tracker.config.preview import preview
from tracker.errors import ConfigError


@dataclass(frozen=True)
class Thresholds:
    """When a number "crossed a threshold" in the digest's week (all configurable)."""

    # CI job pass rate this week more than this many percentage points below the previous 4 weeks
    pass_rate_drop_points: float = 10.0
    # an open artifact whose age passed this many days during the week
    open_age_days: int = 30
    # a regime's median lag (primary definitions) grew by more than this many days in the week
    median_growth_days: float = 0.0
    # data quality: a source that has not succeeded for this many days is listed
    stale_source_days: float = 3.0
    # friction / optimization events linked per regime and class
    top_events: int = 3
    # weeks of history in the charts
    chart_weeks: int = 12
    # a CI job broke when it failed this many nightly builds in a row (measure.ci.jobs)
    ci_broken_nights: int = 3


_INTEGERS = {"open_age_days", "top_events", "chart_weeks", "ci_broken_nights"}


def parse_thresholds(raw: Any, file: str = "sources.yaml") -> Thresholds:
    """The `digest:` section as Thresholds; ConfigError naming file and key when it is wrong."""
    if raw is None:
        return Thresholds()
    if not isinstance(raw, Mapping):
        raise ConfigError(f"{file}: 'digest' must be a mapping of threshold settings")
    known = {f.name for f in fields(Thresholds)}
    values: dict[str, Any] = {}
    for key, value in raw.items():
        if key not in known:
            raise ConfigError(
                f"{file}: digest: unknown key {preview(key)} (allowed: {', '.join(sorted(known))})"
            )
        integer = key in _INTEGERS
        wrong_type = isinstance(value, bool) or not isinstance(
            value, int if integer else (int, float)
        )
        if wrong_type or value < 0:
            kind = "a whole number" if integer else "a number"
            raise ConfigError(
                f"{file}: digest: key {preview(key)}: expected {kind} >= 0, got {preview(value)}"
            )
        values[key] = value
    return Thresholds(**values)
