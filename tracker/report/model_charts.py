"""The model x regime matrix chart of the report (matplotlib, headless Agg backend).

One row per model family (newest day 0 on top), one column per regime; a cell holds the lag in
days under the regime's primary definition from the primary day 0 (``engine_cuda``). Covered
cells are filled by lag
(green fast, red slow); open cells are white with a red hatched border and read ``N+ open``
(their age at the report date: the lag is at least that); a family whose day 0 precedes what was
collected from the regime's evidence stream is grey ``?`` (unknown, see the report's list).
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.colors import LinearSegmentedColormap, Normalize  # noqa: E402
from matplotlib.patches import Rectangle  # noqa: E402

from tracker.measure.lag import LagSample  # noqa: E402
from tracker.measure.model_summary import REGIMES, model_matrix  # noqa: E402

_CMAP = LinearSegmentedColormap.from_list("lag", ["#d9f0d3", "#fee08b", "#f46d43"])
_SCALE = Normalize(vmin=0, vmax=365, clip=True)  # a year or more is the reddest


def model_matrix_chart(path: Path, samples: Sequence[LagSample], as_of: datetime) -> bool:
    """Draw the matrix into ``path``; False (nothing written) when there are no model rows."""
    rows = model_matrix(samples)
    if not rows:
        return False
    fig, ax = plt.subplots(figsize=(8, 1.0 + 0.32 * len(rows)))
    for y, row in enumerate(rows):
        for x, regime in enumerate(REGIMES):
            cell = row.cells.get(regime)
            if cell is None:
                ax.add_patch(Rectangle((x, y), 1, 1, facecolor="#eeeeee", edgecolor="white"))
                ax.text(x + 0.5, y + 0.5, "?", ha="center", va="center", fontsize=7, color="#999")
            elif cell.status == "open":
                ax.add_patch(
                    Rectangle(
                        (x + 0.04, y + 0.08),
                        0.92,
                        0.84,
                        facecolor="white",
                        edgecolor="#b00000",
                        hatch="///",
                        linewidth=1.0,
                    )  # fmt: skip
                )
                ax.text(
                    x + 0.5, y + 0.5, f"{cell.lag_days}+ open", ha="center", va="center",
                    fontsize=7, color="#b00000", fontweight="bold",
                    bbox={"facecolor": "white", "edgecolor": "none", "pad": 0.5},
                )  # fmt: skip
            else:
                colour = _CMAP(_SCALE(max(cell.lag_days, 0)))
                ax.add_patch(Rectangle((x, y), 1, 1, facecolor=colour, edgecolor="white"))
                label = f"{cell.lag_days}" + (" (neg.)" if cell.lag_days < 0 else "")
                ax.text(x + 0.5, y + 0.5, label, ha="center", va="center", fontsize=7)
    ax.set_xlim(0, len(REGIMES))
    ax.set_ylim(len(rows), 0)
    ax.set_xticks([x + 0.5 for x in range(len(REGIMES))], REGIMES, fontsize=8)
    ax.xaxis.tick_top()
    ax.set_yticks(
        [y + 0.5 for y in range(len(rows))],
        [f"{r.family}  ({r.day0:%Y-%m-%d})" for r in rows],
        fontsize=7,
    )
    ax.tick_params(length=0)
    for side in ax.spines.values():
        side.set_visible(False)
    ax.set_title(
        f"Model day-0 lag, days from the first vLLM release (as of {as_of:%Y-%m-%d})\n"
        "hatched = still open (age so far), ? = day 0 before the evidence collected",
        fontsize=8,
        pad=16,
    )
    fig.tight_layout()
    fig.savefig(path, dpi=90)
    plt.close(fig)
    return True
