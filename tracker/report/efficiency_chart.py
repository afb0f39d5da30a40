"""The "Realized efficiency" chart: for the lead MLPerf Training benchmark at its smallest
compared accelerator count, each regime's best result set (NVIDIA's too) as a share of its
accelerator's dense peak, round by round, in two panels: over the BF16 peak and over the peak
of the number format it trained in (tracker.measure.perf.efficiency; docs/methodology.md,
"Realized efficiency")."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from tracker.measure.perf.training import LEAD_BENCHMARK, REFERENCE, TrainingRow
from tracker.present import palette
from tracker.report.charts import save_png
from tracker.report.round_panels import finish_round_axis, round_panels

PANELS = ("of the dense BF16 peak", "of the dense peak of the format used")


def lead_rows(rows: Sequence[TrainingRow], measured: bool = True) -> list[TrainingRow]:
    """The rows the chart draws: the lead benchmark at the smallest count where a regime and
    NVIDIA are compared, every regime's best (NVIDIA's included) with a BF16 efficiency (with
    `measured` False, without one too: the table says "no public record")."""
    compared = [
        r.accelerators
        for r in rows
        if r.benchmark == LEAD_BENCHMARK and r.regime != REFERENCE and r.ratio is not None
    ]
    if not compared:
        return []
    count = min(c or 0 for c in compared)
    return [
        r
        for r in rows
        if r.benchmark == LEAD_BENCHMARK
        and r.accelerators == count
        and r.best is not None
        and r.best.realized is not None
        and (r.best.realized.bf16[0] is not None or not measured)
    ]


def efficiency_chart(
    path: Path,
    rows: Sequence[TrainingRow],
    rounds: Sequence[str],
    dates: Sequence[str] = (),
    columns: int = 2,
) -> bool:
    """Two panels (BF16 peak, format peak): x = rounds, oldest first; y = model FLOP/s over the
    peak, a bar from the convention without attention to with it, a line per regime through the
    lower ends, each point naming the part and the format. False when there is nothing to
    draw."""
    drawn = lead_rows(rows)
    if not drawn or not rounds:
        return False
    x = {name: i for i, name in enumerate(rounds)}
    count = drawn[0].accelerators
    fig, grid, axes = round_panels(PANELS, columns, 4.2)
    top = 1.35
    for ax, panel in zip(axes, PANELS, strict=True):
        for regime in palette.ordered({r.regime for r in drawn}):
            points = []
            for r in sorted((r for r in drawn if r.regime == regime), key=lambda r: x[r.round]):
                assert r.best is not None and r.best.realized is not None
                low, high = (
                    r.best.realized.bf16 if panel == PANELS[0] else r.best.realized.at_format
                )
                if low is not None and high is not None and r.round in x:
                    points.append((x[r.round], low, high, r))
            if not points:
                continue
            colour = palette.colour(regime)
            ax.plot([p[0] for p in points], [p[1] for p in points], marker=palette.marker(regime),
                    color=colour, label=palette.short_name(regime))  # fmt: skip
            for pos, low, high, row in points:
                assert row.best is not None and row.best.realized is not None
                ax.vlines(pos, low, high, color=colour, linewidth=3, alpha=0.5)
                # NVIDIA's label above-right of its bar's top, the others' below-left of their
                # bar's foot: two regimes at one round never share a corner.
                nvidia = regime == REFERENCE
                ax.annotate(
                    f"{row.best.part} {row.best.realized.used.label}\n{low:.0%}-{high:.0%}",
                    (pos, high if nvidia else low),
                    textcoords="offset points",
                    xytext=(6, 4) if nvidia else (-6, -6),
                    ha="left" if nvidia else "right",
                    va="bottom" if nvidia else "top",
                    fontsize=7.5,
                    color=colour,
                    bbox={"boxstyle": "round,pad=0.1", "fc": "white", "ec": "none"},
                )
        for name, pos in x.items():  # a round without a figure: said, not left blank
            if not any(r.round == name for r in drawn):
                ax.text(pos, 0.03, "no record\nread", ha="center", fontsize=7, color="#666")
        ax.axhline(1.0, color="#999", linewidth=0.8, linestyle=":")
        finish_round_axis(
            ax, f"{LEAD_BENCHMARK} at {count}: {panel}", rounds, dates, top, (0.7, 0.3),
            (-0.16, 4),
        )  # fmt: skip
        ax.yaxis.set_major_formatter(lambda v, _pos: f"{v:.0%}")
    for row in grid:
        row[0].set_ylabel("model FLOP/s per accelerator /\ndense peak", fontsize=9)
    fig.subplots_adjust(hspace=0.6)
    save_png(fig, path)
    return True
