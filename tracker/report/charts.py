"""PNG charts for the report (matplotlib, headless Agg backend).

Time runs on a real date axis (an ISO week is drawn at its Monday) and a line joins two points
only when nothing is missing between them, so a quiet stretch shows as a gap, not as a trend.
Each regime keeps one colour, marker shape and line style in every chart (tracker.present.palette,
the digest's too); legends sit under the plot, inside the image, so they never hide a point and
are never cut off.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from datetime import datetime, timedelta
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.dates as mdates  # noqa: E402
import matplotlib.pyplot as plt  # noqa: E402

from tracker.measure.lag.rows import LagSample  # noqa: E402
from tracker.measure.stats.trend import Bracket, LagTrend, known_brackets, trend_line  # noqa: E402
from tracker.present import palette  # noqa: E402
from tracker.present.chart_labels import keep_labels_inside  # noqa: E402
from tracker.present.share_chart import (  # noqa: E402
    MIN_SHARE_EVENTS,
    draw_shares,
    pool,
    split_sparse,
)
from tracker.present.trend_words import plain_range  # noqa: E402
from tracker.report.chart_data import (  # noqa: E402
    friction_period,
    project_of,
    regime_of,
    week_start,
)

# The page lays charts out at 110 CSS px per inch of figure and marks every PNG "2x" (srcset):
# drawn at twice that density, a chart is sharp on high-density screens and shown at its CSS
# size, never stretched above it (a 10 in figure: 1100 CSS px, 2200 px in the file).
CSS_PER_INCH = 110
DPI = 2 * CSS_PER_INCH


def save_png(fig, path: Path, dpi: int = DPI) -> None:
    """Write `fig` to `path` as a PNG at `dpi`, cropped (or grown) to its content plus 0.1 in,
    and close it: the image ``savefig(bbox_inches="tight", pad_inches=0.1)`` writes, byte for
    byte (tests/report/test_chart_save.py), with one draw instead of two."""
    # "tight" grows the image to hold the legends under the plots: nothing is ever clipped.
    # savefig's "tight" first draws the whole figure (rendering off) and then asks for the box;
    # get_tightbbox lays out ticks, titles and legends itself, so the box is asked for directly
    # (at the output dpi: text extents are measured in its pixels) and handed over as a Bbox.
    fig.set_dpi(dpi)
    keep_labels_inside(fig)  # a point label beside a point near an edge would cross it
    box = fig.get_tightbbox(fig.canvas.get_renderer()).padded(0.1)
    fig.savefig(path, dpi=dpi, bbox_inches=box)
    plt.close(fig)  # pyplot keeps every figure alive until closed


def _save(fig, path: Path) -> None:
    """Where this module's charts are written (tests capture the figures here)."""
    save_png(fig, path)


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


def lag_chart(
    path: Path, samples: Sequence[LagSample], as_of: datetime, trends: Sequence[LagTrend] = ()
) -> bool:
    """One panel per project: lag (days) of each artifact at its day 0 under each regime's
    primary definition; filled = covered, hollow = still open (its lag grows until as_of).
    Regimes are nudged a few days apart so artifacts with the same day 0 and lag stay visible.
    `trends` (lag_trends of these samples) lend their brackets to the trend lines."""
    known = known_brackets(trends, samples)
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
            _trend_line(ax, group, regime, known)
        ax.set_title(
            f"{project}: day-0 coverage lag by day 0 (first release of the series); "
            f"hollow = open at {as_of:%Y-%m-%d}",
            fontsize=10,
        )
        ax.set_ylabel("days after day 0")
        ax.axhline(0, color="#cccccc", linewidth=0.8)
        # at least -5..5 days: a series of lags near 0 keeps its markers inside the box
        low, high = ax.get_ylim()
        ax.set_ylim(min(-5, low), max(5, high))
        _date_axis(ax)
        _legend_below(ax, ncol=2)
    fig.subplots_adjust(hspace=0.75)
    _save(fig, path)
    return True


def _trend_line(
    ax, group: Sequence[LagSample], regime: str, known: Mapping[tuple, Bracket]
) -> None:
    """The Theil-Sen trend of one regime's lags (measure.stats.trend), dashed, over its day-0 span.
    With open artifacts the slope is a bracket (the label gives both ends); a line is drawn
    only when the bracket has one sign, at its end nearer zero, else the legend says the
    direction is unknown. No line for the reference regime or a single artifact."""
    if group[0].lag_days == 0 and all(s.lag_days == 0 for s in group):
        return  # the reference (or a day-0 definition): the zero line says it already
    line = trend_line(group, known)
    if line is None:
        return
    per_day, intercept, low, high = line
    # the table's wording (trend_figures.plain_range): an open end reads "at least X d/yr"
    label = f"{regime} trend {plain_range(low, high)}" + (" (open)" if high != low else "")
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


def ci_pass_rate_chart(path: Path, rows: Sequence[dict]) -> bool:
    """One panel per project: weekly CI job pass rate per regime (soft-failed jobs count as
    failed), from ``v_ci_pass_rate_weekly`` rows, drawn with its job counts
    (tracker.present.share_chart: sized and labelled points, weeks under MIN_SHARE_EVENTS jobs
    hollow, lines only between consecutive weeks)."""
    by_project: dict[str, list[dict]] = defaultdict(list)
    for row in rows:
        by_project[project_of(row)].append(row)
    series = {
        project: pool(
            mine, "jobs_passed", "jobs_failed", regime_of, lambda r: week_start(r["week"])
        )
        for project, mine in by_project.items()
    }
    series = {project: tallies for project, tallies in series.items() if tallies}
    if not series:
        return False
    projects = sorted(series)
    days = [t.period for by_regime in series.values() for ts in by_regime.values() for t in ts]
    fig, axes = plt.subplots(
        len(projects), 1, figsize=(10, 2.6 * len(projects)), squeeze=False, sharex=True
    )
    for ax, project in zip(axes[:, 0], projects, strict=True):
        regimes = palette.ordered(series[project])
        for k, regime in enumerate(regimes):
            tallies = series[project][regime]
            # regimes a day apart, so equal rates in the same week stay visible
            nudge = timedelta(days=1) * (k - (len(regimes) - 1) / 2)
            draw_shares(
                ax,
                regime,
                list(mdates.date2num([t.period + nudge for t in tallies])),
                tallies,
                adjacent=7.5,
                label=regime if regime != "none" else "no regime (job not mapped)",
                below=k % 2 == 1,  # counts of neighbouring regimes above / below, apart
            )
        # At least eight weeks wide: matplotlib would stretch a single week over four years.
        pad = max(timedelta(days=14), (timedelta(days=56) - (max(days) - min(days))) / 2)
        ax.set_xlim(mdates.date2num(min(days) - pad), mdates.date2num(max(days) + pad))
        ax.set_ylim(-0.05, 1.12)
        ax.set_title(
            f"{project}: CI job pass rate per ISO week (soft-failed jobs count as failed); "
            f"numbers = jobs; hollow = fewer than {MIN_SHARE_EVENTS}",
            fontsize=10,
        )
        ax.set_ylabel("job pass rate")
        _date_axis(ax)
        _legend_below(ax, ncol=4)
    fig.subplots_adjust(hspace=0.8)
    _save(fig, path)
    return True


def friction_chart(path: Path, rows: Sequence[dict]) -> bool:
    """Friction share per regime and calendar month, or quarter where months hold too few
    events (chart_data.friction_period): single weeks hold too few events to read. Drawn with
    tracker.present.share_chart's rules: each point's area grows with its events and the
    number is written beside it; a period with fewer than MIN_SHARE_EVENTS events is hollow
    and never joined to its neighbours (one event is a share of 0 or 1, not a trend). Regimes
    with events in too few periods are left to chart_data.sparse_friction."""
    period, name = friction_period(rows)
    dense, _ = split_sparse(pool(rows, "friction", "optimization", regime_of, period))
    if not dense:
        return False
    fig, ax = plt.subplots(figsize=(10, 3.8))
    regimes = palette.ordered(dense)
    for k, regime in enumerate(regimes):
        nudge = timedelta(days=4 if name == "month" else 12) * (k - (len(regimes) - 1) / 2)
        tallies = dense[regime]
        draw_shares(
            ax,
            regime,
            list(mdates.date2num([t.period + nudge for t in tallies])),
            tallies,
            adjacent=(31 if name == "month" else 92) + 8,  # consecutive periods, any nudge
            label=regime if regime != "none" else "no regime tagged",
        )
    ax.set_ylim(-0.08, 1.12)
    ax.set_title(
        f"friction share = friction / (friction + optimization) per regime and {name}; "
        f"numbers = events; hollow = fewer than {MIN_SHARE_EVENTS}, not joined",
        fontsize=9,
    )
    ax.set_ylabel("friction share")
    _date_axis(ax)
    _legend_below(ax, ncol=5)
    _save(fig, path)
    return True


def headline_chart(path: Path, series: dict, reference: str | None, narrow: bool = False) -> bool:
    """The report's first picture: per regime, the pooled KM median lag of each quarter of day
    0 over the whole history (tracker.measure.headline.quarters, drawn by headline_chart).
    `narrow`: the
    variant small screens get (about 550 CSS px wide, shown without shrinking at 600 px)."""
    from tracker.present.headline_chart import align, draw

    if not series:
        return False
    periods = sorted({p.period for points in series.values() for p in points})
    every = 2 if len(periods) > (6 if narrow else 12) else 1  # two-line labels, thinned
    labels = [q.replace("-", "\n") if i % every == 0 else "" for i, q in enumerate(periods)]
    title = (
        "Day-0 coverage lag per quarter of day 0\n"
        "Kaplan-Meier median, primary definitions, all projects pooled"
    )
    if narrow:
        title = "Day-0 lag per quarter of day 0\n(KM median, primary definitions, pooled)"
    fig = draw(
        periods,
        labels,
        {r: align(periods, points) for r, points in series.items()},
        title,
        size=(5.0, 4.6) if narrow else (7.4, 4.8),
        reference=reference,
        legend_columns=2 if narrow else 4,
    )
    _save(fig, path)
    return True
