"""Trend figures for people and files: the "Is the gap closing?" table, `tracker lag --trend`,
summary.json and the digest's one line per regime.

The numbers are computed in tracker.measure (trend, rate_trend, trend_figures.Trends); this
module only words and formats them. Every slope is labelled as a bracket when open artifacts
leave it one, and every verdict sits beside the counts it rests on.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from datetime import date, datetime

from tracker.measure.ci.rates import NO_RECORD
from tracker.measure.headline.trends import Trends
from tracker.measure.stats.rate_trend import RateTrend
from tracker.measure.stats.trend import (
    LEVEL,
    MIN_CI_JOBS,
    MIN_FRICTION_EVENTS,
    MIN_TREND_ARTIFACTS,
    POOLED,
    PRIOR_WEEKS,
    RECENT_WEEKS,
    LagTrend,
)

TREND_COLUMNS = [
    "artifact_group",
    "regime",
    "definition",
    "artifacts",
    "open",
    "slope_low",
    "slope_high",
    "ci_low",
    "ci_high",
    "verdict",
    "min_artifacts",
    "recent_median",
    "recent_at_least",
    "recent_artifacts",
    "recent_open",
    "prior_median",
    "prior_artifacts",
    "prior_open",
    "first_day0",
    "last_day0",
    "not_observed",
    "recent_not_observed",
]
THRESHOLDS = (
    f"verdicts need at least {MIN_TREND_ARTIFACTS} artifacts (lag), {MIN_CI_JOBS} CI jobs and "
    f"{MIN_FRICTION_EVENTS} friction + optimization events in each window; intervals are "
    f"{LEVEL:.0%}; rates compare the last {RECENT_WEEKS} ISO weeks with the {PRIOR_WEEKS} before"
)


def ends_text(what: str, week: str | None, as_of: datetime | None, none: str | None = None) -> str:
    """Why a rate column is empty: "CI data ends 2026-W19 (2026-05-10), 104 d before the
    as-of date: nothing to compare in the last 12 weeks", or that there is none at all
    (`none`: what to say then, e.g. "no public CI record for this regime")."""
    window = f"the last {RECENT_WEEKS + PRIOR_WEEKS} weeks"
    if not week:
        return f"{none or f'no {what} collected for this regime'}: nothing to compare"
    year, _, number = week.partition("-W")
    end = date.fromisocalendar(int(year), int(number), 7)
    behind = f", {(as_of.date() - end).days} d before the as-of date" if as_of else ""
    return f"{what} ends {week} ({end.isoformat()}){behind}: nothing in {window} to compare"


def freshness_lines(last_weeks: dict[str, str], as_of: datetime, what: str = "CI") -> list[str]:
    """Per regime (charts' order), its newest week with data and how long before the as-of
    date it ends: "rocm: newest CI data 2026-W19 (ends 2026-05-10), 14 weeks before the as-of
    date"; regimes whose data reach the as-of date's week are left out."""
    from tracker.present.palette import ordered

    lines = []
    for regime in ordered(last_weeks):
        year, _, number = last_weeks[regime].partition("-W")
        end = date.fromisocalendar(int(year), int(number), 7)
        weeks = (as_of.date() - end).days // 7
        if weeks >= 1:
            lines.append(
                f"{regime}: newest {what} data {last_weeks[regime]} (ends {end.isoformat()}), "
                f"{weeks} week{'' if weeks == 1 else 's'} before the as-of date"
            )
    return lines


# -- words and numbers -------------------------------------------------------------------------
def days(value: float | None, signed: bool = True) -> str:
    """A finite number of days for people ("-" for None). Open (infinite) ends are worded by
    :func:`plain_range` ("at least X d/yr"), never passed here: they read "open", not "inf"."""
    if value is None:
        return "-"
    if math.isinf(value):
        return "open"
    if value == 0:
        return "0"  # "+0" read as a rounded small rise
    # small non-zero values keep a decimal: "+0" would read as "exactly no change"
    digits = 1 if 0 < abs(value) < 10 else 0
    return f"{value:+.{digits}f}" if signed else f"{value:.{digits}f}"


def plain_range(low: float | None, high: float | None, unit: str = " d/yr") -> str:
    """A range for people: an open end in words ("at least -86 d/yr", "at most +12 d/yr"),
    nothing known at either end as "not enough covered artifacts to say"."""
    if low is None or high is None:
        return "-"
    if math.isinf(low) and math.isinf(high):
        return "not enough covered artifacts to say"
    if math.isinf(high):
        return f"at least {days(low)}{unit}"
    if math.isinf(low):
        return f"at most {days(high)}{unit}"
    if low == high:
        return f"{days(low)}{unit}"
    return f"{days(low)} to {days(high)}{unit}"


def _per_year(value: float) -> str:
    days_ = days(value)
    return f"{days_} days a year" if days_ not in ("1", "+1", "-1") else f"{days_} day a year"


def change_text(low: float | None, high: float | None) -> str:
    """A slope or its interval in plain words: "grows by about 14 days a year", "somewhere
    from -42 to +19 days a year", "-28 days a year or more (open artifacts leave no upper
    limit)", "anything: too few covered artifacts to say"."""
    if low is None or high is None:
        return "-"
    if math.isinf(low) and math.isinf(high):
        return "anything: too few covered artifacts to say"
    if math.isinf(high):
        return f"{_per_year(low)} or more (open artifacts leave no upper limit)"
    if math.isinf(low):
        return f"{_per_year(high)} or less (no lower limit)"
    if low == high:
        if low == 0:
            return "unchanged (0 days a year)"
        verb = "grows" if low > 0 else "shrinks"
        return f"{verb} by about {days(abs(low), signed=False)} days a year"
    return f"somewhere from {days(low)} to {_per_year(high)}"


def median_text(median: float | None, n: int, n_open: int, at_least: float | None = None) -> str:
    """ "65 d (7 artifacts, 3 open)"; a median not reached reads "at least N d" when its lower
    bound is known (the headline answer's wording), else "not reached"."""
    if n == 0:
        return "no artifacts"
    if median is not None:
        value = f"{median:.0f} d"
    else:
        value = "not reached" if at_least is None else f"at least {at_least:.0f} d"
    return f"{value} ({n} artifacts, {n_open} open)"


def newest_text(t: RateTrend, as_of: datetime | None) -> str:
    """The newest comparable weeks of a stale rate, said plainly: "newest comparable CI data:
    2026-W16 to 2026-W19, 15 weeks before the as-of date: worsening: 65% of 3400 (2026-W16 to
    2026-W19) vs 85% of 6120 (2026-W08 to 2026-W15), change -25 to -15 pts"."""
    first, last = t.recent_weeks.split("..")
    year, _, number = last.partition("-W")
    end = date.fromisocalendar(int(year), int(number), 7)
    age = f", {(as_of.date() - end).days // 7} weeks before the as-of date" if as_of else ""
    return f"newest comparable CI data: {first} to {last}{age}: " + rate_text(t, windows=True)


def stale_ci_text(trends: Trends, regime: str, as_of: datetime) -> str:
    """What a regime's CI data last said when nothing is compared as of `as_of`: its newest
    comparable weeks, else when its data end; "" for a regime without CI data."""
    if regime in trends.ci_newest:
        return newest_text(trends.ci_newest[regime], as_of)
    if regime in trends.ci_last_week:
        return ends_text("CI data", trends.ci_last_week[regime], as_of)
    return ""


def sampled_text(trends: Trends, regime: str) -> str:
    """ "; partly a sample of runs (jax, pytorch: the CI section says what it is)" for a regime
    some of whose CI rows rest on a sampled record, else ""."""
    projects = trends.ci_sampled.get(regime)
    if not projects:
        return ""
    return (
        f"; partly a sample of runs ({', '.join(sorted(projects))}: the CI section says what it is)"
    )


def rate_text(
    t: RateTrend | None, what: str = "data", ends: str | None = None, windows: bool = False
) -> str:
    """The rate comparison in words; without a trend, `ends` says when the data end and so
    why the window is empty (a stale CI stream is not "not measured"), else that the window
    holds no `what`."""
    if t is None:
        return ends or f"no {what} in the last {RECENT_WEEKS + PRIOR_WEEKS} weeks"

    def pct(hits: int, total: int) -> str:
        return f"{hits / total:.0%} of {total}" if total else "none"

    change = ""
    if t.ci_low is not None and t.ci_high is not None:
        change = f", change {t.ci_low * 100:+.0f} to {t.ci_high * 100:+.0f} pts"
    recent, prior = f"last {RECENT_WEEKS} wk", f"{PRIOR_WEEKS} wk before"
    if windows:  # name the weeks: the windows are not the last ones before the as-of date
        recent, prior = (w.replace("..", " to ") for w in (t.recent_weeks, t.prior_weeks))
    return (
        f"{t.verdict}: {pct(t.recent_hits, t.recent_total)} ({recent}) vs "
        f"{pct(t.prior_hits, t.prior_total)} ({prior}){change}"
    )


# -- tables ---------------------------------------------------------------------------------
def headline(trends: Trends) -> list[dict]:
    """One row per regime for the "Is the gap closing?" table: the lag trend pooled over
    projects under each project's primary definition, CI job pass rate and friction share."""
    rows = []
    pooled = {t.regime: t for t in trends.lag if t.group == POOLED}
    ci = {t.regime: t for t in trends.ci}
    friction = {t.regime: t for t in trends.friction}
    for regime in trends.regimes():
        lag = pooled.get(regime)
        missing = "reference: lag 0" if regime == trends.reference else "no lag data"
        rows.append(
            {
                "regime": regime,
                "verdict": lag.verdict if lag else missing,
                "slope": change_text(lag.slope_low, lag.slope_high) if lag else "-",
                "interval": change_text(lag.ci_low, lag.ci_high) if lag else "-",
                "artifacts": f"{lag.artifacts} ({lag.open} open)" if lag else "-",
                "recent": median_text(
                    lag.recent_median, lag.recent_artifacts, lag.recent_open, lag.recent_at_least
                )
                if lag
                else "-",
                "prior": median_text(lag.prior_median, lag.prior_artifacts, lag.prior_open)
                if lag
                else "-",
                "ci": rate_text(
                    ci.get(regime),
                    "CI jobs",
                    ends_text(
                        "CI data",
                        trends.ci_last_week.get(regime),
                        trends.as_of,
                        f"{NO_RECORD} for this regime",
                    ),
                )
                + (
                    "; " + newest_text(trends.ci_newest[regime], trends.as_of)
                    if regime in trends.ci_newest
                    else ""
                )
                + sampled_text(trends, regime),
                "friction": rate_text(
                    friction.get(regime),
                    "tagged events",
                    ends_text(
                        "friction / optimization events",
                        trends.friction_last_week.get(regime),
                        trends.as_of,
                    ),
                ),
            }
        )
    return rows


def csv_value(value) -> str:
    """Infinite ends as "inf" / "-inf" (what Python and PostgreSQL read back), None as ""."""
    if value is None:
        return ""
    if isinstance(value, float):
        return "inf" if value == math.inf else "-inf" if value == -math.inf else f"{value:.1f}"
    return str(value)


def table_rows(trends: Sequence[LagTrend]) -> list[dict]:
    """Rows of `tracker lag --trend` (columns TREND_COLUMNS), pooled rows last."""
    return [{k: csv_value(v) for k, v in t.row().items()} for t in trends]


def json_ready(trends: Trends) -> dict:
    """For summary.json: strict JSON (no Infinity): open ends of the numeric fields as the
    strings "inf" / "-inf" (machine-readable, as in the CSVs), numbers rounded to 0.1 day;
    `by_regime` holds the table's words ("at least X d/yr")."""

    def clean(row: dict) -> dict:
        out = {}
        for k, v in row.items():
            if isinstance(v, float):
                v = csv_value(v) if math.isinf(v) else round(v, 3 if "rate" in k else 1)
            out[k] = v.isoformat() if hasattr(v, "isoformat") else v
        return out

    return {
        "method": "docs/methodology.md#is-the-gap-closing-the-trend-figures",
        "thresholds": THRESHOLDS,
        "by_regime": headline(trends),
        "lag": [clean(t.row()) for t in trends.lag],
        "ci_job_pass_rate": [clean(t.row()) for t in trends.ci],
        "friction_share": [clean(t.row()) for t in trends.friction],
    }


def digest_lines(trends: Trends) -> list[str]:
    """One line per regime for the digest: the verdict, the figure and its counts, e.g.
    "rocm: lag gap no clear change (-42 to +19 d/yr, 90%: at least -80 d/yr; 10 artifacts,
    2 open; KM median 65 d last 12 months vs 133 d before); CI job pass rate ...; friction ..."."""
    return [f"{regime}: {text}" for regime, text in digest_line_by_regime(trends).items()]


def digest_line_by_regime(trends: Trends) -> dict[str, str]:
    """The digest's trend text per regime (what `digest_lines` prefixes with the regime)."""
    ci = {t.regime: t for t in trends.ci}
    friction = {t.regime: t for t in trends.friction}
    lines = {}
    for row in headline(trends):
        regime = row["regime"]
        lag = next((t for t in trends.lag if t.group == POOLED and t.regime == regime), None)
        if lag is None:
            text = f"lag gap: {row['verdict']}"
        else:
            recent = median_text(
                lag.recent_median, lag.recent_artifacts, lag.recent_open, lag.recent_at_least
            )
            prior = median_text(lag.prior_median, lag.prior_artifacts, lag.prior_open)
            text = (
                f"lag gap {lag.verdict} ({plain_range(lag.slope_low, lag.slope_high)}, "
                f"{LEVEL:.0%}: {plain_range(lag.ci_low, lag.ci_high)}; {lag.artifacts} artifacts, "
                f"{lag.open} open; KM median {recent} last 12 months vs {prior} before)"
            )
        if regime in ci:
            text += f"; CI job pass rate {rate_text(ci[regime])}"
        if regime in friction:
            text += f"; friction share {rate_text(friction[regime])}"
        lines[regime] = text
    return lines
