"""Is the gap closing? Trend figures with their uncertainty, and verdicts only when supported.

Pure functions, no I/O (the report and the CLI feed rows in and get trends out). Method and
reasons in docs/methodology.md ("Is the gap closing?"); in short:

- **Lag trend** of one artifact group (one project, or all projects pooled) on one regime under
  one definition: the Theil-Sen slope of lag (days) against day 0 (years), i.e. days of lag
  gained (+) or lost (-) per year of day 0. An open artifact's lag is only a lower bound
  (lag >= observed_through - day0), so each pair of artifacts gives an *interval* of possible
  slopes, and
  the median of the pairs' lower ends and the median of their upper ends bracket the slope the
  complete data would give, whatever the open artifacts' final lags turn out to be
  (:func:`slope_bracket`). The 90% interval is a percentile bootstrap over artifacts: the 5th
  percentile of the lower end to the 95th percentile of the upper end. Open artifacts are never
  dropped: a late open artifact pushes the upper end up, so it can never make the gap look
  like it is closing.
- **Verdict** ("closing", "widening", "no clear change", "cannot tell yet", "too few
  artifacts"): closing only when the whole interval is below 0, widening only when it is all
  above 0, "cannot tell yet" when it is open at both ends (it says nothing, and "no clear
  change" would read as "stable"), and no verdict at all from fewer than
  :data:`MIN_TREND_ARTIFACTS` artifacts.
- **Period medians**: Kaplan-Meier median lag of artifacts whose day 0 is in the last 12 months
  against the 12 months before, each with its count of artifacts and of open ones; when the
  recent median is not reached, the lower median of the current lags bounds it from below.
- **Rates** (CI job pass rate, friction share): the last 4 ISO weeks against the 8 before, with
  counts, and Newcombe's score interval for the difference of two proportions.
"""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import date, datetime, timedelta

import numpy as np
from numpy.typing import ArrayLike

from tracker.measure.lag.rows import LagSample, Unknown

# LEVEL: every interval here is a 90% interval (re-exported: the rate trends and the figures
# take it from here); the bootstrap's seed is fixed: the same facts and as_of give the same report
from tracker.measure.stats.bootstrap import BOOTSTRAP_SAMPLES, bracket_and_interval, median
from tracker.measure.stats.bootstrap import LEVEL as LEVEL
from tracker.measure.stats.bootstrap import bootstrap_interval as bootstrap_interval
from tracker.measure.stats.pair_tables import pair_bounds
from tracker.measure.stats.survival import lower_median, median_lag
from tracker.names import LAYERS as ALL_LAYERS
from tracker.names import POOLED as POOLED
from tracker.names import REFERENCE_REGIME

MIN_TREND_ARTIFACTS = 6  # fewer artifacts in a group: "too few artifacts", never a verdict
PERIOD_DAYS = 365  # "last 12 months" and "the 12 months before", by day 0
RECENT_WEEKS = 4  # rates: the last 4 ISO weeks ...
PRIOR_WEEKS = 8  # ... against the 8 before
MIN_CI_JOBS = 30  # jobs counted in each window, else "too few jobs"
MIN_FRICTION_EVENTS = 20  # friction + optimization events in each window, else "too few events"
POOLED_DEFINITION = "primary"  # pooled rows take each project's primary definition
# The layers (tracker.names.LAYERS): the artifact kind -> its pooled group. The framework
# layer's is POOLED itself (a regime's rows pooled over projects), the headline answer.
LAYERS = {layer.id: layer.group for layer in ALL_LAYERS}
DAYS_PER_YEAR = 365.25

CLOSING, WIDENING, NO_CLEAR_CHANGE, CANNOT_TELL, TOO_FEW = (
    "closing",
    "widening",
    "no clear change",
    "cannot tell yet",
    "too few artifacts",
)
IMPROVING, WORSENING = "improving", "worsening"


# -- the lag slope ---------------------------------------------------------------------------
def slope_bracket(x: ArrayLike, y: ArrayLike, observed: ArrayLike) -> tuple[float, float]:
    """(low, high): the Theil-Sen slope of the complete data lies in [low, high] for any final
    lags of the open artifacts (each pair's true slope is within its bounds, and the median is
    monotone). Without open artifacts low == high == the Theil-Sen slope. NaN when no pair has
    two different x."""
    low, high = pair_bounds(x, y, observed)
    return median(low), median(high)


def slope_verdict(n: int, ci_low: float, ci_high: float, minimum: int = MIN_TREND_ARTIFACTS) -> str:
    """Words only when the data support them: the whole interval below 0 is closing, above 0
    widening; anything else (including an interval open at one end that spans 0) no clear
    change, but an interval open at both ends tells nothing: "cannot tell yet"; fewer than
    `minimum` artifacts never get a verdict."""
    if n < minimum or math.isnan(ci_low) or math.isnan(ci_high):
        return TOO_FEW
    if math.isinf(ci_low) and math.isinf(ci_high):
        return CANNOT_TELL
    if ci_high < 0:
        return CLOSING
    if ci_low > 0:
        return WIDENING
    return NO_CLEAR_CHANGE


# -- per group --------------------------------------------------------------------------------
@dataclass(frozen=True)
class LagTrend:
    """The trend of one artifact group on one regime under one definition."""

    group: str  # a project id, or POOLED
    regime: str
    definition: str
    artifacts: int
    open: int
    slope_low: float | None  # days of lag per year of day 0: bracket (None: no slope)
    slope_high: float | None  # may be +inf: open artifacts leave it unbounded
    ci_low: float | None  # 90% interval (may be -inf / +inf)
    ci_high: float | None
    verdict: str
    recent_median: float | None  # KM median lag, day 0 in the last 12 months (None: not reached)
    recent_at_least: float | None  # not reached: the lower median of the current lags
    recent_artifacts: int
    recent_open: int
    prior_median: float | None  # ... in the 12 months before
    prior_artifacts: int
    prior_open: int
    first_day0: date | None
    last_day0: date | None
    # artifacts with day 0 by as-of that the group leaves out as unknown (not observed by its
    # definition, or before its evidence starts), all / in the last 12 months; None where the
    # unknown rows do not say (model families: one unknown row stands for every day-0 definition)
    not_observed: int | None = None
    recent_not_observed: int | None = None

    def row(self) -> dict:
        """Plain values for CSV, JSON and the store (infinities as +inf / -inf floats)."""
        return {
            "artifact_group": self.group,
            "regime": self.regime,
            "definition": self.definition,
            "artifacts": self.artifacts,
            "open": self.open,
            "slope_low": self.slope_low,
            "slope_high": self.slope_high,
            "ci_low": self.ci_low,
            "ci_high": self.ci_high,
            "verdict": self.verdict,
            "min_artifacts": MIN_TREND_ARTIFACTS,
            "recent_median": self.recent_median,
            "recent_at_least": self.recent_at_least,
            "recent_artifacts": self.recent_artifacts,
            "recent_open": self.recent_open,
            "prior_median": self.prior_median,
            "prior_artifacts": self.prior_artifacts,
            "prior_open": self.prior_open,
            "first_day0": self.first_day0,
            "last_day0": self.last_day0,
            "not_observed": self.not_observed,
            "recent_not_observed": self.recent_not_observed,
        }


def _finite_or_none(value: float) -> float | None:
    """NaN (no slope) as None; infinities stay (an open end is information)."""
    return None if math.isnan(value) else value


def lag_trend(
    samples: Sequence[LagSample],
    as_of: datetime,
    group: str,
    regime: str,
    definition: str,
    samples_n: int = BOOTSTRAP_SAMPLES,
) -> LagTrend:
    """The trend of one group's samples (all of them: covered and open)."""
    x = [s.day0.timestamp() / 86400 / DAYS_PER_YEAR for s in samples]
    y = [float(s.lag_days) for s in samples]
    obs = [s.status == "covered" for s in samples]
    n, n_open = len(samples), sum(not o for o in obs)
    if n >= 2:
        # slope_bracket and bootstrap_interval of the same pairs, formed once
        low, high, ci_low, ci_high = bracket_and_interval(x, y, obs, samples_n)
    else:
        low = high = ci_low = ci_high = math.nan
    recent_from = as_of - timedelta(days=PERIOD_DAYS)
    prior_from = recent_from - timedelta(days=PERIOD_DAYS)
    recent = [s for s in samples if recent_from < s.day0 <= as_of]
    prior = [s for s in samples if prior_from < s.day0 <= recent_from]
    recent_median = median_lag(recent)
    return LagTrend(
        group,
        regime,
        definition,
        n,
        n_open,
        _finite_or_none(low),
        _finite_or_none(high),
        _finite_or_none(ci_low),
        _finite_or_none(ci_high),
        slope_verdict(n, ci_low, ci_high),
        recent_median,
        None if recent_median is not None else lower_median([s.lag_days for s in recent]),
        len(recent),
        sum(s.status == "open" for s in recent),
        median_lag(prior),
        len(prior),
        sum(s.status == "open" for s in prior),
        min((s.day0.date() for s in samples), default=None),
        max((s.day0.date() for s in samples), default=None),
    )


def definition_label(sample: LagSample) -> str:
    """The definition a trend row is keyed by: model families have two day-0 definitions, one
    row each, and are never one trend of both ("nxd_inference, day 0 vllm_cuda")."""
    if sample.artifact == "model":
        return f"{sample.definition}, day 0 {sample.day0_definition}"
    return sample.definition


def lag_trends(
    samples: Sequence[LagSample],
    as_of: datetime,
    reference_regime: str = REFERENCE_REGIME,
    group_of: Callable[[LagSample], str] | None = None,
    samples_n: int = BOOTSTRAP_SAMPLES,
    unknown: Sequence[Unknown] | None = None,
) -> list[LagTrend]:
    """Trends per (artifact group, regime, definition) for every definition, and per regime
    pooled over framework projects under each project's primary definition (group POOLED,
    definition POOLED_DEFINITION); model families get rows of their own per day-0 definition
    and stay out of the pool; kernel features have no trend rows (the kernel layer has its own
    matrix and medians, tracker.measure.kernels.summary). `group_of` names a sample's artifact
    group (default: its project). The reference regime (lag 0 by definition) is left out.
    `unknown` (the (project, series, regime, definition, reason) rows the lag left out) gives
    framework groups and the pooled rows their counts of artifacts not observed
    (:func:`not_observed_counts`)."""
    group_of = group_of or (lambda s: s.project)
    groups: dict[tuple[str, str, str], list[LagSample]] = defaultdict(list)
    for s in samples:
        if s.regime == reference_regime or s.artifact == "kernel":
            continue
        groups[(group_of(s), s.regime, definition_label(s))].append(s)
    out = [
        lag_trend(group, as_of, *key, samples_n=samples_n) for key, group in sorted(groups.items())
    ]
    out += layer_trends(samples, as_of, reference_regime, samples_n)
    if unknown is None:
        return out
    counts = not_observed_counts(samples, unknown, as_of, reference_regime)
    return [
        replace(t, not_observed=c[0], recent_not_observed=c[1])
        if (c := counts.get((t.group, t.regime, t.definition)))
        else t
        for t in out
    ]


def layer_trends(
    samples: Sequence[LagSample],
    as_of: datetime,
    reference_regime: str = REFERENCE_REGIME,
    samples_n: int = BOOTSTRAP_SAMPLES,
) -> list[LagTrend]:
    """Per layer (LAYERS) and regime, the trend of its artifacts pooled under their primary
    definition (group LAYERS[kind], definition POOLED_DEFINITION): framework series pooled over
    projects (the headline answer's rows), and each other kind on its own, never mixed (another
    kind of artifact, another lag). One artifact once per regime (a model family with several
    primary rows counts its first)."""
    pooled: dict[tuple[str, str], dict[tuple, LagSample]] = defaultdict(dict)
    for n, s in enumerate(samples):
        if s.regime == reference_regime or not s.primary or s.artifact not in LAYERS:
            continue
        # framework rows pool as they come (the headline's rows, unchanged); a model family
        # with several primary rows (one per engine) counts once
        key = (s.project, s.series) if s.artifact != "framework" else (n,)
        pooled[(s.artifact, s.regime)].setdefault(key, s)
    order = list(LAYERS)
    return [
        lag_trend(
            list(group.values()),
            as_of,
            LAYERS[kind],
            regime,
            POOLED_DEFINITION,
            samples_n=samples_n,
        )
        for (kind, regime), group in sorted(
            pooled.items(), key=lambda kv: (order.index(kv[0][0]), kv[0][1])
        )
    ]


def not_observed_counts(
    samples: Sequence[LagSample], unknown: Sequence[Unknown], as_of: datetime, reference: str
) -> dict[tuple[str, str, str], tuple[int, int]]:
    """(all, last 12 months by day 0) counts of the framework artifacts left out as unknown,
    per (project, regime, definition) and pooled per regime under each project's primary
    definition (POOLED, regime, POOLED_DEFINITION): the headline says how many series it does
    not count. Every framework group gets a count, zero included; day 0 from the reference
    rows (unknown rows whose series has none are not framework series)."""
    day0 = {
        (s.project, s.series): s.day0
        for s in samples
        if s.regime == reference and s.artifact == "framework"
    }
    primary = {(s.project, s.regime): s.definition for s in samples if s.primary}
    recent_from = as_of - timedelta(days=PERIOD_DAYS)
    counts: dict[tuple[str, str, str], list[int]] = {}
    for s in samples:
        if s.artifact == "framework" and s.regime != reference:
            counts.setdefault((s.project, s.regime, s.definition), [0, 0])
            counts.setdefault((POOLED, s.regime, POOLED_DEFINITION), [0, 0])
    for u in unknown:
        when = day0.get((u.project, u.series))
        if when is None or u.regime == reference:
            continue
        keys = [(u.project, u.regime, u.definition)]
        if primary.get((u.project, u.regime)) == u.definition:
            keys.append((POOLED, u.regime, POOLED_DEFINITION))
        for key in keys:
            count = counts.setdefault(key, [0, 0])
            count[0] += 1
            count[1] += recent_from < when <= as_of
    return {key: (c[0], c[1]) for key, c in counts.items()}


Bracket = tuple[int, float, float]  # (artifacts, low, high) of one group's Theil-Sen bracket


def known_brackets(
    trends: Sequence[LagTrend], samples: Sequence[LagSample]
) -> dict[tuple[str, str, str], Bracket]:
    """The brackets lag_trends already computed, keyed (project, regime, definition), so a
    chart need not form every pair again: only those whose trend counts exactly the samples
    of `samples` under that key (the trends came from these samples, by project)."""
    sizes = Counter((s.project, s.regime, definition_label(s)) for s in samples)
    return {
        (t.group, t.regime, t.definition): (
            t.artifacts,
            _nan_if_none(t.slope_low),
            _nan_if_none(t.slope_high),
        )
        for t in trends
        if t.group != POOLED and sizes[(t.group, t.regime, t.definition)] == t.artifacts
    }


def _nan_if_none(value: float | None) -> float:
    return math.nan if value is None else value


def trend_line(
    samples: Sequence[LagSample], known: Mapping[tuple[str, str, str], Bracket] | None = None
) -> tuple[float | None, float, float, float] | None:
    """What a chart may draw of the Theil-Sen bracket: (slope in days per day or None, intercept
    in days at x = 0 days since the epoch, low and high ends of the bracket per year). The slope
    is the bracket's end nearer zero, and only when both ends have one sign: with open
    artifacts the low end alone, drawn through their current lags, would slope down as if the
    gap were closing while their final lags may undo it. None without a slope at all. The
    bracket is taken from `known` (:func:`known_brackets`) when it holds these very samples:
    all under one key and as many as its trend counted (they are among that trend's)."""
    if len(samples) < 2:
        return None
    x = np.array([s.day0.timestamp() / 86400 for s in samples])
    y = np.array([float(s.lag_days) for s in samples])
    keys = {(s.project, s.regime, definition_label(s)) for s in samples}
    bracket = known.get(next(iter(keys))) if known and len(keys) == 1 else None
    if bracket is not None and bracket[0] == len(samples):
        low, high = bracket[1:]
    else:
        obs = [s.status == "covered" for s in samples]
        low, high = slope_bracket(x / DAYS_PER_YEAR, y, obs)
    if not math.isfinite(low):
        return None
    if low == high or (low > 0 and high > 0):
        drawn: float | None = low
    elif low < 0 and high < 0:
        drawn = high
    else:
        drawn = None
    per_day = (drawn or 0.0) / DAYS_PER_YEAR
    return (per_day if drawn is not None else None), float(np.median(y - per_day * x)), low, high
