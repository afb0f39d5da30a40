"""PNG charts for the report (matplotlib, headless Agg backend).

Time runs on a real date axis (an ISO week is drawn at its Monday) and a line joins two points
only when nothing is missing between them, so a quiet stretch shows as a gap, not as a trend.
Each regime keeps one colour and one marker shape in every chart; legends sit outside the plot
so they never hide a point.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from datetime import date, datetime, timedelta
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from tracker.measure import palette  # noqa: E402
from tracker.measure.lag import LagSample  # noqa: E402
from tracker.measure.trend import trend_line  # noqa: E402


def week_start(week: str) -> date:
    """Monday of an ISO week written ``YYYY-Www`` (the views' week column)."""
    year, _, number = week.partition("-W")
    return date.fromisocalendar(int(year), int(number), 1)


def _save(fig, path: Path) -> None:
    fig.tight_layout()
    fig.savefig(path, dpi=90)
    plt.close(fig)  # pyplot keeps every figure alive until closed


def _legend_outside(ax) -> None:
    ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1.0), borderaxespad=0)


def lag_chart(path: Path, samples: Sequence[LagSample], as_of: datetime) -> bool:
    """One panel per project: lag (days) of each artifact at its day 0 under each regime's
    primary definition; filled = covered, hollow = still open (its lag grows until as_of).
    Regimes are nudged a few days apart so artifacts with the same day 0 and lag stay visible."""
    # model families have their own chart (model_charts.py): a family is not a release series
    primary = [s for s in samples if s.primary and s.artifact == "framework"]
    projects = sorted({s.project for s in primary})
    if not projects:
        return False
    fig, axes = plt.subplots(len(projects), 1, figsize=(10, 3 * len(projects)), squeeze=False)
    for ax, project in zip(axes[:, 0], projects, strict=True):
        mine = [s for s in primary if s.project == project]
        regimes = palette.ordered({s.regime for s in mine})
        span = max(s.day0 for s in mine) - min(s.day0 for s in mine)
        step = max(span / 150, timedelta(days=1))
        for i, regime in enumerate(regimes):
            group = [s for s in mine if s.regime == regime]
            nudge = step * (i - (len(regimes) - 1) / 2)
            covered = [s for s in group if s.status == "covered"]
            still_open = [s for s in group if s.status == "open"]
            style = {"marker": palette.marker(regime), "s": 36}
            ax.scatter(
                [s.day0 + nudge for s in covered],
                [s.lag_days for s in covered],
                color=palette.colour(regime),
                label=f"{regime} ({group[0].definition})",
                **style,
            )
            ax.scatter(
                [s.day0 + nudge for s in still_open],
                [s.lag_days for s in still_open],
                facecolors="none",
                edgecolors=palette.colour(regime),
                label=f"{regime}: still open" if still_open else None,
                **style,
            )
            _trend_line(ax, group, regime)
        ax.set_title(
            f"{project}: day-0 coverage lag (hollow = open at {as_of:%Y-%m-%d})", fontsize=10
        )
        ax.set_ylabel("days after day 0")
        ax.set_xlabel("day 0 (first release of the series)", fontsize=8)
        ax.axhline(0, color="#cccccc", linewidth=0.8)
        ax.set_ylim(bottom=min(-5, ax.get_ylim()[0]))
        _legend_outside(ax)
    _save(fig, path)
    return True


def _trend_line(ax, group: Sequence[LagSample], regime: str) -> None:
    """The Theil-Sen trend of one regime's lags (measure.trend), dashed, over its day-0 span.
    With open artifacts the slope is a bracket (the label gives both ends); a line is drawn
    only when the bracket has one sign, at its end nearer zero, else the legend says the
    direction is unknown. No line for the reference regime or a single artifact."""
    if group[0].lag_days == 0 and all(s.lag_days == 0 for s in group):
        return  # the reference (or a day-0 definition): the zero line says it already
    line = trend_line(group)
    if line is None:
        return
    per_day, intercept, low, high = line
    label = f"{regime} trend {low:+.0f} d/yr"
    if high != low:
        label = f"{regime} trend {low:+.0f} to " + (
            "unbounded d/yr (open)" if high == float("inf") else f"{high:+.0f} d/yr (open)"
        )
    if per_day is None:
        # An entry with no line: the legend keeps the figure without drawing a direction.
        ax.plot([], [], linestyle="none", label=label + ": direction unknown")
        return
    ends = [min(s.day0 for s in group), max(s.day0 for s in group)]
    xs = [d.timestamp() / 86400 for d in ends]
    ax.plot(
        ends,
        [intercept + per_day * x for x in xs],
        linestyle="--",
        linewidth=1,
        color=palette.colour(regime),
        label=label,
    )


def _runs(points: list[tuple[date, float]], gap: timedelta) -> list[list[tuple[date, float]]]:
    """Split date-sorted points where consecutive ones are more than ``gap`` apart."""
    runs: list[list[tuple[date, float]]] = []
    for point in points:
        if runs and point[0] - runs[-1][-1][0] <= gap:
            runs[-1].append(point)
        else:
            runs.append([point])
    return runs


def _plot_series(ax, series: dict[str, list[tuple[date, float]]], gap: timedelta) -> None:
    """One line per regime, broken at gaps; regimes nudged ``gap / 7`` apart so equal values
    in the same period stay visible."""
    regimes = palette.ordered(series)
    for k, regime in enumerate(regimes):
        nudge = gap / 7 * (k - (len(regimes) - 1) / 2)
        for i, run in enumerate(_runs(sorted(series[regime]), gap)):
            ax.plot(
                [d + nudge for d, _ in run],
                [v for _, v in run],
                marker=palette.marker(regime),
                markersize=5,
                color=palette.colour(regime),
                label=regime if i == 0 else None,
            )
    ax.set_ylim(-0.03, 1.03)
    ax.tick_params(axis="x", labelsize=7)


def ci_pass_rate_chart(path: Path, rows: Sequence[dict]) -> bool:
    """One panel per project: weekly CI job pass rate per regime (soft-failed jobs count as
    failed), from ``v_ci_pass_rate_weekly`` rows."""
    by_project: dict[str, dict[str, list]] = defaultdict(lambda: defaultdict(list))
    for row in rows:
        if row.get("job_pass_rate") is not None:
            by_project[row.get("project") or "?"][row.get("regime") or "none"].append(
                (week_start(row["week"]), float(row["job_pass_rate"]))
            )
    if not by_project:
        return False
    projects = sorted(by_project)
    days = [d for series in by_project.values() for points in series.values() for d, _ in points]
    fig, axes = plt.subplots(
        len(projects), 1, figsize=(10, 2.6 * len(projects)), squeeze=False, sharex=True
    )
    for ax, project in zip(axes[:, 0], projects, strict=True):
        _plot_series(ax, by_project[project], gap=timedelta(days=7))
        # At least eight weeks wide: matplotlib would stretch a single week over four years.
        pad = max(timedelta(days=14), (timedelta(days=56) - (max(days) - min(days))) / 2)
        ax.set_xlim(min(days) - pad, max(days) + pad)
        ax.set_title(
            f"{project}: CI job pass rate per ISO week (soft-failed jobs count as failed)",
            fontsize=10,
        )
        ax.set_ylabel("job pass rate")
        _legend_outside(ax)
    _save(fig, path)
    return True


def friction_share_by_month(rows: Sequence[dict]) -> dict[str, list[tuple[date, float, int]]]:
    """Per regime, ``(month, friction share, events)`` pooled from ``v_friction_weekly`` rows:
    share = friction / (friction + optimization) over the ISO weeks whose Monday falls in the
    month (neutral events do not count; months with neither class are left out)."""
    counts: dict[str, dict[date, list[int]]] = defaultdict(lambda: defaultdict(lambda: [0, 0]))
    for row in rows:
        friction, optimization = int(row.get("friction") or 0), int(row.get("optimization") or 0)
        if friction + optimization:
            pair = counts[row.get("regime") or "none"][week_start(row["week"]).replace(day=1)]
            pair[0] += friction
            pair[1] += optimization
    return {
        regime: sorted((month, f / (f + o), f + o) for month, (f, o) in months.items())
        for regime, months in counts.items()
    }


def friction_chart(path: Path, rows: Sequence[dict]) -> bool:
    """Friction share per regime and calendar month (:func:`friction_share_by_month`): single
    weeks hold too few events to read, their ratio jumps between 0 and 1."""
    shares = friction_share_by_month(rows)
    if not shares:
        return False
    fig, ax = plt.subplots(figsize=(10, 3.5))
    _plot_series(
        ax,
        {r: [(m, v) for m, v, _ in points] for r, points in shares.items()},
        gap=timedelta(days=31),
    )
    ax.set_title(
        "friction / (friction + optimization) per regime and month (issues and release-note items)",
        fontsize=10,
    )
    ax.set_ylabel("friction share")
    _legend_outside(ax)
    _save(fig, path)
    return True


def draw_all(
    out_dir: Path,
    samples: Sequence[LagSample],
    as_of: datetime,
    pass_rates: Sequence[dict],
    friction: Sequence[dict],
) -> list[str]:
    """Draw every chart that has data; return the file names written."""
    made = []
    if lag_chart(out_dir / "lag.png", samples, as_of):
        made.append("lag.png")
    if ci_pass_rate_chart(out_dir / "ci_job_pass_rate.png", pass_rates):
        made.append("ci_job_pass_rate.png")
    if friction_chart(out_dir / "friction_ratio.png", friction):
        made.append("friction_ratio.png")
    return made
