"""The panels both delivered-performance charts draw on (perf_chart: MLPerf Inference,
training_chart: MLPerf Training): one panel per benchmark, two a row (one for small screens),
x = the rounds oldest first with their publication dates, y = a ratio to the best NVIDIA
result, whose 1 is drawn as a rule."""

from __future__ import annotations

from collections.abc import Sequence

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from tracker.present import palette  # noqa: E402


def round_panels(benchmarks: Sequence[str], columns: int, panel_height: float, sharey: bool = True):
    """(figure, grid of axes, one axes per benchmark): `columns` panels a row at most, 5 in
    wide each; the grid's spare panels hidden; one y scale for all unless `sharey` is False."""
    columns = min(columns, len(benchmarks))
    rows_n = -(-len(benchmarks) // columns)
    fig, grid = plt.subplots(
        rows_n,
        columns,
        figsize=(5.0 * columns, panel_height * rows_n),
        sharey=sharey,
        squeeze=False,
    )
    axes = list(grid.flat)
    for spare in axes[len(benchmarks) :]:
        spare.set_visible(False)
    return fig, grid, axes[: len(benchmarks)]


def nvidia_rule(ax, reference: str, label_at: float) -> None:
    """The best NVIDIA result's 1, a line in the reference regime's colour, named above it."""
    ax.axhline(1.0, color=palette.colour(reference), linewidth=1.2)
    ax.text(-0.3, label_at, "best NVIDIA = 1", fontsize=8, color="#444", va="bottom")


def finish_round_axis(
    ax,
    benchmark: str,
    rounds: Sequence[str],
    dates: Sequence[str],
    top: float,
    xlim: tuple[float, float],
    legend: tuple[float, int],
) -> None:
    """Title, round ticks (with their dates when given), x from `-xlim[0]` to
    `len(rounds) - xlim[1]`, y from 0 to `top`, and the legend under the panel (`legend`: how
    far below, columns) when anything was drawn with a label."""
    ax.set_title(benchmark, fontsize=10)
    labels = [f"{r}\n{d}" for r, d in zip(rounds, dates, strict=True)] if dates else rounds
    ax.set_xticks(range(len(rounds)), list(labels), fontsize=8)
    ax.set_xlim(-xlim[0], len(rounds) - xlim[1])
    ax.set_ylim(0, top)
    ax.grid(axis="y", alpha=0.3)
    if ax.get_legend_handles_labels()[0]:
        ax.legend(fontsize=8, loc="upper center", bbox_to_anchor=(0.5, legend[0]), ncol=legend[1])
