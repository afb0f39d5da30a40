"""The trends the report, the digest and `tracker lag --trend` show, gathered in one object.

The numbers come from tracker.measure.stats.trend and rate_trend (pure); this module gathers their
inputs (lag samples, weekly rate rows) and returns them as :class:`Trends`. Words, tables and
JSON for people and files are in tracker.present.trend_words.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime

from tracker.measure.lag.rows import LagSample
from tracker.measure.stats.rate_trend import (
    RateTrend,
    ci_trends,
    friction_trends,
    newest_data_trends,
)
from tracker.measure.stats.trend import MIN_CI_JOBS, POOLED_DEFINITION, LagTrend, lag_trends
from tracker.names import LAYERS, REFERENCE_REGIME


@dataclass
class Trends:
    """Everything the report shows about trends."""

    lag: list[LagTrend]
    ci: list[RateTrend] = field(default_factory=list)
    friction: list[RateTrend] = field(default_factory=list)
    reference: str = REFERENCE_REGIME
    as_of: datetime | None = None
    # per regime, the newest ISO week with CI jobs / friction+optimization events at all: what
    # a rate column says when its window is empty ("CI data ends 2026-W19, ...")
    ci_last_week: dict[str, str] = field(default_factory=dict)
    friction_last_week: dict[str, str] = field(default_factory=dict)
    # per regime whose CI rate cannot be compared as of as_of: the comparison at its newest
    # comparable weeks (rate_trend.newest_data_trends), shown with their weeks and age
    ci_newest: dict[str, RateTrend] = field(default_factory=dict)
    # per regime, the projects whose CI rows come from a sampled record (a source's `sample`
    # key: measure.ci.rates.sampled_sources): the CI column says its figure rests partly on one
    ci_sampled: dict[str, list[str]] = field(default_factory=dict)

    def regimes(self) -> list[str]:
        found = {t.regime for t in self.lag} | {t.regime for t in self.ci + self.friction}
        return sorted(r for r in found if r != "none")


def compute_trends(
    samples: Sequence[LagSample],
    as_of: datetime,
    pass_rates: Sequence[dict] = (),
    friction: Sequence[dict] = (),
    reference_regime: str = REFERENCE_REGIME,
    lag: list[LagTrend] | None = None,
) -> Trends:
    """The trends of the lag samples and of the weekly rates (`lag`: the lag trends of these
    samples already computed, as the report does while the rates are read)."""
    return Trends(
        lag_trends(samples, as_of, reference_regime) if lag is None else lag,
        ci_trends(pass_rates, as_of),
        friction_trends(friction, as_of),
        reference_regime,
        as_of,
        last_weeks(pass_rates, ("jobs_passed", "jobs_failed")),
        last_weeks(friction, ("friction", "optimization")),
        newest_data_trends(pass_rates, as_of, ci_trends, "jobs_passed", "jobs_failed", MIN_CI_JOBS),
    )


def last_weeks(rows: Sequence[dict], counts: Sequence[str]) -> dict[str, str]:
    """Per regime, the newest ISO week whose rows count anything in `counts`."""
    out: dict[str, str] = {}
    for row in rows:
        if any(int(row.get(c) or 0) for c in counts):
            regime = row.get("regime") or "none"
            out[regime] = max(out.get(regime, ""), row["week"])
    return out


def store_rows(trends: Sequence[LagTrend], as_of: datetime) -> list[dict]:
    """Rows for the lag_trend table (first/last day 0 are not stored: lag_samples has them);
    a layer's pooled rows name their layer (v_layer_answer lists those)."""
    layer_of = {layer.group: layer.id for layer in LAYERS}
    return [
        {k: v for k, v in t.row().items() if k not in ("first_day0", "last_day0")}
        | {
            "as_of": as_of,
            "layer": layer_of.get(t.group) if t.definition == POOLED_DEFINITION else None,
        }
        for t in trends
    ]
