"""The CI parity chart (tracker.measure.ci.parity): per mirroring pipeline, the weekly share of
its reference's nightly test groups it ran and the share it passed, in the mirror's regime
colour, the week's reference groups (summed over its nightlies) written beside each point."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.dates as mdates  # noqa: E402
import matplotlib.pyplot as plt  # noqa: E402

from tracker.present import palette  # noqa: E402
from tracker.report.chart_data import week_start  # noqa: E402
from tracker.report.charts import _date_axis, _legend_below, save_png  # noqa: E402


def parity_chart(path: Path, rows: Sequence[dict]) -> bool:
    """One panel per mirror source: run share (solid) and pass share (dashed) per ISO week,
    from v_ci_parity rows. Weeks are joined only when consecutive."""
    by_source: dict[str, list[dict]] = defaultdict(list)
    for row in rows:
        by_source[row["source_id"]].append(row)
    if not by_source:
        return False
    sources = sorted(by_source)
    fig, axes = plt.subplots(len(sources), 1, figsize=(10, 3.2 * len(sources)), squeeze=False)
    for ax, source in zip(axes[:, 0], sources, strict=True):
        mine = sorted(by_source[source], key=lambda r: r["week"])
        regime, reference = mine[0]["regime"], mine[0]["reference_id"]
        days = [week_start(r["week"]) for r in mine]
        x = list(mdates.date2num(days))
        for key, style, label in (
            ("run_share", "-", f"{source} runs"),
            ("pass_share", "--", f"{source} passes"),
        ):
            ys = [r[key] for r in mine]
            for k in range(len(x)):  # a segment only between consecutive weeks
                if k and x[k] - x[k - 1] <= 7.5:
                    ax.plot(
                        x[k - 1 : k + 1], ys[k - 1 : k + 1], style, color=palette.colour(regime)
                    )
            ax.plot(
                x,
                ys,
                linestyle="none",
                marker=palette.marker(regime),
                color=palette.colour(regime),
                fillstyle="full" if key == "run_share" else "none",
                label=label,
            )
        for xi, row in zip(x, mine, strict=True):
            ax.annotate(
                f"{row['groups_run']}/{row['reference_groups']}",
                (xi, row["run_share"]),
                textcoords="offset points",
                xytext=(0, 7),
                ha="center",
                fontsize=7,
            )
        ax.set_ylim(0, 1.1)
        ax.set_ylabel(f"share of {reference}'s groups")
        ax.set_title(
            f"{source} against {reference}: share of the reference's nightly test groups run "
            "and passed per ISO week; numbers = groups run / reference groups (summed over "
            "the week's nightlies)",
            fontsize=9,
            wrap=True,
        )
        _date_axis(ax)
        _legend_below(ax, ncol=2)
    fig.subplots_adjust(hspace=0.9)
    save_png(fig, path)
    return True
