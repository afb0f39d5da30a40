"""Summaries of lag samples: the Kaplan-Meier median (open artifacts censored, never dropped)
and the per-quarter / all-time summaries with the share covered within 7, 30 and 90 days."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from fractions import Fraction

from tracker.measure.lag.coverage import REFERENCE_DEFINITION
from tracker.measure.lag.rows import LagSample


def kaplan_meier_median(durations: Iterable[tuple[float, bool]]) -> float | None:
    """Median of a right-censored sample: (duration, observed) pairs; observed=False means
    still open at that duration. None when the survival curve never reaches 0.5 (more than
    half are still open past the longest observed lag)."""
    return kaplan_meier_quantile(durations, Fraction(1, 2))


def kaplan_meier_quantile(durations: Iterable[tuple[float, bool]], share: Fraction) -> float | None:
    """The `share` quantile of a right-censored sample (1/2: the median, 9/10: the 90th
    percentile): the first duration at which the Kaplan-Meier survival falls to 1 - share or
    below. None when it never does (too many still open past the longest observed one)."""
    data = sorted(durations, key=lambda d: (d[0], not d[1]))
    at_risk = len(data)
    survival = Fraction(1)  # exact: with floats, 12 of 24 left gave 0.5000000000000001 > 0.5
    threshold = 1 - Fraction(share)
    index = 0
    while index < len(data):
        time = data[index][0]
        events = censored = 0
        while index < len(data) and data[index][0] == time:
            if data[index][1]:
                events += 1
            else:
                censored += 1
            index += 1
        if events:
            survival *= Fraction(at_risk - events, at_risk)
            if survival <= threshold:
                return time
        at_risk -= events + censored
    return None


def median_lag(samples: Iterable[LagSample]) -> float | None:
    """Kaplan-Meier median lag of lag samples: covered ones observed, open ones censored at
    their lag so far. None when there are none or more than half stay open."""
    return kaplan_meier_median((s.lag_days, s.status == "covered") for s in samples)


def quarter(when: datetime) -> str:
    return f"{when.year}-Q{(when.month - 1) // 3 + 1}"


@dataclass(frozen=True)
class LagSummary:
    """Per regime and definition (and quarter of day 0, or "all")."""

    project: str
    regime: str
    definition: str
    primary: bool
    period: str
    artifacts: int
    covered: int
    open: int
    km_median_days: float | None
    within: Mapping[int, tuple[int, int]]  # N -> (covered within N days, artifacts old enough)
    artifact: str = "framework"
    day0_definition: str = REFERENCE_DEFINITION


def summarize(
    samples: Sequence[LagSample], as_of: datetime, by_quarter: bool = True
) -> list[LagSummary]:
    """KM median lag and shares covered within 7 / 30 / 90 days, per (project, regime,
    definition) overall and per quarter of day 0. The share within N days counts only
    artifacts at least N days old, so young open artifacts do not read as failures."""
    groups: dict[tuple[str, str, str, bool, str, str, str], list[LagSample]] = defaultdict(list)
    for s in samples:
        key = (s.project, s.regime, s.definition, s.primary)
        tail = (s.artifact, s.day0_definition)  # two day-0 definitions of models stay apart
        groups[(*key, "all", *tail)].append(s)
        if by_quarter:
            groups[(*key, quarter(s.day0), *tail)].append(s)
    out = []
    for group_key, group in sorted(groups.items()):
        project, regime, definition, primary, period, artifact, day0_definition = group_key
        within = {}
        for days in (7, 30, 90):
            old_enough = [s for s in group if (as_of.date() - s.day0.date()).days >= days]
            hits = sum(1 for s in old_enough if s.status == "covered" and s.lag_days <= days)
            within[days] = (hits, len(old_enough))
        out.append(
            LagSummary(
                project,
                regime,
                definition,
                primary,
                period,
                len(group),
                sum(s.status == "covered" for s in group),
                sum(s.status == "open" for s in group),
                # negative lags (support announced before day 0) enter as they
                # are: the definition says report, never clamp; the samples carry a flag
                median_lag(group),
                within,
                artifact,
                day0_definition,
            )
        )
    return out


def lower_median(values: Sequence[float]) -> float | None:
    """The lower median (None for no values): with open lags among them, the least the
    Kaplan-Meier median can still turn out to be, since an open lag only grows."""
    ordered = sorted(values)
    return float(ordered[(len(ordered) - 1) // 2]) if ordered else None
