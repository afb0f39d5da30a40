"""The rows of the lag engine, built in one place for every kind of artifact: a lag row from
the one decision (:func:`lag_row`), a combined definition's row from :func:`combine`'s result
(:func:`combined_row`), and the run that records what the lag leaves out (:class:`LagRun`,
its :class:`Unknown` records) and how far each definition's evidence reaches (its spans).

A kind (framework series, model family, kernel feature, collective series) declares its facts,
its definitions and its channels and calls these; it does not build a row by hand. A rule of
day 0 or of a row's fields that every kind shares belongs here.

Pure functions; no I/O.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import Any, NamedTuple

from tracker.measure.lag.coverage import REFERENCE_DEFINITION
from tracker.measure.lag.decision import COVERED, OPEN, CombinedDecision, Decision, days


@dataclass(frozen=True)
class LagSample:
    """One artifact on one regime under one definition: a row of `tracker lag`."""

    project: str
    series: str
    regime: str
    definition: str
    primary: bool
    day0: datetime
    day0_url: str
    available: datetime | None
    lag_days: int
    status: str  # covered | open
    evidence_url: str
    negative: bool = False
    artifact: str = "framework"  # framework (a release series) | model (a model family)
    day0_definition: str = REFERENCE_DEFINITION  # models: engine_cuda | vllm_cuda | public_weights
    # models: the serving engine whose evidence this row reads ("vllm", "sglang"); "" for rows
    # of one vendor stream or of "any engine" (not a CSV column: lag.csv keeps its columns)
    engine: str = ""
    # how far the definition's evidence was looked at (measure.lag.windows): an open row's lag is
    # observed_through - day0; None on the reference rows (day 0 itself)
    observed_through: datetime | None = None
    covered_by: str = ""  # the newer series whose evidence covers this one (lag.supersession)
    # an earliest-build row (tracker.measure.lag.channels): the channel definition whose evidence
    # came first; "" for other rows and for open ones
    channel: str = ""
    # the kind of record that dated a covered row (tracker.measure.lag.builds.label_rows):
    # release, note, configuration commit, issue, comment, page revision; "" on open rows
    evidence_kind: str = ""

    def csv_row(self) -> dict[str, Any]:
        return {
            "project": self.project,
            "series": self.series,
            "regime": self.regime,
            "definition": self.definition,
            "primary": str(self.primary).lower(),
            "day0": self.day0.date().isoformat(),
            "available": self.available.date().isoformat() if self.available else "",
            "lag_days": self.lag_days,
            "status": self.status,
            "evidence_url": self.evidence_url,
            # after the original columns, so a reader of columns by position is not misled
            "artifact": self.artifact,
            "day0_definition": self.day0_definition,
            "observed_through": (
                self.observed_through.date().isoformat() if self.observed_through else ""
            ),
            "covered_by": self.covered_by,
            "channel": self.channel,
            "evidence_kind": self.evidence_kind,
        }


LAG_CSV_COLUMNS = [
    "project",
    "series",
    "regime",
    "definition",
    "primary",
    "day0",
    "available",
    "lag_days",
    "status",
    "evidence_url",
    "artifact",
    "day0_definition",
    "observed_through",
    "covered_by",
    "channel",
    "evidence_kind",
]


# The regime of an artifact whose day 0 itself is unknown: it is unknown on every regime (how
# summary.json and data_quality.csv name it).
EVERY_REGIME = "all"

Span = tuple[datetime, datetime] | None  # first and last fact collected from a stream


class Unknown(NamedTuple):
    """An artifact the lag leaves out, with the reason: on one regime under one definition, or
    on every regime (:attr:`day0_unknown`: its day 0 under ``definition`` is not known)."""

    project: str
    series: str
    regime: str
    definition: str
    reason: str

    @property
    def day0_unknown(self) -> bool:
        """Its day 0 is unknown: left out on every regime, not on one."""
        return self.regime == EVERY_REGIME

    def row(self) -> dict[str, str]:
        """The record as summary.json's ``lag_unknown`` lists it."""
        return dict(self._asdict())


@dataclass
class LagRun:
    """What one computation of the lag records beside its rows: the artifacts it leaves out
    (`unknown`, in the order decided) and each (project, regime, definition)'s evidence span
    (`spans`: its first and last fact collected; None when nothing was)."""

    unknown: list[Unknown] = field(default_factory=list)
    spans: dict[tuple[str, str, str], Span] = field(default_factory=dict)

    def leave_out(
        self, project: str, series: str, regime: str, definition: str, reason: str
    ) -> None:
        """An artifact unknown on one regime under one definition."""
        self.unknown.append(Unknown(project, series, regime, definition, reason))

    def no_day0(self, project: str, series: str, day0_definition: str, reason: str) -> None:
        """An artifact whose day 0 under `day0_definition` is unknown: unknown on every regime."""
        self.unknown.append(
            Unknown(project, series, EVERY_REGIME, day0_definition, f"day 0 unknown: {reason}")
        )

    def span(self, project: str, regime: str, definition: str, span: Span) -> None:
        self.spans[(project, regime, definition)] = span


def due(
    day0s: Mapping[str, tuple[datetime, str]], as_of: datetime
) -> list[tuple[str, datetime, str]]:
    """The as-of cut of day 0, for every kind: the artifacts (key, day 0, its URL) whose day 0
    is by `as_of`, oldest first; one released later is not yet an artifact."""
    ordered = sorted(day0s.items(), key=lambda kv: kv[1][0])
    return [(key, day0, url) for key, (day0, url) in ordered if day0 <= as_of]


def lag_row(
    *,
    project: str,
    series: str,
    regime: str,
    definition: str,
    primary: bool,
    day0: datetime,
    day0_url: str,
    found: Decision | None = None,
    artifact: str = "framework",
    day0_definition: str = REFERENCE_DEFINITION,
    engine: str = "",
    observed_through: datetime | None = None,
) -> LagSample:
    """The row of one artifact on one regime under one definition, from its decision (`found`:
    covered or open; None: the reference row, day 0 itself, lag 0 on its own evidence).
    `observed_through`: how far the definition's evidence was looked at (the kind says which
    window: usually the decision's, ``found.through``; None on the reference row). A covered
    lag below 0 is kept, flagged ``negative``."""
    if found is None:
        found = Decision(COVERED, 0, day0, day0_url)
    return LagSample(
        project=project,
        series=series,
        regime=regime,
        definition=definition,
        primary=primary,
        day0=day0,
        day0_url=day0_url,
        available=found.available,
        lag_days=found.lag_days,
        status=found.status,
        evidence_url=found.url,
        negative=found.status == COVERED and found.lag_days < 0,
        artifact=artifact,
        day0_definition=day0_definition,
        engine=engine,
        observed_through=observed_through,
        covered_by=found.covered_by,
    )


def combined_row(
    found: CombinedDecision[LagSample], definition: str, primary: bool, name_channel: bool
) -> LagSample:
    """A combined definition's row from :func:`combine`'s covered or open result: the channel
    row it rests on under the combined definition, observed through the latest watching
    channel's window; an open row's lag censored there. `name_channel`: a covered row names
    the channel whose evidence came first (the framework's install channels)."""
    row = found.row
    assert row is not None  # an unknown result has no row: the caller leaves it out
    lag = row.lag_days
    if found.status == OPEN and found.through is not None:
        lag = days(found.through, row.day0)
    channel = row.definition if name_channel and found.status == COVERED else ""
    return replace(
        row,
        definition=definition,
        primary=primary,
        engine="",
        lag_days=lag,
        observed_through=found.through,
        channel=channel,
    )
