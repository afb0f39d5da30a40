"""summary.json: the report's figures for programs, the same values the page shows (every
number from tracker.measure.figures, worded by tracker.present where a sentence goes with it)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from tracker.measure.figures import Figures
from tracker.present import trend_words
from tracker.present.answer_words import LABEL, answer_text, layer_text
from tracker.present.benchmark_words import benchmark_json
from tracker.report import response_section as waits


def _day(when) -> str | None:
    return when.date().isoformat() if when else None


def summary_json(
    f: Figures,
    banner: str | None,
    answer: Sequence[dict[str, Any]],
    summary_rows: Sequence[dict[str, Any]],
    series_rows: Sequence[dict[str, Any]],
    moving: Mapping[tuple[str, str], str],
    training_rows: Sequence[dict[str, Any]],
) -> dict[str, Any]:
    """The document written as summary.json: `answer` (the first screen's rows),
    `summary_rows` (lag_summary.csv's), `series_rows` (headline_lag_quarterly.csv's),
    `moving` (regimes whose install channel is in transition) and `training_rows`
    (perf_training.csv's) are the rows the page and the CSVs show, passed in so that each is
    computed once."""
    as_of, point, samples, unknown = f.as_of, f.point, f.samples, f.unknown
    stale, pass_rates, other_rates, friction = f.stale, f.pass_rates, f.other_rates, f.friction
    return {
        "as_of": as_of.isoformat(),
        "as_of_label": point.label,
        "answer": [a.row() | {"text": answer_text(a), "definition": LABEL} for a in f.answers],
        "answer_method": "docs/methodology.md#the-headline-answer",
        "layers": [la.row() | {"text": layer_text(la)} for la in f.layers],
        "stale_sources": stale,
        "silent_channels": [c.row() for c in f.silent],
        "unread_tags": f.unread,
        "contradicting_times": f.contradicting,  # left out of every figure
        "data": banner or "collected upstream data",
        "gap_trend": trend_words.json_ready(f.trends),
        "headline_series": {
            "method": "docs/methodology.md#the-headline-series-lag-per-quarter",
            "cohort_comparison": [
                {"regime": a["regime"], "change": a["change"], "sentence": a["cohorts"]}
                for a in answer
            ],
            "quarters": series_rows,
        },
        "lag_primary": [r for r in summary_rows if r["period"] == "all" and r["primary"] == "true"],
        "in_transition": [
            {"project": p, "regime": r, "why": why} for (p, r), why in moving.items()
        ],
        "lag_samples": [s.csv_row() | {"negative": s.negative} for s in samples],
        "lag_unknown": [u.row() for u in unknown],
        "ci_pass_rate_weekly": pass_rates,
        "ci_pass_rate_other_triggers": other_rates,
        # configured (project, regime) pairs without a public CI record: no rate, these words
        "ci_no_public_record": f.ci_unrecorded,
        # CI sources whose record is a sample: what it is, its bias and its weeks
        "ci_samples": f.ci_samples,
        "friction_weekly": friction,
        "analyst_overrides": f.overrides,
        "independent_benchmark": benchmark_json(f.benchmark),
        "issue_response": waits.summary(f.response),
        "ci_test_pass_rate_weekly": f.ci_tests.weeks,
        "training_performance": {
            "method": "docs/methodology.md#delivered-performance-training",
            "rows": training_rows,
        },
        "format_adoption": {
            "method": "docs/methodology.md#number-format-adoption",
            "rows": [
                a.store_row(as_of)
                | {
                    "first_round_date": _day(a.first_date),
                    "nvidia_first_round_date": _day(a.nvidia_date),
                    "as_of": as_of.isoformat(),
                }
                for a in f.training.adoption
            ],
        },
    }
