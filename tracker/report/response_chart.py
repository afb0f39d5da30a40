"""The "How long do users wait?" chart: per regime, the Kaplan-Meier median hours from an issue's
opening to its first response, by quarter of opening, beside the median of the rest of the
same repositories (the baseline), issue counts at the points (tracker.measure.response;
docs/methodology.md, "Time to first response")."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from tracker.present import palette  # noqa: E402
from tracker.report.charts import save_png  # noqa: E402

# (regime, quarter, issues, answered, median_hours, baseline_issues, baseline_median_hours)
Point = tuple[str, str, int, int, float | None, int, float | None]


def response_chart(path: Path, points: Sequence[Point], reference: str) -> bool:
    """One panel per regime other than `reference`: x = quarters of opening, y = median hours
    to first response (solid: the regime; dashed, in the reference colour: its repositories'
    baseline). A quarter whose median is not reached yet (more than half unanswered) is said
    on the chart, not left blank. False when there is nothing to draw."""
    regimes = palette.ordered({p[0] for p in points if p[0] != reference})
    if not regimes:
        return False
    fig, grid = plt.subplots(
        1, len(regimes), figsize=(3.2 * len(regimes), 3.6), sharey=True, squeeze=False
    )
    top = max([1.0] + [v for p in points for v in (p[4], p[6]) if v is not None]) * 1.25
    for ax, regime in zip(grid[0], regimes, strict=True):
        mine = sorted((p for p in points if p[0] == regime), key=lambda p: p[1])
        x = range(len(mine))
        ax.plot(
            list(x),
            [p[4] for p in mine],
            marker=palette.marker(regime),
            linestyle=palette.line_style(regime) if len(mine) > 1 else "none",
            color=palette.colour(regime),
            label=palette.short_name(regime),
        )
        ax.plot(
            list(x),
            [p[6] for p in mine],
            marker=palette.marker(reference),
            linestyle="--" if len(mine) > 1 else "none",
            color=palette.colour(reference),
            alpha=0.8,
            label=f"baseline ({palette.short_name(reference)}, same repos)",
        )
        for i, p in enumerate(mine):
            if p[4] is None:
                ax.text(i, top * 0.9, "median not\nreached", ha="center", fontsize=7, color="#666")
            else:
                ax.annotate(
                    f"{p[2]}",
                    (i, p[4]),
                    textcoords="offset points",
                    xytext=(0, 6),
                    ha="center",
                    fontsize=7,
                    color=palette.colour(regime),
                )
        ax.set_title(palette.name(regime), fontsize=10, color=palette.colour(regime))
        ax.set_xticks(list(x), [p[1] for p in mine], fontsize=7, rotation=45)
        ax.set_xlim(-0.5, len(mine) - 0.5)
        ax.set_ylim(0, top)
        ax.grid(axis="y", alpha=0.3)
        ax.legend(fontsize=7, loc="upper center", bbox_to_anchor=(0.5, -0.3), ncol=1)
    grid[0][0].set_ylabel("median hours to first response\n(Kaplan-Meier)", fontsize=8)
    save_png(fig, path)
    return True
