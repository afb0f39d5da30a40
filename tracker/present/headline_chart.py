"""The headline chart, drawn the same way in the report (per quarter of day 0) and the digest
(at each week's end, with the same weeks a year before): one line per regime of the pooled
Kaplan-Meier median lag (tracker.measure.headline.quarters), and under it how many artifacts each
point
stands on. It draws onto a matplotlib figure and returns it; the caller saves it (the report
as a file, the digest as inline bytes), so neither publisher imports the other.

How it reads: a filled marker is a median; a hollow marker with an arrow up is a median not
reached yet (more than half still open), drawn at its lower bound ("at least"). Lines join
only consecutive reached medians: a line into a bound would draw a trend the data do not have.
The bars are the artifacts of each point, the light part the open ones. Colours, markers and
line styles are tracker.present.palette's, as in every other chart; the legend sits under the
plot, inside the image, so it is never clipped.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

from tracker.present import matplotlib_home

matplotlib_home.settle()  # before matplotlib: a cache folder tracker owns (read-only HOME)
import matplotlib  # noqa: E402

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib import patheffects  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402

from tracker.measure.headline.quarters import MIN_POINT_ARTIFACTS, MedianPoint  # noqa: E402
from tracker.present import palette  # noqa: E402

Aligned = Sequence[MedianPoint | None]  # one entry per period, None where the regime has none


def align(periods: Sequence[str], points: Sequence[MedianPoint]) -> list[MedianPoint | None]:
    """`points` placed on `periods` (by their period label)."""
    by = {p.period: p for p in points}
    return [by.get(period) for period in periods]


def _size(n: int, scale: float) -> float:
    """Marker size grows with the artifacts a point stands on; small points stay visible."""
    return scale * (4 + 1.6 * math.sqrt(min(n, 40)))


def _value(p: MedianPoint | None) -> float | None:
    """Where a point is drawn: its median, or its lower bound when not reached."""
    if p is None or not p.artifacts:
        return None
    return p.median if p.median is not None else p.bound


def ceiling(series: Sequence[Aligned]) -> float | None:
    """The top of the lag axis: the well-supported medians (reached, at least
    MIN_POINT_ARTIFACTS artifacts) with some headroom, so one thin point or a lower bound far
    above (at least 705 d) does not flatten every other line: those are drawn at the axis's
    edge with their value. None when no median is well supported (the axis fits every point)."""
    values = [
        p.median
        for points in series
        for p in points
        if p is not None and p.artifacts >= MIN_POINT_ARTIFACTS and p.median is not None
    ]
    return max(values) * 1.25 + 10 if values else None


# White under each line: a regime's line stays visible where it runs on another (XLA's dotted
# line on CUDA's zero line).
_HALO = [patheffects.withStroke(linewidth=4, foreground="white")]


def _draw_regime(
    ax,
    xs: Sequence[float],
    points: Aligned,
    regime: str,
    faded: bool,
    scale: float,
    top: float | None = None,
    lane: int = 0,
) -> None:
    colour, style = palette.colour(regime), palette.line_style(regime)
    alpha = 0.45 if faded else 1.0
    run_x: list[float] = []
    run_y: list[float] = []

    def flush() -> None:
        if len(run_x) > 1:
            ax.plot(
                run_x,
                run_y,
                color=colour,
                linestyle=style,
                alpha=alpha,
                lw=1 if faded else 2,
                zorder=3,
                path_effects=None if faded else _HALO,
            )
        run_x.clear()
        run_y.clear()

    for x, p in zip(xs, points, strict=True):
        if p is None or not p.artifacts:
            flush()
            continue
        size = _size(p.artifacts, scale)
        value = _value(p)
        if top is not None and value is not None and value > top:
            # past the axis (only thinly supported points can be): a mark at its edge with
            # its value, never a line into it
            flush()
            ax.plot(
                [x],
                [top],
                marker=palette.marker(regime),
                markersize=size * 0.8,
                color=colour,
                markerfacecolor="white",
                alpha=alpha * 0.7,
                linestyle="none",
                clip_on=False,
                zorder=4,
            )
            ax.annotate(
                f"{'' if p.median is not None else '≥'}{value:.0f} d ↑",
                xy=(x, top),
                # neighbours' labels apart, and the regimes' of one quarter (equal values too)
                xytext=(0, -14 - 12 * ((round(x) + lane) % 3)),
                textcoords="offset points",
                ha="center",
                fontsize=8,
                color=colour,
                alpha=alpha,
            )
            continue
        if p.median is not None:
            run_x.append(x)
            run_y.append(p.median)
            small = p.artifacts < MIN_POINT_ARTIFACTS  # pale: too few to judge by
            ax.plot(
                [x],
                [p.median],
                marker=palette.marker(regime),
                markersize=size,
                color=colour,
                markerfacecolor="white" if faded else colour,
                alpha=alpha * (0.4 if small else 1.0),
                linestyle="none",
                zorder=4,
            )
            continue
        flush()  # a bound is not a value: the line stops here
        ax.plot(
            [x],
            [p.bound],
            marker=palette.marker(regime),
            markersize=size,
            color=colour,
            markerfacecolor="white",
            alpha=alpha,
            linestyle="none",
            zorder=4,
        )
        ax.annotate(
            "",
            xy=(x, p.bound),
            xytext=(0, 16),
            textcoords="offset points",
            arrowprops={"arrowstyle": "<-", "color": colour, "alpha": alpha, "lw": 1.2},
        )
    flush()


def draw(
    periods: Sequence[str],
    tick_labels: Sequence[str],
    series: Mapping[str, Aligned],
    title: str,
    size: tuple[float, float],
    compare: Mapping[str, Aligned] | None = None,
    compare_label: str = "",
    reference: str | None = None,
    font: float = 9,
    marker_scale: float = 1.0,
    legend_columns: int = 4,
) -> Figure:
    """The figure: medians on top, artifact counts below, legend under both. `series` maps a
    regime to its points aligned on `periods`; `compare` (same shape) is drawn faded (the
    digest's year-ago weeks). The `reference` regime is drawn as its zero line only."""
    fig, (ax, counts) = plt.subplots(
        2, 1, figsize=size, sharex=True, gridspec_kw={"height_ratios": [3, 1], "hspace": 0.08}
    )
    xs = list(range(len(periods)))
    regimes = palette.ordered(r for r in series if r != reference)
    top = ceiling(
        [series[r] for r in regimes] + [compare[r] for r in regimes if compare and r in compare]
    )
    width = 0.8 / max(1, len(regimes))
    tallest = 0
    for k, regime in enumerate(regimes):
        nudge = (k - (len(regimes) - 1) / 2) * min(width, 0.12)
        moved = [x + nudge for x in xs]
        _draw_regime(ax, moved, series[regime], regime, False, marker_scale, top, k)
        if compare and regime in compare:
            _draw_regime(ax, moved, compare[regime], regime, True, marker_scale, top, k)
        bar_x = [x + (k - (len(regimes) - 1) / 2) * width for x in xs]
        points = series[regime]
        covered = [(p.artifacts - p.open) if p else 0 for p in points]
        still_open = [p.open if p else 0 for p in points]
        tallest = max([tallest, *(p.artifacts for p in points if p)])
        counts.bar(bar_x, covered, width=width, color=palette.colour(regime))
        counts.bar(
            bar_x,
            still_open,
            width=width,
            bottom=covered,
            color=palette.colour(regime),
            alpha=0.3,
            hatch="///",
            edgecolor=palette.colour(regime),
            linewidth=0,
        )
    # the reference's zero line lies under every regime's line (zorder), thinner than them
    if reference is not None and reference in series:
        ax.axhline(
            0,
            color=palette.colour(reference),
            linestyle=palette.line_style(reference),
            linewidth=1.2,
            zorder=2,
        )
    else:
        ax.axhline(0, color="#bbbbbb", linewidth=0.8, zorder=2)
    handles = [
        plt.Line2D(
            [],
            [],
            color=palette.colour(r),
            marker=palette.marker(r),
            linestyle=palette.line_style(r),
            label=palette.name(r) + (" (reference, 0 d)" if r == reference else ""),
        )
        for r in palette.ordered(series)
    ]
    grey = "#555555"
    handles += [
        plt.Line2D([], [], color=grey, marker="o", linestyle="none", label="median"),
        plt.Line2D(
            [],
            [],
            color=grey,
            marker="$\\uparrow$",
            markersize=9,
            linestyle="none",
            label="not reached: at least",
        ),
        plt.Line2D(
            [],
            [],
            color=grey,
            alpha=0.4,
            marker="o",
            linestyle="none",
            label=f"pale: under {MIN_POINT_ARTIFACTS} artifacts",
        ),
    ]
    if compare:
        handles.append(plt.Line2D([], [], color=grey, alpha=0.45, linewidth=1, label=compare_label))
    ax.set_title(title, fontsize=font + 1)
    ax.set_ylabel("median lag (days)", fontsize=font)
    low, high = ax.get_ylim()
    if top is not None:
        high = min(high, top)
    ax.set_ylim(min(-5, low), high + 0.1 * (high - low))  # room for the arrows of the top bounds
    ax.grid(axis="y", color="#e4e4e4", linewidth=0.6)
    ax.tick_params(labelsize=font)
    counts.set_ylabel("artifacts\n(light: open)", fontsize=font - 1)
    counts.tick_params(labelsize=font - 1)
    counts.set_xticks(xs)
    counts.set_xticklabels(tick_labels, fontsize=font - 1)
    counts.set_xlim(-0.6, len(xs) - 0.4)
    # room above the tallest bar: autoscaling stops at a stacked bar's top (the open part's
    # bottom is a sticky edge), and a bar touching the frame reads as cut off
    counts.set_ylim(0, max(1, tallest) * 1.12)
    fig.legend(
        handles=handles,
        loc="lower center",
        ncol=min(legend_columns, len(handles)),
        fontsize=font,
        frameon=False,
        bbox_to_anchor=(0.5, 0.0),
    )
    rows = math.ceil(len(handles) / legend_columns)
    fig.subplots_adjust(left=0.09, right=0.98, top=0.92, bottom=0.1 + 0.055 * rows)
    return fig
