"""The model x regime matrix chart of the report (matplotlib, headless Agg backend).

One row per model family (newest day 0 on top), one column per regime; a cell holds the lag in
days under the regime's primary definition from the primary day 0 (``engine_cuda``). Covered
cells are filled by lag on one plum (red-purple) scale, light = short, dark = a year or more: a
single hue read by lightness stays legible to colour-blind readers and in grey-scale print, and
its hue is at least 40 degrees (CIE LCh) from every regime colour (tracker.present.palette:
green, red, blue, orange), so no cell reads as "this is CUDA" or "this is ROCm". Open cells are
white, hatched in dark grey, and read ``N+ open`` (their age at the report date: the lag is at
least that); a family whose day 0 precedes what was collected from the regime's evidence stream
is a white ``?`` cell with a dotted edge (unknown, see the report's list).
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.cm import ScalarMappable  # noqa: E402
from matplotlib.colors import LinearSegmentedColormap, Normalize  # noqa: E402
from matplotlib.patches import Rectangle  # noqa: E402

from tracker.measure.lag.rows import LagSample  # noqa: E402
from tracker.measure.models.summary import model_matrix  # noqa: E402
from tracker.names import REGIMES  # noqa: E402
from tracker.report.charts import save_png  # noqa: E402

# ColorBrewer RdPu's plum end, one hue (about 328 degrees in CIE LCh: the regime hues are 35,
# 69, 123 and 284; "Purples" sat 11 degrees from XLA's blue); from a visible tint, so a 0-day
# cell is not mistaken for a white (open or unknown) one
LAG_CMAP = LinearSegmentedColormap.from_list("lag", ["#f1e3f0", "#c994c7", "#7a0177"])
LAG_SCALE = Normalize(vmin=0, vmax=365, clip=True)  # a year or more is the darkest
OPEN_INK = "#333333"  # open cells: hatching, border and text (grey: no regime's colour)


def cell_colour(lag_days: int) -> tuple[float, float, float, float]:
    """The fill of a covered cell (RGBA): its lag on the purple scale, negatives as 0."""
    return LAG_CMAP(LAG_SCALE(max(lag_days, 0)))


def blank_cell(x: int, y: int, **edge) -> Rectangle:
    """A white cell inset in its square (open or unknown), its edge and hatch from ``edge``."""
    return Rectangle((x + 0.04, y + 0.08), 0.92, 0.84, facecolor="white", **edge)


def model_matrix_chart(path: Path, samples: Sequence[LagSample], as_of: datetime) -> bool:
    """Draw the matrix into ``path``; False (nothing written) when there are no model rows."""
    rows = model_matrix(samples)
    if not rows:
        return False
    # 5.2 in: about 570 CSS px, whole on a 600 px screen; fonts of 8-9 pt read 12-14 px there
    fig, ax = plt.subplots(figsize=(5.2, 1.2 + 0.36 * len(rows)))
    for y, row in enumerate(rows):
        for x, regime in enumerate(REGIMES):
            cell = row.cells.get(regime)
            if cell is None:
                ax.add_patch(blank_cell(x, y, edgecolor="#bbbbbb", linestyle=":", linewidth=0.8))
                ax.text(x + 0.5, y + 0.5, "?", ha="center", va="center", fontsize=9, color="#777")
            elif cell.status == "open":
                ax.add_patch(blank_cell(x, y, edgecolor=OPEN_INK, hatch="//", linewidth=1.0))
                # the label on a white box wide enough that no hatch line crosses its text
                ax.text(
                    x + 0.5, y + 0.5, f"{cell.lag_days}+ open", ha="center", va="center",
                    fontsize=8, color=OPEN_INK, fontweight="bold",
                    bbox={"facecolor": "white", "edgecolor": "none", "pad": 2.0},
                )  # fmt: skip
            else:
                ax.add_patch(
                    Rectangle((x, y), 1, 1, facecolor=cell_colour(cell.lag_days), edgecolor="white")
                )
                label = f"{cell.lag_days}" + (" (neg.)" if cell.lag_days < 0 else "")
                r, g, b, _ = cell_colour(cell.lag_days)
                ink = "white" if 0.299 * r + 0.587 * g + 0.114 * b < 0.5 else "black"
                ax.text(x + 0.5, y + 0.5, label, ha="center", va="center", fontsize=8, color=ink)
    ax.set_xlim(0, len(REGIMES))
    ax.set_ylim(len(rows), 0)
    ax.set_xticks([x + 0.5 for x in range(len(REGIMES))], REGIMES, fontsize=9)
    ax.xaxis.tick_top()
    ax.set_yticks(
        [y + 0.5 for y in range(len(rows))],
        [f"{r.family}  ({r.day0:%Y-%m-%d})" for r in rows],
        fontsize=8,
    )
    ax.tick_params(length=0)
    for side in ax.spines.values():
        side.set_visible(False)
    ax.set_title(
        f"Model day-0 lag, days from day 0 on CUDA (as of {as_of:%Y-%m-%d})\n"
        "filled: covered, darker = longer\nhatched: still open (age so far); "
        "?: day 0 before the evidence",
        fontsize=8,
        pad=22,
    )
    bar = fig.colorbar(
        ScalarMappable(LAG_SCALE, LAG_CMAP), ax=ax, orientation="horizontal",
        fraction=0.25 / fig.get_figheight(), pad=0.6 / fig.get_figheight(), aspect=40,
    )  # fmt: skip
    bar.set_ticks([0, 90, 180, 270, 365], labels=["0", "90", "180", "270", "365+"])
    bar.set_label("covered: lag in days", fontsize=8)
    bar.ax.tick_params(labelsize=8)
    save_png(fig, path)
    return True
