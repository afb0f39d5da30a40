"""The "Delivered performance: training" chart: per benchmark a regime and NVIDIA share, the
regime's best MLPerf Training time to train as a multiple of the best NVIDIA one at the same
accelerator count, round by round (tracker.measure.perf.training; docs/methodology.md)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from tracker.measure.perf.training import REFERENCE, TrainingRow
from tracker.present import palette
from tracker.present.chart_labels import keep_labels_inside
from tracker.report.charts import save_png
from tracker.report.round_panels import finish_round_axis, nvidia_rule, round_panels


def training_chart(
    path: Path,
    rows: Sequence[TrainingRow],
    benchmarks: Sequence[str],
    rounds: Sequence[str],
    dates: Sequence[str] = (),
    columns: int = 2,
) -> bool:
    """One panel per benchmark: x = rounds, oldest first; y = ratio (regime / best NVIDIA time
    at the same count; 1 = as fast, above = slower), a line per regime at the benchmark's
    smallest compared accelerator count (the other counts are in the round tables and
    perf_training.csv), each point naming the parts; each panel its own scale. False when there
    is nothing to draw."""
    compared = [r for r in rows if r.benchmark in benchmarks and r.regime != REFERENCE and r.ratio]
    smallest = {b: min(r.accelerators or 0 for r in compared if r.benchmark == b)
                for b in {r.benchmark for r in compared}}  # fmt: skip
    drawn = [r for r in compared if r.accelerators == smallest[r.benchmark]]
    if not drawn or not rounds:
        return False
    x = {name: i for i, name in enumerate(rounds)}
    fig, grid, axes = round_panels(benchmarks, columns, 4.2, sharey=False)  # 1 column: phones
    for ax, benchmark in zip(axes, benchmarks, strict=True):
        nvidia_rule(ax, REFERENCE, 1.02)
        mine = [r for r in drawn if r.benchmark == benchmark]
        top = max(2.5, max(r.ratio or 0 for r in mine) * 1.35)
        for regime in palette.ordered({r.regime for r in mine}):
            for count in sorted({r.accelerators or 0 for r in mine if r.regime == regime}):
                points = sorted(
                    (x[r.round], r)
                    for r in mine
                    if r.regime == regime and r.accelerators == count and r.round in x
                )
                ax.plot(
                    [p[0] for p in points],
                    [p[1].ratio for p in points],
                    marker=palette.marker(regime),
                    color=palette.colour(regime),
                    label=f"{palette.short_name(regime)}, {count} accelerators",
                )
                for i, (pos, row) in enumerate(points):
                    assert row.best is not None and row.nvidia is not None
                    ax.annotate(
                        f"{row.ratio:.2f}x\n{row.best.part} vs {row.nvidia.part}",
                        (pos, row.ratio or 0),
                        textcoords="offset points",
                        **_label_side([p[1].ratio or 0 for p in points], i),
                        fontsize=8,
                        color=palette.colour(regime),
                        bbox={"boxstyle": "round,pad=0.1", "fc": "white", "ec": "none"},
                    )
        # "no comparison" stands in the panel's own height (x in data, y in axes: each panel
        # has its own scale), low, but above the NVIDIA rule's label where a tall scale puts
        # that rule near the floor (bert's 32x)
        rule = 1.0 / top
        low = 0.03 if rule > 0.15 else rule + 0.08
        for name, pos in x.items():  # a round without a comparison: said, not left blank
            if not any(r.round == name for r in mine):
                ax.text(pos, low, "no\ncomparison", ha="center", va="bottom", fontsize=7,
                        color="#666", transform=ax.get_xaxis_transform())  # fmt: skip
        finish_round_axis(ax, benchmark, rounds, dates, top, (0.7, 0.3), (-0.16, 1))
    for row in grid:
        row[0].set_ylabel("time to train /\nbest NVIDIA time (>1 slower)", fontsize=9)
    fig.subplots_adjust(hspace=0.6)
    keep_labels_inside(fig)  # a label left of a point near the y axis would run through it
    save_png(fig, path)
    return True


def _label_side(ratios: Sequence[float], i: int) -> dict[str, object]:
    """Where point i's label goes so that neither its own line nor its neighbours' labels run
    through it. A line that falls to the right leaves the space above-right and below-left of
    each point free, one that rises below-right and above-left: labels alternate between the
    two, and the last point's goes inwards (left). A lone point is labelled above."""
    before = ratios[i - 1] if i > 0 else None
    after = ratios[i + 1] if i + 1 < len(ratios) else None
    if before is None and after is None:
        return {"xytext": (0, 8), "ha": "center", "va": "bottom"}
    rising = (after if after is not None else ratios[i]) > (
        before if before is not None else ratios[i]
    )
    right = i % 2 == 0 and after is not None
    up = right != rising  # falling: above-right or below-left; rising: below-right or above-left
    # a last label below-left sits a little lower: the label before it took the same side
    drop = 12 if after is None and not up else 6
    return {
        "xytext": (6 if right else -6, 6 if up else -drop),
        "ha": "left" if right else "right",
        "va": "bottom" if up else "top",
    }
