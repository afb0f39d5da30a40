"""Silent channels: definitions whose evidence stopped while upstream kept releasing
(docs/methodology.md, "Silent channels"). Vendors move the channels they ship through (AMD's
vLLM images to vLLM's own, PyTorch/XLA after 2.9 to TorchTPU): a definition that reads the old
channel then shows a lag that grows with every upstream series, which says more about the
channel than about the regime.

Per framework definition (project, regime, definition; the reference regime aside):

- ``last_evidence``: the newest date on which the definition covered a series (its covered
  rows' ``available``), or None when it never did;
- ``observed_through``: how far its evidence was looked at (measure.lag.windows);
- ``series_released_since``: upstream series of the project whose day 0 is after
  ``last_evidence`` (after the stream's first collected fact when there is none) and at or
  before as-of.

A definition with ``series_released_since >= silent_after_series`` (sources.yaml ``report:``,
default 3) is silent. Model families and kernel features are no upstream release series: no
silent channels there. Pure functions over lag samples; no I/O.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import date, datetime

from tracker.measure.lag.coverage import REFERENCE_DEFINITION
from tracker.measure.lag.rows import LagSample

HINT = "the channel may have moved: check where the vendor ships it now"


@dataclass(frozen=True)
class SilentChannel:
    project: str
    regime: str
    definition: str
    last_evidence: date | None
    observed_through: date | None
    series_released_since: int
    newest_series: str  # the newest upstream series released since

    def row(self) -> dict:
        """summary.json's ``silent_channels`` items."""
        return {
            "project": self.project,
            "regime": self.regime,
            "definition": self.definition,
            "last_evidence": self.last_evidence.isoformat() if self.last_evidence else None,
            "observed_through": (
                self.observed_through.isoformat() if self.observed_through else None
            ),
            "series_released_since": self.series_released_since,
            "newest_series": self.newest_series,
            "hint": HINT,
        }


def silent_channels(
    samples: Sequence[LagSample],
    spans: Mapping[tuple[str, str, str], tuple[datetime, datetime] | None],
    as_of: datetime,
    silent_after_series: int,
) -> list[SilentChannel]:
    """The silent framework definitions (module doc), most series behind first."""
    framework = [s for s in samples if s.artifact == "framework" and s.day0 <= as_of]
    upstream: dict[str, list[LagSample]] = {}
    mine: dict[tuple[str, str, str], list[LagSample]] = {}
    for s in framework:
        if s.definition == REFERENCE_DEFINITION:
            upstream.setdefault(s.project, []).append(s)
        else:
            mine.setdefault((s.project, s.regime, s.definition), []).append(s)
    keys = set(mine) | {k for k in spans if k[0] in upstream and k[2] != REFERENCE_DEFINITION}
    out = []
    for key in keys:
        rows = mine.get(key, [])
        covered = [s.available for s in rows if s.status == "covered" and s.available]
        last = max(covered) if covered else None
        span = spans.get(key)
        since = last or (span[0] if span else None)
        if since is None:
            continue  # nothing collected from the stream: the unknown list says so
        released = sorted(
            (s for s in upstream.get(key[0], []) if s.day0.date() > since.date()),
            key=lambda s: s.day0,
        )
        if len(released) < silent_after_series:
            continue
        seen = [s.observed_through for s in rows if s.observed_through]
        out.append(
            SilentChannel(
                *key,
                last.date() if last else None,
                min(seen).date() if seen else None,
                len(released),
                released[-1].series,
            )
        )
    return sorted(out, key=lambda c: (-c.series_released_since, c.project, c.regime, c.definition))
