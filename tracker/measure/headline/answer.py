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

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import date, datetime, timedelta

from tracker.measure.stats.trend import PERIOD_DAYS, POOLED, LagTrend

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
    not_observed: int = 0
    pooled_not_observed: int = 0

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
    trends: Sequence[LagTrend], regimes: Iterable[str], reference: str, as_of: datetime
) -> list[Answer]:
    """One answer per regime of `regimes` (in that order), from the pooled lag trends."""
    end = as_of.date()
    start = (as_of - timedelta(days=PERIOD_DAYS)).date() + timedelta(days=1)
    pooled = {t.regime: t for t in trends if t.group == POOLED}
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
                    t.recent_not_observed or 0,
                    t.not_observed or 0,
                )
            )
    return out
