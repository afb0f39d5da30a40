"""Issue 21: the report's charts are saved with one draw, not savefig "tight"'s two, and the
PNG is the one "tight" writes, byte for byte (legends under the plot grow the image; titles,
date ticks and a colour bar are measured the same way)."""

from __future__ import annotations

from datetime import date, timedelta
from pathlib import Path
from unittest import mock

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402

from tracker.report import charts  # noqa: E402


def _figure() -> Figure:
    """Two panels laid out like the report's: shared date axis, long titles, legends below
    the plots (outside the figure until the box grows to hold them)."""
    fig, axes = plt.subplots(2, 1, figsize=(10, 7.2), squeeze=False, sharex=True)
    days = [date(2024, 1, 1) + timedelta(days=9 * k) for k in range(40)]
    for n, ax in enumerate(axes[:, 0]):
        for regime in ("cuda", "rocm", "xla", "neuron"):
            ax.scatter(days, [(k * (n + 3)) % 37 for k in range(40)], label=f"{regime} (x)")
        ax.set_title(f"panel {n}: a title as long as the report's, to the right edge " * 2)
        ax.set_ylabel("days after day 0")
        charts._date_axis(ax)
        charts._legend_below(ax, ncol=2)
    fig.subplots_adjust(hspace=0.75)
    return fig


def test_save_png_is_what_tight_savefig_writes(tmp_path: Path) -> None:
    tight = _figure()
    tight.savefig(tmp_path / "tight.png", dpi=charts.DPI, bbox_inches="tight", pad_inches=0.1)
    plt.close(tight)
    charts.save_png(_figure(), tmp_path / "once.png")
    assert (tmp_path / "once.png").read_bytes() == (tmp_path / "tight.png").read_bytes()


def test_save_png_draws_the_figure_once(tmp_path: Path) -> None:
    fig = _figure()
    with mock.patch.object(Figure, "draw", autospec=True, side_effect=Figure.draw) as draw:
        charts.save_png(fig, tmp_path / "once.png")
    assert draw.call_count == 1
    assert not plt.fignum_exists(fig.number)  # closed: pyplot would keep it alive


def test_save_png_at_another_dpi_matches_tight(tmp_path: Path) -> None:
    # the model matrix is written at 90 dpi: text extents depend on the dpi, so the box must
    # be measured at the output's
    tight = _figure()
    tight.savefig(tmp_path / "tight.png", dpi=90, bbox_inches="tight", pad_inches=0.1)
    plt.close(tight)
    charts.save_png(_figure(), tmp_path / "once.png", dpi=90)
    assert (tmp_path / "once.png").read_bytes() == (tmp_path / "tight.png").read_bytes()
