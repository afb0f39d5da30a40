"""Is the gap closing, for rates: the CI job pass rate and the friction share of the last 4 ISO
weeks against the 8 before, with counts and Newcombe's score interval for the difference
(docs/methodology.md, "Is the gap closing?"). Pure functions, no I/O."""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from statistics import NormalDist

from tracker.measure.stats.trend import (
    IMPROVING,
    LEVEL,
    MIN_CI_JOBS,
    MIN_FRICTION_EVENTS,
    NO_CLEAR_CHANGE,
    PRIOR_WEEKS,
    RECENT_WEEKS,
    WORSENING,
)


# -- rates: CI job pass rate and friction share ------------------------------------------------
def newcombe_interval(
    passed1: int, total1: int, passed2: int, total2: int, level: float = LEVEL
) -> tuple[float, float]:
    """Interval for p1 - p2 (p = passed / total) by Newcombe's hybrid score method (1998,
    method 10): Wilson score intervals of each proportion combined. Good at small counts and
    at rates near 0 or 1, where the plain Wald interval fails."""
    z = NormalDist().inv_cdf((1 + level) / 2)
    (l1, u1), (l2, u2) = wilson(passed1, total1, z), wilson(passed2, total2, z)
    p1, p2 = passed1 / total1, passed2 / total2
    d = p1 - p2
    return (
        d - math.sqrt((p1 - l1) ** 2 + (u2 - p2) ** 2),
        d + math.sqrt((u1 - p1) ** 2 + (p2 - l2) ** 2),
    )


def wilson(passed: int, total: int, z: float) -> tuple[float, float]:
    """Wilson score interval of one proportion."""
    p = passed / total
    centre = (p + z * z / (2 * total)) / (1 + z * z / total)
    half = z * math.sqrt(p * (1 - p) / total + z * z / (4 * total * total)) / (1 + z * z / total)
    return centre - half, centre + half


@dataclass(frozen=True)
class RateTrend:
    """One regime's rate, last RECENT_WEEKS ISO weeks against the PRIOR_WEEKS before."""

    regime: str
    measure: str  # "CI job pass rate" | "friction share"
    recent_hits: int
    recent_total: int
    prior_hits: int
    prior_total: int
    ci_low: float | None  # interval of recent - prior (None: too few)
    ci_high: float | None
    verdict: str
    recent_weeks: str  # "2026-W15..2026-W18"
    prior_weeks: str

    @property
    def recent_rate(self) -> float | None:
        return self.recent_hits / self.recent_total if self.recent_total else None

    @property
    def prior_rate(self) -> float | None:
        return self.prior_hits / self.prior_total if self.prior_total else None

    def row(self) -> dict:
        return {
            "regime": self.regime,
            "measure": self.measure,
            "recent_weeks": self.recent_weeks,
            "recent": f"{self.recent_hits}/{self.recent_total}",
            "recent_rate": self.recent_rate,
            "prior_weeks": self.prior_weeks,
            "prior": f"{self.prior_hits}/{self.prior_total}",
            "prior_rate": self.prior_rate,
            "ci_low": self.ci_low,
            "ci_high": self.ci_high,
            "verdict": self.verdict,
        }


def _week_label(monday: date) -> str:
    year, week, _ = monday.isocalendar()
    return f"{year}-W{week:02d}"


def week_windows(as_of: datetime) -> tuple[list[str], list[str]]:
    """The ISO weeks of the recent window (the week of as_of and the RECENT_WEEKS - 1 before)
    and of the prior window (the PRIOR_WEEKS before those), oldest first."""
    monday = as_of.date() - timedelta(days=as_of.weekday())
    weeks = [_week_label(monday - timedelta(weeks=k)) for k in range(RECENT_WEEKS + PRIOR_WEEKS)]
    weeks.reverse()
    return weeks[PRIOR_WEEKS:], weeks[:PRIOR_WEEKS]


def rate_trends(
    rows: Iterable[Mapping],
    as_of: datetime,
    hits_key: str,
    misses_key: str,
    measure: str,
    minimum: int,
    higher_is_better: bool,
    noun: str,
) -> list[RateTrend]:
    """Per regime (pooled over projects), hits / (hits + misses) in the recent window against
    the prior one, from weekly view rows ({regime, week, hits_key, misses_key}). The verdict
    says "improving" / "worsening" only when the interval of the difference excludes 0, and
    "too few ..." when either window counts fewer than `minimum`."""
    recent_weeks, prior_weeks = week_windows(as_of)
    recent_set, prior_set = set(recent_weeks), set(prior_weeks)
    counts: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0, 0])
    for row in rows:
        regime, week = row.get("regime") or "none", row.get("week")
        hits, misses = int(row.get(hits_key) or 0), int(row.get(misses_key) or 0)
        if week in recent_set:
            counts[regime][0] += hits
            counts[regime][1] += hits + misses
        elif week in prior_set:
            counts[regime][2] += hits
            counts[regime][3] += hits + misses
    out = []
    for regime, (rh, rt, ph, pt) in sorted(counts.items()):
        if rt < minimum or pt < minimum:
            low = high = None
            verdict = f"too few {noun}"
        else:
            low, high = newcombe_interval(rh, rt, ph, pt)
            if low > 0:
                verdict = IMPROVING if higher_is_better else WORSENING
            elif high < 0:
                verdict = WORSENING if higher_is_better else IMPROVING
            else:
                verdict = NO_CLEAR_CHANGE
        out.append(
            RateTrend(
                regime,
                measure,
                rh,
                rt,
                ph,
                pt,
                low,
                high,
                verdict,
                f"{recent_weeks[0]}..{recent_weeks[-1]}",
                f"{prior_weeks[0]}..{prior_weeks[-1]}",
            )
        )
    return out


def ci_trends(pass_rate_rows: Iterable[Mapping], as_of: datetime) -> list[RateTrend]:
    """CI job pass rate per regime (v_ci_pass_rate_weekly rows); a higher rate is better."""
    return rate_trends(
        pass_rate_rows,
        as_of,
        "jobs_passed",
        "jobs_failed",
        "CI job pass rate",
        MIN_CI_JOBS,
        True,
        "jobs",
    )


def friction_trends(friction_rows: Iterable[Mapping], as_of: datetime) -> list[RateTrend]:
    """Friction share per regime (v_friction_weekly rows); a lower share is better."""
    return rate_trends(
        friction_rows,
        as_of,
        "friction",
        "optimization",
        "friction share",
        MIN_FRICTION_EVENTS,
        False,
        "events",
    )


NEWEST_SEARCH_WEEKS = 104  # how far back "newest comparable data" looks for an anchor week


def newest_data_trends(
    rows: Sequence[Mapping],
    as_of: datetime,
    trends: Callable[[Iterable[Mapping], datetime], list[RateTrend]],
    hits_key: str,
    misses_key: str,
    minimum: int,
) -> dict[str, RateTrend]:
    """Per regime whose rate cannot be compared as of `as_of` (too few in either window): the
    same comparison anchored at the newest earlier ISO week where both windows hold at least
    `minimum` ("newest comparable data"), so a stale stream shows what it last said, its weeks
    named, instead of only "too few". `trends` is ci_trends or friction_trends."""
    current = {t.regime: t for t in trends(rows, as_of)}
    weekly: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))
    for row in rows:
        total = int(row.get(hits_key) or 0) + int(row.get(misses_key) or 0)
        if total:
            weekly[row.get("regime") or "none"][str(row.get("week"))] += total
    out = {}
    latest = as_of.date() - timedelta(days=as_of.weekday())  # Monday of as_of's week
    for regime, totals in weekly.items():
        now = current.get(regime)
        if now is not None and now.ci_low is not None:
            continue  # compared as of as_of already
        for back in range(1, NEWEST_SEARCH_WEEKS + 1):
            monday = latest - timedelta(weeks=back)
            if _week_label(monday) not in totals:
                continue  # an anchor is a week with data
            weeks = [
                _week_label(monday - timedelta(weeks=k)) for k in range(RECENT_WEEKS + PRIOR_WEEKS)
            ]
            recent = sum(totals.get(w, 0) for w in weeks[:RECENT_WEEKS])
            prior = sum(totals.get(w, 0) for w in weeks[RECENT_WEEKS:])
            if recent >= minimum and prior >= minimum:
                end = datetime.combine(monday + timedelta(days=6), datetime.max.time(), tzinfo=UTC)
                mine = [r for r in rows if (r.get("regime") or "none") == regime]
                out[regime] = next(t for t in trends(mine, end) if t.regime == regime)
                break
    return out
