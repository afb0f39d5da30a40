"""The "Delivered performance" chart: per benchmark every round carries, each regime's best
MLPerf Inference result per accelerator as a share of the best NVIDIA one, round by round, the
deciding parts named on the points (tracker.measure.perf.inference; docs/methodology.md)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from tracker.measure.perf.inference import REFERENCE, ParityRow
from tracker.mentions.accelerators import short_name
from tracker.present import palette
from tracker.report.charts import save_png
from tracker.report.round_panels import finish_round_axis, nvidia_rule, round_panels

SCENARIOS = {"Offline": "-", "Server": "--", "Interactive": ":"}


def perf_chart(
    path: Path,
    rows: Sequence[ParityRow],
    benchmarks: Sequence[str],
    rounds: Sequence[str],
    dates: Sequence[str] = (),
    columns: int = 2,
) -> bool:
    """One panel per benchmark: x = rounds in order, y = ratio_to_best_cuda per regime and
    scenario (1 = the best NVIDIA result), each point labelled "part vs NVIDIA part". False when
    there is nothing to draw."""
    drawn = [r for r in rows if r.benchmark in benchmarks and r.ratio_to_best_cuda is not None]
    if not drawn or not rounds:
        return False
    x = {name: i for i, name in enumerate(rounds)}
    # two panels a row: 10 in (1100 CSS px) at most, whatever the number of benchmarks; one a
    # row for small screens (the report's <picture> swaps the two)
    fig, grid, axes = round_panels(benchmarks, columns, 4.4)
    top = max(1.25, max(r.ratio_to_best_cuda or 0 for r in drawn) + 0.25)
    for ax, benchmark in zip(axes, benchmarks, strict=True):
        nvidia_rule(ax, REFERENCE, 1.01)
        mine = [r for r in drawn if r.benchmark == benchmark and r.regime != REFERENCE]
        for regime in palette.ordered({r.regime for r in mine}):
            for scenario, style in SCENARIOS.items():
                points = sorted(
                    (x[r.round], r)
                    for r in mine
                    if r.regime == regime and r.scenario == scenario and r.round in x
                )
                if not points:
                    continue
                ax.plot(
                    [p[0] for p in points],
                    [p[1].ratio_to_best_cuda for p in points],
                    linestyle=style,
                    marker=palette.marker(regime),
                    color=palette.colour(regime),
                    label=f"{palette.short_name(regime)} {scenario}",
                )
            # One label per round: the regime's best part and the NVIDIA parts it is held to
            # (labels per scenario piled up on each other).
            for name, pos in x.items():
                here = [r for r in mine if r.regime == regime and r.round == name]
                if here:
                    cuda = sorted({short_name(r.best_cuda_accelerator or "") for r in here})
                    parts = sorted({r.part for r in here})
                    ax.annotate(
                        f"{'/'.join(parts)}\nvs {'/'.join(cuda)}",
                        (pos, max(r.ratio_to_best_cuda or 0 for r in here)),
                        textcoords="offset points",
                        xytext=(0, 8),
                        ha="center",
                        fontsize=8,
                        color=palette.colour(regime),
                        bbox={"boxstyle": "round,pad=0.1", "fc": "white", "ec": "none"},
                    )
        for name, pos in x.items():  # a round without any: said on the chart, not left blank
            if not any(r.round == name for r in mine):
                ax.text(pos, 0.05, "no non-NVIDIA\nresult", ha="center", fontsize=8, color="#666")
        finish_round_axis(ax, benchmark, rounds, dates, top, (0.4, 0.4), (-0.14, 2))
    for row in grid:
        row[0].set_ylabel("best per accelerator /\nbest NVIDIA per accelerator", fontsize=9)
    fig.subplots_adjust(hspace=0.55)
    save_png(fig, path)
    return True
