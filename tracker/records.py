"""Frozen records passed between stages: collectors yield Events, the store keeps them."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any, Mapping

EVENT_KINDS = ("release", "note", "issue", "ci_run", "ci_job")
REGIME_NONE = "none"


def event_id(source_id: str, external_id: str) -> str:
    """Stable id of an event: re-collecting the same item never duplicates it."""
    digest = hashlib.sha256(f"{source_id}\x00{external_id}".encode()).hexdigest()
    return digest[:32]


def now_utc() -> datetime:
    """The current time, timezone-aware UTC."""
    return datetime.now(timezone.utc)


def utc(value: datetime) -> datetime:
    """Return `value` as an aware UTC datetime (naive values are taken to be UTC)."""
    if value.tzinfo is None:
        return value.replace(tzinfo=timezone.utc)
    return value.astimezone(timezone.utc)


def parse_time(value: str | None) -> datetime | None:
    """An ISO 8601 timestamp from an API ("2025-12-19T03:02:22Z", "...+08:00", naive = UTC) as
    aware UTC; None when missing or unreadable (the caller skips or falls back, never guesses)."""
    if not value or not isinstance(value, str):
        return None
    try:
        return utc(datetime.fromisoformat(value.replace("Z", "+00:00")))
    except ValueError:
        return None


@dataclass(frozen=True)
class Event:
    """One dated, sourced fact (DESIGN.md section 2).

    `kind` is one of EVENT_KINDS. `ci_job` is one job of a CI run: its `regime` is where the job
    ran, which can differ from its run's. `outcome` is the normalised result used by the pass-rate
    view: "passed", "failed" or None (not counted). `state` keeps the raw state / conclusion or
    issue state. `updated_at` is what the runner's cursor follows (defaults to occurred_at).
    """

    source_id: str
    project: str
    kind: str
    external_id: str
    occurred_at: datetime
    title: str
    body: str = ""
    url: str = ""
    version: str | None = None
    regime: str | None = None
    labels: tuple[str, ...] = ()
    state: str | None = None
    outcome: str | None = None
    ended_at: datetime | None = None
    updated_at: datetime | None = None
    attrs: Mapping[str, Any] = field(default_factory=dict)
    id: str = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if self.kind not in EVENT_KINDS:
            raise ValueError(f"unknown event kind {self.kind!r}")
        object.__setattr__(self, "occurred_at", utc(self.occurred_at))
        for name in ("ended_at", "updated_at"):
            value = getattr(self, name)
            if value is not None:
                object.__setattr__(self, name, utc(value))
        object.__setattr__(self, "labels", tuple(self.labels))
        object.__setattr__(self, "id", event_id(self.source_id, self.external_id))

    @property
    def cursor_time(self) -> datetime:
        """The timestamp the runner's incremental cursor follows."""
        return self.updated_at or self.occurred_at
