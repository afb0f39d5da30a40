"""What the report's charts and page share about the weekly rows, without matplotlib: ISO
weeks as dates, rows pooled by month, and the sentences that stand in for a chart when a series
is too thin (the writer needs them before and apart from the drawing, which happens in other
processes: tracker/report/side_by_side.py)."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from datetime import date

from tracker.present import palette
from tracker.present.share_chart import (
    MIN_SHARE_EVENTS,
    is_sparse,
    pool,
    sparse_sentence,
    split_sparse,
)


def week_start(week: str) -> date:
    """Monday of an ISO week written ``YYYY-Www`` (the views' week column)."""
    year, _, number = week.partition("-W")
    return date.fromisocalendar(int(year), int(number), 1)


def month_of(row: dict) -> date:
    return week_start(row["week"]).replace(day=1)


def quarter_of(row: dict) -> date:
    start = week_start(row["week"])
    return start.replace(month=3 * ((start.month - 1) // 3) + 1, day=1)


def friction_period(rows: Sequence[dict]):
    """(period function, its name): calendar months, or quarters when most months with events
    hold fewer than MIN_SHARE_EVENTS friction + optimization events (a share of 1 or 2
    events is 0 or 1, not a rate: a chart of such points is hollow dots that say nothing)."""
    months = pool(rows, "friction", "optimization", regime_of, month_of)
    points = [t for tallies in months.values() for t in tallies]
    thin = sum(t.total < MIN_SHARE_EVENTS for t in points)
    if points and thin * 2 > len(points):
        return quarter_of, "quarter"
    return month_of, "month"


def regime_of(row: dict) -> str:
    return row.get("regime") or "none"


def project_of(row: dict) -> str:
    return row.get("project") or "?"


def friction_share_by_month(rows: Sequence[dict]) -> dict[str, list[tuple[date, float, int]]]:
    """Per regime, ``(month, friction share, events)`` pooled from ``v_friction_weekly`` rows:
    share = friction / (friction + optimization) over the ISO weeks whose Monday falls in the
    month (neutral events do not count; months with neither class are left out)."""
    return {
        str(regime): [(t.period, t.share, t.total) for t in tallies]
        for regime, tallies in pool(rows, "friction", "optimization", regime_of, month_of).items()
    }


def split_sparse_ci(rows: Sequence[dict]) -> tuple[list[dict], list[str]]:
    """(rows of projects with CI jobs in at least MIN_PERIODS weeks, one sentence per other
    project): a panel of one or two weeks is a near-empty box, a sentence says the same."""
    by_project: dict[str, list[dict]] = defaultdict(list)
    for row in rows:
        by_project[project_of(row)].append(row)
    keep, sentences = set(), []
    for project in sorted(by_project):
        by_regime = pool(by_project[project], "jobs_passed", "jobs_failed", regime_of, week_of)
        weeks = [t.period for ts in by_regime.values() for t in ts]
        if not weeks:
            continue
        if not is_sparse([t for ts in by_regime.values() for t in ts]):
            keep.add(project)
            continue
        parts = [
            f"{regime} {sum(t.hits for t in ts)}/{sum(t.total for t in ts)} jobs passed"
            for regime, ts in ((r, by_regime[r]) for r in palette.ordered(by_regime))
        ]
        sentences.append(
            sparse_sentence(
                project,
                "CI jobs",
                weeks,
                parts,
                note="; every row is in the table and ci_pass_rate_weekly.csv",
            )
        )
    return [r for r in rows if project_of(r) in keep], sentences


def sparse_friction(rows: Sequence[dict]) -> list[str]:
    """One sentence per regime whose friction / optimization events fall in fewer than
    MIN_PERIODS periods (months or quarters, :func:`friction_period`; left out of the chart)."""
    period, _ = friction_period(rows)
    _, sparse = split_sparse(pool(rows, "friction", "optimization", regime_of, period))
    return [
        sparse_sentence(
            str(regime) if regime != "none" else "no regime tagged",
            "friction / optimization events",
            [t.period for t in sparse[regime]],
            [
                f"{sum(t.hits for t in sparse[regime])} friction of "
                f"{sum(t.total for t in sparse[regime])} friction + optimization"
            ],
            note="; every week is in friction_weekly.csv",
        )
        for regime in palette.ordered(sparse)
    ]


def week_of(row: dict) -> str:
    return row["week"]
