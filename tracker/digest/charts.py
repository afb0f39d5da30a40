"""The digest's inline charts: small PNGs (about 640 px wide) for an email read on a phone.

Each regime keeps the report's colour and marker (tracker.present.palette) and gets its own
line style as well, so the charts still read printed in grey-scale. The legend sits under the
plot: a legend beside it would squeeze the plot at phone width. A week with nothing to show is a gap
in the line, never a zero. The CI and friction shares follow the report's rules
(tracker.present.share_chart): counts beside the points, hollow and unjoined under a few events,
and a regime with too few weeks is a sentence under the chart (tracker.digest.data), not a dot.
"""

from __future__ import annotations

import io
from collections.abc import Mapping, Sequence

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from tracker.present import palette  # noqa: E402
from tracker.present.chart_labels import keep_labels_inside  # noqa: E402
from tracker.present.share_chart import MIN_SHARE_EVENTS, Tally, draw_shares  # noqa: E402

LINE_STYLES = palette.LINE_STYLES
_EXTRA_STYLES = ((0, (5, 1, 1, 1, 1, 1)), (0, (1, 3)), (0, (8, 2)))
WIDTH_IN, HEIGHT_IN, DPI = 6.4, 3.4, 100


def _style(regime: str, index: int) -> object:
    return LINE_STYLES.get(regime, _EXTRA_STYLES[index % len(_EXTRA_STYLES)])


def _png(fig) -> bytes:
    buffer = io.BytesIO()
    fig.set_dpi(DPI)
    keep_labels_inside(fig)  # a point label beside a point near an edge would cross it
    # "tight" keeps the legend under the plot inside the image, without a blank band below it
    fig.savefig(buffer, format="png", dpi=DPI, bbox_inches="tight", pad_inches=0.08)
    plt.close(fig)  # pyplot keeps every figure alive until closed
    return buffer.getvalue()


def _lines(
    weeks: Sequence[str],
    series: Mapping[str, Sequence[float | None]],
    title: str,
    ylabel: str,
    missing: str | None = None,
) -> bytes | None:
    """One line per regime over `weeks` (None = gap); None when no regime has a value (the
    fallback lag chart; the shares have :func:`_shares`).
    Regimes are nudged a little apart so equal values stay visible; with `missing`, a regime
    without any value still gets a legend entry saying so (e.g. "median not reached")."""
    drawn = {r: v for r, v in series.items() if any(x is not None for x in v)}
    if not drawn:
        return None
    fig, ax = plt.subplots(figsize=(WIDTH_IN, HEIGHT_IN))
    x = list(range(len(weeks)))
    regimes = palette.ordered(drawn)
    for i, regime in enumerate(regimes):
        values = [float("nan") if v is None else v for v in drawn[regime]]
        nudge = 0.09 * (i - (len(regimes) - 1) / 2)
        ax.plot(
            [p + nudge for p in x],
            values,
            color=palette.colour(regime),
            marker=palette.marker(regime),
            markersize=6,
            linestyle=_style(regime, i),
            linewidth=2,
            label=regime,
        )
    absent = [r for r in palette.ordered(series) if r not in drawn] if missing else []
    for regime in absent:
        ax.plot(
            [],
            [],
            color=palette.colour(regime),
            marker=palette.marker(regime),
            linestyle="none",
            label=f"{regime}: {missing}",
        )
    ax.set_xlim(-0.5, len(x) - 0.5)  # room for the nudged first and last points
    ax.set_xticks(x[::2] if len(x) > 8 else x)
    # Read at phone width the image shrinks to about 60%: type stays at 10 px or more there.
    ax.set_xticklabels([w[2:] for w in weeks][:: 2 if len(x) > 8 else 1], fontsize=10)
    ax.tick_params(axis="y", labelsize=10)
    ax.set_title(title, fontsize=12)
    ax.set_ylabel(ylabel, fontsize=11)
    ax.set_ylim(bottom=0)
    ax.grid(axis="y", color="#dddddd", linewidth=0.6)
    ax.legend(
        fontsize=11,
        loc="upper center",
        bbox_to_anchor=(0.5, -0.13),
        ncol=max(1, min(4, len(drawn) + len(absent))),
        frameon=False,
    )
    return _png(fig)


def headline_chart(weeks: Sequence[str], points: Mapping, year_ago: Mapping) -> bytes | None:
    """The report's headline chart at digest scale (tracker.present.headline_chart): per
    regime the pooled Kaplan-Meier median lag at each week's end, a median not reached drawn
    at its lower bound with an arrow up (never a gap that reads as missing data), the
    artifacts it stands on below, and the same ISO weeks a year before drawn faded."""
    from tracker.present.headline_chart import draw

    if not any(p.artifacts for series in points.values() for p in series):
        return None
    step = 2 if len(weeks) > 8 else 1
    labels = [w.split("-")[-1] if i % step == 0 else "" for i, w in enumerate(weeks)]
    fig = draw(
        weeks,
        labels,
        points,
        "All-time pooled median lag at each week's end (faded: a year before)",
        size=(WIDTH_IN, 4.6),
        compare=year_ago,
        compare_label="same weeks a year before",
        font=10,
        marker_scale=0.6,
    )
    return _png(fig)


def lag_chart(weeks: Sequence[str], medians: Mapping[str, Sequence[float | None]]) -> bytes | None:
    """Median day-0 coverage lag per regime at the end of each week (primary definitions,
    all projects pooled, Kaplan-Meier so open artifacts count; a gap = median not reached).
    The digest draws :func:`headline_chart` when it has the points; this is the fallback."""
    return _lines(
        weeks,
        medians,
        "Median day-0 coverage lag at each week's end",
        "days behind day 0",
        missing="median not reached",
    )


def _shares(
    weeks: Sequence[str], series: Mapping[str, Sequence[Tally]], title: str, ylabel: str
) -> bytes | None:
    """One regime per series of weekly tallies, drawn as the report draws its shares
    (tracker.present.share_chart: points sized and labelled by count, hollow under
    MIN_SHARE_EVENTS, lines only between consecutive solid weeks); None without a point.
    Too-thin series are left out by the caller (tracker.digest.data), which words them."""
    position = {w: i for i, w in enumerate(weeks)}
    drawn = {r: [t for t in ts if t.period in position] for r, ts in series.items()}
    drawn = {r: ts for r, ts in drawn.items() if ts}
    if not drawn:
        return None
    fig, ax = plt.subplots(figsize=(WIDTH_IN, HEIGHT_IN))
    regimes = palette.ordered(drawn)
    for i, regime in enumerate(regimes):
        nudge = 0.09 * (i - (len(regimes) - 1) / 2)
        draw_shares(
            ax,
            regime,
            [position[t.period] + nudge for t in drawn[regime]],
            drawn[regime],
            adjacent=1.5,
            label=palette.name(regime),
            font=9,
            below=i % 2 == 1,  # counts of neighbouring regimes above / below, apart
        )
    x = list(range(len(weeks)))
    ax.set_xlim(-0.5, len(x) - 0.5)
    step = 2 if len(x) > 8 else 1
    ax.set_xticks(x[::step])
    ax.set_xticklabels([w[2:] for w in weeks][::step], fontsize=10)
    ax.tick_params(axis="y", labelsize=10)
    ax.set_title(f"{title}\nnumbers = counts; hollow = fewer than {MIN_SHARE_EVENTS}", fontsize=11)
    ax.set_ylabel(ylabel, fontsize=11)
    ax.set_ylim(-0.05, 1.15)
    ax.grid(axis="y", color="#dddddd", linewidth=0.6)
    ax.legend(
        fontsize=10,
        loc="upper center",
        bbox_to_anchor=(0.5, -0.13),
        ncol=max(1, min(4, len(drawn))),
        frameon=False,
    )
    return _png(fig)


def ci_chart(weeks: Sequence[str], tallies: Mapping[str, Sequence[Tally]]) -> bytes | None:
    """CI job pass rate per regime and ISO week (soft-failed jobs count as failed), with the
    jobs each week counts."""
    return _shares(
        weeks, tallies, "CI job pass rate per week (soft-failed = failed)", "job pass rate"
    )


def friction_chart(weeks: Sequence[str], tallies: Mapping[str, Sequence[Tally]]) -> bytes | None:
    """Friction share = friction / (friction + optimization) per regime and ISO week, with
    the events each week counts."""
    return _shares(
        weeks, tallies, "Friction share: friction / (friction + optimization)", "friction share"
    )


Series = Mapping[str, Sequence[float | None]]


def digest_charts(
    weeks: Sequence[str],
    lag: Series,
    ci: Mapping[str, Sequence[Tally]],
    friction: Mapping[str, Sequence[Tally]],
    lag_points: Mapping | None = None,
    year_ago: Mapping | None = None,
) -> dict[str, bytes]:
    """The charts that have data, by content id (lag, ci, friction): PNG bytes. With
    `lag_points` the lag chart is the report's headline chart (with `year_ago` faded). `ci`
    and `friction` hold the weekly tallies of the regimes with enough weeks to chart."""
    made = {
        "lag": headline_chart(weeks, lag_points, year_ago or {})
        if lag_points is not None
        else lag_chart(weeks, lag),
        "ci": ci_chart(weeks, ci),
        "friction": friction_chart(weeks, friction),
    }
    return {name: png for name, png in made.items() if png is not None}
