"""PNG charts for the report (matplotlib, headless Agg backend)."""

from __future__ import annotations

from collections import defaultdict
from datetime import datetime
from pathlib import Path
from typing import Sequence

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from tracker.metrics import LagSample  # noqa: E402

REGIME_COLOURS = {"cuda": "#76b900", "rocm": "#ed1c24", "xla": "#4285f4", "neuron": "#ff9900",
                  "none": "#888888"}


def _colour(regime: str) -> str:
    return REGIME_COLOURS.get(regime, "#555555")


def lag_chart(path: Path, samples: Sequence[LagSample], as_of: datetime) -> bool:
    """One panel per project: lag (days) of each artifact at its day 0 under each regime's
    primary definition; filled = covered, hollow = still open (its lag grows until as_of)."""
    primary = [s for s in samples if s.primary]
    projects = sorted({s.project for s in primary})
    if not projects:
        return False
    fig, axes = plt.subplots(len(projects), 1, figsize=(9, 3 * len(projects)), squeeze=False)
    for ax, project in zip(axes[:, 0], projects):
        for regime in sorted({s.regime for s in primary if s.project == project}):
            group = [s for s in primary if s.project == project and s.regime == regime]
            covered = [s for s in group if s.status == "covered"]
            still_open = [s for s in group if s.status == "open"]
            ax.scatter([s.day0 for s in covered], [s.lag_days for s in covered],
                       color=_colour(regime), label=f"{regime} ({group[0].definition})")
            ax.scatter([s.day0 for s in still_open], [s.lag_days for s in still_open],
                       facecolors="none", edgecolors=_colour(regime))
        ax.set_title(f"{project}: day-0 coverage lag (hollow = open at {as_of:%Y-%m-%d})")
        ax.set_ylabel("days after day 0")
        ax.axhline(0, color="#cccccc", linewidth=0.8)
        ax.legend(fontsize=7, loc="upper left")
    fig.tight_layout()
    fig.savefig(path, dpi=90)
    plt.close(fig)
    return True


def _weekly_chart(path: Path, rows: Sequence[dict], value: str, title: str,
                  ylabel: str) -> bool:
    series: dict[str, list[tuple[str, float]]] = defaultdict(list)
    for row in rows:
        if row.get(value) is not None:
            series[row.get("regime") or "none"].append((row["week"], float(row[value])))
    if not series:
        return False
    weeks = sorted({w for points in series.values() for w, _ in points})
    position = {w: i for i, w in enumerate(weeks)}
    fig, ax = plt.subplots(figsize=(9, 3.5))
    for regime, points in sorted(series.items()):
        points.sort()
        ax.plot([position[w] for w, _ in points], [v for _, v in points], marker="o",
                color=_colour(regime), label=regime)
    step = max(1, len(weeks) // 12)
    ax.set_xticks(range(0, len(weeks), step))
    ax.set_xticklabels(weeks[::step], rotation=45, fontsize=7)
    ax.set_ylim(-0.02, 1.02)
    ax.set_title(title)
    ax.set_ylabel(ylabel)
    ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=90)
    plt.close(fig)
    return True


def draw_all(out_dir: Path, samples: Sequence[LagSample], as_of: datetime,
             pass_rates: Sequence[dict], friction: Sequence[dict]) -> list[str]:
    """Draw every chart that has data; return the file names written."""
    made = []
    if lag_chart(out_dir / "lag.png", samples, as_of):
        made.append("lag.png")
    if _weekly_chart(out_dir / "ci_job_pass_rate.png", pass_rates, "job_pass_rate",
                     "CI job pass rate per regime and ISO week (soft-failed jobs count as failed)",
                     "job pass rate"):
        made.append("ci_job_pass_rate.png")
    if _weekly_chart(out_dir / "friction_ratio.png", friction, "friction_ratio",
                     "friction / (friction + optimization) per regime and ISO week", "ratio"):
        made.append("friction_ratio.png")
    return made
