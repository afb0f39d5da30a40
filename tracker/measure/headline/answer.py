"""The headline answer: per regime, how far behind CUDA it is and whether the gap is closing.

Defined once (docs/methodology.md, "The headline answer") and taken, word for word and number
for number, by every output: the report's first screen, summary.json's ``answer``, the digest's
subject and first line per regime, `tracker lag --trend` and the view ``v_lag_trend`` (their
pooled "all projects" rows, which this is read from).

- **Pool**: every framework artifact under its project's primary definition, all projects
  pooled, day 0 at or before as-of (tracker.measure.stats.trend's POOLED rows; model families are
  another kind of artifact with their own figures).
- **Verdict**: the lag trend's (tracker.measure.stats.trend.slope_verdict): "closing" or "widening"
  only when the 90% interval of the Theil-Sen slope lies wholly on one side of zero.
- **Not observed**: the series of the pool's projects with day 0 in the window that the
  answer leaves out as unknown (no channel of the primary definition observed them),
  counted beside the artifacts and the open ones (tracker.measure.stats.trend.not_observed_counts).
- **Median**: the Kaplan-Meier median lag of the pooled artifacts whose day 0 is in the 12
  months before as-of (open ones censored at their age); when half or more of them are open it
  is not reached and the answer is "at least N d", N the lower median of their current lags.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import date, datetime, timedelta

from tracker.measure.lag.rows import Unknown
from tracker.measure.stats.trend import LAYERS, PERIOD_DAYS, POOLED, LagTrend

REFERENCE = "reference"  # the reference regime's verdict: lag 0 by definition
NO_DATA = "no lag data"
DEFINITION = "headline answer"  # the label every output shows beside it


@dataclass(frozen=True)
class Answer:
    """One regime's headline answer."""

    regime: str
    verdict: str
    median_days: float | None  # KM median lag, recent window; None: not reached (or no data)
    at_least_days: float | None  # not reached: the median is at least this
    artifacts: int  # artifacts with day 0 in the window ...
    open: int  # ... and how many of them are still open
    window_start: date  # first day of the window (day 0 after the day before this)
    window_end: date  # as-of's day
    pooled_artifacts: int = 0  # every pooled artifact the verdict's slope rests on
    pooled_open: int = 0
    # series with day 0 in the window (all of them: pooled) the answer leaves out as unknown:
    # no channel of their primary definition observed them (docs/methodology.md)
    # None: not counted for this kind (model families' unknown rows name no day-0 definition)
    not_observed: int | None = None
    pooled_not_observed: int | None = None

    def row(self) -> dict:
        """Plain values for summary.json and tests."""
        return {
            "regime": self.regime,
            "verdict": self.verdict,
            "median_days": self.median_days,
            "at_least_days": self.at_least_days,
            "artifacts": self.artifacts,
            "open": self.open,
            "window_start": self.window_start.isoformat(),
            "window_end": self.window_end.isoformat(),
            "pooled_artifacts": self.pooled_artifacts,
            "pooled_open": self.pooled_open,
            "not_observed": self.not_observed,
            "pooled_not_observed": self.pooled_not_observed,
        }


def answers(
    trends: Sequence[LagTrend],
    regimes: Iterable[str],
    reference: str,
    as_of: datetime,
    group: str = POOLED,
) -> list[Answer]:
    """One answer per regime of `regimes` (in that order), from the pooled lag trends (`group`:
    the pooled rows of another layer, stats.trend.LAYERS)."""
    end = as_of.date()
    start = (as_of - timedelta(days=PERIOD_DAYS)).date() + timedelta(days=1)
    pooled = {t.regime: t for t in trends if t.group == group}
    out = []
    for regime in regimes:
        t = pooled.get(regime)
        if regime == reference:
            out.append(Answer(regime, REFERENCE, 0.0, None, 0, 0, start, end))
        elif t is None:
            out.append(Answer(regime, NO_DATA, None, None, 0, 0, start, end))
        else:
            out.append(
                Answer(
                    regime,
                    t.verdict,
                    t.recent_median,
                    t.recent_at_least,
                    t.recent_artifacts,
                    t.recent_open,
                    start,
                    end,
                    t.artifacts,
                    t.open,
                    t.recent_not_observed,
                    t.not_observed,
                )
            )
    return out


NOT_MEASURED = "not measured"  # a layer a regime has no counterpart of: a reason, no number


@dataclass(frozen=True)
class LayerAnswer:
    """The headline answer of one layer on one regime: the same computation as the framework
    answer (:func:`answers` over the layer's pooled rows), with the layer's artifacts the
    evidence does not reach (``unknown``, left out of the number) and, for a regime the layer
    does not apply to, the stated reason instead of a number."""

    layer: str  # framework | kernel | model | collective (stats.trend.LAYERS)
    answer: Answer
    unknown: int = 0  # the layer's series on this regime the evidence does not reach
    reason: str = ""  # no number, and why (the collectives of Neuron and XLA)

    def row(self) -> dict:
        return {"layer": self.layer, "unknown": self.unknown, "reason": self.reason} | (
            self.answer.row()
        )


def layer_answers(
    trends: Sequence[LagTrend],
    regimes: Sequence[str],
    reference: str,
    as_of: datetime,
    unknown: Mapping[tuple[str, str], int] | None = None,
    reasons: Mapping[tuple[str, str], str] | None = None,
    layers: Iterable[str] = tuple(LAYERS),
) -> list[LayerAnswer]:
    """Per layer (in LAYERS' order, framework first: the lead) and regime, the answer of the
    layer's pooled rows; `unknown` counts per (layer, regime), `reasons` per (layer, regime)
    a regime the layer does not apply to (its answer then says NOT_MEASURED)."""
    unknown, reasons = unknown or {}, reasons or {}
    out = []
    for layer in layers:
        for a in answers(trends, regimes, reference, as_of, LAYERS[layer]):
            reason = reasons.get((layer, a.regime), "")
            if reason:
                a = replace(a, verdict=NOT_MEASURED, median_days=None, at_least_days=None)
            out.append(LayerAnswer(layer, a, unknown.get((layer, a.regime), 0), reason))
    return out


def unknown_by_layer(
    unknown: Iterable[Unknown],
    layer_of: Mapping[str, str],
    primary: Iterable[tuple[str, str, str]],
) -> dict[tuple[str, str], int]:
    """Per (layer, regime), the artifacts the evidence does not reach under the primary
    definition: `unknown` holds (project, series, regime, definition, reason) as the lag
    left them out, `layer_of` maps a project to its layer, `primary` the (project, regime,
    definition) that are primary. Distinct (project, series), whatever the reason."""
    wanted = set(primary)
    seen: set[tuple[str, str, str, str]] = set()
    for u in unknown:
        layer = layer_of.get(u.project)
        if layer is None or (u.project, u.regime, u.definition) not in wanted:
            continue
        seen.add((layer, u.regime, u.project, u.series))
    out: dict[tuple[str, str], int] = {}
    for layer, regime, _project, _series in seen:
        out[(layer, regime)] = out.get((layer, regime), 0) + 1
    return out
