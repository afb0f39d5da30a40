"""The headline series: each regime's day-0 lag per quarter of day 0 (the report's first chart),
and the comparison of its quarterly cohorts (:func:`compare_cohorts`; worded by
tracker.present.cohort_words; the headline answer itself is tracker.measure.headline.answer's).

Pool: every framework artifact under its project's primary definition (the pool of the trend
table, tracker.measure.stats.trend; model families are another kind of artifact and stay out).
Period: the calendar quarter of the artifact's day 0 (a cohort by release date, not by the date
support appeared). Per regime and quarter: the Kaplan-Meier median lag (open artifacts
censored at their age, so they can never pull it down), the number of artifacts and of open
ones, and ``bound``: the lower median of the current lags, the least the median can still be
once every open artifact is covered (an open lag only grows). When more than half are still
open the median is "not reached" and ``bound`` is all that can be said ("at least N d").

The digest draws the same quantity at each week's end (:func:`median_point` over every
artifact known then), so one function computes both.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import date, datetime, timedelta

from tracker.measure.lag.rows import LagSample
from tracker.measure.stats.survival import lower_median, median_lag, quarter

MIN_POINT_ARTIFACTS = (
    3  # a quarter with fewer artifacts is drawn but never starts or ends a verdict
)
VERDICT_QUARTERS = 4  # the verdict compares the first and last of the last 4 complete quarters
SHORTER, LONGER, CANNOT_TELL, TOO_FEW, UNCHANGED = (
    "shorter",
    "longer",
    "cannot tell yet",
    "too few artifacts",
    "unchanged",
)


@dataclass(frozen=True)
class MedianPoint:
    """One regime's pooled lag over one period (a quarter of day 0, or a digest week's end)."""

    regime: str
    period: str  # "2025-Q3" | "2026-W33"
    start: date  # first day of the period (where a chart puts it)
    artifacts: int
    open: int
    open_stale: int  # open artifacts whose evidence stream is stale (they age with its silence)
    median: float | None  # KM median lag in days; None = not reached (half or more still open)
    bound: float | None  # lower median of the current lags: the median is at least this
    projects: tuple[str, ...] = ()

    @property
    def reached(self) -> bool:
        return self.median is not None

    def row(self) -> dict:
        """Plain values for CSV / JSON."""
        return {
            "regime": self.regime,
            "period": self.period,
            "period_start": self.start.isoformat(),
            "artifacts": self.artifacts,
            "open": self.open,
            "open_on_stale_stream": self.open_stale,
            "km_median_days": "" if self.median is None else self.median,
            "at_least_days": "" if self.bound is None else self.bound,
            "projects": " ".join(self.projects),
        }


def pooled(samples: Iterable[LagSample]) -> list[LagSample]:
    """The headline pool: framework artifacts under their project's primary definition."""
    return [s for s in samples if s.primary and s.artifact == "framework"]


def median_point(
    samples: Sequence[LagSample],
    regime: str,
    period: str,
    start: date,
    stale_keys: frozenset[tuple[str, str, str]] | set = frozenset(),
) -> MedianPoint:
    """The pooled point of `samples` (already the regime's and the period's)."""
    return MedianPoint(
        regime,
        period,
        start,
        len(samples),
        sum(s.status == "open" for s in samples),
        sum(
            s.status == "open" and (s.project, s.regime, s.definition) in stale_keys
            for s in samples
        ),
        median_lag(samples),
        lower_median([s.lag_days for s in samples]),
        tuple(sorted({s.project for s in samples})),
    )


def quarter_start(label: str) -> date:
    year, _, q = label.partition("-Q")
    return date(int(year), 3 * int(q) - 2, 1)


def _quarters(first: date, last: date) -> list[str]:
    out, when = [], date(first.year, 3 * ((first.month - 1) // 3) + 1, 1)
    while when <= last:
        out.append(quarter(datetime(when.year, when.month, 1)))
        when = date(when.year + (when.month + 3 > 12), (when.month + 2) % 12 + 1, 1)
    return out


def quarterly_series(
    samples: Sequence[LagSample],
    as_of: datetime,
    stale_keys: frozenset[tuple[str, str, str]] | set = frozenset(),
) -> dict[str, list[MedianPoint]]:
    """Per regime, one point per quarter of day 0 from the regime's first artifact to the
    quarter of `as_of` (a quarter without artifacts is a point with 0 artifacts, so a chart
    shows the gap instead of joining across it)."""
    groups: dict[str, dict[str, list[LagSample]]] = defaultdict(lambda: defaultdict(list))
    for s in pooled(samples):
        if s.day0 <= as_of:
            groups[s.regime][quarter(s.day0)].append(s)
    out = {}
    for regime, by_quarter in groups.items():
        first = quarter_start(min(by_quarter))
        out[regime] = [
            median_point(by_quarter.get(q, []), regime, q, quarter_start(q), stale_keys)
            for q in _quarters(first, as_of.date())
        ]
    return out


@dataclass(frozen=True)
class CohortComparison:
    """The quarterly cohorts' comparison beside the headline chart (worded by
    tracker.present.cohort_words): over the last VERDICT_QUARTERS complete quarters, the first
    and last with at least MIN_POINT_ARTIFACTS artifacts."""

    direction: str  # SHORTER | LONGER | UNCHANGED | CANNOT_TELL | TOO_FEW
    span: tuple[str, str] | None  # the window's first and last quarter (None: no quarters)
    counted: int  # artifacts in the window
    first: MedianPoint | None = None  # the usable ends (None with TOO_FEW)
    last: MedianPoint | None = None
    young: MedianPoint | None = None  # CANNOT_TELL: the end whose median is not reached
    stale: bool = False  # the last end's open artifacts wait mostly on stale streams


def compare_cohorts(points: Sequence[MedianPoint], as_of: datetime) -> CohortComparison:
    """The direction over the last VERDICT_QUARTERS complete quarters before the quarter of
    `as_of` (whose artifacts are weeks old): the first and last with at least
    MIN_POINT_ARTIFACTS artifacts. "shorter" / "longer" only when the numbers say so whatever
    the open artifacts' final lags: an unreached median is only a lower bound, so it can show
    "longer" but never "shorter"."""
    running = quarter(as_of)
    window = [p for p in points if p.period < running][-VERDICT_QUARTERS:]
    usable = [p for p in window if p.artifacts >= MIN_POINT_ARTIFACTS]
    span = (window[0].period, window[-1].period) if window else None
    counted = sum(p.artifacts for p in window)
    if len(usable) < 2:
        return CohortComparison(TOO_FEW, span, counted)
    first, last = usable[0], usable[-1]
    if first.median is not None and last.median is not None:
        direction = (
            SHORTER
            if last.median < first.median
            else LONGER
            if last.median > first.median
            else UNCHANGED
        )
    elif last.median is None and first.median is not None and last.bound is not None:
        direction = LONGER if last.bound > first.median else CANNOT_TELL
    elif first.median is None and last.median is not None and first.bound is not None:
        direction = SHORTER if last.median < first.bound else CANNOT_TELL
    else:
        direction = CANNOT_TELL
    young = (last if last.median is None else first) if direction == CANNOT_TELL else None
    stale = bool(last.open_stale and last.open_stale * 2 >= last.artifacts and direction != SHORTER)
    return CohortComparison(
        CANNOT_TELL if stale else direction, span, counted, first, last, young, stale
    )


def latest_reached(points: Sequence[MedianPoint]) -> MedianPoint | None:
    """The newest point with a median (what a reader asks for when the newest ones are open)."""
    return next((p for p in reversed(points) if p.median is not None), None)


def week_points(
    samples_by_end: Sequence[tuple[str, date, Sequence[LagSample]]], regime: str
) -> list[MedianPoint]:
    """The digest's series: per (week name, week start, samples as of the week's end), the
    regime's pooled point over every artifact known then."""
    return [
        median_point([s for s in pooled(group) if s.regime == regime], regime, name, start)
        for name, start, group in samples_by_end
    ]


YEAR_AGO = timedelta(weeks=52)  # the digest's comparison: the same ISO weeks a year before
