"""What the report's "How long do users wait?" section shows, shaped for the template and
summary.json (no drawing): per regime, by quarter of opening and overall, the median and 90th
percentile hours to first response against the baseline of its repositories, the time to close,
and how precisely the stored times are known (tracker.measure.response)."""

from __future__ import annotations

import csv
from pathlib import Path
from typing import Any

from tracker.measure.response import ResponseFigures, ResponseGroup
from tracker.present import palette
from tracker.present.response_words import hours_text, ratio_text, sample_note

ISSUE_CSV_COLUMNS = (
    "source_id", "project", "regime", "number", "url", "created_at", "first_response_at",
    "responder_association", "closed_at", "close_reason", "hours_to_first_response", "status",
)  # fmt: skip
QUARTER_CSV_COLUMNS = (
    "project", "regime", "quarter", "issues", "answered", "median_hours", "p90_hours",
    "median_days_to_close", "median_days_to_not_planned", "baseline_median_hours",
    "ratio_to_baseline",
)  # fmt: skip


def _days(value: float | None) -> str:
    return "not reached" if value is None else f"{value:.0f} d"


def _row(g: ResponseGroup) -> dict[str, Any]:
    return {
        "period": g.period,
        "issues": g.issues,
        "answered": g.answered,
        "median": hours_text(g.median_hours),
        "p90": hours_text(g.p90_hours),
        "close": _days(g.median_days_to_close),
        "not_planned": _days(g.median_days_to_not_planned),
        "baseline_issues": g.baseline_issues,
        "baseline": hours_text(g.baseline_median_hours) if g.baseline_issues else "no baseline",
        "ratio": ratio_text(g.ratio_to_baseline),
    }


def day_only(figures: ResponseFigures) -> int:
    """Issues whose opening and first response are both known to the day only (stored at
    midnight UTC): their waits are whole days."""

    def midnight(when) -> bool:
        return when is None or (when.hour, when.minute, when.second) == (0, 0, 0)

    return sum(midnight(r.created_at) and midnight(r.first_response_at) for r in figures.issues)


def response_section(figures: ResponseFigures, replay: bool = False) -> dict[str, Any]:
    """The template's `response`: regimes (id, name, colour, total, quarters) and counts, and
    the note on a sample beside them (present.response_words.sample_note; `replay`: the
    report is of a replayed snapshot)."""
    regimes = []
    for regime in palette.ordered({g.regime for g in figures.regimes}):
        groups = [g for g in figures.regimes if g.regime == regime]
        total = next(g for g in groups if g.period == "all")
        regimes.append(
            {
                "id": regime,
                "name": palette.name(regime),
                "colour": palette.colour(regime),
                "reference": regime == figures.reference,
                "total": _row(total),
                "quarters": [_row(g) for g in groups if g.period != "all"],
                "projects": sorted({r.project for r in figures.issues if r.regime == regime}),
            }
        )
    return {
        "regimes": regimes,
        "issues": len(figures.issues),
        "answered": sum(r.answered for r in figures.issues),
        "sample": sample_note(len(figures.issues), sum(r.answered for r in figures.issues), replay),
        "day_only": day_only(figures),
        "reference": palette.name(figures.reference),
    }


def chart_points(figures: ResponseFigures) -> list[tuple]:
    """Per regime and quarter: (regime, quarter, issues, answered, median, baseline issues,
    baseline median), plain tuples for the drawing process."""
    return [
        (g.regime, g.period, g.issues, g.answered, g.median_hours, g.baseline_issues,
         g.baseline_median_hours)
        for g in figures.regimes
        if g.period != "all"
    ]  # fmt: skip


def summary(figures: ResponseFigures) -> dict[str, Any]:
    """summary.json's `issue_response`: the per-regime figures overall and by quarter, the
    per-project quarters (the rows of v_issue_response_quarterly) and the issue count."""

    def plain(g: ResponseGroup) -> dict[str, Any]:
        return {
            "regime": g.regime,
            "period": g.period,
            "issues": g.issues,
            "answered": g.answered,
            "median_hours": g.median_hours,
            "p90_hours": g.p90_hours,
            "median_days_to_close": g.median_days_to_close,
            "median_days_to_not_planned": g.median_days_to_not_planned,
            "baseline_issues": g.baseline_issues,
            "baseline_median_hours": g.baseline_median_hours,
            "ratio_to_baseline": g.ratio_to_baseline,
        }

    return {
        "method": "docs/methodology.md#time-to-first-response",
        "issues": len(figures.issues),
        "issues_known_to_the_day_only": day_only(figures),
        "regimes": [plain(g) for g in figures.regimes],
        "quarterly": [
            {k: v for k, v in row.items() if k != "as_of"} for row in figures.quarterly_rows()
        ],
    }


def write_csvs(directory: Path, figures: ResponseFigures) -> None:
    """issue_response.csv and issue_response_quarterly.csv: the rows of the two views."""
    for name, rows, columns in (
        ("issue_response.csv", figures.issue_rows(), ISSUE_CSV_COLUMNS),
        ("issue_response_quarterly.csv", figures.quarterly_rows(), QUARTER_CSV_COLUMNS),
    ):
        with (directory / name).open("w", newline="", encoding="utf-8") as handle:
            writer = csv.DictWriter(handle, fieldnames=list(columns), extrasaction="ignore")
            writer.writeheader()
            writer.writerows(rows)
