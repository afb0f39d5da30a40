"""PNG charts for the report (matplotlib, headless Agg backend).

Time runs on a real date axis (an ISO week is drawn at its Monday) and a line joins two points
only when nothing is missing between them, so a quiet stretch shows as a gap, not as a trend.
Each regime keeps one colour, marker shape and line style in every chart (tracker.measure.palette,
the digest's too); legends sit under the plot, inside the image, so they never hide a point and
are never cut off.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from datetime import date, datetime, timedelta
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.dates as mdates  # noqa: E402
import matplotlib.pyplot as plt  # noqa: E402

from tracker.measure import palette  # noqa: E402
from tracker.measure.lag import LagSample  # noqa: E402
from tracker.measure.trend import trend_line  # noqa: E402


def week_start(week: str) -> date:
    """Monday of an ISO week written ``YYYY-Www`` (the views' week column)."""
    year, _, number = week.partition("-W")
    return date.fromisocalendar(int(year), int(number), 1)


DPI = 110  # drawn at about 1100 px wide, shown at most that wide (sharp, and legible in print)
MIN_CI_WEEKS = 3  # a project with CI jobs in fewer weeks gets a sentence, not a near-empty panel
MIN_SHARE_EVENTS = 5  # months with fewer events are drawn hollow and never joined by a line


def _save(fig, path: Path) -> None:
    # "tight" grows the image to hold the legends under the plots: nothing is ever clipped
    fig.savefig(path, dpi=DPI, bbox_inches="tight", pad_inches=0.1)
    plt.close(fig)  # pyplot keeps every figure alive until closed


def _legend_below(ax, ncol: int = 3) -> None:
    """The legend under the plot, inside the image: beside it, it squeezed the plot and ran
    off the right edge."""
    if ax.get_legend_handles_labels()[0]:
        ax.legend(
            fontsize=8,
            loc="upper center",
            bbox_to_anchor=(0.5, -0.12),
            ncol=ncol,
            frameon=False,
            borderaxespad=0,
        )


def _date_axis(ax) -> None:
    """Date ticks that never collide: at most about 8, written concisely ("2025", "Apr")."""
    locator = mdates.AutoDateLocator(minticks=3, maxticks=8)
    ax.xaxis.set_major_locator(locator)
    ax.xaxis.set_major_formatter(mdates.ConciseDateFormatter(locator))
    ax.tick_params(axis="x", labelsize=8, labelbottom=True)


def lag_chart(path: Path, samples: Sequence[LagSample], as_of: datetime) -> bool:
    """One panel per project: lag (days) of each artifact at its day 0 under each regime's
    primary definition; filled = covered, hollow = still open (its lag grows until as_of).
    Regimes are nudged a few days apart so artifacts with the same day 0 and lag stay visible."""
    # model families have their own chart (model_charts.py): a family is not a release series
    primary = [s for s in samples if s.primary and s.artifact == "framework"]
    projects = sorted({s.project for s in primary})
    if not projects:
        return False
    fig, axes = plt.subplots(
        len(projects), 1, figsize=(10, 3.6 * len(projects)), squeeze=False, sharex=True
    )
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
                label=f"{regime}: still open (lag at least this)" if still_open else None,
                **style,
            )
            # an open lag is a lower bound: a short stalk up from each says so, so a row of
            # open artifacts is not read as a falling line
            ax.vlines(
                [s.day0 + nudge for s in still_open],
                [s.lag_days for s in still_open],
                [s.lag_days + 25 for s in still_open],
                color=palette.colour(regime),
                linewidth=0.8,
            )
            _trend_line(ax, group, regime)
        ax.set_title(
            f"{project}: day-0 coverage lag by day 0 (first release of the series); "
            f"hollow = open at {as_of:%Y-%m-%d}",
            fontsize=10,
        )
        ax.set_ylabel("days after day 0")
        ax.axhline(0, color="#cccccc", linewidth=0.8)
        ax.set_ylim(bottom=min(-5, ax.get_ylim()[0]))
        _date_axis(ax)
        _legend_below(ax, ncol=2)
    fig.subplots_adjust(hspace=0.75)
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
                linestyle=palette.line_style(regime),
                label=regime if i == 0 else None,
            )
    ax.set_ylim(-0.03, 1.03)


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
        _date_axis(ax)
        _legend_below(ax, ncol=4)
    fig.subplots_adjust(hspace=0.8)
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
    weeks hold too few events to read. Each point's area grows with its events and the
    number is written beside it; a month with fewer than MIN_SHARE_EVENTS events is hollow
    and never joined to its neighbours (one event is a share of 0 or 1, not a trend)."""
    shares = friction_share_by_month(rows)
    if not shares:
        return False
    fig, ax = plt.subplots(figsize=(10, 3.8))
    regimes = palette.ordered(shares)
    for k, regime in enumerate(regimes):
        nudge = timedelta(days=4) * (k - (len(regimes) - 1) / 2)
        points = shares[regime]
        colour = palette.colour(regime)
        label = regime if regime != "none" else "no regime tagged"
        for run in _runs(
            [(m, v) for m, v, n in points if n >= MIN_SHARE_EVENTS], timedelta(days=31)
        ):
            if len(run) > 1:
                ax.plot(
                    mdates.date2num([m + nudge for m, _ in run]),
                    [v for _, v in run],
                    color=colour,
                    linestyle=palette.line_style(regime),
                    linewidth=1.2,
                )
        ax.scatter(
            mdates.date2num([m + nudge for m, _, _ in points]),
            [v for _, v, _ in points],
            s=[12 + 10 * n for _, _, n in points],
            marker=palette.marker(regime),
            facecolors=[colour if n >= MIN_SHARE_EVENTS else "none" for _, _, n in points],
            edgecolors=colour,
            label=label,
        )
        for m, v, n in points:
            ax.annotate(
                str(n),
                (float(mdates.date2num(m + nudge)), v),
                xytext=(5, 4),
                textcoords="offset points",
                fontsize=7,
                color=colour,
            )
    ax.set_ylim(-0.08, 1.12)
    ax.set_title(
        "friction share = friction / (friction + optimization) per regime and month; "
        f"numbers = events; hollow = fewer than {MIN_SHARE_EVENTS}, not joined",
        fontsize=9,
    )
    ax.set_ylabel("friction share")
    _date_axis(ax)
    _legend_below(ax, ncol=5)
    _save(fig, path)
    return True


def split_sparse_ci(rows: Sequence[dict]) -> tuple[list[dict], list[str]]:
    """(rows of projects with CI jobs in at least MIN_CI_WEEKS weeks, one sentence per other
    project): a panel of one or two weeks is a near-empty box, a sentence says the same."""
    weeks: dict[str, set[str]] = defaultdict(set)
    for row in rows:
        if row.get("job_pass_rate") is not None:
            weeks[row.get("project") or "?"].add(row["week"])
    keep = {p for p, w in weeks.items() if len(w) >= MIN_CI_WEEKS}
    sentences = []
    for project in sorted(set(weeks) - keep):
        mine = [r for r in rows if (r.get("project") or "?") == project]
        parts = []
        for regime in palette.ordered({r.get("regime") or "none" for r in mine}):
            passed = sum(
                int(r.get("jobs_passed") or 0)
                for r in mine
                if (r.get("regime") or "none") == regime
            )
            failed = sum(
                int(r.get("jobs_failed") or 0)
                for r in mine
                if (r.get("regime") or "none") == regime
            )
            if passed + failed:
                parts.append(f"{regime} {passed}/{passed + failed} jobs passed")
        listed = ", ".join(sorted(weeks[project]))
        sentences.append(
            f"{project}: CI jobs in {len(weeks[project])} week(s) only ({listed}): "
            + ("; ".join(parts) or "no jobs counted")
            + " (too little for a chart; every row is in the table and ci_pass_rate_weekly.csv)"
        )
    return [r for r in rows if (r.get("project") or "?") in keep], sentences


def headline_chart(path: Path, series: dict, reference: str | None) -> bool:
    """The report's first picture: per regime, the pooled KM median lag of each quarter of day
    0 over the whole history (tracker.measure.headline, drawn by headline_chart)."""
    from tracker.measure.headline_chart import align, draw

    if not series:
        return False
    periods = sorted({p.period for points in series.values() for p in points})
    step = 1 if len(periods) <= 12 else 2  # two-line labels, every other one past 3 years
    labels = [q.replace("-", "\n") if i % step == 0 else "" for i, q in enumerate(periods)]
    fig = draw(
        periods,
        labels,
        {r: align(periods, points) for r, points in series.items()},
        "Day-0 coverage lag per quarter of day 0: Kaplan-Meier median, primary definitions, "
        "all projects pooled",
        size=(10, 5.2),
        reference=reference,
    )
    _save(fig, path)
    return True


def draw_all(
    out_dir: Path,
    samples: Sequence[LagSample],
    as_of: datetime,
    pass_rates: Sequence[dict],
    friction: Sequence[dict],
) -> dict[str, str | None]:
    """Draw every chart that has data: {chart: file name, or None when there is none}."""
    made: dict[str, str | None] = {}
    made["lag"] = "lag.png" if lag_chart(out_dir / "lag.png", samples, as_of) else None
    dense, _ = split_sparse_ci(pass_rates)
    made["ci"] = (
        "ci_job_pass_rate.png"
        if ci_pass_rate_chart(out_dir / "ci_job_pass_rate.png", dense)
        else None
    )
    made["friction"] = (
        "friction_ratio.png" if friction_chart(out_dir / "friction_ratio.png", friction) else None
    )
    return made
